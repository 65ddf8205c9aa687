// The row FFT kernels (fft/RowFft.hpp): a block per few rows, 8 values a thread, the Stockham passes of
// fft/StockhamPasses.hpp over the pairs of each row in shared memory, and the pass that pairs modes.
#include <cstdint>
#include <string>
#include <utility>

#include "core/CudaCheck.hpp"
#include "core/Error.hpp"
#include "fft/RowFft.hpp"
#include "fft/StockhamPasses.hpp"

namespace kolmo::fft {

namespace {

// A block: `rows` rows of M = 2^Log2M pairs (a real row of 2M), V = 8 pairs a thread, T = M / 8 threads a
// row, 256 threads a block (a row of 2048 pairs alone). Shared memory holds pair e of a row at e + e / G, G
// the values of one 128-byte wavefront: the first pass writes values 8 apart, which would otherwise fall on
// the same banks; rows are an odd number of values apart for the same reason (short rows, a thread each).
// At most 36 KiB, under the 48 KiB a block has without asking.
template <class Real, int Log2M>
struct RowTile {
  static constexpr int M = 1 << Log2M, V = 8, T = M / V;
  static constexpr int rows = T >= 256 ? 1 : 256 / T, threads = rows * T;
  static constexpr int G = 128 / int(sizeof(Complex<Real>)), pitch = M + M / G + 1;
  static __device__ int slot(int e) { return e + e / G; }
};

// Pass P and the ones after it over one row (the thread's t-th share of it): pass 0 takes its values from
// load(e), the last gives them in natural order to store(e, value), the others go through `row`. The
// twiddles come from the table of length 2M (StockhamPasses.hpp).
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
      v[i] = load(e);
    else
      v[i] = row[S::slot(e)];
  });
  __syncthreads();  // every value read before any is overwritten (pass 0 may read the row too)
#pragma unroll
  for (int b = 0; b < B; ++b) stockham_butterfly<R>(v + b * R, table, t + b * S::T, 2 * M, Ns, sign);
  each_value<B, R, S::T>(t, [&](long j, int r, int i) {
    const int e = int(stockham_target(j, r, Ns, R));
    if constexpr (last)
      store(e, v[i]);
    else
      row[S::slot(e)] = v[i];
  });
  if constexpr (!last) {
    __syncthreads();
    row_passes<Real, Log2M, P + 1>(row, table, sign, t, load, store);
  }
}

// R2C: the pairs of the row from global memory through the passes into shared memory, then each thread
// pairs modes k and M - k for its k < M / 2 (k = t + s T, stores along the row), thread 0 also mode M / 2.
template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads)
    row_r2c_kernel(RowSet set, const Real* __restrict__ in, Complex<Real>* __restrict__ out,
                   const Complex<Real>* __restrict__ table) {
  using S = RowTile<Real, Log2M>;
  __shared__ Complex<Real> shared[S::rows * S::pitch];
  const int t = int(threadIdx.x) % S::T, r = int(threadIdx.x) / S::T;
  const long row = long(blockIdx.x) * S::rows + r;
  const bool live = row < set.rows;  // the block's last rows may be past the end, but take part in its syncs
  Complex<Real>* mine = shared + r * S::pitch;
  const auto* z = reinterpret_cast<const Complex<Real>*>(in + (live ? row : 0) * set.row_pitch_real);
  row_passes<Real, Log2M, 0>(
      mine, table, -1, t, [&](int e) { return live ? z[e] : Complex<Real>(0, 0); },
      [&](int e, Complex<Real> value) { mine[S::slot(e)] = value; });
  __syncthreads();
  if (!live) return;
  Complex<Real>* x = out + row * set.row_pitch_complex;
  const long kept = set.kept;
  auto put = [&](int k, Complex<Real> value) {
    if (k < kept) x[k] = value;
  };
  const auto z_at = [&](int e) { return mine[S::slot(e % S::M)]; };
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

// C2R: each thread pairs the kept modes k and M - k for its k < M / 2 (loads along the row; thread 0 also
// mode M / 2) into shared memory, then the passes, whose last stores the pairs along the real row.
template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads)
    row_c2r_kernel(RowSet set, const Complex<Real>* __restrict__ in, Real* __restrict__ out,
                   const Complex<Real>* __restrict__ table) {
  using S = RowTile<Real, Log2M>;
  __shared__ Complex<Real> shared[S::rows * S::pitch];
  const int t = int(threadIdx.x) % S::T, r = int(threadIdx.x) / S::T;
  const long row = long(blockIdx.x) * S::rows + r;
  const bool live = row < set.rows;
  Complex<Real>* mine = shared + r * S::pitch;
  const Complex<Real>* x = in + (live ? row : 0) * set.row_pitch_complex;
  const long kept = live ? set.kept : 0;
  auto get = [&](int k) { return k < kept ? x[k] : Complex<Real>(0, 0); };
#pragma unroll
  for (int s = 0; s < S::V / 2; ++s) {
    const int k = t + s * S::T;
    Complex<Real> low = get(k), high = get(S::M - k);
    if (k == 0) low.im = high.im = 0;  // X[0] and X[2M / 2] of a real row are real
    const ModePair<Real> pairs = real_backward_pair(low, high, table[k]);
    mine[S::slot(k)] = pairs.low;
    mine[S::slot((S::M - k) % S::M)] = pairs.high;  // k = 0: the same value again
  }
  constexpr int h = S::M / 2;
  if (t == 0) mine[S::slot(h)] = real_backward_pair(get(h), get(h), table[h]).low;
  __syncthreads();
  auto* z = reinterpret_cast<Complex<Real>*>(out + (live ? row : 0) * set.row_pitch_real);
  row_passes<Real, Log2M, 0>(
      mine, table, 1, t, [&](int e) { return mine[S::slot(e)]; },
      [&](int e, Complex<Real> value) {
        if (live) z[e] = value;
      });
}

