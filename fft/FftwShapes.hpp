// The batches of transforms the host backend plans (fft/HostTransforms.cpp), in FFTW's 64-bit guru interface
// (internal to the host backend, and its tests).
//
// Contract: an FftwShape is a batch of batch.n transforms of rank 2 (yz planes) or 1 (x lines) as FFTW's guru
// planners take them: dims[0..rank) the transform's sizes and strides, slowest first, batch the count and
// the distance between consecutive transforms, all in elements (reals in a real array, complex values in a
// complex one) and all 64-bit integers, exact for every SlabLayout. (A layout allows each size up to
// 2^31 - 1, so one yz plane, Ny Nz values, and a spectral slab's columns, y count x Nzc, may number more
// than 2^31 - 1, which FFTW's advanced interface cannot express: its counts, strides and distances are int.)
// For sizes that fit in int, the problems are those the advanced interface (fftw_plan_many_dft_r2c, _c2r,
// fftw_plan_many_dft) posed with the same layout, which FFTW turns into these very dims: the same plans, and
// wisdom files written before still apply.
// - plane_shape(layout, kind, count): the R2C (kind r2c) or C2R (c2r) transforms of `count` consecutive yz
//   planes, out of place: real planes [y][z] of Ny Nz reals, complex planes [y][kz] of Ny Nzc values.
// - x_shape(layout, kind, count, stride): the forward or backward C2C transforms along x, in place, of
//   `count` adjacent columns of a slab whose x lines have `stride` (complex values).
// - plan_fftw<Real>(shape, flags, in, out): FFTW's plan of the shape on these arrays (nullptr where FFTW
//   cannot plan it); C2R plans may overwrite their input (FFTW_DESTROY_INPUT). Under fftw_planner_lock().
#pragma once

#include <fftw3.h>

#include "fft/Fftw.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

enum class FftwKind { r2c, c2r, forward, backward };

struct FftwShape {
  FftwKind kind;
  int rank;              // 2: yz planes; 1: x lines
  fftw_iodim64 dims[2];  // {n, input stride, output stride} of each dimension, slowest first
  fftw_iodim64 batch;    // {count, input distance, output distance}
  bool in_place;
};

inline FftwShape plane_shape(const SlabLayout& layout, FftwKind kind, long count) {
  const long ny = layout.ny(), nz = layout.nz(), nzc = layout.nzc();
  // A real plane has rows of Nz reals, a complex one rows of Nzc values; along z each is contiguous.
  const long real_row = nz, complex_row = nzc, real_plane = ny * nz, complex_plane = ny * nzc;
  if (kind == FftwKind::r2c)
    return {kind, 2, {{ny, real_row, complex_row}, {nz, 1, 1}}, {count, real_plane, complex_plane}, false};
  return {kind, 2, {{ny, complex_row, real_row}, {nz, 1, 1}}, {count, complex_plane, real_plane}, false};
}

inline FftwShape x_shape(const SlabLayout& layout, FftwKind kind, long count, long stride) {
  // Along x a line's values are `stride` apart; neighbouring columns are adjacent.
  return {kind, 1, {{layout.nx(), stride, stride}, {}}, {count, 1, 1}, true};
}

template <class Real>
typename Fftw<Real>::plan plan_fftw(const FftwShape& s, unsigned flags, void* in, void* out) {
  using W = Fftw<Real>;
  using Complex = typename W::complex;
  switch (s.kind) {
    case FftwKind::r2c:
      return W::plan_guru64_r2c(s.rank, s.dims, 1, &s.batch, static_cast<Real*>(in),
                                static_cast<Complex*>(out), flags);
    case FftwKind::c2r:  // the plane transforms of a backward pass overwrite their input, which is scratch
      return W::plan_guru64_c2r(s.rank, s.dims, 1, &s.batch, static_cast<Complex*>(in),
                                static_cast<Real*>(out), flags | FFTW_DESTROY_INPUT);
    default:
      return W::plan_guru64_c2c(s.rank, s.dims, 1, &s.batch, static_cast<Complex*>(in),
                                static_cast<Complex*>(out),
                                s.kind == FftwKind::forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  }
}

}  // namespace kolmo::fft
