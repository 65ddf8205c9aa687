// The distributed slab FFT against exact Fourier coefficients and against a plain serial FFTW 3D transform,
// on every backend and exchange method, in place and out of place, in float and double, on 1 to 4 ranks.
#include <fftw3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fft/PhaseClock.hpp"
#include "fft/SlabFFT.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::testing::global_max;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// The field of the GPU-FFT paper, f = 8 sin x sin 2y sin 3z + 8 sin 4x sin 5y sin 6z on [0, 2pi)^3.
double paper_field(double x, double y, double z) {
  return 8 * std::sin(x) * std::sin(2 * y) * std::sin(3 * z) +
         8 * std::sin(4 * x) * std::sin(5 * y) * std::sin(6 * z);
}

// Its exact unnormalised forward coefficient at integer wavenumbers (kx, ky, kz >= 0):
// 8 prod sin(a_d x_d) has coefficient 8 prod(-i sgn(k_d) / 2) = i sgn(kx) sgn(ky) sgn(kz) at k = (+-a, +-b,
// +-c).
std::complex<double> paper_coefficient(long kx, long ky, long kz, double points) {
  auto term = [&](long a, long b, long c) -> std::complex<double> {
    if (std::labs(kx) != a || std::labs(ky) != b || kz != c) return 0.0;
    double sign = (kx > 0 ? 1 : -1) * (ky > 0 ? 1 : -1);
    return std::complex<double>(0, sign * points);
  };
  return term(1, 2, 3) + term(4, 5, 6);
}

long signed_wavenumber(long index, long n) {
  return index <= n / 2 ? index : index - n;
}

template <class Real>
double tolerance() {
  return std::is_same_v<Real, double> ? 1e-13 : 1e-5;
}

struct Case {
  std::shared_ptr<Device> device;
  ExchangeMethod method;
  bool in_place;
  int pieces = 1;  // the all-to-all in this many pieces (FftOptions::exchange_pieces)
  // Several GPU ranks: packing in the transforms' kernels (FftOptions::pack_in_ffts), here by default with
  // the plane transforms storing the chunks (RealignedPlanes::never: kolmo's column FFTs where they take Ny,
  // cuFFT's callbacks otherwise), which every exchange method is tested with; gpu_cases adds realigned
  // planes and the copies.
  bool pack_in_ffts = true;
  RealignedPlanes realigned_planes = RealignedPlanes::never;
  FftwPlanning planning = FftwPlanning::automatic;  // the test grids are small: estimated unless asked
  // The strided route: by default where copy engines move the blocks (p2p); the host cases add it by MPI
  // datatypes, the GPU cases p2p without it.
  StridedExchange strided = StridedExchange::automatic;
  OwnRows own_rows = OwnRows::automatic;
  SpectralSplit split = SpectralSplit::even;
  FftOptions options() const {
    FftOptions o{method};
    o.exchange_pieces = pieces;
    o.fftw_planning = planning;
    o.pack_in_ffts = pack_in_ffts;
    o.realigned_planes = realigned_planes;
    o.strided_exchange = strided;
    o.own_rows = own_rows;
    o.spectral_split = split;
    return o;
  }
};

std::vector<Case> host_cases() {
  std::vector<Case> cases;
  auto host = Device::create(Backend::host);
  for (auto method : {ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv})
    for (bool in_place : {false, true}) cases.push_back({host, method, in_place});
  // In pieces: 2, and 3 (more than some ranks have x planes on the small grids: empty pieces). In place, a
  // full forward transform goes in one piece, the rest in pieces.
  for (int pieces : {2, 3})
    for (bool in_place : {false, true})
      cases.push_back({host, ExchangeMethod::isend_irecv, in_place, pieces});
  cases.push_back({host, ExchangeMethod::isend_irecv, false, 0});  // count chosen by timing
  // The strided route, the blocks moved by MPI datatypes (in place in pieces, forward transforms go by
  // copies), whole and in pieces (3: empty pieces on the small grids).
  for (int pieces : {1, 2, 3})
    for (bool in_place : {false, true}) {
      Case strided{host, ExchangeMethod::isend_irecv, in_place, pieces};
      strided.strided = StridedExchange::always;
      cases.push_back(strided);
    }
  // The ky planes split by kept rows (uneven slabs of other sizes): every method, in one piece and in
  // pieces, by copies and strided.
  std::vector<Case> kept_rows;
  for (auto method : {ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv})
    for (bool in_place : {false, true}) kept_rows.push_back({host, method, in_place});
  for (bool in_place : {false, true}) {
    kept_rows.push_back({host, ExchangeMethod::isend_irecv, in_place, 2});
    for (int pieces : {1, 2}) {
      Case strided{host, ExchangeMethod::isend_irecv, in_place, pieces};
      strided.strided = StridedExchange::always;
      kept_rows.push_back(strided);
    }
  }
  for (Case& c : kept_rows) {
    c.split = SpectralSplit::kept_rows;
    cases.push_back(c);
  }
  return cases;
}

