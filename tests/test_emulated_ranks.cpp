// Emulated ranks (FftOptions::emulated_ranks): one process doing one rank's work of a transform over P ranks,
// the all-to-all replaced by local copies. Checked where the result does not depend on the other ranks'
// data: one emulated rank is the real one-rank transform; a field that lives on rank 0's planes alone and
// does not vary in y has all its spectrum in rank 0's chunk, so rank 0's emulated transforms equal serial
// FFTW's of the whole field (other ranks would send zeros, and so do the loopback copies); with even slabs a
// forward and backward pair returns any field. The profile's phases add up and the expected ones run.
// On a GPU the fused route (packing in cuFFT's kernels) is checked against the copies, rank by rank.
#include <fftw3.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <initializer_list>
#include <vector>

#include "fft/SlabFFT.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::testing::global_max;

namespace {

template <class Real>
double tolerance() {
  return std::is_same_v<Real, double> ? 1e-13 : 2e-6;
}

// The routes of several ranks: copies, or packing in the transforms' kernels with the plane transforms
// storing the chunks (kolmo's column FFTs where they take Ny, cuFFT's callbacks otherwise) or with realigned
// planes (full transforms; dealiased ones store the chunks either way), or the strided exchange.
enum class Packing { copies, plane_stores, realigned, strided };

FftOptions emulated(int ranks, int rank, Packing packing = Packing::plane_stores,
                    SpectralSplit split = SpectralSplit::even, int pieces = 1) {
  FftOptions options;
  options.exchange_pieces = pieces;
  options.spectral_split = split;
  options.emulated_ranks = ranks;
  options.emulated_rank = rank;
  options.pack_in_ffts = packing != Packing::copies && packing != Packing::strided;
  options.realigned_planes = packing == Packing::realigned ? RealignedPlanes::always : RealignedPlanes::never;
  options.strided_exchange = packing == Packing::strided ? StridedExchange::always : StridedExchange::never;
  return options;
}

// This rank's real slab of a field, or zero where filled is false.
template <class Real>
std::vector<Real> slab_of(const SlabLayout& l, double (*field)(long, long, long)) {
  std::vector<Real> f(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long y = 0; y < l.ny(); ++y)
      for (long z = 0; z < l.nz(); ++z)
        f[(i * l.ny() + y) * l.nz() + z] = Real(field(l.x_offset() + i, y, z));
  return f;
}

double random_field(long x, long y, long z) {
  return kolmo::testing::random_value(x, y, z);
}
// Independent of y: its spectrum has ky = 0 only, which rank 0 holds.
double y_independent_field(long x, long, long z) {
  return kolmo::testing::random_value(x, 0, z);
}

// The largest difference between two arrays over the first `count` values, relative to b's largest value.
template <class T>
double relative_difference(const std::vector<T>& a, const std::vector<T>& b, std::size_t count) {
  double difference = 0, scale = 0;
  for (std::size_t m = 0; m < count; ++m) {
    difference = std::max(difference, double(std::abs(a[m] - b[m])));
    scale = std::max(scale, double(std::abs(b[m])));
  }
  return difference / std::max(scale, 1e-300);
}
template <class Real>
double relative_difference(const std::vector<Complex<Real>>& a, const std::vector<Complex<Real>>& b,
                           std::size_t count) {
  double difference = 0, scale = 0;
  for (std::size_t m = 0; m < count; ++m) {
    difference = std::max(difference, std::hypot(double(a[m].re - b[m].re), double(a[m].im - b[m].im)));
    scale = std::max(scale, std::hypot(double(b[m].re), double(b[m].im)));
  }
  return difference / std::max(scale, 1e-300);
}

// Dealiased forward transforms promise only the kept modes: the others of a spectral slab set to zero.
template <class Real>
void zero_dropped_modes(const SlabLayout& l, std::vector<Complex<Real>>& spectrum) {
  for (long i = 0; i < l.nx(); ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < l.nzc(); ++k)
        if (!(SlabLayout::kept(l.y_offset() + j, l.ny()) && k < l.kept_z()))
          spectrum[(i * l.y_count() + j) * l.nzc() + k] = {0, 0};
}

// Rank 0 of P, a field living on rank 0's planes alone that does not vary in y, against serial FFTW of the
// whole field (zero elsewhere): forward (full, and dealiased at the kept modes) and back.
template <class Real>
void check_rank_zero_alone(SlabFFT<Real>& fft, bool in_place) {
  const auto& l = fft.layout();
  const auto n = l.global();
  Device& device = fft.device();
  const long nzc = l.nzc();
  std::vector<double> whole(n[0] * n[1] * n[2], 0.0);
  for (long x = 0; x < l.x_count(); ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z) whole[(x * n[1] + y) * n[2] + z] = y_independent_field(x, y, z);
  std::vector<std::complex<double>> reference(n[0] * n[1] * nzc);
  fftw_plan plan = fftw_plan_dft_r2c_3d(int(n[0]), int(n[1]), int(n[2]), whole.data(),
                                        reinterpret_cast<fftw_complex*>(reference.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);

  const std::vector<Real> f = slab_of<Real>(l, y_independent_field);
  for (Modes modes : {Modes::all, Modes::dealiased}) {
    INFO("dealiased " << (modes == Modes::dealiased) << ", in place " << in_place);
    auto data = fft.make_real();
    data.assign_from_host(f);
    auto spectral_buffer = fft.make_spectral();
    Complex<Real>* spectral =
        in_place ? reinterpret_cast<Complex<Real>*>(data.data()) : spectral_buffer.data();
    fft.forward(data.data(), spectral, modes);
    std::vector<Complex<Real>> F(l.spectral_size());
    device.copy_to_host(F.data(), spectral, sizeof(Complex<Real>) * F.size());
    double error = 0, scale = 0;
    for (long i = 0; i < n[0]; ++i)
      for (long j = 0; j < l.y_count(); ++j)
        for (long k = 0; k < nzc; ++k) {
          if (modes == Modes::dealiased && !(SlabLayout::kept(j, n[1]) && k < l.kept_z())) continue;
          const auto expected = reference[(i * n[1] + j) * nzc + k];
          const auto& got = F[(i * l.y_count() + j) * nzc + k];
          error = std::max(error, std::abs(std::complex<double>(got.re, got.im) - expected));
          scale = std::max(scale, std::abs(expected));
        }
    CHECK(global_max(error / scale) < tolerance<Real>());
    // Back (dealiased: the field's dealiased part, so compare with the full backward of the dealiased
    // spectrum, zeros put in by hand).
    if (modes == Modes::dealiased) zero_dropped_modes(l, F);
    auto full = fft.make_spectral();
    full.assign_from_host(F);
    auto expected_back = fft.make_real(), back = fft.make_real();
    fft.backward(full.data(), expected_back.data());
    fft.backward(spectral, in_place ? data.data() : back.data(), modes);
    std::vector<Real> g(l.real_size()), e(l.real_size());
    device.copy_to_host(g.data(), in_place ? data.data() : back.data(), sizeof(Real) * g.size());
    device.copy_to_host(e.data(), expected_back.data(), sizeof(Real) * e.size());
    CHECK(global_max(relative_difference(g, e, g.size())) < tolerance<Real>());
    if (modes == Modes::all) {
      const double points = double(n[0]) * n[1] * n[2];
      std::vector<Real> scaled(f.begin(), f.begin() + l.real_size());
      for (auto& v : scaled) v = Real(v * points);
      CHECK(global_max(relative_difference(g, scaled, g.size())) < tolerance<Real>());
    }
  }
}

// Whether every chunk this rank sends has the shape of the one it receives from the same peer.
bool even(const SlabLayout& l) {
  for (int q = 0; q < l.ranks(); ++q)
    if (l.x_count(q) != l.x_count() || l.y_count(q) != l.y_count()) return false;
  return true;
}

const std::vector<std::array<long, 3>> kUnevenGrids{{24, 20, 18}, {9, 7, 5}, {30, 12, 16}};

}  // namespace

TEMPLATE_TEST_CASE("one emulated rank is the real one-rank transform", "[fft]", float, double) {
  auto host = Device::create(Backend::host);
  for (auto n : kUnevenGrids)
    for (Modes modes : {Modes::all, Modes::dealiased}) {
      SlabFFT<TestType> alone(n, MPI_COMM_SELF, host), one(n, MPI_COMM_WORLD, host, emulated(1, 0));
      const auto& l = alone.layout();
      auto f = slab_of<TestType>(l, random_field);
      auto data = alone.make_real();
      data.assign_from_host(f);
      auto a = alone.make_spectral(), b = alone.make_spectral();
      a.fill_zero();  // dealiased: what the transforms leave alone at dropped modes is the same
      b.fill_zero();
      alone.forward(data.data(), a.data(), modes);
      one.forward(data.data(), b.data(), modes);
      auto A = a.host_copy(), B = b.host_copy();
      auto back_a = alone.make_real(), back_b = alone.make_real();
      alone.backward(a.data(), back_a.data(), modes);
      one.backward(a.data(), back_b.data(), modes);
      const bool same = relative_difference(A, B, l.spectral_size()) == 0.0 &&
                        relative_difference(back_a.host_copy(), back_b.host_copy(), l.real_size()) == 0.0;
      CHECK(global_max(same ? 0.0 : 1.0) == 0.0);
    }
}

TEMPLATE_TEST_CASE("rank 0 of P emulated transforms a field on its own planes as serial FFTW does", "[fft]",
                   float, double) {
  auto host = Device::create(Backend::host);
  for (auto n : kUnevenGrids)
    for (int ranks : {2, 3, 4})
      for (Packing packing : {Packing::copies, Packing::strided})
        for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
          for (int pieces : {1, 3}) {  // 3: more than some ranks have planes (empty pieces)
            SlabFFT<TestType> fft(n, MPI_COMM_WORLD, host, emulated(ranks, 0, packing, split, pieces));
            for (bool in_place : {false, true}) {
              INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", " << ranks
                           << " emulated ranks, strided " << (packing == Packing::strided) << ", split "
                           << to_string(split) << ", pieces " << pieces);
              check_rank_zero_alone(fft, in_place);
            }
          }
}

