// How the passes of the plane transforms slow down per plane as the batch of planes shrinks: one rank of P
// holds Nx / P planes, and at 512^3 on 8 ranks a pass over 64 planes lasts a few tens of microseconds. For
// each batch of N x N planes: kolmo's row FFTs along z (R2C, the 2/3 rule's kz written; and the C2R back),
// its column FFTs along y (the kept kz columns, in place), the forward two back to back (the dealiased plane
// transforms; with --full every kz written and every kz column transformed, whole: the full plane transforms
// by kolmo's own kernels), cuFFT's 2D
// R2C plan of the batch (the full ones), and a device-to-device copy of as many bytes as the planes hold
// (reals) — the memory system's own cost of a short pass. Each is the time of 50 launches queued back to
// back, after 3, divided by 50 (CUDA events), the launches going round disjoint windows of the largest
// batch's arrays, so that a small batch's data are not still in L2 from the launch before; "per plane" is
// relative to the largest batch.
//
//   kolmo_batch_bench --n 512 --precision single --batches 16 32 64 128 256 512 [--full]
//
// With --x-slabs Y:K ...: instead, the dealiased x transforms of one spectral slab [kx][ky][kz] of n kx, Y ky
// planes and n/2 + 1 kz, over its first K ky planes and the 2/3 rule's kz (kolmo's column FFTs, out of
// place), for each Y:K given: a rank's x transforms (Y = K = its kept ky planes), the one GPU's (Y = n, K its
// kept ky), and the rank's columns at the one GPU's stride (Y = n, K the rank's), to tell the stride along x
// from the number of columns; and cuFFT's batched 1D transforms of as many columns side by side (a compact
// slab), each relative to its first case, and kolmo's column FFTs of that compact slab (compact_: the layout
// apart from the kernel). Per launch and per column, the launches going round windows as above.
//   kolmo_batch_bench --n 512 --precision single --x-slabs 512:341 512:44 44:44 48:44 84:84 512:84
//
// With --floor P ...: instead, the memory floor of item 1's ratio (issue 11): one rank's pair of P and the
// one GPU's pair as chains of plain streaming passes that read and write the bytes each of the pair's passes
// must (forward: the rows along z, the columns along y, the x transforms; backward the reverse; dealiased
// with the kept-row split and only the 2/3 rule's kz, ky of the columns' output and kx columns; full with
// the even split, every mode), each pass one launch of 16 bytes a thread, launched as the library's kernels
// are (core/DependentLaunch.cuh), each pass reading what the one before it wrote. Timed as the benchmark's
// profiles time a pair (each transform held by an fft::PhaseClock, a lap per phase), medians of 21 after 3;
// the ratio is the slowest rank's chain over the one GPU's / P. No FFT arithmetic and no exchange: what a
// rank's share of the memory traffic costs in launches of its size, the part of a rank's excess over its
// share that the memory system takes by itself (tools/fft_model.py --floor sets it beside the library's
// ratios). With
// --floor-busy-hold a kernel that keeps the device busy holds it instead of the host (the same within 0.005
// on one H200: an idle device does not slow a rank's first pass); with --floor-clean-l2 a pass that leaves
// no dirty lines in L2 goes before each pair (the forward planes' excess about 3 us less: the write-back of
// what the work before left; docs/results/memory_floor_h200.log).
//   kolmo_batch_bench --n 512 --precision single --floor 2 4 8
#include <cufft.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "core/DependentLaunch.cuh"
#include "core/Device.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/ColumnFft.hpp"
#include "fft/PhaseClock.hpp"
#include "fft/RowFft.hpp"
#include "fft/SlabLayout.hpp"
#include "fft/StockhamPasses.hpp"
#include "tools/BenchSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;

using kolmo::tools::at_least_one;
using kolmo::tools::median;