std::vector<Case> gpu_cases(const std::string& name) {
  std::vector<Case> cases;
  auto gpu = kolmo::testing::gpu_or_skip(name);
  if (!gpu) return cases;
  // p2p also between ranks sharing the GPU (CUDA IPC between processes on one device).
  std::vector<ExchangeMethod> methods{ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv,
                                      ExchangeMethod::p2p};
  if (nccl_usable(MPI_COMM_WORLD)) methods.push_back(ExchangeMethod::nccl);
  for (auto method : methods)
    for (bool in_place : {false, true}) cases.push_back({gpu, method, in_place});
  // In pieces: p2p by the strided route (automatic there), and by the copies.
  for (auto method : methods)
    if (method != ExchangeMethod::alltoallv) cases.push_back({gpu, method, false, 3});
  Case p2p_copies{gpu, ExchangeMethod::p2p, false, 3};
  p2p_copies.strided = StridedExchange::never;
  cases.push_back(p2p_copies);
  // Several ranks: the other ways of packing, realigned planes and the copies.
  if (kolmo::testing::world_size() > 1)
    for (bool in_place : {false, true}) {
      cases.push_back({gpu, methods[0], in_place, 1, false});
      cases.push_back({gpu, methods[0], in_place, 1, true, RealignedPlanes::always});
      Case fused{gpu, ExchangeMethod::p2p, in_place};  // p2p without the strided route
      fused.strided = StridedExchange::never;
      cases.push_back(fused);
      // The ky planes split by kept rows, p2p strided (out of place; whole and in pieces) and fused.
      for (StridedExchange strided : {StridedExchange::automatic, StridedExchange::never}) {
        Case kept_rows{gpu, ExchangeMethod::p2p, in_place};
        kept_rows.strided = strided;
        kept_rows.split = SpectralSplit::kept_rows;
        cases.push_back(kept_rows);
      }
      Case kept_rows_pieces{gpu, ExchangeMethod::p2p, in_place, 2};
      kept_rows_pieces.split = SpectralSplit::kept_rows;
      cases.push_back(kept_rows_pieces);
    }
  // The strided route with the own rows placed by the plane transforms (where Ny is a power of two; out of
  // place, in place they are copied) on both splits, and copied, whatever a timing would choose.
  if (kolmo::testing::world_size() > 1)
    for (OwnRows own_rows : {OwnRows::placed, OwnRows::copied})
      for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
        for (bool in_place : {false, true}) {
          if (own_rows == OwnRows::copied && split == SpectralSplit::kept_rows) continue;
          Case strided{gpu, ExchangeMethod::p2p, in_place};
          strided.strided = StridedExchange::always;
          strided.own_rows = own_rows;
          strided.split = split;
          cases.push_back(strided);
        }
  return cases;
}

// Forward (and back) the paper field; check every local coefficient and the round trip.
template <class Real>
void check_paper_field(const Case& c, std::array<long, 3> n) {
  SlabFFT<Real> fft(n, MPI_COMM_WORLD, c.device, c.options());
  const auto& l = fft.layout();
  const double points = double(n[0]) * n[1] * n[2];
  std::vector<Real> f(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long j = 0; j < n[1]; ++j)
      for (long k = 0; k < n[2]; ++k)
        f[(i * n[1] + j) * n[2] + k] =
            Real(paper_field(kTwoPi * (l.x_offset() + i) / n[0], kTwoPi * j / n[1], kTwoPi * k / n[2]));
  auto input = fft.make_real();
  input.assign_from_host(f);
  auto spectrum_buffer = fft.make_spectral();
  Complex<Real>* spectral =
      c.in_place ? reinterpret_cast<Complex<Real>*>(input.data()) : spectrum_buffer.data();
  fft.forward(input.data(), spectral);
  std::vector<Complex<Real>> F(l.alloc_complex());
  c.device->copy_to_host(F.data(), spectral, sizeof(Complex<Real>) * F.size());

  double coefficient_error = 0;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < l.nzc(); ++k) {
        auto expected = paper_coefficient(signed_wavenumber(i, n[0]),
                                          signed_wavenumber(l.y_offset() + j, n[1]), k, points);
        auto got = F[(i * l.y_count() + j) * l.nzc() + k];
        coefficient_error =
            std::max(coefficient_error, std::abs(std::complex<double>(got.re, got.im) - expected));
      }
  CHECK(global_max(coefficient_error) / points < tolerance<Real>());

  if (!c.in_place) {  // out of place, forward leaves its input intact
    auto again = input.host_copy();
    double changed = 0;
    for (std::size_t m = 0; m < l.real_size(); ++m)
      changed = std::max(changed, std::abs(double(again[m] - f[m])));
    CHECK(global_max(changed) == 0.0);
  }
  auto output = fft.make_real();
  Real* back = c.in_place ? input.data() : output.data();
  fft.backward(spectral, back);
  std::vector<Real> g(l.real_size());
  c.device->copy_to_host(g.data(), back, sizeof(Real) * g.size());
  double error = 0, scale = 0;
  for (std::size_t m = 0; m < g.size(); ++m) {
    error = std::max(error, std::abs(double(g[m]) / points - double(f[m])));
    scale = std::max(scale, std::abs(double(f[m])));
  }
  CHECK(global_max(error) / global_max(scale) < tolerance<Real>());
}