// This rank's largest difference between backward(forward(f)) and Nx Ny Nz f, relative to the latter, for
// a random field f (no collective: emulated ranks work alone).
template <class Real>
double round_trip_error(SlabFFT<Real>& fft) {
  const auto& l = fft.layout();
  auto f = slab_of<Real>(l, random_field);
  auto data = fft.make_real(), back = fft.make_real();
  data.assign_from_host(f);
  auto spectral = fft.make_spectral();
  fft.forward(data.data(), spectral.data());
  fft.backward(spectral.data(), back.data());
  const auto g = back.host_copy();
  for (auto& v : f) v *= Real(double(l.nx()) * l.ny() * l.nz());
  return relative_difference(g, f, l.real_size());
}

TEST_CASE("with even slabs any emulated rank's forward and backward pair returns the field", "[fft]") {
  auto host = Device::create(Backend::host);
  const std::array<long, 3> n{24, 20, 18};
  for (int ranks : {2, 4})
    for (int rank = 0; rank < ranks; ++rank)
      for (Packing packing : {Packing::copies, Packing::strided}) {
        SlabFFT<double> fft(n, MPI_COMM_WORLD, host, emulated(ranks, rank, packing));
        INFO(ranks << " ranks, rank " << rank << ", strided " << (packing == Packing::strided));
        CHECK(global_max(round_trip_error(fft)) < 1e-13);
      }
}

