// The row FFT kernels (fft/RowFft.hpp): blocks that stay and take group of rows after group (a block per few
// rows for the single-precision R2C of many short rows), 8 values a thread, the Stockham passes of
// fft/StockhamPasses.hpp over the pairs of each row in shared memory, and the pass that pairs modes
// (fft/RowPasses.cuh).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/CudaCheck.hpp"
#include "core/DependentLaunch.cuh"
#include "core/Error.hpp"
#include "fft/RowFft.hpp"
#include "fft/RowPasses.cuh"

namespace kolmo::fft {

namespace {

// R2C: the pairs of the row from global memory through the passes into shared memory, then each thread
// pairs modes k and M - k for its k < M / 2 (k = t + s T, stores along the row), thread 0 also mode M / 2.
template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads)
    row_r2c_kernel(RowSet set, const Real* __restrict__ in, Complex<Real>* __restrict__ out,
                   const Complex<Real>* __restrict__ table, Dependence dependence) {
  follow(dependence);
  using S = RowTile<Real, Log2M>;
  __shared__ Complex<Real> shared[S::rows * S::pitch];
  const auto [t, row, live, mine] = RowPlace<Real, Log2M>(shared, set.rows);
  const auto* z = reinterpret_cast<const Complex<Real>*>(in + (live ? row : 0) * set.row_pitch_real);
  row_passes<Real, Log2M, 0>(
      mine, table, -1, t, [&](int e, int) { return live ? z[e] : Complex<Real>(0, 0); },
      [&](int e, int, Complex<Real> value) { mine[S::slot(e)] = value; });
  __syncthreads();
  if (live) pair_forward<Real, Log2M>(mine, out + row * set.row_pitch_complex, set.kept, table, t);
}

// Blocks that stay: block b takes the groups of rows b, b + gridDim.x, ..., and loads the next group's
// values into registers while it transforms the current one, so that the memory is busy while the passes
// run from the first group on. Their registers leave a multiprocessor 8 warps in double precision (blocks of
// one row since session 27, RowTile), two blocks of 256 threads in single (StayingOccupancy). Against plain
// kernels of a block per group (the R2C above; the C2R's, which no launch took any more, has been removed),
// alternating in one run on an H100:
// - double precision: the R2C of 512-real rows took 12 % less time over 64 planes and 3.5 % over 512, of
//   1024-real rows 10-14 % at every batch; the C2R from 1 % more to 3 % less; the one-GPU dealiased double
//   pair 1.7 % (512^3) and 2.9 % (1024^3) less (docs/results/row_fft_staying_h100.log);
// - single precision: the C2R 4-22 % less at every length from 128 to 4096 reals and every batch; the R2C
//   9-39 % less for 1024 reals and more, but for 512 reals and fewer it depends on the rows: up to 65536
//   rows from 25 % less to 2.5 % more, from 131072 rows 3-5 % more
//   (docs/results/row_fft_staying_single_h100.log).
// Which kernel a launch takes (stays): the staying ones but for those R2C of short rows.
template <class Real>
struct StayingOccupancy {
  static constexpr int blocks_per_multiprocessor = std::is_same_v<Real, double> ? 1 : 2;
};
template <class Real, int Log2M>
bool stays(bool forward, long rows) {
  return std::is_same_v<Real, double> || !forward || RowTile<Real, Log2M>::M >= 512 || rows <= 65536;
}

// A thread's place in a staying block: its share t of a row, the block's row r it takes in every group, and
// that row's stretch of the block's shared memory.
template <class Real, int Log2M>
struct StayingPlace {
  using S = RowTile<Real, Log2M>;
  int t, r;
  Complex<Real>* mine;
  __device__ explicit StayingPlace(Complex<Real>* shared)
      : t(int(threadIdx.x) % S::T), r(int(threadIdx.x) / S::T), mine(shared + r * S::pitch) {}
};

template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads,
                                  StayingOccupancy<Real>::blocks_per_multiprocessor)
    row_r2c_staying_kernel(RowSet set, const Real* __restrict__ in, Complex<Real>* __restrict__ out,
                           const Complex<Real>* __restrict__ table, long groups, Dependence dependence) {
  follow(dependence);
  using S = RowTile<Real, Log2M>;
  using C = Complex<Real>;
  __shared__ C shared[S::rows * S::pitch];
  const auto [t, r, mine] = StayingPlace<Real, Log2M>(shared);
  C next[S::V];  // pair t + q M / V of the next group's row, as row_passes loads it
  auto fetch = [&](long group) {
    const long row = group * S::rows + r;
    const C* z = reinterpret_cast<const C*>(in + (row < set.rows ? row : 0) * set.row_pitch_real);
#pragma unroll
    for (int q = 0; q < S::V; ++q) next[q] = row < set.rows ? z[t + q * (S::M / S::V)] : C(0, 0);
  };
  if (blockIdx.x < groups) fetch(blockIdx.x);
  for (long g = blockIdx.x; g < groups; g += gridDim.x) {
    C current[S::V];
#pragma unroll
    for (int q = 0; q < S::V; ++q) current[q] = next[q];
    if (g + gridDim.x < groups) fetch(g + gridDim.x);
    const long row = g * S::rows + r;
    row_passes<Real, Log2M, 0>(
        mine, table, -1, t, [&](int, int q) { return current[q]; },
        [&](int e, int, C value) { mine[S::slot(e)] = value; });
    __syncthreads();
    if (row < set.rows)
      pair_forward<Real, Log2M>(mine, out + row * set.row_pitch_complex, set.kept, table, t);
    __syncthreads();  // every pair read before the next group's passes write the row
  }
}