// Distributed forward of a random field against serial FFTW's 3D r2c of the whole field, element by element.
template <class Real>
void check_against_serial(const Case& c, std::array<long, 3> n) {
  SlabFFT<Real> fft(n, MPI_COMM_WORLD, c.device, c.options());
  const auto& l = fft.layout();
  // The reference, in double, of the whole field (every rank holds it: the grids are small).
  std::vector<double> whole(n[0] * n[1] * n[2]);
  for (long x = 0; x < n[0]; ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z)
        whole[(x * n[1] + y) * n[2] + z] = kolmo::testing::random_value(x, y, z);
  const long nzc = n[2] / 2 + 1;
  std::vector<std::complex<double>> reference(n[0] * n[1] * nzc);
  fftw_plan plan = fftw_plan_dft_r2c_3d(int(n[0]), int(n[1]), int(n[2]), whole.data(),
                                        reinterpret_cast<fftw_complex*>(reference.data()), FFTW_ESTIMATE);
  std::vector<double> copy = whole;  // planning with ESTIMATE leaves data alone, but be explicit
  fftw_execute(plan);
  fftw_destroy_plan(plan);

  std::vector<Real> f(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long yz = 0; yz < n[1] * n[2]; ++yz)
      f[i * n[1] * n[2] + yz] = Real(copy[(l.x_offset() + i) * n[1] * n[2] + yz]);
  auto data = fft.make_real();
  data.assign_from_host(f);
  auto out = fft.make_spectral();
  Complex<Real>* spectral = c.in_place ? reinterpret_cast<Complex<Real>*>(data.data()) : out.data();
  fft.forward(data.data(), spectral);
  std::vector<Complex<Real>> F(l.spectral_size());
  c.device->copy_to_host(F.data(), spectral, sizeof(Complex<Real>) * F.size());
  double error = 0, scale = 0;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < nzc; ++k) {
        auto expected = reference[(i * n[1] + l.y_offset() + j) * nzc + k];
        auto got = F[(i * l.y_count() + j) * nzc + k];
        error = std::max(error, std::abs(std::complex<double>(got.re, got.im) - expected));
        scale = std::max(scale, std::abs(expected));
      }
  // Random data: errors grow like log N eps times the largest coefficient.
  CHECK(global_max(error) / global_max(scale) < (std::is_same_v<Real, double> ? 1e-13 : 2e-6));

  // And the inverse against the input, through the spectral data just checked.
  auto back = fft.make_real();
  fft.backward(spectral, back.data());
  auto g = back.host_copy();
  double round_trip = 0;
  const double points = double(n[0]) * n[1] * n[2];
  for (std::size_t m = 0; m < l.real_size(); ++m)
    round_trip = std::max(round_trip, std::abs(double(g[m]) / points - double(f[m])));
  CHECK(global_max(round_trip) < (std::is_same_v<Real, double> ? 1e-14 : 1e-6));
}