TEST_CASE("a profile times every phase that runs, and they add up", "[fft]") {
  auto host = Device::create(Backend::host);
  for (int ranks : {1, 3})
    for (Modes modes : {Modes::all, Modes::dealiased})
      for (OneRankDealiasing way : {OneRankDealiasing::automatic, OneRankDealiasing::copies})
        for (Packing packing : {Packing::copies, Packing::strided}) {
          // One rank by copies: the route of several ranks, the own chunk copied and nothing exchanged.
          const bool copies = way == OneRankDealiasing::copies, strided = packing == Packing::strided;
          if (copies && (ranks > 1 || modes == Modes::all)) continue;
          if (strided && (ranks == 1 || copies)) continue;
          FftOptions options = emulated(ranks, 0, packing);
          options.profile = true;
          options.one_rank_dealiasing = way;
          SlabFFT<double> fft(std::array<long, 3>{24, 20, 18}, MPI_COMM_WORLD, host, options);
          auto data = fft.make_real();
          data.fill_zero();
          auto spectral = fft.make_spectral();
          for (int pair = 0; pair < 2; ++pair) {
            fft.forward(data.data(), spectral.data(), modes);
            fft.backward(spectral.data(), data.data(), modes);
          }
          const PhaseTimes& t = fft.times();
          double sum = 0;
          for (int p = 0; p < kPhaseCount; ++p) sum += t.forward[p] + t.backward[p];
          bool ran = t.transforms == 4 && std::abs(sum - t.compute - t.communication) <= 1e-12 * sum;
          // The phases each route has (one rank on the host: kept rows for dealiased transforms; several: the
          // copies, the host having no fused route; full ones packed with the plane transforms), and no
          // other.
          const bool dealiased = modes == Modes::dealiased;
          bool forward[kPhaseCount] = {}, backward[kPhaseCount] = {}, either[kPhaseCount] = {};
          const auto expect = [](bool* phases, std::initializer_list<Phase> list) {
            for (Phase p : list) phases[static_cast<int>(p)] = true;
          };
          expect(forward, {Phase::planes, Phase::x});
          expect(backward, {Phase::x, Phase::planes});
          if (ranks == 1 && dealiased) expect(backward, {Phase::zero});
          if (copies) {
            expect(forward, {Phase::pack, Phase::own_chunk, Phase::unpack});
            expect(backward, {Phase::pack, Phase::own_chunk, Phase::unpack});
          }
          if (strided) {
            // Nothing packed: the exchange reads and writes the transforms' own layouts.
            expect(forward, {Phase::own_chunk, Phase::exchange});
            expect(backward, {Phase::own_chunk, Phase::exchange});
            if (dealiased) expect(backward, {Phase::zero});
          } else if (ranks > 1 && !dealiased) {
            // The host packs and unpacks each block of planes with its plane transforms (this grid's planes
            // start aligned), the forward putting the own chunk in place, the backward reading it where the x
            // transforms left it: on 2 ranks always; on more only where an order of the blocks leaves every
            // peer's rows unread until unpacked, else it copies the own chunk first (either is right here).
            expect(forward, {Phase::exchange});
            expect(backward, {Phase::exchange});
            if (ranks > 2) either[static_cast<int>(Phase::own_chunk)] = true;
          } else if (ranks > 1) {
            expect(forward, {Phase::pack, Phase::own_chunk, Phase::exchange, Phase::unpack});
            expect(backward, {Phase::own_chunk, Phase::exchange, Phase::unpack, Phase::pack, Phase::zero});
          }
          for (int p = 0; p < kPhaseCount; ++p)
            ran =
                ran && (t.forward[p] > 0) == forward[p] && (either[p] || (t.backward[p] > 0) == backward[p]);
          INFO(ranks << " emulated rank(s), dealiased " << (modes == Modes::dealiased) << ", copies "
                     << copies << ", strided " << strided);
          CHECK(global_max(ran ? 0.0 : 1.0) == 0.0);
        }
}

