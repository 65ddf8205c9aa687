// A checkpoint read onto another grid (io/Resampling.hpp, read_checkpoint_resampled): the field that comes
// out, summed point by point from its modes, against the analytic field the checkpoint was made from, on a
// finer grid (the same field, Nyquist modes included) and on a coarser one (the modes it can hold).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>

#include "io/Checkpoint.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::global_max;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

using Field = std::function<double(double x, double y, double z)>;

// The wavenumber that index i holds on an axis of n points (box 2 pi).
long wavenumber(long i, long n) {
  return i <= n / 2 ? i : i - n;
}

// This rank's modes of the field sampled on the layout's grid, normalised (f = sum_k f^(k) exp(i k.x)), by
// direct sums over the grid's points: independent of any FFT.
std::vector<Complex<double>> sampled_modes(const fft::SlabLayout& layout, const Field& f) {
  const auto n = layout.global();
  const double points = double(n[0] * n[1] * n[2]);
  std::vector<double> samples;
  for (long x = 0; x < n[0]; ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z)
        samples.push_back(f(kTwoPi * double(x) / double(n[0]), kTwoPi * double(y) / double(n[1]),
                            kTwoPi * double(z) / double(n[2])));
  std::vector<Complex<double>> modes(layout.spectral_size());
  for (long i = 0; i < layout.nx(); ++i)
    for (long j = 0; j < layout.y_count(); ++j)
      for (long k = 0; k < layout.nzc(); ++k) {
        const double kx = double(wavenumber(i, n[0])), ky = double(wavenumber(layout.y_offset() + j, n[1])),
                     kz = double(k);
        double re = 0, im = 0;
        std::size_t point = 0;
        for (long x = 0; x < n[0]; ++x)
          for (long y = 0; y < n[1]; ++y)
            for (long z = 0; z < n[2]; ++z) {
              const double phase = kTwoPi * (kx * double(x) / double(n[0]) + ky * double(y) / double(n[1]) +
                                             kz * double(z) / double(n[2]));
              const double value = samples[point++];
              re += value * std::cos(phase);
              im -= value * std::sin(phase);
            }
        modes[std::size_t((i * layout.y_count() + j) * layout.nzc() + k)] = {re / points, im / points};
      }
  return modes;
}