// Dealiased transforms against full ones: forward = full forward at the kept (y, z) modes (the others are
// unspecified); backward ignores whatever the non-kept modes of its input hold.
template <class Real>
void check_dealiased(const Case& c, std::array<long, 3> n,
                     OneRankDealiasing way = OneRankDealiasing::automatic) {
  FftOptions options = c.options();
  options.one_rank_dealiasing = way;
  SlabFFT<Real> fft(n, MPI_COMM_WORLD, c.device, options);
  const auto& l = fft.layout();
  std::vector<Real> f(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z)
        f[(i * n[1] + y) * n[2] + z] = Real(kolmo::testing::random_value(l.x_offset() + i, y, z));
  auto input = fft.make_real();
  input.assign_from_host(f);
  auto full = fft.make_spectral(), dealiased = fft.make_spectral();
  fft.forward(input.data(), full.data());
  Complex<Real>* out = c.in_place ? reinterpret_cast<Complex<Real>*>(input.data()) : dealiased.data();
  fft.forward(input.data(), out, Modes::dealiased);
  std::vector<Complex<Real>> F(l.spectral_size()), D(l.spectral_size());
  c.device->copy_to_host(F.data(), full.data(), sizeof(Complex<Real>) * F.size());
  c.device->copy_to_host(D.data(), out, sizeof(Complex<Real>) * D.size());
  double error = 0, scale = 0;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < l.nzc(); ++k) {
        const std::size_t m = (i * l.y_count() + j) * l.nzc() + k;
        const bool kept = SlabLayout::kept(l.y_offset() + j, n[1]) && k < l.kept_z();
        if (kept) {
          error = std::max(error, double(std::hypot(D[m].re - F[m].re, D[m].im - F[m].im)));
          scale = std::max(scale, double(std::hypot(F[m].re, F[m].im)));
        } else {
          D[m] = Complex<Real>(0, 0);  // unspecified: the reference below is the spectrum with them zero
        }
      }
  CHECK(global_max(error) <= global_max(scale) * tolerance<Real>() * 10);

  // Backward: fill the non-kept modes of the full spectrum with garbage, NaN included; the dealiased backward
  // must agree with the full backward of the spectrum whose non-kept modes are zero (D, just checked).
  std::vector<Complex<Real>> garbage = F;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < l.nzc(); ++k) {
        const std::size_t m = (i * l.y_count() + j) * l.nzc() + k;
        if (!(SlabLayout::kept(l.y_offset() + j, n[1]) && k < l.kept_z()))
          garbage[m] = m % 3 == 0 ? Complex<Real>(std::numeric_limits<Real>::quiet_NaN(), Real(0))
                                  : Complex<Real>(Real(1e3), Real(-7));
      }
  auto spectral = fft.make_spectral();
  spectral.assign_from_host(garbage);
  auto reference = fft.make_real(), result = fft.make_real();
  full.assign_from_host(D);
  fft.backward(full.data(), reference.data());
  Real* back = c.in_place ? reinterpret_cast<Real*>(spectral.data()) : result.data();
  fft.backward(spectral.data(), back, Modes::dealiased);
  std::vector<Real> g(l.real_size()), r(l.real_size());
  c.device->copy_to_host(g.data(), back, sizeof(Real) * g.size());
  c.device->copy_to_host(r.data(), reference.data(), sizeof(Real) * r.size());
  double difference = 0, size = 0;
  for (std::size_t m = 0; m < g.size(); ++m) {
    difference = std::max(difference, std::abs(double(g[m]) - double(r[m])));
    size = std::max(size, std::abs(double(r[m])));
  }
  CHECK(global_max(difference) <= global_max(size) * tolerance<Real>() * 10);
}

// Double precision sent as single on the wire: the spectrum differs from the full-precision transform by
// single-precision rounding (and not at all on one rank, where nothing is sent). Returns the relative error.
double check_single_precision_wire(const Case& c, std::array<long, 3> n) {
  FftOptions options{c.method};
  options.fftw_planning = c.planning;
  options.spectral_split = c.split;
  SlabFFT<double> exact(n, MPI_COMM_WORLD, c.device, options);
  options.single_precision_wire = true;
  SlabFFT<double> narrow(n, MPI_COMM_WORLD, c.device, options);
  const auto& l = exact.layout();
  std::vector<double> f(2 * l.alloc_complex(), 0.0);
  for (long i = 0; i < l.x_count(); ++i)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z)
        f[(i * n[1] + y) * n[2] + z] = kolmo::testing::random_value(l.x_offset() + i, y, z);
  auto input = exact.make_real();
  input.assign_from_host(f);
  auto a = exact.make_spectral(), b = exact.make_spectral();
  exact.forward(input.data(), a.data());
  narrow.forward(input.data(), b.data());
  auto A = a.host_copy(), B = b.host_copy();
  double error = 0, scale = 0;
  for (std::size_t m = 0; m < l.spectral_size(); ++m) {
    error = std::max(error, std::hypot(A[m].re - B[m].re, A[m].im - B[m].im));
    scale = std::max(scale, std::hypot(A[m].re, A[m].im));
  }
  const double relative = global_max(error) / global_max(scale);
  if (l.ranks() == 1)
    CHECK(relative == 0.0);
  else
    CHECK((relative > 0.0 && relative < 1e-6));
  // Backward through the narrow wire returns the field to single-precision accuracy.
  auto back = exact.make_real();
  narrow.backward(b.data(), back.data());
  auto g = back.host_copy();
  double round_trip = 0;
  const double points = double(n[0]) * n[1] * n[2];
  for (std::size_t m = 0; m < l.real_size(); ++m)
    round_trip = std::max(round_trip, std::abs(g[m] / points - f[m]));
  CHECK(global_max(round_trip) < 1e-6);
  return relative;
}