// On a GPU: emulated ranks, each fused route against the copies, for the first and last rank of uneven
// splits, full and dealiased, in place and out of place; and rank 0 against serial FFTW.
TEMPLATE_TEST_CASE("GPU: emulated ranks pack in cuFFT's kernels as the copies do", "[fft][gpu]", float,
                   double) {
  auto gpu = kolmo::testing::gpu_or_skip("emulated ranks on the GPU");
  if (!gpu) return;
  // Two grids, two splits, first and last rank: each makes its own plans (cuFFT links the callbacks then).
  // And two whose Ny and Nx the column FFTs take: the strided route's planes by kolmo's column FFTs, pruned
  // where dealiased, along z by the row FFTs (Nz = 32) or cuFFT's (Nz = 24). And one whose x column FFTs'
  // tiles have rows of 64 bytes (Nx 1024 in double precision, 2048 in single), whose routed stores align to
  // the chunks they store (fft/ColumnFft.cu). And one whose Nx the column FFTs take but not Ny: full
  // transforms' backward x transforms by them, dealiased ones' by cuFFT's callbacks into compact chunks. In
  // single precision also Nx and Ny of 1024: the dealiased backward x transforms store compact rows from
  // tiles of 64-byte rows, as the plain and moved transforms run, the other routed ones from 128-byte ones
  // (the forward plane transforms' y columns among them).
  const long wide_x = sizeof(TestType) == 8 ? 1024 : 2048;
  std::vector<std::array<long, 3>> grids{kUnevenGrids[0], kUnevenGrids[1],  {32, 32, 32},
                                         {16, 32, 24},    {wide_x, 16, 16}, {16, 20, 18}};
  if (sizeof(TestType) == 4)
    for (std::array<long, 3> n : {std::array<long, 3>{1024, 16, 16}, std::array<long, 3>{16, 1024, 16}})
      grids.push_back(n);
  for (auto n : grids)
    for (int ranks : {2, 3})
      for (int rank : {0, ranks - 1}) {
        SlabFFT<TestType> copies(n, MPI_COMM_WORLD, gpu, emulated(ranks, rank, Packing::copies)),
            plane_stores(n, MPI_COMM_WORLD, gpu, emulated(ranks, rank, Packing::plane_stores)),
            realigned(n, MPI_COMM_WORLD, gpu, emulated(ranks, rank, Packing::realigned)),
            strided(n, MPI_COMM_WORLD, gpu, emulated(ranks, rank, Packing::strided));
        const auto& l = copies.layout();
        const auto f = slab_of<TestType>(l, random_field);
        for (bool in_place : {false, true})
          for (Modes modes : {Modes::all, Modes::dealiased}) {
            SlabFFT<TestType>* ffts[4] = {&copies, &plane_stores, &realigned, &strided};
            std::vector<Complex<TestType>> spectra[4];
            std::vector<TestType> backs[4];
            for (int w = 0; w < 4; ++w) {
              INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank " << rank << " of " << ranks
                           << ", dealiased " << (modes == Modes::dealiased) << ", in place " << in_place
                           << ", route " << w << ": " << ffts[w]->packing_refusal());
              CHECK(ffts[w]->packs_in_ffts(modes) == (w == 1 || w == 2));
              const std::string route = ffts[w]->route_name(modes);
              if (w == 3)
                CHECK((route == "strided" || route == "placed"));
              else
                CHECK(route == (w == 0 ? "copies" : w == 2 && modes == Modes::all ? "realigned" : "fused"));
              auto data = copies.make_real(), back = copies.make_real();
              data.assign_from_host(f);
              auto spectral_buffer = copies.make_spectral();
              auto* spectral =
                  in_place ? reinterpret_cast<Complex<TestType>*>(data.data()) : spectral_buffer.data();
              ffts[w]->forward(data.data(), spectral, modes);
              spectra[w].resize(l.spectral_size());
              gpu->copy_to_host(spectra[w].data(), spectral, spectra[w].size() * sizeof(Complex<TestType>));
              ffts[w]->backward(spectral, in_place ? data.data() : back.data(), modes);
              backs[w].resize(l.real_size());
              gpu->copy_to_host(backs[w].data(), in_place ? data.data() : back.data(),
                                backs[w].size() * sizeof(TestType));
              if (modes == Modes::dealiased) zero_dropped_modes(l, spectra[w]);
              // The loopback hands each peer's receive region this rank's chunk for that peer. The copies and
              // the plane stores order chunks alike ([x][y][kz]); realigned planes order them [y][x][kz],
              // which differs where a chunk sent and the one received have different shapes (uneven
              // slabs): there the stand-ins differ, and the realigned route is held to FFTW below instead.
              // So does the strided route's, which sends rows of the planes [x][y][kz] to their place in
              // [kx][ky][kz], and of dealiased transforms only the kept modes, in rows that differ between
              // ranks: compared here with even slabs and full transforms only.
              if (w == 0 || (w == 2 && !even(l)) || (w == 3 && (!even(l) || modes == Modes::dealiased)))
                continue;
              CHECK(global_max(relative_difference(spectra[w], spectra[0], l.spectral_size())) <
                    tolerance<TestType>());
              CHECK(global_max(relative_difference(backs[w], backs[0], l.real_size())) <
                    tolerance<TestType>());
            }
          }
      }
  // Full transforms' chunks by default (RealignedPlanes::automatic): stored by the plane transforms where
  // kolmo's column FFTs take Ny (32), realigned planes otherwise (20).
  for (auto n : {kUnevenGrids[0], std::array<long, 3>{32, 32, 32}}) {
    FftOptions options = emulated(2, 0);
    options.realigned_planes = RealignedPlanes::automatic;
    SlabFFT<TestType> fft(n, MPI_COMM_WORLD, gpu, options);
    INFO("grid " << n[0] << "x" << n[1] << "x" << n[2]);
    CHECK(fft.route_name(Modes::all) == (n[1] == 32 ? "fused" : "realigned"));
  }
  for (auto n : kUnevenGrids)
    for (int ranks : {2, 3})
      for (Packing packing : {Packing::plane_stores, Packing::realigned, Packing::strided}) {
        SlabFFT<TestType> fft(n, MPI_COMM_WORLD, gpu, emulated(ranks, 0, packing));
        for (bool in_place : {false, true}) {
          INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank 0 of " << ranks << " against FFTW, "
                       << "packing " << static_cast<int>(packing));
          check_rank_zero_alone(fft, in_place);
        }
      }
}

