// A dealiased transform split at its rows along z, so that a solver can do the rows itself: transform each
// row of its fields back to real values, form their products and transform those forward, in one kernel
// whose real values never leave the chip (fft/RowProducts.cuh), instead of writing real slabs for a separate
// pass and reading them again.
//
// Contract (made by SlabFFT where it can: a GPU, kolmo's column FFTs along x and y and row FFTs along z, that
// is Nx and Ny powers of two from 8 to 2048 and Nz from 16 to 4096; one rank on the pruned route, several on
// the strided route or, where the exchange moves contiguous chunks (NCCL, MPI), on the fused route; SlabFFT::
// row_split() is null elsewhere):
// - RowSet: the rows of the rank's x planes. Row r < rows is the n reals at r row_pitch_real of a real
//   array, or its n/2 + 1 modes along z at r row_pitch_complex of a complex one, of which the first `kept`
//   (the 2/3 rule's kz) are the ones read and written.
// - backward_to_rows(slab): on a spectral slab (the rank's [kx][ky][kz], as SlabFFT::backward reads it with
//   Modes::dealiased: modes outside the kept (ky, kz) columns count as zero, whatever they hold), all of the
//   dealiased backward transform but its last pass, into the same buffer: row r = (x, y) of rows() then
//   holds, at slab + r row_pitch_complex, the kept kz modes whose C2R along z (row_fft_c2r, fft/RowFft.hpp)
//   is the real row f(x, y, .) that SlabFFT::backward would give. (One rank: in place, the slab's own shape.
//   Several: the rank's x planes [x][y][kz], which SlabLayout::alloc_complex has room for; the exchange
//   runs between the x and the y transforms.)
// - forward_from_rows(slab): the reverse: from rows that hold the kept kz modes of the R2C along z of each
//   real row (row_fft_r2c), the spectral slab that SlabFFT::forward with Modes::dealiased would give (its
//   dropped modes unspecified), in the same buffer.
// - twiddles(): the device table of rows().n values exp(-2 pi i q / n) that the row kernels read.
// - Both queue their work on the device's stream; on several ranks they exchange, so every rank calls them
//   together, as SlabFFT's transforms. The slab needs no other memory. A null slab throws kolmo::Error
//   naming it (on the calling rank, before anything is queued), as SlabFFT's transforms do.
// - RowExchange (SlabFFT to the backend that makes a split across ranks): the exchange between the x and y
//   transforms, given the slab: to_planes moves the peers' kept rows from the spectral slab to the planes
//   [x][y][kz] in `arrived` (SlabFFT's scratch slab), to_slab the other way, from planes in the slab to the
//   spectral slab in `arrived`. places_own_rows: the column FFTs move the rank's own rows themselves (the x
//   transforms backward into the planes in arrived, the y transforms forward into the spectral slab there),
//   and the exchange leaves them. routed: the fused route's chunks instead (to_planes and to_slab move
//   them between SlabFFT's send and receive slabs, arrived is null): the column FFTs store and load them
//   themselves (the x transforms backward and the y transforms forward storing the own rows where they
//   arrive), as the fused route's dealiased transforms do. Empty (no to_planes) on one rank.
#pragma once

#include <functional>

#include "../core/Complex.hpp"

namespace kolmo::fft {

struct RowSet {
  long n = 0;
  long rows = 0;
  long row_pitch_real = 0, row_pitch_complex = 0;
  long kept = 0;
};

template <class Real>
class RowSplit {
 public:
  using C = Complex<Real>;
  virtual ~RowSplit() = default;
  virtual void backward_to_rows(C* slab) = 0;
  virtual void forward_from_rows(C* slab) = 0;
  virtual const RowSet& rows() const = 0;
  virtual const C* twiddles() const = 0;
};

template <class Real>
struct RowExchange {
  Complex<Real>* arrived = nullptr;
  bool places_own_rows = false, routed = false;
  std::function<void(Complex<Real>*)> to_planes, to_slab;
};

}  // namespace kolmo::fft
