// Exactness of kolmo's FFT where indices pass 2^31: grids of more than 2^31 points on one device, and one
// emulated rank of P whose slabs hold more than 2^31 values (FftOptions::emulated_ranks). An offset computed
// in 32 bits anywhere (a kernel, a plan, a copy's extent) would put values in the wrong place, or none, at
// the far end of a slab; here every value of both slabs is compared with a closed form, on the device.
// - One rank: f = sum of three waves a cos(2 pi n.x / N + phi), their modes kept by the 2/3 rule and near
//   its edge, n_z > 0: the forward transform must hold (Nx Ny Nz / 2) a exp(i phi) at each n and zero at
//   every other mode (dealiased: every kept mode), and the backward transform Nx Ny Nz f at every point.
// - Emulated rank r of P (even slabs, so that the loopback's chunks have the shapes of the real ones): the
//   full forward and backward pair of the waves returns Nx Ny Nz f on the rank's planes (the spectrum there
//   mixes this rank's chunks: fft/SlabFFT.hpp); and a field on the rank's first and last x planes with one
//   mode ky0 of its own ky planes, f = (w0 [x = x0] + w1 [x = x1]) cos(2 pi (ky0 y / Ny + c z / Nz) + phi),
//   which every other rank would send zeros for (as the loopback does), has its whole spectrum in this
//   rank's own chunk: F = Ny Nz / 2 exp(i phi) (w0 exp(-2 pi i kx x0 / Nx) + w1 exp(-2 pi i kx x1 / Nx)) at
//   (ky0, c), zero elsewhere, full and dealiased.
// One line per case: the largest error of the spectrum (relative to the largest coefficient) and of the
// real slab (relative to Nx Ny Nz times the largest |f|), PASS or FAIL against the precision's tolerance, or
// REFUSED with kolmo's message where the transform refuses the case (a way not offered at this size). Exit
// status 1 if any case fails.
//
//   kolmo_big_grid_check --n 2048 2048 1024 --precision single --ways full rows pruned masked_x copies
//   kolmo_big_grid_check --n 2048 --emulate-ranks 2 --ranks-checked 0 1 --routes copies strided placed
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "core/Device.hpp"
#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "fft/SlabFFT.hpp"
#include "solver/Reductions.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::solver::MaxAndSum;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

struct Wave {
  long nx, ny, nz;  // signed mode indices, 0 < nz < Nz / 2
  double amplitude, phase;
};

// The field and its spectrum in closed form, a plain value for device lambdas.
struct Field {
  long nx = 1, ny = 1, nz = 1;
  bool planes = false;  // false: the waves; true: one mode (ky0, c) on two x planes
  Wave waves[3] = {};
  long plane[2] = {0, 0};
  double weight[2] = {0, 0};
  long ky0 = 0, c = 1;
  double phase = 0;

  KOLMO_HD double points() const { return double(nx) * double(ny) * double(nz); }
  // The largest |f| bounds, and the largest |F|.
  double largest_value() const {
    if (planes) return std::fabs(weight[0]) + std::fabs(weight[1]);
    double sum = 0;
    for (const Wave& w : waves) sum += std::fabs(w.amplitude);
    return sum;
  }
  double largest_coefficient() const {
    if (planes) return double(ny) * double(nz) / 2 * (std::fabs(weight[0]) + std::fabs(weight[1]));
    double most = 0;
    for (const Wave& w : waves) most = std::fmax(most, points() / 2 * std::fabs(w.amplitude));
    return most;
  }

  // (k q mod n) / n, exactly, for the phase of index q at mode k.
  KOLMO_HD static double turns(long k, long q, long n) {
    const long r = ((k % n + n) % n) * q % n;
    return double(r) / double(n);
  }
  KOLMO_HD static long wrapped(long k, long n) { return (k % n + n) % n; }