// The strided route's forward transforms in place (their planes in the receive slab of pack_in_ffts, or
// without it in the scratch slab and copied back) against the same object's out of place, whose loopback
// hands every peer the same stand-ins: the first and last rank of 2 and 3 (uneven slabs), on grids whose
// planes are cuFFT's, or kolmo's column FFTs placing the own rows (pruned where dealiased) along z by the
// row FFTs (Nz = 32) or cuFFT's (Nz = 24); full and dealiased (the kept modes).
TEMPLATE_TEST_CASE("GPU: the strided route's forward transforms in place equal those out of place",
                   "[fft][gpu]", float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("the strided route in place on the GPU");
  if (!gpu) return;
  for (auto n : {kUnevenGrids[0], std::array<long, 3>{32, 32, 32}, std::array<long, 3>{16, 32, 24}})
    for (int ranks : {2, 3})
      for (int rank : {0, ranks - 1})
        for (bool receive_slab : {true, false}) {
          FftOptions options = emulated(ranks, rank, Packing::strided);
          options.pack_in_ffts = receive_slab;
          SlabFFT<TestType> fft(n, MPI_COMM_WORLD, gpu, options);
          const auto& l = fft.layout();
          const auto f = slab_of<TestType>(l, random_field);
          for (Modes modes : {Modes::all, Modes::dealiased}) {
            INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank " << rank << " of " << ranks
                         << ", receive slab " << receive_slab << ", dealiased " << (modes == Modes::dealiased)
                         << ", route " << fft.route_name(modes));
            auto data = fft.make_real(), in_place = fft.make_real();
            data.assign_from_host(f);
            in_place.assign_from_host(f);
            auto spectral = fft.make_spectral();
            fft.forward(data.data(), spectral.data(), modes);
            fft.forward(in_place.data(), reinterpret_cast<Complex<TestType>*>(in_place.data()), modes);
            std::vector<Complex<TestType>> out_of_place(l.spectral_size()), in(l.spectral_size());
            gpu->copy_to_host(out_of_place.data(), spectral.data(), in.size() * sizeof(Complex<TestType>));
            gpu->copy_to_host(in.data(), in_place.data(), in.size() * sizeof(Complex<TestType>));
            if (modes == Modes::dealiased) {
              zero_dropped_modes(l, in);
              zero_dropped_modes(l, out_of_place);
            }
            CHECK(relative_difference(in, out_of_place, in.size()) < tolerance<TestType>());
          }
        }
}

