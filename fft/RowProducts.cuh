// Pointwise work between the transforms along z of a split dealiased transform (fft/RowSplit.hpp): a
// solver's real-space pass that writes no real slab. One block takes a few rows: it transforms the row of
// each input field back to real values (as row_fft_c2r), which stay in registers, forms what the solver
// asks at each point, and transforms each result forward (as row_fft_r2c) into the kept modes of an output
// row. The real-space pass of a slab otherwise writes the inputs' real slabs, reads them, writes the
// results' and reads them again.
//
// Contract (device code: included by files that nvcc compiles; kernels are queued on `stream`):
// - rows, twiddles: RowSplit::rows() and RowSplit::twiddles(); rows.n a length row_length_supported takes.
//   The row r of a field is the kept modes at r rows.row_pitch_complex of its slab (RowFields: the slabs).
// - row_products(rows, twiddles, in, out, op, stream): Op::inputs fields in, Op::outputs fields out. At
//   each of the n points of a row, op(a, p) is given the inputs' real values a[Op::inputs] there (as
//   row_fft_c2r gives them: unnormalised, the modes past kept counting as zero) and fills p[Op::outputs];
//   the kept modes of the row of output j become the R2C of p[j] along the row (as row_fft_r2c), the
//   others are left as they are. in and out may name the same slabs: a block reads its rows whole before it
//   writes any, and no two blocks share a row.
// - row_products(rows, twiddles, in, out, op, stream, scan): the same, and a scan of the leading
//   Scan::inputs inputs (at most Op::inputs) in the same kernel: at each point scan(a) of their real values
//   gives a Scan::Result; returns them all combined by Scan::combine (a host and device function whose
//   identity is Scan::Result{}), per block and then over the blocks in block order on the host, so that a
//   run repeats bit for bit. Synchronises the stream. Without a scan (NoScan) nothing is returned and
//   nothing synchronised.
// - op and scan are plain values, copied to the kernels.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/CudaCheck.hpp"
#include "core/Error.hpp"
#include "fft/RowPasses.cuh"
#include "fft/RowSplit.hpp"

