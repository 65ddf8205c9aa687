// Executors: the local FFTs of one rank, one object per plan shape (the model is heFFTe's
// include/heffte_fft3d.h: executors made once per shape, walked by a generic loop). A backend
// (fft/LocalTransforms.hpp: FFTW on the host, cuFFT on a GPU) makes them; SlabFFT's routes (fft/Route.hpp)
// call them.
//
// Contract: all calls are queued on the device's stream; unnormalised: forward uses exp(-i k x), backward
// exp(+i k x). Shapes, and the buffers of callbacks, are fixed when the executor is made.
// - PlaneTransform: the 2D R2C (forward) or C2R (backward) of `count` consecutive yz planes, real [x][y][z]
//   <-> [x][y][kz], in and out pointing at the first plane; out of place; forward leaves its input intact,
//   backward overwrites it. count 0 does nothing.
// - XTransform: the 1D C2C along kx of a fixed set of columns of a kx-major slab: every column of the
//   spectral slab [kx][ky][kz]; every column of the compact slab [kx][kept ky][kept kz] (nothing where the
//   rank keeps no ky plane), in place or not; or one run of kept columns of a one-rank slab (in and out point
//   at the slab; the other columns of out are left as they are). Out of place leaves the input intact; the
//   spectral slab's x transforms run in place (in == out) only where LocalTransforms::x_faster_in_place().
// - Masked XTransform (one rank, CUDA): the 2/3 mask inside cuFFT's kernels. backward reads only kept
//   columns and counts the others as zero; forward writes zeros to them. Out of place.
// - Fused executors (several ranks, CUDA, FftOptions::pack_in_ffts; fft/ChunkRoutes.hpp): the transforms'
//   kernels (kolmo's column FFTs or cuFFT's with callbacks) write the exchange's chunks and read what
//   arrived, in the send and receive slabs named to LocalTransforms::enable_fused. Each does one direction
//   (the other is an internal error):
//   planes forward(in, work): the 2D R2C of the slab; each peer's chunk lands in send, this rank's own too,
//     or with own_direct (the planes store the chunks) in receive, where the x transforms read it.
//     Realigned planes ([ky][x][kz]) are the chunks: work is send. Otherwise work is a slab other than in,
//     overwritten.
//   x forward(receive, out): the x transforms of what arrived (realigned, or where the planes left the own
//     chunk packed: and of the own chunk in send) into the spectral slab out (dealiased: its kept modes
//     only).
//   x backward(in, send): the x transforms of the spectral slab (dealiased: its kept modes only) into the
//     peers' chunks in send, the own chunk straight to where the plane transforms read it in receive where
//     LocalTransforms::fused_x said so.
//   planes backward(in, out): the 2D C2R of the planes the receive slab holds (dealiased: the other modes
//     count as zero) into the real slab out; in is send (the planes load the chunks; overwritten) or
//     receive (realigned).
#pragma once

#include "core/Complex.hpp"

namespace kolmo::fft {

template <class Real>
class PlaneTransform {
 public:
  using C = Complex<Real>;
  virtual ~PlaneTransform() = default;
  virtual void forward(const Real* in, C* out) = 0;
  virtual void backward(C* in, Real* out) = 0;
};

template <class Real>
class XTransform {
 public:
  using C = Complex<Real>;
  virtual ~XTransform() = default;
  virtual void forward(const C* in, C* out) = 0;
  virtual void backward(const C* in, C* out) = 0;
};

}  // namespace kolmo::fft