// Full transforms by kolmo's row FFTs along z and column FFTs along y (which FftOptions::plane_groups > 0
// imposes; otherwise a timing chooses between them and cuFFT's kernels): on one rank, where they stand in
// for cuFFT's 2D plans, and on the route that places the own rows, in one group and in two: rank 0 of 1, 2
// and 3 (uneven slabs: 20 planes on 3) against serial FFTW.
TEMPLATE_TEST_CASE("GPU: full transforms by kolmo's row and column FFTs agree with serial FFTW", "[fft][gpu]",
                   float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("full transforms by row FFTs on the GPU");
  if (!gpu || kolmo::testing::world_size() > 1) return;
  for (auto n : {std::array<long, 3>{20, 16, 32}, std::array<long, 3>{24, 32, 16}})
    for (int ranks : {1, 2, 3})
      for (int groups : {1, 2}) {
        FftOptions options = ranks == 1 ? FftOptions{} : emulated(ranks, 0, Packing::strided);
        if (ranks > 1) options.own_rows = OwnRows::placed;
        options.plane_groups = groups;
        SlabFFT<TestType> fft(n, MPI_COMM_WORLD, gpu, options);
        INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank 0 of " << ranks << ", groups " << groups
                     << ": " << fft.planning_report());
        if (ranks > 1) CHECK(fft.route_name(Modes::all) == "placed");
        check_rank_zero_alone(fft, false);
      }
}