  KOLMO_HD double value(long x, long y, long z) const {
    if (planes) {
      const double w = (x == plane[0] ? weight[0] : 0.0) + (x == plane[1] ? weight[1] : 0.0);
      return w == 0.0 ? 0.0 : w * cos(kTwoPi * (turns(ky0, y, ny) + turns(c, z, nz)) + phase);
    }
    double sum = 0;
    for (const Wave& w : waves) {
      const double t = turns(w.nx, x, nx) + turns(w.ny, y, ny) + turns(w.nz, z, nz);
      sum += w.amplitude * cos(kTwoPi * (t - floor(t)) + w.phase);
    }
    return sum;
  }

  // F at kx in [0, Nx), ky in [0, Ny), kz in [0, Nz/2].
  KOLMO_HD Complex<double> coefficient(long kx, long ky, long kz) const {
    Complex<double> sum(0, 0);
    if (planes) {
      if (ky != ky0 || kz != c) return sum;
      const double scale = double(ny) * double(nz) / 2;
      for (int p = 0; p < 2; ++p) {
        const double angle = phase - kTwoPi * turns(kx, plane[p], nx);
        sum += Complex<double>(scale * weight[p] * cos(angle), scale * weight[p] * sin(angle));
      }
      return sum;
    }
    for (const Wave& w : waves)
      if (kx == wrapped(w.nx, nx) && ky == wrapped(w.ny, ny) && kz == w.nz)
        sum += Complex<double>(points() / 2 * w.amplitude * cos(w.phase),
                               points() / 2 * w.amplitude * sin(w.phase));
    return sum;
  }
};

// Three waves kept by the 2/3 rule, at and near its edge in every direction (a direction of fewer than 4
// points keeps mode 0 only): large |n| puts a different phase on every plane, row and column.
Field waves_of(const std::array<long, 3>& n) {
  Field f;
  f.nx = n[0], f.ny = n[1], f.nz = n[2];
  auto edge = [](long size) { return (size - 1) / 3; };  // the largest kept |n|
  const long ex = edge(n[0]), ey = edge(n[1]), ez = edge(n[2]);
  KOLMO_REQUIRE(ez >= 1, "the checks need Nz >= 4 (a kept kz > 0)");
  f.waves[0] = {-ex, ey, ez, 1.0, 0.3};
  f.waves[1] = {ex / 2 + 1 <= ex ? ex / 2 + 1 : ex, -(ey / 3), ez / 2 + 1 <= ez ? ez / 2 + 1 : ez, 0.7, -1.1};
  f.waves[2] = {1 <= ex ? 1 : 0, 0, 1, 0.45, 2.0};
  return f;
}

// The rank's first and last x planes, and its last ky plane that the 2/3 rule keeps (its first if none).
Field planes_of(const SlabLayout& layout) {
  Field f;
  f.nx = layout.nx(), f.ny = layout.ny(), f.nz = layout.nz();
  f.planes = true;
  f.plane[0] = layout.x_offset();
  f.plane[1] = layout.x_offset() + layout.x_count() - 1;
  f.weight[0] = f.plane[1] == f.plane[0] ? 1.0 : 0.6;
  f.weight[1] = f.plane[1] == f.plane[0] ? 0.0 : -0.9;
  f.ky0 = layout.y_offset();
  for (long y = layout.y_offset(); y < layout.y_offset() + layout.y_count(); ++y)
    if (SlabLayout::kept(y, layout.ny())) f.ky0 = y;
  f.c = (layout.nz() - 1) / 3;
  f.phase = 0.7;
  return f;
}

template <class Real>
void fill(Device& device, const SlabLayout& l, const Field& field, Real* data) {
  const long ny = l.ny(), nz = l.nz(), x0 = l.x_offset();
  parallel_for(
      device, long(l.real_size()), KOLMO_LAMBDA(long p) {
        const long z = p % nz, row = p / nz;
        data[p] = Real(field.value(x0 + row / ny, row % ny, z));
      });
}