template <class Real, int Log2M>
void launch(bool forward, const RowSet& set, const Real* real_in, const Complex<Real>* complex_in,
            Real* real_out, Complex<Real>* complex_out, const Complex<Real>* table, cudaStream_t stream) {
  using S = RowTile<Real, Log2M>;
  const long blocks = (set.rows + S::rows - 1) / S::rows;
  if (blocks == 0) return;
  if (forward) {
    row_r2c_kernel<Real, Log2M>
        <<<unsigned(blocks), S::threads, 0, stream>>>(set, real_in, complex_out, table);
    KOLMO_CHECK_LAUNCH("row_r2c_kernel");
  } else {
    row_c2r_kernel<Real, Log2M>
        <<<unsigned(blocks), S::threads, 0, stream>>>(set, complex_in, real_out, table);
    KOLMO_CHECK_LAUNCH("row_c2r_kernel");
  }
}

// The kernels of M = 2^Log2M pairs, Log2M from the Stockham passes' shortest length to their longest.
template <class Real, int... Log2M>
void dispatch(std::integer_sequence<int, Log2M...>, bool forward, const RowSet& set, const Real* real_in,
              const Complex<Real>* complex_in, Real* real_out, Complex<Real>* complex_out,
              const Complex<Real>* table, cudaStream_t stream) {
  int log2m = 0;
  while ((2L << log2m) < set.n) ++log2m;
  ((log2m == Log2M + kStockhamMinLog2
        ? launch<Real, Log2M + kStockhamMinLog2>(forward, set, real_in, complex_in, real_out, complex_out,
                                                 table, stream)
        : void()),
   ...);
}

template <class Real>
void run(bool forward, const RowSet& set, const Real* real_in, const Complex<Real>* complex_in,
         Real* real_out, Complex<Real>* complex_out, const Complex<Real>* table, cudaStream_t stream) {
  const Real* real = forward ? real_in : real_out;
  KOLMO_REQUIRE(row_fft_supports(set.n),
                "internal: row FFTs of length " + std::to_string(set.n) + " are not supported");
  KOLMO_REQUIRE(set.rows >= 0 && set.kept >= 1 && set.kept <= set.n / 2 + 1 && set.row_pitch_real >= set.n &&
                    set.row_pitch_real % 2 == 0 && set.row_pitch_complex >= set.n / 2 + 1 &&
                    reinterpret_cast<std::uintptr_t>(real) % (2 * sizeof(Real)) == 0,
                "internal: row FFTs of length " + std::to_string(set.n) + " with kept " +
                    std::to_string(set.kept) + ", pitches " + std::to_string(set.row_pitch_real) + " and " +
                    std::to_string(set.row_pitch_complex) + " or a real array not aligned to two reals");
  dispatch<Real>(std::make_integer_sequence<int, kStockhamMaxLog2 - kStockhamMinLog2 + 1>(), forward, set,
                 real_in, complex_in, real_out, complex_out, table, stream);
}

}  // namespace

bool row_fft_supports(long n) {
  return n >= (2L << kStockhamMinLog2) && n <= (2L << kStockhamMaxLog2) && (n & (n - 1)) == 0;
}

template <class Real>
void row_fft_r2c(const RowSet& set, const Real* in, Complex<Real>* out, const Complex<Real>* twiddles,
                 cudaStream_t stream) {
  run<Real>(true, set, in, nullptr, nullptr, out, twiddles, stream);
}
template <class Real>
void row_fft_c2r(const RowSet& set, const Complex<Real>* in, Real* out, const Complex<Real>* twiddles,
                 cudaStream_t stream) {
  run<Real>(false, set, nullptr, in, out, nullptr, twiddles, stream);
}

template void row_fft_r2c<float>(const RowSet&, const float*, Complex<float>*, const Complex<float>*,
                                 cudaStream_t);
template void row_fft_r2c<double>(const RowSet&, const double*, Complex<double>*, const Complex<double>*,
                                  cudaStream_t);
template void row_fft_c2r<float>(const RowSet&, const Complex<float>*, float*, const Complex<float>*,
                                 cudaStream_t);
template void row_fft_c2r<double>(const RowSet&, const Complex<double>*, double*, const Complex<double>*,
                                  cudaStream_t);

}  // namespace kolmo::fft