// The dealiased plane transforms by kolmo's row and column FFTs in groups on two streams (FftOptions::
// plane_groups; otherwise a timing at construction chooses them) touch disjoint planes: the same results,
// bit for bit, as in one group. One rank (the pruned route, in and out of place), and ranks 0 and 2 of 3
// emulated on the strided route that places the own rows (uneven slabs; in one piece and in two, whose
// plane transforms are made per piece); 2 and 3 groups (uneven), and more groups than planes (one plane a
// group).
TEMPLATE_TEST_CASE("GPU: plane transforms in groups give the results of one group bit for bit", "[fft][gpu]",
                   float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("plane groups on the GPU");
  if (!gpu || kolmo::testing::world_size() > 1) return;
  struct Way {
    int ranks, rank, pieces;
    bool in_place;
  };
  const std::vector<Way> ways{{1, 0, 1, false}, {1, 0, 1, true},  {3, 0, 1, false},
                              {3, 2, 1, false}, {3, 0, 2, false}, {3, 2, 2, false}};
  for (auto n : {std::array<long, 3>{32, 16, 32}, std::array<long, 3>{64, 32, 16}})
    for (const Way& way : ways) {
      auto options = [&](int groups) {
        FftOptions o = way.ranks == 1
                           ? FftOptions{}
                           : emulated(way.ranks, way.rank, Packing::strided, SpectralSplit::even, way.pieces);
        if (way.ranks == 1) o.one_rank_dealiasing = OneRankDealiasing::pruned;
        o.own_rows = way.ranks == 1 ? OwnRows::automatic : OwnRows::placed;
        o.plane_groups = groups;
        return o;
      };
      SlabFFT<TestType> one(n, MPI_COMM_WORLD, gpu, options(1));
      const auto& l = one.layout();
      const auto f = slab_of<TestType>(l, random_field);
      // Forward: the kept modes; backward: the real slab.
      auto run = [&](SlabFFT<TestType>& fft, std::vector<Complex<TestType>>& spectrum,
                     std::vector<TestType>& back) {
        auto data = fft.make_real(), out = fft.make_real();
        data.assign_from_host(f);
        auto spectral_buffer = fft.make_spectral();
        spectral_buffer.fill_zero();
        auto* spectral =
            way.in_place ? reinterpret_cast<Complex<TestType>*>(data.data()) : spectral_buffer.data();
        fft.forward(data.data(), spectral, Modes::dealiased);
        spectrum.resize(l.spectral_size());
        gpu->copy_to_host(spectrum.data(), spectral, spectrum.size() * sizeof(Complex<TestType>));
        zero_dropped_modes(l, spectrum);
        fft.backward(spectral, way.in_place ? data.data() : out.data(), Modes::dealiased);
        back.resize(l.real_size());
        gpu->copy_to_host(back.data(), way.in_place ? data.data() : out.data(),
                          back.size() * sizeof(TestType));
      };
      std::vector<Complex<TestType>> spectrum_one, spectrum;
      std::vector<TestType> back_one, back;
      run(one, spectrum_one, back_one);
      for (int groups : {2, 3, 100}) {
        INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank " << way.rank << " of " << way.ranks
                     << ", pieces " << way.pieces << ", in place " << way.in_place << ", groups " << groups);
        SlabFFT<TestType> grouped(n, MPI_COMM_WORLD, gpu, options(groups));
        run(grouped, spectrum, back);
        CHECK(relative_difference(spectrum, spectrum_one, l.spectral_size()) == 0.0);
        CHECK(relative_difference(back, back_one, l.real_size()) == 0.0);
      }
    }
}