const std::vector<std::array<long, 3>> kPaperGrids{{16, 16, 16}, {18, 20, 24}, {15, 17, 14}};
const std::vector<std::array<long, 3>> kRandomGrids{{24, 20, 18}, {30, 12, 16}, {9, 7, 5}};

}  // namespace

TEMPLATE_TEST_CASE("forward gives the paper field's exact coefficients; backward returns it", "[fft]", float,
                   double) {
  for (const auto& c : host_cases())
    for (auto n : kPaperGrids) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method) << " in place "
                   << c.in_place);
      check_paper_field<TestType>(c, n);
    }
}

TEMPLATE_TEST_CASE("distributed spectrum equals serial FFTW of the whole field", "[fft]", float, double) {
  for (const auto& c : host_cases())
    for (auto n : kRandomGrids) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method) << " in place "
                   << c.in_place << " strided " << int(c.strided) << " split " << to_string(c.split));
      check_against_serial<TestType>(c, n);
    }
}

// The ways a single rank can leave out the dropped modes (the option is ignored across ranks).
std::vector<OneRankDealiasing> one_rank_ways(bool gpu) {
  if (kolmo::testing::world_size() > 1) return {OneRankDealiasing::automatic};
  std::vector<OneRankDealiasing> ways{OneRankDealiasing::automatic, OneRankDealiasing::copies,
                                      OneRankDealiasing::rows};
  if (gpu) ways.push_back(OneRankDealiasing::masked_x);
  return ways;
}

TEST_CASE("timed choices take the candidates in turns and keep the timed rounds' medians", "[fft]") {
  // Candidate k's timed rounds give 10 k + {5, 1, 4, 2, 3} (median 10 k + 3); its untimed ones far more,
  // which would move the median if they counted.
  const double timed[5] = {5, 1, 4, 2, 3};
  std::vector<std::size_t> order;
  const std::vector<double> medians = kolmo::fft::medians_taking_turns(3, 2, 5, [&](std::size_t k) {
    const int round = int(order.size() / 3);
    order.push_back(k);
    return round < 2 ? 1e9 : 10.0 * k + timed[round - 2];
  });
  REQUIRE(order.size() == 21);
  for (std::size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i % 3);
  REQUIRE(medians.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(medians[k] == 10.0 * k + 3);
  // No timed round leaves no median to take: an internal fault, not a user's error.
  CHECK_THROWS_AS(kolmo::fft::medians_taking_turns(2, 1, 0, [](std::size_t) { return 1.0; }),
                  std::logic_error);
}

TEST_CASE("held timing gives each run's time per call, after its untimed rounds", "[fft]") {
  // On the host the held clock reads the wall clock around the runs' synchronous work. Run k sleeps 1 + 3 k
  // ms a call; sleeps last at least what they ask.
  auto host = Device::create(Backend::host);
  std::vector<int> calls(2, 0);
  std::vector<std::function<void()>> runs;
  for (int k = 0; k < 2; ++k)
    runs.push_back([&calls, k] {
      ++calls[k];
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + 3 * k));
    });
  const std::vector<double> ms = kolmo::fft::held_medians_ms(host, runs, 4, 2);
  CHECK(calls == std::vector<int>{28, 28});  // 2 untimed + 5 timed rounds of 4 calls each
  REQUIRE(ms.size() == 2);
  CHECK(ms[0] >= 1.0);
  CHECK(ms[1] >= 4.0);
  CHECK(ms[1] < 12.0);  // 16 ms if a round's time were not shared among its 4 calls
  CHECK(ms[0] < ms[1]);
  // No call or no untimed round (the clock must learn how long queuing takes): an internal fault.
  CHECK_THROWS_AS(kolmo::fft::held_medians_ms(host, runs, 0, 1), std::logic_error);
  CHECK_THROWS_AS(kolmo::fft::held_medians_ms(host, runs, 1, 0), std::logic_error);
}

TEST_CASE("one-rank dealiasing ways are named for the benchmarks, and an unknown name is refused", "[fft]") {
  for (auto way : {OneRankDealiasing::automatic, OneRankDealiasing::copies, OneRankDealiasing::rows,
                   OneRankDealiasing::masked_x, OneRankDealiasing::pruned}) {
    int matches = 0;
    for (const std::string& name : one_rank_dealiasing_names())
      matches += parse_one_rank_dealiasing(name) == way ? 1 : 0;
    CHECK(matches == 1);
  }
  CHECK_THROWS_WITH(parse_one_rank_dealiasing("mask"), Catch::Contains("'mask'") && Catch::Contains("rows"));
  // The mask in the backward plane transforms was dropped (never the fastest way on an H100).
  CHECK_THROWS(parse_one_rank_dealiasing("masked_planes"));
}

