// The copies that reshape one rank's data between the plane transforms, the all-to-all and the x transforms
// (heFFTe calls them reshapes), as device copies (2D and 3D strided memcpy).
//
// Contract: all on a layout's own rank, asynchronous on the device's stream, count = the x planes copied.
// - pack(planes, packed, count): planes [x][y][kz] to the packed send layout [q][x][y of q][kz]; unpack back.
// - pack_block(planes, block, packed, spectral): the planes `block` of the rank's slab (`planes` at its
// first)
//   into their places in the packed layout of the whole slab, the rank's own rows straight to their place in
//   the spectral slab [kx][ky][kz] at `spectral` (the exchange then leaves the own chunk alone);
//   unpack_block(packed, spectral, block, planes): the block back from the packed layout, the own rows from
//   the spectral slab at `spectral` where not nullptr (else from their chunk).
// - Dealiased forms, the kept modes only: pack_kept: planes to [q][x][kept y of q][kept kz];
//   expand_kept_planes: back, writing only the kept modes (zero_planes first: the plane transforms read the
//   rest); gather_kept_spectral / scatter_kept_spectral: the spectral slab [kx][ky][kz] to or from the
//   compact slab [kx][kept ky][kept kz] (scatter leaves the other modes as they were).
#pragma once

#include "core/Complex.hpp"
#include "core/Device.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

template <class Real>
void pack(Device& device, const SlabLayout& layout, const Complex<Real>* planes, Complex<Real>* packed,
          long count);
template <class Real>
void unpack(Device& device, const SlabLayout& layout, const Complex<Real>* packed, Complex<Real>* planes,
            long count);
template <class Real>
void pack_block(Device& device, const SlabLayout& layout, const Complex<Real>* planes,
                SlabLayout::Planes block, Complex<Real>* packed, Complex<Real>* spectral);
template <class Real>
void unpack_block(Device& device, const SlabLayout& layout, const Complex<Real>* packed,
                  const Complex<Real>* spectral, SlabLayout::Planes block, Complex<Real>* planes);
template <class Real>
void pack_kept(Device& device, const SlabLayout& layout, const Complex<Real>* planes, Complex<Real>* packed,
               long count);
template <class Real>
void zero_planes(Device& device, const SlabLayout& layout, Complex<Real>* planes, long count);
template <class Real>
void expand_kept_planes(Device& device, const SlabLayout& layout, const Complex<Real>* packed,
                        Complex<Real>* planes, long count);
template <class Real>
void gather_kept_spectral(Device& device, const SlabLayout& layout, const Complex<Real>* spectral,
                          Complex<Real>* compact);
template <class Real>
void scatter_kept_spectral(Device& device, const SlabLayout& layout, const Complex<Real>* compact,
                           Complex<Real>* spectral);

}  // namespace kolmo::fft
