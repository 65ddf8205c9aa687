// The Poisson solver against manufactured trigonometric solutions (with and without lambda, with gradients),
// against an independent serial FFTW solve of a random right-hand side, and its refusal of a non-zero mean.
#include <fftw3.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>

#include "core/Error.hpp"
#include "solver/Poisson.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::global_max;

namespace {

// phi = sin(a) cos(2b) + 1/2 cos(3c) + 3/10 sin(a + b - 2c), with a = 2 pi x / Lx etc., and its derivatives.
struct Manufactured {
  Box box;
  double kx() const { return kTwoPi / box.lx; }
  double ky() const { return kTwoPi / box.ly; }
  double kz() const { return kTwoPi / box.lz; }
  double phi(double a, double b, double c) const {
    return std::sin(a) * std::cos(2 * b) + 0.5 * std::cos(3 * c) + 0.3 * std::sin(a + b - 2 * c);
  }
  double laplacian(double a, double b, double c) const {
    const double ax = kx(), ay = ky(), az = kz();
    return -(ax * ax + 4 * ay * ay) * std::sin(a) * std::cos(2 * b) - 9 * az * az * 0.5 * std::cos(3 * c) -
           (ax * ax + ay * ay + 4 * az * az) * 0.3 * std::sin(a + b - 2 * c);
  }
  std::array<double, 3> gradient(double a, double b, double c) const {
    const double s = 0.3 * std::cos(a + b - 2 * c);
    return {kx() * (std::cos(a) * std::cos(2 * b) + s), ky() * (-2 * std::sin(a) * std::sin(2 * b) + s),
            kz() * (-1.5 * std::sin(3 * c) - 2 * s)};
  }
};

}  // namespace

TEMPLATE_TEST_CASE("Poisson solves trigonometric manufactured solutions and their gradients to round-off",
                   "[solver]", float, double) {
  const std::array<long, 3> n{16, 12, 18};
  fft::SlabFFT<TestType> fft(n, MPI_COMM_WORLD, Device::create(Backend::host));
  const auto points = SlabPoints::make(fft.layout(), Box{});
  for (const Box& box : {Box{}, Box{kTwoPi, 1.5 * kTwoPi, 0.5 * kTwoPi}})
    for (double lambda : {0.0, 2.5}) {
      INFO("box " << box.lx << " x " << box.ly << " x " << box.lz << ", lambda " << lambda);
      const Manufactured m{box};
      Poisson<TestType> poisson(fft, box);
      std::vector<TestType> f(points.size());
      auto angles = [&](long p) {
        const Mode g = points.index(p);
        return std::array<double, 3>{kTwoPi * g.x / n[0], kTwoPi * g.y / n[1], kTwoPi * g.z / n[2]};
      };
      for (long p = 0; p < points.size(); ++p) {
        const auto t = angles(p);
        f[p] = TestType(m.laplacian(t[0], t[1], t[2]) - lambda * m.phi(t[0], t[1], t[2]));
      }
      std::vector<TestType> phi, gx, gy, gz;
      poisson.solve(f, phi, lambda);
      poisson.gradient(gx, gy, gz);
      double error = 0, gradient_error = 0;
      for (long p = 0; p < points.size(); ++p) {
        const auto t = angles(p);
        error = testing::worse(error, std::fabs(phi[p] - m.phi(t[0], t[1], t[2])));
        const auto g = m.gradient(t[0], t[1], t[2]);
        gradient_error = testing::worse(
            gradient_error, std::fabs(gx[p] - g[0]) + std::fabs(gy[p] - g[1]) + std::fabs(gz[p] - g[2]));
      }
      CHECK(global_max(error) < 10 * testing::round_off<TestType>());
      CHECK(global_max(gradient_error) < 10 * testing::round_off<TestType>());
    }
}