namespace {

using CufftPlan = UniqueHandle<cufftHandle, cufftDestroy>;

// Microseconds per launch of f(window): 50 queued back to back after 3, window going round 0 .. windows - 1.
template <class F>
double per_launch_us(cudaStream_t stream, long windows, F&& f) {
  constexpr int warmup = 3, launches = 50;
  const Event start = new_event(cudaEventDefault), stop = new_event(cudaEventDefault);
  for (int r = 0; r < warmup; ++r) f(r % windows);
  KOLMO_CHECK_CUDA(cudaEventRecord(start.get(), stream));
  for (int r = 0; r < launches; ++r) f(r % windows);
  KOLMO_CHECK_CUDA(cudaEventRecord(stop.get(), stream));
  KOLMO_CHECK_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  KOLMO_CHECK_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return 1e3 * ms / launches;
}

template <class Real>
int run(long n, const std::vector<long>& batches, bool full) {
  using C = Complex<Real>;
  long most = 0;
  for (long b : batches) most = std::max(most, b);
  const long nzc = n / 2 + 1;
  const SlabLayout plane({1, n, n}, 1, 0);
  const long kept_z = full ? nzc : plane.kept_z();
  // The kept ky: [0, kept_below) and [kept_from, n), one rank's two runs; full: all of them.
  const long kept_below = full ? n : plane.kept_runs(0).front().count;
  const long kept_from = full ? n : plane.kept_runs(0).back().start;
  const std::shared_ptr<Device> device = Device::create(Backend::cuda);
  auto s = static_cast<cudaStream_t>(device->stream());
  Buffer<C> table(device, n);
  table.assign_from_host(stockham_twiddles<Real>(n));
  Buffer<Real> real(device, std::size_t(most) * n * n);
  Buffer<C> spectral(device, std::size_t(most) * n * nzc);
  real.fill_zero();
  spectral.fill_zero();
  const bool single = sizeof(Real) == 4;
  std::printf(
      "kolmo_batch_bench: %ld x %ld planes, %s precision, %s; us per launch (50 back to back), and per "
      "plane relative to %ld planes\n",
      n, n, single ? "single" : "double", full ? "full" : "dealiased", most);
  std::printf("%7s | %9s %9s %9s %9s %9s %9s | %6s %6s %6s %6s\n", "planes", "rows z", "rows back",
              "columns y", "both", "cuFFT 2D", "copy", "rows", "both", "cuFFT", "copy");
  struct Times {
    double rows, rows_back, columns, both, cufft, copy;
  };
  std::vector<Times> times;
  for (long batch : batches) {
    const RowSet rows{n, batch * n, n, nzc, kept_z};
    ColumnSet y;
    y.n = n;
    y.stride = nzc;
    y.outer_stride = n * nzc;
    y.outer_count[0] = batch;
    y.inner = y.computed = kept_z;
    y.kept_below = kept_below;
    y.kept_from = kept_from;
    y.store_kept_only = !full;
    const long windows = most / batch;
    auto real_at = [&](long w) { return real.data() + w * batch * n * n; };
    auto spectral_at = [&](long w) { return spectral.data() + w * batch * n * nzc; };
    auto row_pass = [&](long w) { row_fft_r2c<Real>(rows, real_at(w), spectral_at(w), table.data(), s); };
    auto row_back = [&](long w) { row_fft_c2r<Real>(rows, spectral_at(w), real_at(w), table.data(), s); };
    auto column_pass = [&](long w) {
      column_fft<Real>(y, spectral_at(w), spectral_at(w), table.data(), -1, s);
    };
    cufftHandle handle = 0;
    int dims[2] = {int(n), int(n)};
    KOLMO_REQUIRE(cufftPlanMany(&handle, 2, dims, nullptr, 1, 0, nullptr, 1, 0,
                                single ? CUFFT_R2C : CUFFT_D2Z, int(batch)) == CUFFT_SUCCESS,
                  "cuFFT refused a 2D plan of " + std::to_string(batch) + " planes");
    const CufftPlan plan(handle);
    KOLMO_REQUIRE(cufftSetStream(handle, s) == CUFFT_SUCCESS, "cuFFT refused the stream");
    auto cufft_pass = [&](long w) {
      if constexpr (sizeof(Real) == 4)
        cufftExecR2C(handle, real_at(w), reinterpret_cast<cufftComplex*>(spectral_at(w)));
      else
        cufftExecD2Z(handle, real_at(w), reinterpret_cast<cufftDoubleComplex*>(spectral_at(w)));
    };
    const std::size_t bytes = std::size_t(batch) * n * n * sizeof(Real);
    auto copy = [&](long w) { device->copy(spectral_at(w), real_at(w), bytes); };
    auto both = [&](long w) {
      row_pass(w);
      column_pass(w);
    };
    times.push_back({per_launch_us(s, windows, row_pass), per_launch_us(s, windows, row_back),
                     per_launch_us(s, windows, column_pass), per_launch_us(s, windows, both),
                     per_launch_us(s, windows, cufft_pass), per_launch_us(s, windows, copy)});
    KOLMO_CHECK_CUDA(cudaGetLastError());
  }
  std::size_t largest = 0;  // the reference: the largest batch
  for (std::size_t i = 0; i < batches.size(); ++i)
    if (batches[i] == most) largest = i;
  const Times& ref = times[largest];
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const Times& t = times[i];
    const double scale = double(most) / double(batches[i]);
    std::printf("%7ld | %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f | %6.3f %6.3f %6.3f %6.3f\n", batches[i], t.rows,
                t.rows_back, t.columns, t.both, t.cufft, t.copy, t.rows * scale / ref.rows,
                t.both * scale / ref.both, t.cufft * scale / ref.cufft, t.copy * scale / ref.copy);
    std::printf(
        "RESULT batch n=%ld precision=%s modes=%s planes=%ld rows_us=%.2f rows_back_us=%.2f columns_us=%.2f "
        "both_us=%.2f cufft2d_us=%.2f copy_us=%.2f\n",
        n, single ? "single" : "double", full ? "full" : "dealiased", batches[i], t.rows, t.rows_back,
        t.columns, t.both, t.cufft, t.copy);
  }
  return 0;
}