// The largest difference between the field the modes hold (every rank's, summed over all modes with the
// half axis's conjugates) and f at the layout's grid points, and the largest imaginary part of that sum.
template <class Real>
std::array<double, 2> largest_errors(const fft::SlabLayout& layout, const std::vector<Complex<Real>>& mine,
                                     const Field& f) {
  const auto n = layout.global();
  const long nzc = layout.nzc();
  std::vector<double> all(std::size_t(2 * n[0] * n[1] * nzc), 0.0);
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < layout.y_count(); ++j)
      for (long k = 0; k < nzc; ++k) {
        const auto value = mine[std::size_t((i * layout.y_count() + j) * nzc + k)];
        const std::size_t at = std::size_t(2 * ((i * n[1] + layout.y_offset() + j) * nzc + k));
        all[at] = double(value.re);
        all[at + 1] = double(value.im);
      }
  MPI_Allreduce(MPI_IN_PLACE, all.data(), int(all.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double value_error = 0, imaginary = 0;
  for (long x = 0; x < n[0]; ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z) {
        const double px = kTwoPi * double(x) / double(n[0]), py = kTwoPi * double(y) / double(n[1]),
                     pz = kTwoPi * double(z) / double(n[2]);
        double re = 0, im = 0;
        for (long i = 0; i < n[0]; ++i)
          for (long j = 0; j < n[1]; ++j)
            for (long k = 0; k < nzc; ++k) {
              const std::size_t at = std::size_t(2 * ((i * n[1] + j) * nzc + k));
              const double phase =
                  double(wavenumber(i, n[0])) * px + double(wavenumber(j, n[1])) * py + double(k) * pz;
              const double c = std::cos(phase), s = std::sin(phase);
              const double term_re = all[at] * c - all[at + 1] * s, term_im = all[at] * s + all[at + 1] * c;
              // kz and -kz (not stored) together are twice the real part; kz = 0 and the Nyquist kz alone.
              const bool alone = k == 0 || 2 * k == n[2];
              re += alone ? term_re : 2 * term_re;
              if (alone) im += term_im;
            }
        value_error = std::max(value_error, std::fabs(re - f(px, py, pz)));
        imaginary = std::max(imaginary, std::fabs(im));
      }
  return {value_error, imaginary};
}

// Writes f sampled on file_grid as a checkpoint in directory (u_hat, double precision) and reads it onto
// run_grid in Real with the given split; returns largest_errors against expected.
template <class Real>
std::array<double, 2> resample(const std::filesystem::path& directory, const std::array<long, 3>& file_grid,
                               const std::array<long, 3>& run_grid, fft::SpectralSplit split, const Field& f,
                               const Field& expected, CheckpointInfo& read) {
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout written(file_grid, ranks, rank);
  const auto modes = sampled_modes(written, f);
  CheckpointInfo info;
  info.time = 1.5;
  info.step = 12;
  info.dt = 0.125;
  info.box = {kTwoPi, kTwoPi, kTwoPi};
  info.viscosity = 0.01;
  const auto path = write_checkpoint<double>(directory, info, written, {{"u_hat", modes}}, MPI_COMM_WORLD);
  const fft::SlabLayout layout(run_grid, ranks, rank, split);
  std::vector<Complex<Real>> back(layout.spectral_size(), Complex<Real>(Real(-7), Real(3)));
  read = read_checkpoint_resampled<Real>(path, layout, {{"u_hat", back}}, MPI_COMM_WORLD);
  const auto errors = largest_errors(layout, back, expected);
  return {global_max(errors[0]), global_max(errors[1])};
}

}  // namespace

TEMPLATE_TEST_CASE("a checkpoint read onto a finer grid holds the same field, its Nyquist modes as cosines",
                   "[io]", float, double) {
  using Real = TestType;
  const double tolerance = std::is_same_v<Real, float> ? 2e-5 : 1e-12;
  // Every term is one that a grid of 6 x 8 x 6 holds exactly; cos(3x), cos(4y) and cos(3z) are its Nyquist
  // modes (a sine there would vanish at its points; a term such as cos(3x + z) would not be what its
  // samples say).
  const Field f = [](double x, double y, double z) {
    return 0.7 + std::cos(x) * std::sin(2 * y) + 0.5 * std::cos(3 * x) + std::sin(y + 2 * z + 0.3) +
           0.25 * std::cos(4 * y) * std::cos(z) + 0.3 * std::cos(3 * z) +
           0.2 * std::cos(3 * x) * std::cos(4 * y) * std::cos(3 * z) + 0.4 * std::sin(2 * x - 3 * y + z) +
           0.6 * std::cos(3 * x) * std::sin(y - 2 * z + 1.1);
  };
  // Finer along every axis, odd and even, on any rank count (10 ky planes split unevenly on 3 and 4 ranks).
  for (const std::array<long, 3>& run : {std::array<long, 3>{12, 10, 9}, std::array<long, 3>{7, 16, 12}})
    for (auto split : {fft::SpectralSplit::even, fft::SpectralSplit::kept_rows}) {
      INFO("onto " << run[0] << " x " << run[1] << " x " << run[2] << ", " << fft::to_string(split));
      kolmo::testing::TemporaryDirectory directory;
      CheckpointInfo read;
      const auto errors = resample<Real>(directory.path(), {6, 8, 6}, run, split, f, f, read);
      CHECK(errors[0] < tolerance);
      CHECK(errors[1] < tolerance);
      CHECK(read.grid == std::array<long, 3>{6, 8, 6});
      CHECK(read.time == 1.5);
    }
}