// Largest |F - expected| over the rank's spectral slab (kept modes only where dealiased), relative.
template <class Real>
double spectral_error(Device& device, const SlabLayout& l, const Field& field, const Complex<Real>* data,
                      bool dealiased) {
  const long ny = l.ny(), nz = l.nz(), nzc = l.nzc(), y_count = l.y_count(), y0 = l.y_offset();
  const double scale = field.largest_coefficient();
  return solver::max_and_sum(
             device, long(l.spectral_size()),
             KOLMO_LAMBDA(long m) {
               const long kz = m % nzc, row = m / nzc, j = row % y_count, kx = row / y_count, ky = y0 + j;
               const long signed_ky = 2 * ky <= ny ? ky : ky - ny;
               const bool kept = 3 * (signed_ky < 0 ? -signed_ky : signed_ky) < ny && 3 * kz < nz;
               if (dealiased && !kept) return MaxAndSum{0.0, 0.0};
               const Complex<double> e = field.coefficient(kx, ky, kz);
               const double error = hypot(double(data[m].re) - e.re, double(data[m].im) - e.im) / scale;
               return MaxAndSum{error, error * error};
             })
      .max;
}

// Largest |g - Nx Ny Nz f| over the rank's real slab, relative to Nx Ny Nz max |f|.
template <class Real>
double real_error(Device& device, const SlabLayout& l, const Field& field, const Real* data) {
  const long ny = l.ny(), nz = l.nz(), x0 = l.x_offset();
  const double points = field.points(), scale = points * field.largest_value();
  return solver::max_and_sum(
             device, long(l.real_size()),
             KOLMO_LAMBDA(long p) {
               const long z = p % nz, row = p / nz;
               const double error =
                   fabs(double(data[p]) - points * field.value(x0 + row / ny, row % ny, z)) / scale;
               return MaxAndSum{error, error * error};
             })
      .max;
}

struct Settings {
  std::vector<long> n{2048, 2048, 1024};
  std::string precision = "single";
  std::vector<std::string> ways{"full", "rows", "pruned"};
  std::vector<int> emulate;           // P, one value (empty: one rank)
  std::vector<int> ranks_checked{0};  // emulated ranks
  std::vector<std::string> routes{"copies", "strided", "placed"};
  std::vector<std::string> modes{"full", "dealiased"};
  std::vector<std::string> places{"out", "in"};
  int failures = 0;
};

template <class Real>
double tolerance() {
  return std::is_same_v<Real, double> ? 1e-11 : 2e-5;
}

