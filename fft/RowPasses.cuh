// The device side of kolmo's row FFTs, shared by their kernels (fft/RowFft.cu) and by the kernels that form
// products between them (fft/RowProducts.cuh): how a block holds its rows, the Stockham passes over one row
// and the passes that pair the modes of a real row.
//
// Contract (device code, included by files that nvcc compiles):
// - RowTile<Real, Log2M>: a block of `rows` rows of M = 2^Log2M pairs (a real row of 2M), V = 8 pairs a
//   thread, T = M / 8 threads a row, 256 threads a block in single precision and 32 in double (a longer row
//   alone: 64 threads for 512 pairs, 256 for 2048). A row's pairs live in
//   shared memory at slot(e) of a stretch of `pitch` values; RowPlace: a thread's row and share of it.
// - row_passes<Real, Log2M, 0>(row, table, sign, t, load, store): the complex FFT of length M of one row by
//   thread t of its T: pass 0 takes its values from load(e, q), the last gives them in natural order to
//   store(e, q, value), the passes between go through `row`. Thread t loads and stores exactly the pairs
//   e = t + q M / 8, q < 8 (pass 0, of radix 8, reads butterfly t's values M / 8 apart, and the last pass
//   writes its butterflies' values so), and q is a constant once the passes are unrolled: a kernel can keep
//   a row's real values in registers, indexed by q, from a backward transform's store to a forward
//   transform's load (fft/RowProducts.cuh). Ends with every value of `row` read; the caller syncs
//   before it writes `row` again only where its own writes could overtake another thread's reads.
// - pair_backward(row, x, kept, table, t): the pass before the passes of a C2R: the modes k < kept of the
//   complex row x (the others count as zero; the imaginary parts of X[0] and X[M] as zero) to the pairs of
//   `row`. pair_backward_from(row, get, table, t): the same of the modes get(k, slot) gives (slot: which of
//   the thread's V + 1 modes, a constant once unrolled: get may read registers). pair_forward(row, x, kept,
//   table, t): the pass after the passes of an R2C: from the pairs of `row` to the modes k < kept of x (the
//   others left as they are). Thread t does k = t + s T for s < 4 with M - k, thread 0 also M / 2
//   (fft/StockhamPasses.hpp, real_forward_pair and real_backward_pair).
// - with_row_length(n, f): calls f(std::integral_constant<int, Log2M>()) for rows of n = 2^(Log2M + 1)
//   reals, where row_length_supported(n) (a power of two from 16 to 4096); nothing otherwise.
#pragma once

#include <type_traits>
#include <utility>

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "fft/StockhamPasses.hpp"

