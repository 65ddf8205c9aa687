// The row FFT kernels (fft/RowFft.hpp): a block per few rows, 8 values a thread, the Stockham passes of
// fft/StockhamPasses.hpp over the pairs of each row in shared memory, and the pass that pairs modes
// (fft/RowPasses.cuh).
#include <cstdint>
#include <string>

#include "core/CudaCheck.hpp"
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
                   const Complex<Real>* __restrict__ table) {
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

// C2R: each thread pairs the kept modes k and M - k for its k < M / 2 (loads along the row; thread 0 also
// mode M / 2) into shared memory, then the passes, whose last stores the pairs along the real row.
template <class Real, int Log2M>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads)
    row_c2r_kernel(RowSet set, const Complex<Real>* __restrict__ in, Real* __restrict__ out,
                   const Complex<Real>* __restrict__ table) {
  using S = RowTile<Real, Log2M>;
  __shared__ Complex<Real> shared[S::rows * S::pitch];
  const auto [t, row, live, mine] = RowPlace<Real, Log2M>(shared, set.rows);
  pair_backward<Real, Log2M>(mine, in + (live ? row : 0) * set.row_pitch_complex, live ? set.kept : 0, table,
                             t);
  __syncthreads();
  auto* z = reinterpret_cast<Complex<Real>*>(out + (live ? row : 0) * set.row_pitch_real);
  row_passes<Real, Log2M, 0>(
      mine, table, 1, t, [&](int e, int) { return mine[S::slot(e)]; },
      [&](int e, int, Complex<Real> value) {
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
  with_row_length(set.n, [&](auto log2m) {
    launch<Real, decltype(log2m)::value>(forward, set, real_in, complex_in, real_out, complex_out, table,
                                         stream);
  });
}

}  // namespace

bool row_fft_supports(long n) {
  return row_length_supported(n);
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