// The x transforms of slabs of y ky planes, over their first k (--x-slabs).
template <class Real>
int run_x(long n, const std::vector<std::string>& slabs) {
  using C = Complex<Real>;
  const long nzc = n / 2 + 1;
  const long kept_z = SlabLayout({1, n, n}, 1, 0).kept_z();
  const std::shared_ptr<Device> device = Device::create(Backend::cuda);
  auto s = static_cast<cudaStream_t>(device->stream());
  Buffer<C> table(device, n);
  table.assign_from_host(stockham_twiddles<Real>(n));
  struct Slab {
    long y, k;
  };
  std::vector<Slab> cases;
  long most = 0;
  for (const std::string& text : slabs) {
    const auto colon = text.find(':');
    KOLMO_REQUIRE(colon != std::string::npos, "--x-slabs " + text + ": give Y:K");
    const Slab slab{std::stol(text.substr(0, colon)), std::stol(text.substr(colon + 1))};
    KOLMO_REQUIRE(slab.k >= 1 && slab.k <= slab.y, "--x-slabs " + text + ": 1 <= K <= Y");
    cases.push_back(slab);
    most = std::max(most, slab.y);
  }
  // Room for at least 4 windows of the largest slab, so that a launch reads no data the one before left in
  // L2 (50 MB on an H200).
  const std::size_t values = 4 * std::size_t(n) * most * nzc;
  Buffer<C> in(device, values), out(device, values);
  in.fill_zero();
  out.fill_zero();
  const bool single = sizeof(Real) == 4;
  std::printf(
      "kolmo_batch_bench: x transforms of %ld points, %s precision, %ld kz columns a ky plane; "
      "us per launch (50 back to back), ns per column\n",
      n, single ? "single" : "double", kept_z);
  double reference = 0, cufft_reference = 0;
  for (const Slab& slab : cases) {
    ColumnSet x;
    x.n = n;
    x.stride = slab.y * nzc;
    x.outer_stride = nzc;
    x.outer_count[0] = slab.k;
    x.inner = x.computed = kept_z;
    x.kept_below = x.kept_from = n;
    const std::size_t window = std::size_t(n) * slab.y * nzc;
    const long windows = long(values / window);
    const double us = per_launch_us(s, windows, [&](long w) {
      column_fft<Real>(x, in.data() + w * window, out.data() + w * window, table.data(), -1, s);
    });
    KOLMO_CHECK_CUDA(cudaGetLastError());
    // cuFFT's batched 1D transforms of as many columns in a compact slab (the kept columns side by side,
    // stride k * kept_z along x: the layout cuFFT takes in one plan), for the same count of columns.
    const long columns = slab.k * kept_z;
    long long length = n, embed = n;
    cufftHandle handle = 0;
    std::size_t work = 0;
    KOLMO_REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS, "cuFFT could not create a plan");
    const CufftPlan plan(handle);
    KOLMO_REQUIRE(cufftMakePlanMany64(handle, 1, &length, &embed, columns, 1, &embed, columns, 1,
                                      single ? CUFFT_C2C : CUFFT_Z2Z, columns, &work) == CUFFT_SUCCESS,
                  "cuFFT refused the x plan");
    KOLMO_REQUIRE(cufftSetStream(handle, s) == CUFFT_SUCCESS, "cuFFT refused the stream");
    const std::size_t compact = std::size_t(n) * columns;
    const long compact_windows = long(values / compact);
    const double cufft_us = per_launch_us(s, compact_windows, [&](long w) {
      auto* from = in.data() + w * compact;
      auto* to = out.data() + w * compact;
      if constexpr (sizeof(Real) == 4)
        cufftExecC2C(handle, reinterpret_cast<cufftComplex*>(from), reinterpret_cast<cufftComplex*>(to),
                     CUFFT_FORWARD);
      else
        cufftExecZ2Z(handle, reinterpret_cast<cufftDoubleComplex*>(from),
                     reinterpret_cast<cufftDoubleComplex*>(to), CUFFT_FORWARD);
    });
    KOLMO_CHECK_CUDA(cudaGetLastError());
    // kolmo's column FFTs of the same compact slab: the layout apart from the kernel.
    ColumnSet dense = x;
    dense.stride = columns;
    dense.outer_stride = kept_z;
    const double compact_us = per_launch_us(s, compact_windows, [&](long w) {
      column_fft<Real>(dense, in.data() + w * compact, out.data() + w * compact, table.data(), -1, s);
    });
    KOLMO_CHECK_CUDA(cudaGetLastError());
    const double per_column = 1e3 * us / double(columns), cufft_per_column = 1e3 * cufft_us / double(columns);
    if (reference == 0) {
      reference = per_column;
      cufft_reference = cufft_per_column;
    }
    std::printf(
        "RESULT x n=%ld precision=%s y=%ld kept=%ld us=%.2f ns_per_column=%.3f relative=%.3f cufft_us=%.2f "
        "cufft_ns_per_column=%.3f cufft_relative=%.3f compact_ns_per_column=%.3f\n",
        n, single ? "single" : "double", slab.y, slab.k, us, per_column, per_column / reference, cufft_us,
        cufft_per_column, cufft_per_column / cufft_reference, 1e3 * compact_us / double(columns));
  }
  return 0;
}