// The construction times plane groups (FftOptions::plane_groups = 0) on buffers of its own where the planes
// are large against L2, as 128 planes of 256^2 are. Placing backward transforms load the own rows from their
// output, a spectral slab there, which on the last ranks reaches beyond the planes' real size: the timing's
// buffer once ended there, and the reads beyond it (an illegal address on an H200, rank 3 of 8 at 512^3)
// are what compute-sanitizer's memcheck stage (tools/device_sanitizer_check.sh) finds in this case. The last
// rank of 2 (both directions' placing planes are made and timed, full and dealiased): its full pair returns
// the field.
TEMPLATE_TEST_CASE("GPU: the last rank's construction times its plane groups within their buffers",
                   "[fft][gpu]", float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("plane groups timed on the GPU");
  if (!gpu || kolmo::testing::world_size() > 1) return;
  const std::array<long, 3> n{256, 256, 256};
  FftOptions options = emulated(2, 1, Packing::strided);
  options.own_rows = OwnRows::placed;
  SlabFFT<TestType> fft(n, MPI_COMM_WORLD, gpu, options);
  INFO(fft.planning_report());
  CHECK(round_trip_error(fft) < 10 * tolerance<TestType>());
}

TEST_CASE("a transform names the route its options chose", "[fft]") {
  auto host = Device::create(Backend::host);
  const std::array<long, 3> n{12, 10, 8};
  SlabFFT<double> one(n, MPI_COMM_SELF, host),
      copies(n, MPI_COMM_SELF, host, emulated(3, 1, Packing::copies)),
      strided(n, MPI_COMM_SELF, host, emulated(3, 1, Packing::strided));
  for (Modes modes : {Modes::all, Modes::dealiased}) {
    CHECK(one.route_name(modes) == "one rank");
    CHECK(copies.route_name(modes) == "copies");
    CHECK(strided.route_name(modes) == "strided");  // the host places no own rows
  }
}

TEST_CASE("a negative count of plane groups is refused", "[fft]") {
  FftOptions negative;
  negative.plane_groups = -1;
  CHECK_THROWS_WITH(
      SlabFFT<double>(std::array<long, 3>{8, 8, 8}, MPI_COMM_WORLD, Device::create(Backend::host), negative),
      Catch::Contains("plane groups"));
}