TEST_CASE("Poisson on a random right-hand side agrees with a serial FFTW solve of the whole field",
          "[solver]") {
  const std::array<long, 3> n{12, 10, 8};
  const Box box{kTwoPi, 0.75 * kTwoPi, 1.25 * kTwoPi};
  const long total = n[0] * n[1] * n[2], nzc = n[2] / 2 + 1;
  // The whole field, identical on every rank, with its mean removed.
  std::vector<double> whole(total);
  double mean = 0;
  for (long x = 0; x < n[0]; ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z)
        mean += whole[(x * n[1] + y) * n[2] + z] = kolmo::testing::random_value(x, y, z);
  mean /= double(total);
  for (double& value : whole) value -= mean;

  fft::SlabFFT<double> fft(n, MPI_COMM_WORLD, Device::create(Backend::host));
  const auto& layout = fft.layout();
  for (double lambda : {0.0, 1.5}) {
    INFO("lambda " << lambda);
    // Reference: serial r2c, divide by -(k^2 + lambda), c2r, normalise.
    std::vector<std::complex<double>> spectrum(n[0] * n[1] * nzc);
    std::vector<double> input = whole, reference(total);
    fftw_plan forward = fftw_plan_dft_r2c_3d(int(n[0]), int(n[1]), int(n[2]), input.data(),
                                             reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_ESTIMATE);
    fftw_execute(forward);
    fftw_destroy_plan(forward);
    for (long i = 0; i < n[0]; ++i)
      for (long j = 0; j < n[1]; ++j)
        for (long k = 0; k < nzc; ++k) {
          const double kx = kTwoPi / box.lx * (2 * i <= n[0] ? i : i - n[0]);
          const double ky = kTwoPi / box.ly * (2 * j <= n[1] ? j : j - n[1]);
          const double kz = kTwoPi / box.lz * k;
          const double symbol = kx * kx + ky * ky + kz * kz + lambda;
          auto& value = spectrum[(i * n[1] + j) * nzc + k];
          value = symbol == 0 ? 0.0 : -value / (symbol * double(total));
        }
    fftw_plan backward = fftw_plan_dft_c2r_3d(int(n[0]), int(n[1]), int(n[2]),
                                              reinterpret_cast<fftw_complex*>(spectrum.data()),
                                              reference.data(), FFTW_ESTIMATE);
    fftw_execute(backward);
    fftw_destroy_plan(backward);

    // kolmo, through the device-pointer interface and in place.
    Poisson<double> poisson(fft, box);
    auto field = fft.make_real();
    std::vector<double> slab(whole.begin() + layout.x_offset() * n[1] * n[2],
                             whole.begin() + (layout.x_offset() + layout.x_count()) * n[1] * n[2]);
    field.assign_from_host(slab);
    poisson.solve(field.data(), field.data(), lambda);
    const auto result = field.host_copy();
    double error = 0, scale = 0;
    for (std::size_t p = 0; p < slab.size(); ++p) {
      error = testing::worse(error, std::fabs(result[p] - reference[layout.x_offset() * n[1] * n[2] + p]));
      scale = testing::worse(scale, std::fabs(reference[layout.x_offset() * n[1] * n[2] + p]));
    }
    CHECK(global_max(error) / global_max(scale) < 1e-13);
  }
}

TEST_CASE("Poisson refuses a right-hand side with non-zero mean when lambda = 0, naming the mean",
          "[solver]") {
  const std::array<long, 3> n{8, 8, 8};
  fft::SlabFFT<double> fft(n, MPI_COMM_WORLD, Device::create(Backend::host));
  const auto points = SlabPoints::make(fft.layout(), Box{});
  std::vector<double> f(points.size());
  for (long p = 0; p < points.size(); ++p) f[p] = 0.25 + std::sin(kTwoPi * points.index(p).x / n[0]);
  Poisson<double> poisson(fft);
  std::vector<double> phi;
  std::string message;
  try {
    poisson.solve(f, phi, 0.0);
  } catch (const kolmo::Error& e) {
    message = e.what();
  }
  INFO("message: " << message);
  const auto at = message.find("mean ");
  const double named = at == std::string::npos ? 0.0 : std::stod(message.substr(at + 5));
  CHECK(global_max(std::fabs(named - 0.25)) < 1e-12);
  CHECK(message.find('\n') == std::string::npos);
  // With lambda > 0 the same right-hand side is fine: <phi> = -<f> / lambda.
  poisson.solve(f, phi, 2.0);
  double sum = 0;
  for (double value : phi) sum += value;
  CHECK(testing::global_sum(sum) / double(n[0] * n[1] * n[2]) == Approx(-0.125).epsilon(1e-13));
}