TEMPLATE_TEST_CASE("a checkpoint read onto a coarser grid keeps the modes that grid holds", "[io]", float,
                   double) {
  using Real = TestType;
  const double tolerance = std::is_same_v<Real, float> ? 2e-5 : 1e-12;
  // On 6 x 8 x 6 (and 5 x 8 x 5): |kx| <= 2, |ky| <= 3, |kz| <= 2; cos(3x), cos(4y) and cos(3z) fold onto
  // its Nyquist indices and are dropped, as are the modes beyond.
  const Field kept = [](double x, double y, double z) {
    return 0.7 + std::cos(x) * std::sin(2 * y) + std::sin(y + 2 * z + 0.3) +
           0.4 * std::sin(2 * x - 3 * y + 2 * z);
  };
  const Field f = [&](double x, double y, double z) {
    return kept(x, y, z) + 0.5 * std::cos(3 * x) + 0.3 * std::sin(5 * y) + std::cos(4 * y) +
           0.2 * std::cos(3 * z) + 0.1 * std::sin(x + 2 * y + 4 * z) + 0.6 * std::cos(3 * x - y + z);
  };
  for (const std::array<long, 3>& run : {std::array<long, 3>{6, 8, 6}, std::array<long, 3>{5, 8, 5}}) {
    INFO("onto " << run[0] << " x " << run[1] << " x " << run[2]);
    kolmo::testing::TemporaryDirectory directory;
    CheckpointInfo read;
    const auto errors =
        resample<Real>(directory.path(), {12, 16, 12}, run, fft::SpectralSplit::even, f, kept, read);
    CHECK(errors[0] < tolerance);
    CHECK(errors[1] < tolerance);
    CHECK(read.grid == std::array<long, 3>{12, 16, 12});
  }
}

TEST_CASE("a checkpoint finer along one axis and coarser along another reads onto the mixed grid", "[io]") {
  // 6 x 16 x 6 onto 12 x 8 x 9: finer in x (cos(3x) its Nyquist mode, kept), coarser in y (|ky| <= 3).
  const Field kept = [](double x, double y, double z) {
    return 0.3 + 0.5 * std::cos(3 * x) * std::cos(y - z) + std::sin(x + 3 * y + 2 * z) +
           0.3 * std::cos(3 * z);
  };
  const Field f = [&](double x, double y, double z) {
    return kept(x, y, z) + 0.8 * std::sin(5 * y + z) + 0.4 * std::cos(4 * y);
  };
  kolmo::testing::TemporaryDirectory directory;
  CheckpointInfo read;
  const auto errors =
      resample<double>(directory.path(), {6, 16, 6}, {12, 8, 9}, fft::SpectralSplit::even, f, kept, read);
  CHECK(errors[0] < 1e-12);
  CHECK(errors[1] < 1e-12);
}

TEST_CASE("a checkpoint on the run's own grid reads as read_checkpoint reads it", "[io]") {
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout({8, 10, 6}, ranks, rank);
  std::vector<Complex<double>> modes(layout.spectral_size());
  for (std::size_t m = 0; m < modes.size(); ++m) modes[m] = {0.5 * double(m) + rank, -1.0 / double(m + 1)};
  kolmo::testing::TemporaryDirectory directory;
  CheckpointInfo info;
  info.box = {1, 2, 3};
  const auto path =
      write_checkpoint<double>(directory.path(), info, layout, {{"u_hat", modes}}, MPI_COMM_WORLD);
  std::vector<Complex<double>> plain(modes.size()), resampled(modes.size());
  read_checkpoint<double>(path, layout, {{"u_hat", plain}}, MPI_COMM_WORLD);
  read_checkpoint_resampled<double>(path, layout, {{"u_hat", resampled}}, MPI_COMM_WORLD);
  CHECK(global_max(double(std::memcmp(plain.data(), modes.data(), modes.size() * sizeof(modes[0])) != 0)) ==
        0);
  CHECK(global_max(
            double(std::memcmp(resampled.data(), modes.data(), modes.size() * sizeof(modes[0])) != 0)) == 0);
}