TEST_CASE("the exchange goes in the pieces asked for, or in a count every rank chose alike", "[fft]") {
  auto host = Device::create(Backend::host);
  const int ranks = kolmo::testing::world_size();
  for (int asked : {0, 1, 3}) {
    FftOptions options;
    options.exchange_pieces = asked;
    SlabFFT<double> fft(std::array<long, 3>{16, 12, 10}, MPI_COMM_WORLD, host, options);
    INFO("asked " << asked << ": " << fft.exchange_pieces_report());
    for (Modes modes : {Modes::all, Modes::dealiased}) {
      const int pieces = fft.exchange_pieces(modes);
      if (ranks == 1 || asked == 1) {
        CHECK(pieces == 1);
      } else if (asked > 1) {
        CHECK(pieces == asked);
      } else {
        CHECK((pieces == 1 || pieces == 2 || pieces == 4 || pieces == 8));
        CHECK(pieces <= fft.layout().x_count(ranks - 1));
      }
      CHECK(global_max(pieces) == -global_max(-pieces));  // the same on every rank
    }
  }
  FftOptions negative;
  negative.exchange_pieces = -1;
  CHECK_THROWS_WITH(SlabFFT<double>(std::array<long, 3>{8, 8, 8}, MPI_COMM_WORLD, host, negative),
                    Catch::Contains("exchange pieces"));
}

TEMPLATE_TEST_CASE("dealiased transforms equal full transforms with the 2/3 rule applied", "[fft]", float,
                   double) {
  for (const auto& c : host_cases())
    for (auto n : kRandomGrids)
      for (auto way : one_rank_ways(false)) {
        INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method)
                     << " in place " << c.in_place << " pieces " << c.pieces << " strided " << int(c.strided)
                     << " split " << to_string(c.split) << " one-rank way " << int(way));
        check_dealiased<TestType>(c, n, way);
      }
}

TEMPLATE_TEST_CASE("plans measured by FFTW give the serial spectrum and the dealiased modes", "[fft]", float,
                   double) {
  // The test grids are below the size from which plans are measured by default.
  Case c{Device::create(Backend::host), ExchangeMethod::isend_irecv, false};
  c.planning = FftwPlanning::measure;
  for (auto n : kRandomGrids) {
    INFO("grid " << n[0] << "x" << n[1] << "x" << n[2]);
    check_against_serial<TestType>(c, n);
    check_dealiased<TestType>(c, n);
  }
}

TEMPLATE_TEST_CASE(
    "x lines too long to stay in cache whole go out of place in blocks and give the serial spectrum", "[fft]",
    float, double) {
  // The host backend copies and transforms a slab's columns in blocks (512 bytes of each x row, and a
  // remainder) where they take more than 2 MiB, and whole otherwise (the other tests' grids). This grid's
  // columns take 2.4 MiB or more in single precision on every rank of up to 4, and leave a remainder (31 kz
  // columns a ky row). On several ranks its slab also goes through the plane transforms in many blocks of
  // planes and a smaller last one (SlabFFT.cpp's PlaneBlocks: 13 planes of 19.8 kB in double on one thread).
  Case c{Device::create(Backend::host), ExchangeMethod::isend_irecv, false};
  c.planning = FftwPlanning::estimate;
  const std::array<long, 3> n{1024, 40, 60};
  check_against_serial<TestType>(c, n);
  for (auto way : one_rank_ways(false)) {
    INFO("one-rank way " << int(way));
    check_dealiased<TestType>(c, n, way);
  }
}

TEST_CASE("double precision through a single-precision wire loses only single-precision rounding", "[fft]") {
  for (const auto& c : host_cases())
    if (!c.in_place)
      for (auto n : kRandomGrids) {
        const double error = check_single_precision_wire(c, n);
        if (kolmo::testing::world_rank() == 0 && c.method == ExchangeMethod::isend_irecv)
          std::printf("single-precision wire, %ld x %ld x %ld on %d rank(s): relative spectrum error %.2e\n",
                      n[0], n[1], n[2], kolmo::testing::world_size(), error);
      }
}