// C2R: each thread pairs the kept modes k and M - k for its k < M / 2 (loads along the row; thread 0 also
// mode M / 2) into shared memory, then the passes, whose last stores the pairs along the real row.
template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads,
                                  StayingOccupancy<Real>::blocks_per_multiprocessor)
    row_c2r_staying_kernel(RowSet set, const Complex<Real>* __restrict__ in, Real* __restrict__ out,
                           const Complex<Real>* __restrict__ table, long groups, Dependence dependence) {
  follow(dependence);
  using S = RowTile<Real, Log2M>;
  using C = Complex<Real>;
  __shared__ C shared[S::rows * S::pitch];
  const auto [t, r, mine] = StayingPlace<Real, Log2M>(shared);
  C next[S::V + 1];  // the next group's modes this thread pairs, by pair_backward_from's slots
  auto fetch = [&](long group) {
    const long row = group * S::rows + r;
    const C* x = in + (row < set.rows ? row : 0) * set.row_pitch_complex;
    const long kept = row < set.rows ? set.kept : 0;
    auto get = [&](int k) { return k < kept ? x[k] : C(0, 0); };
#pragma unroll
    for (int s = 0; s < S::V / 2; ++s) {
      next[s] = get(t + s * S::T);
      next[S::V / 2 + s] = get(S::M - t - s * S::T);
    }
    next[S::V] = t == 0 ? get(S::M / 2) : C(0, 0);
  };
  if (blockIdx.x < groups) fetch(blockIdx.x);
  for (long g = blockIdx.x; g < groups; g += gridDim.x) {
    C current[S::V + 1];
#pragma unroll
    for (int q = 0; q <= S::V; ++q) current[q] = next[q];
    if (g + gridDim.x < groups) fetch(g + gridDim.x);
    const long row = g * S::rows + r;
    pair_backward_from<Real, Log2M>(
        mine, [&](int, int slot) { return current[slot]; }, table, t);
    __syncthreads();
    auto* z = reinterpret_cast<C*>(out + (row < set.rows ? row : 0) * set.row_pitch_real);
    row_passes<Real, Log2M, 0>(
        mine, table, 1, t, [&](int e, int) { return mine[S::slot(e)]; },
        [&](int e, int, C value) {
          if (row < set.rows) z[e] = value;
        });
    __syncthreads();  // every pair read before the next group's pairing writes the row
  }
}

