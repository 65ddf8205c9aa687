// kolmo's own batched 1D FFTs along a strided axis, on a GPU, over a set of columns that cuFFT's advanced
// layout cannot name: the kept (ky, kz) columns of a one-rank dealiased transform are a box of two batch
// indices, and one cuFFT plan has one. These kernels make the pruned one-rank route (fft/ColumnExecutors.cuh,
// OneRankDealiasing::pruned): x transforms of 4/9 of the columns, y transforms of 2/3, instead of all; and
// across ranks the strided route's y transforms (placing the rank's own rows) and dealiased x transforms,
// and the fused route's dealiased ones and the realigned route's x transforms, which load and store the
// all-to-all's chunks (ElementRoute).
//
// Contract (CUDA builds; calls are queued on `stream`):
// - ColumnSet: column (o, i) is the values at base + o outer_stride + i + e stride, e < n, for o in the
//   outer ranges (any number of outer indices: more than a grid's 65535 blocks along y go in several
//   launches) and i < inner. column_fft transforms each column of `in` (exp(sign 2 pi i k e / n),
//   unnormalised) into the same place of `out` (in == out allowed: each column is read whole before it is
//   written).
//   - Columns i >= computed are not read: out gets zeros there (a C2R transform that follows reads them).
//   - Along a column the kept elements are e < kept_below and e >= kept_from. load_kept_only: the others
//     count as zero, whatever in holds there (NaN included). store_kept_only: out is written only at the
//     kept elements.
// - ColumnMoves (optional): elements e in [first, first + count) of every column live in a second array,
//   `moved` (another layout of the same values: the strided route's own rows, which the plane transforms
//   place in the spectral slab themselves): column (o, i)'s element e at offset + o outer_stride + i +
//   (e - first) stride. loads: the loads read them there and the stores write them to out as usual;
//   otherwise the loads read in and the stores write them there only. The elements it names are none of
//   those in and out hold for the transform.
// - ElementRoute (optional, instead of ColumnMoves): one side of the transform, its loads or its stores, in
//   other buffers, element by element (the all-to-all's chunks, so that no packing pass is needed: the
//   fused route's dealiased transforms and the realigned route's x transforms, fft/ColumnExecutors.cuh).
//   Element e of column (o, i) is at buffers[rows[e].buffer] + rows[e].base + index rows[e].pitch + i,
//   index = o, or with by_compact the outer index's place among the set's outer indices (0, 1, ... over
//   its ranges in order). Rows with buffer < 0 hold no element: stores skip them, loads give zero. loads:
//   the loads come from there (the stores go to out as usual), otherwise the stores go there (the loads
//   come from in). rows: n entries in device memory (PlaneRow, fft/ChunkRoutes.hpp).
// - twiddles: the table of n values exp(-2 pi i q / n) (stockham_twiddles, fft/StockhamPasses.hpp), on the
//   device.
// - dependence: on the kernel before it on `stream` (core/DependentLaunch.cuh): by default it waits for it.
// - column_fft_supports(n): n a power of two, 8 <= n <= 2048; column_fft throws kolmo::Error otherwise.
// - Speed: a block transforms a tile of neighbouring columns (rows of 128 bytes where the threads allow,
//   64 at least), its tiles aligned to that width in memory; the passes run in shared memory with the rows
//   swizzled against bank conflicts. Routed, a block first puts a pointer for each element of its outer
//   index in shared memory (n more pointers beside the tile), where every load or store reads it; routed
//   stores from tiles of 64-byte rows align the tiles to where they store, where the route's rows agree on
//   it modulo whole sectors (ElementRoute::stores, sector_alignment of fft/ChunkRoutes.hpp). Where tiles of
//   128-byte rows would take 1024 threads (1024 points in single precision), the plain and moved transforms
//   and the routed stores into compact rows (by_compact) take tiles of 64-byte rows, 512 threads, two blocks
//   a multiprocessor; the other routed transforms keep the wider tiles.
#pragma once

#include <cuda_runtime.h>

#include "core/Complex.hpp"
#include "core/Dependence.hpp"
#include "fft/ChunkRoutes.hpp"

namespace kolmo::fft {

struct ColumnSet {
  long n = 0;
  long stride = 0;
  long outer_stride = 0;
  long outer_first[2] = {0, 0}, outer_count[2] = {0, 0};
  long inner = 0;
  long computed = 0;
  long kept_below = 0, kept_from = 0;
  bool load_kept_only = false, store_kept_only = false;
  long compact_first = 0;  // the place of the first outer index among all (launches in parts set it)
};

struct ColumnMoves {
  long first = 0, count = 0, offset = 0, outer_stride = 0, stride = 0;
  bool loads = false;
};

struct ElementRoute {
  const PlaneRow* rows = nullptr;
  void* buffers[2] = {nullptr, nullptr};
  bool by_compact = false, loads = false;
  SectorAlignment stores;  // routed stores: where the rows agree on their places (modulus 0: they do not)
};

bool column_fft_supports(long n);

template <class Real>
void column_fft(const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out,
                const Complex<Real>* twiddles, int sign, cudaStream_t stream,
                const ColumnMoves* moves = nullptr, Complex<Real>* moved = nullptr,
                Dependence dependence = {});
template <class Real>
void column_fft(const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out,
                const Complex<Real>* twiddles, int sign, cudaStream_t stream, const ElementRoute& route,
                Dependence dependence = {});

}  // namespace kolmo::fft