// One streaming pass: reads `reads` and writes `writes` 16-byte values, one a thread (a value read and not
// written is still loaded: the test that would store it is never true of data the floor fills with zeros).
__global__ void streaming_pass(const uint4* in, long reads, uint4* out, long writes) {
  wait_for_previous_kernel();
  const long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  const uint4 v = i < reads ? in[i] : uint4{0, 0, 0, 0};
  if (i < writes)
    out[i] = v;
  else if (v.x == 0x7fc00001u)
    out[0] = v;
}

// Keeps the device busy for `nanoseconds` (one thread reading the global timer): a hold that leaves the
// device running, as a solver's earlier work does, where the held PhaseClock's host function leaves it idle.
__global__ void busy_for(long long nanoseconds) {
  long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < nanoseconds);
}

// How --floor starts each pair: held by the host (a PhaseClock's host function) or by a busy kernel; and
// optionally after a pass that reads twice L2's bytes and writes nothing, so that the pair's first pass finds
// no lines in L2 to write back.
struct FloorStart {
  bool busy_hold = false, clean_l2 = false;
};

// The memory floor of one rank's pair (--floor): the bytes of each pass, per rank, then their chains timed.
template <class Real>
int run_floor(long n, const std::vector<int>& ranks_list, FloorStart start) {
  const std::shared_ptr<Device> device = Device::create(Backend::cuda);
  auto s = static_cast<cudaStream_t>(device->stream());
  const std::array<long, 3> grid{n, n, n};
  const long nzc = n / 2 + 1, real = sizeof(Real), complex = 2 * sizeof(Real);
  // A pass: bytes read and written, and the buffers it reads and writes (0 the real slab, 1 the planes'
  // intermediate [x][y][kz], 2 the columns' output, 3 the x transforms' output).
  struct Pass {
    std::size_t reads, writes;
    int from, to;
  };
  // The chain of rank r of P (P = 1: the one GPU): the forward's passes (planes, then x), then the
  // backward's (x, then planes).
  auto chain = [&](bool dealiased, int ranks, int r) {
    const fft::SlabLayout l(grid, ranks, r, dealiased ? SpectralSplit::kept_rows : SpectralSplit::even);
    const std::size_t xp = l.x_count(), kz = dealiased ? l.kept_z() : nzc;
    std::size_t ky_all = 0;  // the ky that the columns along y write: every rank's (kept)
    for (int q = 0; q < ranks; ++q) ky_all += dealiased ? l.kept_y_count(q) : l.y_count(q);
    const std::size_t ky_own = dealiased ? l.kept_y_count() : l.y_count();
    const std::size_t planes_real = xp * n * n * real, planes_z = xp * n * kz * complex,
                      planes_y = xp * ky_all * kz * complex, x_lines = std::size_t(n) * ky_own * kz * complex;
    return std::vector<Pass>{{planes_real, planes_z, 0, 1}, {planes_z, planes_y, 1, 2},
                             {x_lines, x_lines, 2, 3},      {x_lines, x_lines, 3, 2},
                             {planes_y, planes_z, 2, 1},    {planes_z, planes_real, 1, 0}};
  };
  // Buffers as large as the one GPU's passes need.
  std::size_t most = 0;
  for (bool dealiased : {true, false})
    for (const Pass& p : chain(dealiased, 1, 0)) most = std::max({most, p.reads, p.writes});
  std::vector<Buffer<uint4>> buffers;
  for (int b = 0; b < 4; ++b) {
    buffers.emplace_back(device, most / sizeof(uint4) + 1);
    buffers.back().fill_zero();
  }
  const long clean_values = 2L * current_device_attribute(cudaDevAttrL2CacheSize) / long(sizeof(uint4));
  Buffer<uint4> clean(device, start.clean_l2 ? std::size_t(clean_values) : 1);
  clean.fill_zero();
  PhaseClock clock(device, !start.busy_hold);
  constexpr int warmup = 3, reps = 21;
  // Each transform is three passes (the forward's first, then the backward's); the phase a pass ends, if any.
  constexpr std::size_t passes_per_transform = 3;
  constexpr int phase_ending[6] = {-1, 0, 1, 2, -1, 3};
  // One streaming pass, one 16-byte value a thread.
  auto stream = [&](const uint4* in, long reads, uint4* out, long writes) {
    const long threads = std::max(reads, writes), block = 256;
    launch_dependent(streaming_pass, dim3(unsigned((threads + block - 1) / block)), dim3(block), 0, s, in,
                     reads, out, writes);
  };
  // Medians of each phase and of the pair, in us: the planes forward, x forward, x backward, planes
  // backward.
  auto time_chain = [&](const std::vector<Pass>& passes) {
    std::vector<std::vector<double>> phases(5);
    for (int rep = 0; rep < warmup + reps; ++rep) {
      double seconds[4] = {0, 0, 0, 0};
      if (start.clean_l2) stream(clean.data(), clean_values, clean.data(), 0);
      for (std::size_t k = 0; k < passes.size(); ++k) {
        if (k % passes_per_transform == 0) {  // each transform held, as a profile holds it (SlabFFT's)
          if (start.busy_hold) {
            busy_for<<<1, 1, 0, s>>>(200000);  // 0.2 ms: longer than the host takes to queue the passes
            KOLMO_CHECK_LAUNCH("busy_for");
          }
          clock.start();
        }
        const Pass& p = passes[k];
        stream(buffers[p.from].data(), long(p.reads / sizeof(uint4)), buffers[p.to].data(),
               long(p.writes / sizeof(uint4)));
        if (phase_ending[k] >= 0) clock.lap(phase_ending[k]);
        if (k % passes_per_transform == passes_per_transform - 1) clock.add_to(seconds);
      }
      if (rep < warmup) continue;
      for (int phase = 0; phase < 4; ++phase) phases[phase].push_back(1e6 * seconds[phase]);
      phases[4].push_back(1e6 * (seconds[0] + seconds[1] + seconds[2] + seconds[3]));
    }
    std::vector<double> medians;
    for (auto& t : phases) medians.push_back(median(t));
    return medians;
  };
  const char* precision = sizeof(Real) == 4 ? "single" : "double";
  std::printf(
      "kolmo_batch_bench: the memory floor of one rank's pair, %ld^3 %s: streaming passes of each pass's "
      "bytes; us, medians of %d after %d (held by %s, a lap per phase); phases: planes fwd, x fwd, x bwd, "
      "planes bwd\n",
      n, precision, reps, warmup,
      start.busy_hold ? (start.clean_l2 ? "a busy kernel after a clean pass" : "a busy kernel")
                      : (start.clean_l2 ? "the host after a clean pass" : "the host"));
  for (bool dealiased : {true, false}) {
    const char* modes = dealiased ? "dealiased" : "full";
    const std::vector<double> one = time_chain(chain(dealiased, 1, 0));
    std::printf(
        "RESULT floor n=%ld precision=%s modes=%s ranks=1 pair_us=%.2f phases_us=%.2f,%.2f,%.2f,%.2f\n", n,
        precision, modes, one[4], one[0], one[1], one[2], one[3]);
    for (int ranks : ranks_list) {
      const SpectralSplit split = dealiased ? SpectralSplit::kept_rows : SpectralSplit::even;
      double slowest = 0;
      for (int r : tools::emulated_ranks_of(grid, ranks, split, dealiased ? Modes::dealiased : Modes::all)) {
        const std::vector<double> t = time_chain(chain(dealiased, ranks, r));
        const double share = one[4] / ranks;
        slowest = std::max(slowest, t[4]);
        std::printf(
            "RESULT floor n=%ld precision=%s modes=%s ranks=%d rank=%d pair_us=%.2f share_us=%.2f "
            "ratio=%.4f phases_us=%.2f,%.2f,%.2f,%.2f excess_us=%.2f,%.2f,%.2f,%.2f\n",
            n, precision, modes, ranks, r, t[4], share, t[4] / share, t[0], t[1], t[2], t[3],
            t[0] - one[0] / ranks, t[1] - one[1] / ranks, t[2] - one[2] / ranks, t[3] - one[3] / ranks);
      }
      std::printf("  %s P=%d: the slowest rank's floor %.4f of its share\n", modes, ranks,
                  slowest / (one[4] / ranks));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 512;
  std::string precision = "single";
  std::vector<long> batches{16, 32, 64, 128, 256, 512};
  CLI::App app{"kolmo_batch_bench: the plane transforms' passes against the batch of planes, on one GPU"};
  app.add_option("--n", n, "planes of n x n (a power of two the row and column FFTs take)");
  app.add_option("--precision", precision, "single or double")->check(CLI::IsMember({"single", "double"}));
  app.add_option("--batches", batches, "numbers of planes")->check(at_least_one<long>());
  bool full = false;
  app.add_flag("--full", full, "every kz mode and column (the full plane transforms), not the 2/3 rule's");
  std::vector<std::string> x_slabs;
  app.add_option("--x-slabs", x_slabs,
                 "instead: the x transforms of slabs of Y ky planes over their first K (Y:K)");
  std::vector<int> floor_ranks;
  app.add_option(
         "--floor", floor_ranks,
         "instead: the memory floor of one rank's pair of P ranks against the one GPU's, by streaming "
         "passes of the same bytes")
      ->check(at_least_one<int>());
  FloorStart floor_start;
  app.add_flag(
      "--floor-clean-l2", floor_start.clean_l2,
      "--floor: before each pair, a pass that reads twice L2's bytes and writes nothing (no dirty lines "
      "left for the pair's first pass to write back)");
  app.add_flag("--floor-busy-hold", floor_start.busy_hold,
               "--floor: hold the device with a kernel that keeps it busy, not idle behind a host function");
  CLI11_PARSE(app, argc, argv);
  try {
    KOLMO_REQUIRE(
        row_fft_supports(n) && column_fft_supports(n),
        "--n " + std::to_string(n) + ": the row and column FFTs take powers of two from 16 to 2048");
    if (!floor_ranks.empty())
      return precision == "single" ? run_floor<float>(n, floor_ranks, floor_start)
                                   : run_floor<double>(n, floor_ranks, floor_start);
    if (!x_slabs.empty()) return precision == "single" ? run_x<float>(n, x_slabs) : run_x<double>(n, x_slabs);
    return precision == "single" ? run<float>(n, batches, full) : run<double>(n, batches, full);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kolmo_batch_bench: %s\n", e.what());
    return 1;
  }
}