namespace kolmo::fft {

template <class Real, int K>
struct RowFields {
  Complex<Real>* f[K];
};

namespace detail {

// The real rows of K fields, each as thread t's pairs e = t + q M / 8 (pair q: reals 2e and 2e + 1) in
// a[k][q]. Dead rows (past the last) read nothing and give zeros.
template <class Real, int Log2M, int K>
__device__ __forceinline__ void real_rows(Complex<Real>* mine, const RowFields<Real, K>& in, long offset,
                                          long kept, const Complex<Real>* table, int t,
                                          Complex<Real> (&a)[K][RowTile<Real, Log2M>::V]) {
  using S = RowTile<Real, Log2M>;
  KOLMO_UNROLL
  for (int k = 0; k < K; ++k) {
    pair_backward<Real, Log2M>(mine, in.f[k] + offset, kept, table, t);
    __syncthreads();
    // The last pass has read `mine` whole before it stores into a: the next field's pairing may write it.
    row_passes<Real, Log2M, 0>(
        mine, table, 1, t, [&](int e, int) { return mine[S::slot(e)]; },
        [&](int, int q, Complex<Real> value) { a[k][q] = value; });
  }
}

template <class Real, int Log2M, class Op, class Scan>
__global__ void __launch_bounds__(RowTile<Real, Log2M>::threads)
    row_products_kernel(RowSet set, RowFields<Real, Op::inputs> in, RowFields<Real, Op::outputs> out,
                        const Complex<Real>* __restrict__ table, Op op, [[maybe_unused]] Scan scan,
                        [[maybe_unused]] typename Scan::Result* partial) {
  using S = RowTile<Real, Log2M>;
  __shared__ Complex<Real> shared[S::rows * S::pitch];
  const auto [t, row, live, mine] = RowPlace<Real, Log2M>(shared, set.rows);
  const long offset = (live ? row : 0) * set.row_pitch_complex;
  Complex<Real> a[Op::inputs][S::V];
  real_rows<Real, Log2M>(mine, in, offset, live ? set.kept : 0, table, t, a);
  if constexpr (Scan::inputs > 0) {
    static_assert(Scan::inputs <= Op::inputs, "a scan reads the leading inputs");
    using Result = typename Scan::Result;
    __shared__ Result results[S::threads];
    Result local{};
    if (live) {
      KOLMO_UNROLL
      for (int q = 0; q < S::V; ++q) {
        Real even[Scan::inputs], odd[Scan::inputs];
        KOLMO_UNROLL
        for (int k = 0; k < Scan::inputs; ++k) {
          even[k] = a[k][q].re;
          odd[k] = a[k][q].im;
        }
        local = Scan::combine(Scan::combine(local, scan(even)), scan(odd));
      }
    }
    results[threadIdx.x] = local;
    __syncthreads();
    for (int stride = S::threads / 2; stride > 0; stride /= 2) {
      if (int(threadIdx.x) < stride)
        results[threadIdx.x] = Scan::combine(results[threadIdx.x], results[threadIdx.x + stride]);
      __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = results[0];
  }
  KOLMO_UNROLL
  for (int j = 0; j < Op::outputs; ++j) {
    // Pass 0 syncs after its loads, before it writes `mine`: the last output's pairing has read it by then.
    row_passes<Real, Log2M, 0>(
        mine, table, -1, t,
        [&](int, int q) {
          Real even[Op::inputs], odd[Op::inputs], p_even[Op::outputs], p_odd[Op::outputs];
          KOLMO_UNROLL
          for (int k = 0; k < Op::inputs; ++k) {
            even[k] = a[k][q].re;
            odd[k] = a[k][q].im;
          }
          op(even, p_even);
          op(odd, p_odd);
          return Complex<Real>(p_even[j], p_odd[j]);
        },
        [&](int e, int, Complex<Real> value) { mine[S::slot(e)] = value; });
    __syncthreads();
    if (live) pair_forward<Real, Log2M>(mine, out.f[j] + offset, set.kept, table, t);
  }
}

inline void check_rows(const RowSet& rows) {
  KOLMO_REQUIRE(row_length_supported(rows.n) && rows.rows >= 0 && rows.kept >= 1 &&
                    rows.kept <= rows.n / 2 + 1 && rows.row_pitch_complex >= rows.n / 2 + 1,
                "internal: rows of length " + std::to_string(rows.n) + " with kept " +
                    std::to_string(rows.kept) + " and pitch " + std::to_string(rows.row_pitch_complex) +
                    " for the row kernels");
}

}  // namespace detail

// No scan: the products alone.
struct NoScan {
  static constexpr int inputs = 0;
  struct Result {};
  static Result combine(Result, Result) { return {}; }
};

template <class Real, class Op, class Scan = NoScan>
typename Scan::Result row_products(const RowSet& rows, const Complex<Real>* twiddles,
                                   RowFields<Real, Op::inputs> in, RowFields<Real, Op::outputs> out, Op op,
                                   cudaStream_t stream, Scan scan = {}) {
  using Result = typename Scan::Result;
  constexpr bool scanning = Scan::inputs > 0;
  detail::check_rows(rows);
  Result total{};
  with_row_length(rows.n, [&](auto log2m) {
    constexpr int L = decltype(log2m)::value;
    using S = RowTile<Real, L>;
    const long blocks = (rows.rows + S::rows - 1) / S::rows;
    if (blocks == 0) return;
    Result* partial = nullptr;
    if (scanning) KOLMO_CHECK_CUDA(cudaMallocAsync(&partial, sizeof(Result) * blocks, stream));
    detail::row_products_kernel<Real, L, Op, Scan>
        <<<unsigned(blocks), S::threads, 0, stream>>>(rows, in, out, twiddles, op, scan, partial);
    KOLMO_CHECK_LAUNCH("row_products_kernel");
    if (!scanning) return;
    std::vector<Result> host(static_cast<std::size_t>(blocks));
    KOLMO_CHECK_CUDA(
        cudaMemcpyAsync(host.data(), partial, sizeof(Result) * blocks, cudaMemcpyDeviceToHost, stream));
    KOLMO_CHECK_CUDA(cudaFreeAsync(partial, stream));
    KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream));
    for (const Result& value : host) total = Scan::combine(total, value);
  });
  return total;
}

}  // namespace kolmo::fft
