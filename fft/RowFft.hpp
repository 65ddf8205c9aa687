// kolmo's own batched real FFTs along contiguous rows, on a GPU: the transforms along z of the dealiased
// plane transforms by column FFTs (fft/ColumnExecutors.cuh: the pruned one-rank route, the strided route
// across ranks, the row split), which read (C2R) and write (R2C) only the kept kz modes, where cuFFT's 1D
// transforms read and write all Nz/2 + 1 of them.
//
// Contract (CUDA builds; calls are queued on `stream`):
// - RowSet (fft/RowSplit.hpp): row r < rows of the real array is the n reals at r row_pitch_real, of the
//   complex array the n/2 + 1 modes at r row_pitch_complex. n is a power of two, 16 <= n <= 4096
//   (row_fft_supports), and 1 <= kept <= n/2 + 1; row_pitch_real >= n is even, row_pitch_complex >= n/2 + 1,
//   and the real array is aligned to two reals (the rows are read and written as pairs). The arrays do not
//   overlap.
// - row_fft_r2c: X[k] = sum_e x[e] exp(-2 pi i k e / n), unnormalised, written for k < kept only; the other
//   modes of out are left as they are.
// - row_fft_c2r: x[e] = sum_{k<n} X[k] exp(+2 pi i k e / n) with X[n - k] = conj X[k], unnormalised (n x
//   the row, after row_fft_r2c), of the modes k < kept only: the others count as zero whatever in holds
//   there (NaN included), and the imaginary parts of X[0] and X[n/2] as zero (as cuFFT and FFTW do).
// - twiddles: the table of n values exp(-2 pi i q / n) (stockham_twiddles, fft/StockhamPasses.hpp), on the
//   device. row_fft_r2c and row_fft_c2r throw kolmo::Error on a RowSet outside the contract.
// - dependence: on the kernel before it on `stream` (core/DependentLaunch.cuh): by default it waits for it.
// - Method: the complex FFT of length n/2 of the pairs z = x_2e + i x_2e+1 by the Stockham passes of
//   fft/StockhamPasses.hpp, and the pass that pairs mode k with n/2 - k (real_forward_pair,
//   real_backward_pair). A block transforms a few rows at once in shared memory; loads and stores go along
//   the rows. The blocks stay (but for the R2C of many short rows in single precision),
//   each taking group of rows after group, and load the next group while they transform the current one.
#pragma once

#include <cuda_runtime.h>

#include "core/Complex.hpp"
#include "core/Dependence.hpp"
#include "fft/RowSplit.hpp"

namespace kolmo::fft {

bool row_fft_supports(long n);

template <class Real>
void row_fft_r2c(const RowSet& set, const Real* in, Complex<Real>* out, const Complex<Real>* twiddles,
                 cudaStream_t stream, Dependence dependence = {});
template <class Real>
void row_fft_c2r(const RowSet& set, const Complex<Real>* in, Real* out, const Complex<Real>* twiddles,
                 cudaStream_t stream, Dependence dependence = {});

}  // namespace kolmo::fft