// One case: forward, its spectrum (where comparable), backward, the real slab.
template <class Real>
void check(Settings& s, const std::string& name, const std::array<long, 3>& n, std::shared_ptr<Device> device,
           const FftOptions& options, Modes modes, bool in_place, bool emulated) {
  const auto start = std::chrono::steady_clock::now();
  char line[512];
  try {
    SlabFFT<Real> fft(n, MPI_COMM_SELF, device, options);
    const SlabLayout& l = fft.layout();
    auto real = fft.make_real();
    Buffer<Complex<Real>> spectral;
    if (!in_place) spectral = fft.make_spectral();
    Complex<Real>* out = in_place ? reinterpret_cast<Complex<Real>*>(real.data()) : spectral.data();
    const bool dealiased = modes == Modes::dealiased;
    // Emulated: the waves' pair only where it returns the field (full transforms; dealiased chunks differ
    // in shape between ranks, the kept ky planes of rank 0 being one more than those of rank P - 1).
    std::vector<Field> fields;
    if (!emulated || !dealiased) fields.push_back(waves_of(n));
    if (emulated) fields.push_back(planes_of(l));
    for (const Field& field : fields) {
      fill(*device, l, field, real.data());
      fft.forward(real.data(), out, modes);
      const bool spectrum = field.planes || !emulated;
      const double forward = spectrum ? spectral_error(*device, l, field, out, dealiased) : -1;
      fft.backward(out, real.data(), modes);
      const double backward = real_error(*device, l, field, real.data());
      const bool pass = forward < tolerance<Real>() && backward < tolerance<Real>();
      if (!pass) ++s.failures;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::snprintf(line, sizeof(line),
                    "%s %s %s %s field=%s real_slab=%zu spectral_slab=%zu forward_error=%.3g "
                    "backward_error=%.3g (%.1f s) %s\n",
                    pass ? "PASS" : "FAIL", name.c_str(), dealiased ? "dealiased" : "full",
                    in_place ? "in-place" : "out-of-place", field.planes ? "planes" : "waves", l.real_size(),
                    l.spectral_size(), forward, backward, seconds, fft.route_name(modes).c_str());
      std::fputs(line, stdout);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::printf("REFUSED %s %s %s: %s\n", name.c_str(), modes == Modes::dealiased ? "dealiased" : "full",
                in_place ? "in-place" : "out-of-place", e.what());
    std::fflush(stdout);
  }
}

template <class Real>
void run(Settings& s, const std::array<long, 3>& n, std::shared_ptr<Device> device) {
  const double points = double(n[0]) * double(n[1]) * double(n[2]);
  std::printf("grid %ld x %ld x %ld (%.3g points, 2^31 = %.3g), %s precision, %s\n", n[0], n[1], n[2], points,
              double(1L << 31), s.precision.c_str(), device->name().c_str());
  for (const std::string& place : s.places) {
    const bool in_place = place == "in";
    if (s.emulate.empty()) {
      for (const std::string& way : s.ways) {
        FftOptions options;
        const bool full = way == "full";
        if (!full) options.one_rank_dealiasing = parse_one_rank_dealiasing(way);
        check<Real>(s, full ? "one rank" : "one rank, " + way, n, device, options,
                    full ? Modes::all : Modes::dealiased, in_place, false);
      }
      continue;
    }
    const int ranks = s.emulate.front();
    for (const std::string& route : s.routes)
      for (const std::string& mode : s.modes)
        for (int rank : s.ranks_checked) {
          FftOptions options;
          options.emulated_ranks = ranks;
          options.emulated_rank = rank;
          options.plane_groups = 1;
          options.pack_in_ffts = route == "fused" || route == "realigned";
          options.realigned_planes = route == "realigned" ? RealignedPlanes::always : RealignedPlanes::never;
          const bool strided = route == "strided" || route == "placed";
          options.strided_exchange = strided ? StridedExchange::always : StridedExchange::never;
          options.own_rows = route == "placed" ? OwnRows::placed : OwnRows::copied;
          const Modes modes = mode == "dealiased" ? Modes::dealiased : Modes::all;
          check<Real>(s, "rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ", " + route, n,
                      device, options, modes, in_place, true);
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Settings s;
  CLI::App app{"kolmo_big_grid_check: FFT round trips and spectra against closed forms, for large grids"};
  app.add_option("--n", s.n, "grid: one size (cube) or three sizes Nx Ny Nz")->expected(1, 3);
  app.add_option("--precision", s.precision, "single or double")->check(CLI::IsMember({"single", "double"}));
  app.add_option("--ways", s.ways,
                 "one rank: full, and one-rank dealiasing ways (automatic copies rows masked_x "
                 "pruned)");
  app.add_option("--emulate-ranks", s.emulate, "one rank of this many (even slabs: P divides Nx and Ny)")
      ->expected(1);
  app.add_option("--ranks-checked", s.ranks_checked, "emulated: which ranks");
  app.add_option("--routes", s.routes, "emulated: copies fused realigned strided placed");
  app.add_option("--modes", s.modes, "emulated: full and/or dealiased");
  app.add_option("--places", s.places, "out (out of place) and/or in (in place)");
  int status = 0;
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      MPI_Finalize();
      return app.exit(e);
    }
    const std::array<long, 3> n{s.n[0], s.n.size() == 3 ? s.n[1] : s.n[0], s.n.size() == 3 ? s.n[2] : s.n[0]};
    auto device = Device::create(Device::automatic());
    if (s.precision == "double")
      run<double>(s, n, device);
    else
      run<float>(s, n, device);
    std::printf("%s: %d case(s) failed\n", s.failures == 0 ? "ALL PASS" : "FAILURES", s.failures);
    status = s.failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kolmo_big_grid_check: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