TEMPLATE_TEST_CASE("GPU: exact coefficients and serial FFTW agreement", "[fft][gpu]", float, double) {
  for (const auto& c : gpu_cases("slab FFT on the GPU")) {
    INFO("packing in the transforms' kernels "
         << c.pack_in_ffts << ", realigned planes " << int(c.realigned_planes) << ", strided "
         << int(c.strided) << ", own rows " << int(c.own_rows) << ", split " << int(c.split));
    for (auto n : kPaperGrids) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method) << " in place "
                   << c.in_place);
      check_paper_field<TestType>(c, n);
    }
    for (auto n : kRandomGrids) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method) << " in place "
                   << c.in_place);
      check_against_serial<TestType>(c, n);
      for (auto way : one_rank_ways(true)) {
        INFO("one-rank way " << int(way));
        check_dealiased<TestType>(c, n, way);
      }
      if (std::is_same_v<TestType, double> && !c.in_place) check_single_precision_wire(c, n);
    }
    // Powers of two in x and y: the pruned column FFTs (one rank by timing, several by the strided route),
    // and the plane transforms that place the own rows, on slabs split unevenly over 3 ranks; Nz = 32 takes
    // the row FFTs along z, 12 and 9 cuFFT's.
    for (auto n :
         {std::array<long, 3>{32, 16, 12}, std::array<long, 3>{16, 64, 9}, std::array<long, 3>{16, 32, 32}}) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " method " << to_string(c.method) << " in place "
                   << c.in_place);
      check_against_serial<TestType>(c, n);
      check_dealiased<TestType>(c, n);
    }
  }
}

// The pruned route (kolmo's own column FFTs along x and y, fft/ColumnFft.hpp) on grids whose Nx and Ny take
// every radix plan from 8 to 2048 and whose Nz takes every length of kolmo's row FFTs along z (powers of two
// from 16 to 4096, fft/RowFft.hpp) or cuFFT's (odd, even, 8); refused by name where it cannot run.
TEMPLATE_TEST_CASE("GPU: pruned dealiased transforms equal full transforms with the 2/3 rule applied",
                   "[fft][gpu]", float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("pruned one-rank dealiasing");
  if (!gpu || kolmo::testing::world_size() > 1) return;
  const std::vector<std::array<long, 3>> grids{
      {8, 16, 9},    {16, 8, 16},  {32, 64, 10},   {64, 32, 33},   {128, 256, 32}, {256, 128, 5},
      {512, 16, 64}, {16, 512, 7}, {1024, 8, 128}, {8, 1024, 256}, {2048, 8, 3},   {8, 2048, 6},
      {16, 16, 8},   {8, 8, 512},  {16, 8, 1024},  {8, 16, 2048},  {8, 8, 4096}};
  for (auto n : grids)
    for (bool in_place : {false, true}) {
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " in place " << in_place);
      check_dealiased<TestType>({gpu, ExchangeMethod::isend_irecv, in_place}, n, OneRankDealiasing::pruned);
    }
  FftOptions pruned;
  pruned.one_rank_dealiasing = OneRankDealiasing::pruned;
  for (auto n :
       {std::array<long, 3>{24, 16, 8}, std::array<long, 3>{16, 4, 8}, std::array<long, 3>{4096, 8, 8}})
    CHECK_THROWS_WITH(SlabFFT<TestType>(n, MPI_COMM_WORLD, gpu, pruned), Catch::Contains("pruned"));
}

TEST_CASE("pruned dealiasing is refused on the host with a message that says why", "[fft]") {
  if (kolmo::testing::world_size() > 1) return;
  FftOptions pruned;
  pruned.one_rank_dealiasing = OneRankDealiasing::pruned;
  CHECK_THROWS_WITH(
      SlabFFT<double>(std::array<long, 3>{16, 16, 16}, MPI_COMM_WORLD, Device::create(Backend::host), pruned),
      Catch::Contains("pruned") && Catch::Contains("GPU"));
}

TEST_CASE("a grid the ranks cannot split is refused on every rank", "[fft]") {
  auto host = Device::create(Backend::host);
  const int p = kolmo::testing::world_size();
  if (p == 1) return;  // one rank can split any positive grid
  std::string message;
  try {
    SlabFFT<double> fft(std::array<long, 3>{p - 1, 8, 8}, MPI_COMM_WORLD, host);
  } catch (const std::exception& e) {
    message = e.what();
  }
  const bool refused = message.find("Nx = " + std::to_string(p - 1)) != std::string::npos;
  CHECK(global_max(refused ? 0.0 : 1.0) == 0.0);
}