// The staying kernels' grid: the blocks resident at once, or fewer where there are fewer groups.
template <class Kernel>
unsigned staying_blocks(Kernel kernel, int threads, long groups) {
  const int multiprocessors = current_device_attribute(cudaDevAttrMultiProcessorCount);
  int per_multiprocessor = 0;
  KOLMO_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, 0));
  return unsigned(std::min<long>(groups, long(std::max(1, per_multiprocessor)) * multiprocessors));
}

template <class Real, int Log2M>
void launch(bool forward, const RowSet& set, const Real* real_in, const Complex<Real>* complex_in,
            Real* real_out, Complex<Real>* complex_out, const Complex<Real>* table, cudaStream_t stream,
            Dependence dependence) {
  using S = RowTile<Real, Log2M>;
  const long blocks = (set.rows + S::rows - 1) / S::rows;
  if (blocks == 0) return;
  if (stays<Real, Log2M>(forward, set.rows)) {
    if (forward) {
      auto kernel = row_r2c_staying_kernel<Real, Log2M>;
      launch_dependent(kernel, staying_blocks(kernel, S::threads, blocks), S::threads, 0, stream, set,
                       real_in, complex_out, table, blocks, dependence);
    } else {
      auto kernel = row_c2r_staying_kernel<Real, Log2M>;
      launch_dependent(kernel, staying_blocks(kernel, S::threads, blocks), S::threads, 0, stream, set,
                       complex_in, real_out, table, blocks, dependence);
    }
  } else {
    launch_dependent(row_r2c_kernel<Real, Log2M>, unsigned(blocks), S::threads, 0, stream, set, real_in,
                     complex_out, table, dependence);
  }
}

template <class Real>
void run(bool forward, const RowSet& set, const Real* real_in, const Complex<Real>* complex_in,
         Real* real_out, Complex<Real>* complex_out, const Complex<Real>* table, cudaStream_t stream,
         Dependence dependence) {
  const Real* real = forward ? real_in : real_out;
  KOLMO_REQUIRE(row_fft_supports(set.n),
                "internal: row FFTs of length " + std::to_string(set.n) + " are not supported");
  KOLMO_REQUIRE(set.rows >= 0 && set.kept >= 1 && set.kept <= set.n / 2 + 1 && set.row_pitch_real >= set.n &&
                    set.row_pitch_real % 2 == 0 && set.row_pitch_complex >= set.n / 2 + 1 &&
                    reinterpret_cast<std::uintptr_t>(real) % (2 * sizeof(Real)) == 0,
                "internal: row FFTs of length " + std::to_string(set.n) + " with kept " +
                    std::to_string(set.kept) + ", pitches " + std::to_string(set.row_pitch_real) + " and " +
                    std::to_string(set.row_pitch_complex) + " or a real array not aligned to two reals");
  with_row_length(set.n, [&](auto log2m) {
    launch<Real, decltype(log2m)::value>(forward, set, real_in, complex_in, real_out, complex_out, table,
                                         stream, dependence);
  });
}

}  // namespace

bool row_fft_supports(long n) {
  return row_length_supported(n);
}

template <class Real>
void row_fft_r2c(const RowSet& set, const Real* in, Complex<Real>* out, const Complex<Real>* twiddles,
                 cudaStream_t stream, Dependence dependence) {
  run<Real>(true, set, in, nullptr, nullptr, out, twiddles, stream, dependence);
}
template <class Real>
void row_fft_c2r(const RowSet& set, const Complex<Real>* in, Real* out, const Complex<Real>* twiddles,
                 cudaStream_t stream, Dependence dependence) {
  run<Real>(false, set, nullptr, in, out, nullptr, twiddles, stream, dependence);
}

template void row_fft_r2c<float>(const RowSet&, const float*, Complex<float>*, const Complex<float>*,
                                 cudaStream_t, Dependence);
template void row_fft_r2c<double>(const RowSet&, const double*, Complex<double>*, const Complex<double>*,
                                  cudaStream_t, Dependence);
template void row_fft_c2r<float>(const RowSet&, const Complex<float>*, float*, const Complex<float>*,
                                 cudaStream_t, Dependence);
template void row_fft_c2r<double>(const RowSet&, const Complex<double>*, double*, const Complex<double>*,
                                  cudaStream_t, Dependence);

}  // namespace kolmo::fft