namespace kolmo::fft {

// Pair e of a row sits at e + e / G, G the values of one 128-byte wavefront: the first pass writes values 8
// apart, which would otherwise fall on the same banks; rows are an odd number of values apart for the same
// reason (short rows, a thread each). At most 36 KiB, under the 48 KiB a block has without asking.
// Double precision takes blocks of one row (of as many short rows as 32 threads take): its row kernels hold
// 210-255 registers a thread (rows of 256 reals and more), so a multiprocessor runs 8 warps whatever the
// blocks, and blocks of 8 rows (256 threads) all waited at each barrier for their slowest row. On one H200
// (session 27, docs/results/row_double_blocks_h200.log) the C2R of 512 planes of 512^2 took 773 us in blocks
// of 256 threads, 593 in 64 and 573 in 32 (the R2C 499, 464, 462; a copy of their bytes 503), the one-GPU
// dealiased pair at 512^3 2.57 -> 2.35 ms, at 1024^3 22.6 -> 20.9 ms, the 512^3 RK4 step 42.0 -> 38.7 ms.
// Single precision's row kernels ran at the copy's speed in blocks of 256 threads already.
template <class Real, int Log2M>
struct RowTile {
  static constexpr int M = 1 << Log2M, V = 8, T = M / V;
  static constexpr int block = std::is_same_v<Real, double> ? 32 : 256;
  static constexpr int rows = T >= block ? 1 : block / T, threads = rows * T;
  static constexpr int G = 128 / int(sizeof(Complex<Real>)), pitch = M + M / G + 1;
  static __device__ int slot(int e) { return e + e / G; }
};

// A thread's place in its block: its share t of its row, the row, whether the row exists (the block's last
// rows may be past the end, but take part in its syncs), and the row's stretch of the block's shared memory.
template <class Real, int Log2M>
struct RowPlace {
  using S = RowTile<Real, Log2M>;
  int t;
  long row;
  bool live;
  Complex<Real>* mine;
  __device__ RowPlace(Complex<Real>* shared, long rows)
      : t(int(threadIdx.x) % S::T),
        row(long(blockIdx.x) * S::rows + int(threadIdx.x) / S::T),
        live(row < rows),
        mine(shared + int(threadIdx.x) / S::T * S::pitch) {}
};

// Pass P and the ones after it over one row. The twiddles come from the table of length 2M
// (StockhamPasses.hpp).
template <class Real, int Log2M, int P, class Load, class Store>
__device__ __forceinline__ void row_passes(Complex<Real>* row, const Complex<Real>* table, int sign, int t,
                                           Load load, Store store) {
  using S = RowTile<Real, Log2M>;
  constexpr int R = stockham_radix(Log2M, P), B = S::V / R;
  constexpr long M = S::M, Ns = 1L << (3 * P);
  constexpr bool last = P + 1 == stockham_passes(Log2M);
  Complex<Real> v[S::V];
  each_value<B, R, S::T>(t, [&](long j, int r, int i) {
    const int e = int(stockham_source(j, r, M, R));
    if constexpr (P == 0)
      v[i] = load(e, i / R + (i % R) * B);
    else
      v[i] = row[S::slot(e)];
  });
  __syncthreads();  // every value read before any is overwritten (pass 0 may read the row too)
#pragma unroll
  for (int b = 0; b < B; ++b) stockham_butterfly<R>(v + b * R, table, t + b * S::T, 2 * M, Ns, sign);
  each_value<B, R, S::T>(t, [&](long j, int r, int i) {
    const int e = int(stockham_target(j, r, Ns, R));
    if constexpr (last)
      store(e, i / R + (i % R) * B, v[i]);
    else
      row[S::slot(e)] = v[i];
  });
  if constexpr (!last) {
    __syncthreads();
    row_passes<Real, Log2M, P + 1>(row, table, sign, t, load, store);
  }
}

constexpr bool row_length_supported(long n) {
  return n >= (2L << kStockhamMinLog2) && n <= (2L << kStockhamMaxLog2) && (n & (n - 1)) == 0;
}

template <class F, int... L>
void with_row_length(long n, F f, std::integer_sequence<int, L...>) {
  ((n == (2L << (L + kStockhamMinLog2)) ? f(std::integral_constant<int, L + kStockhamMinLog2>()) : void()),
   ...);
}
template <class F>
void with_row_length(long n, F f) {
  with_row_length(n, f, std::make_integer_sequence<int, kStockhamMaxLog2 - kStockhamMinLog2 + 1>());
}

// get(k, slot): mode k of the row, for slot = s (k = t + s T), V/2 + s (k = M - t - s T) or V (k = M/2);
// the slot is a constant once the loop is unrolled, so that the modes may come from registers.
template <class Real, int Log2M, class Get>
__device__ __forceinline__ void pair_backward_from(Complex<Real>* row, Get get, const Complex<Real>* table,
                                                   int t) {
  using S = RowTile<Real, Log2M>;
#pragma unroll
  for (int s = 0; s < S::V / 2; ++s) {
    const int k = t + s * S::T;
    Complex<Real> low = get(k, s), high = get(S::M - k, S::V / 2 + s);
    if (k == 0) low.im = high.im = 0;  // X[0] and X[2M / 2] of a real row are real
    const ModePair<Real> pairs = real_backward_pair(low, high, table[k]);
    row[S::slot(k)] = pairs.low;
    row[S::slot((S::M - k) % S::M)] = pairs.high;  // k = 0: the same value again
  }
  constexpr int h = S::M / 2;
  if (t == 0) {
    const Complex<Real> middle = get(h, S::V);
    row[S::slot(h)] = real_backward_pair(middle, middle, table[h]).low;
  }
}

template <class Real, int Log2M>
__device__ __forceinline__ void pair_backward(Complex<Real>* row, const Complex<Real>* x, long kept,
                                              const Complex<Real>* table, int t) {
  pair_backward_from<Real, Log2M>(
      row, [&](int k, int) { return k < kept ? x[k] : Complex<Real>(0, 0); }, table, t);
}

template <class Real, int Log2M>
__device__ __forceinline__ void pair_forward(const Complex<Real>* row, Complex<Real>* x, long kept,
                                             const Complex<Real>* table, int t) {
  using S = RowTile<Real, Log2M>;
  auto put = [&](int k, Complex<Real> value) {
    if (k < kept) x[k] = value;
  };
  const auto z_at = [&](int e) { return row[S::slot(e % S::M)]; };
#pragma unroll
  for (int s = 0; s < S::V / 2; ++s) {
    const int k = t + s * S::T;
    const ModePair<Real> modes = real_forward_pair(z_at(k), z_at(S::M - k), table[k]);
    put(k, modes.low);
    put(S::M - k, modes.high);
  }
  constexpr int h = S::M / 2;
  if (t == 0) put(h, real_forward_pair(z_at(h), z_at(h), table[h]).low);
}

}  // namespace kolmo::fft