TEST_CASE("ranks that construct the transform with other grids or options are refused on every rank",
          "[fft]") {
  const int p = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  if (p == 1) return;
  auto host = Device::create(Backend::host);
  // Each differed on the last rank only: without the check these aborted in MPI (the grid, the wire) or hung
  // (FFTW planning, the strided route).
  auto refusal = [&](std::array<long, 3> n, FftOptions options, std::size_t real_bytes) {
    std::string message;
    try {
      if (real_bytes == sizeof(float))
        SlabFFT<float> fft(n, MPI_COMM_WORLD, host, options);
      else
        SlabFFT<double> fft(n, MPI_COMM_WORLD, host, options);
    } catch (const kolmo::Error& e) {
      message = e.what();
    }
    return message;
  };
  const bool last = rank == p - 1;
  const std::array<long, 3> n{12, 10, 9}, other{12, 10, last ? 8 : 9};
  auto agreed = [&](const std::string& message, const std::string& expected) {
    INFO(message);
    const bool wrong = expected.empty() ? !message.empty() : message.find(expected) == std::string::npos;
    CHECK(global_max(wrong ? 1.0 : 0.0) == 0.0);
  };
  agreed(refusal(other, {}, sizeof(double)), "disagree on grid size Nz (from 8 to 9)");
  agreed(refusal(n, {}, last ? sizeof(float) : sizeof(double)), "disagree on precision");
  FftOptions planning;
  planning.fftw_planning = last ? FftwPlanning::measure : FftwPlanning::estimate;
  agreed(refusal(n, planning, sizeof(double)), "disagree on fftw_planning");
  FftOptions strided;
  strided.strided_exchange = last ? StridedExchange::always : StridedExchange::never;
  agreed(refusal(n, strided, sizeof(double)), "disagree on strided_exchange");
  FftOptions wire;
  wire.single_precision_wire = last;
  agreed(refusal(n, wire, sizeof(double)), "disagree on single_precision_wire");
  agreed(refusal(n, {}, sizeof(double)), "");  // alike: constructed, no message
}

TEST_CASE("a null device or communicator and the loopback method outside emulated ranks are refused",
          "[fft]") {
  auto host = Device::create(Backend::host);
  const std::array<long, 3> n{8, 8, 8};
  auto refusal = [&](MPI_Comm comm, std::shared_ptr<Device> device, FftOptions options) {
    std::string message;
    try {
      SlabFFT<double> fft(n, comm, device, options);
    } catch (const kolmo::Error& e) {
      message = e.what();
    }
    return global_max(message.empty() ? 1.0 : 0.0) == 0.0 ? message : std::string("not on every rank");
  };
  CHECK_THAT(refusal(MPI_COMM_WORLD, nullptr, {}), Catch::Contains("needs a device"));
  CHECK_THAT(refusal(MPI_COMM_NULL, host, {}), Catch::Contains("MPI_COMM_NULL"));
  FftOptions loopback;
  loopback.exchange = ExchangeMethod::loopback;
  CHECK_THAT(refusal(MPI_COMM_WORLD, host, loopback), Catch::Contains("loopback is for emulated ranks"));
  // Emulated ranks need no communicator.
  FftOptions emulated;
  emulated.emulated_ranks = 2;
  CHECK_NOTHROW(SlabFFT<double>(n, MPI_COMM_NULL, host, emulated));
}

TEST_CASE("a null buffer is refused by forward and backward with a message naming it", "[fft]") {
  // Every rank holds at least one x plane and one ky plane, so no rank may pass a null buffer; here every
  // rank does, and each refuses its own before the exchange (the check is the calling rank's alone).
  // Without the check FFTW's plane transforms read or wrote through the null pointer (a segfault).
  auto host = Device::create(Backend::host);
  SlabFFT<double> fft(std::array<long, 3>{8, 6, 5}, MPI_COMM_WORLD, host);
  auto real = fft.make_real();
  auto spectral = fft.make_spectral();
  for (Modes modes : {Modes::all, Modes::dealiased}) {
    INFO("dealiased " << (modes == Modes::dealiased));
    CHECK_THROWS_WITH(fft.forward(nullptr, spectral.data(), modes),
                      "SlabFFT::forward: `in` is a null pointer");
    CHECK_THROWS_WITH(fft.forward(real.data(), nullptr, modes), "SlabFFT::forward: `out` is a null pointer");
    CHECK_THROWS_WITH(fft.forward(nullptr, nullptr, modes), "SlabFFT::forward: `in` is a null pointer");
    CHECK_THROWS_WITH(fft.backward(nullptr, real.data(), modes), "SlabFFT::backward: `in` is a null pointer");
    CHECK_THROWS_WITH(fft.backward(spectral.data(), nullptr, modes),
                      "SlabFFT::backward: `out` is a null pointer");
    CHECK_THROWS_WITH(fft.backward(nullptr, nullptr, modes), "SlabFFT::backward: `in` is a null pointer");
  }
  // The transforms still work after a refusal (every rank refused alike, so none is left in an exchange).
  CHECK_NOTHROW(fft.forward(real.data(), spectral.data()));
  CHECK_NOTHROW(fft.backward(spectral.data(), real.data()));
}
