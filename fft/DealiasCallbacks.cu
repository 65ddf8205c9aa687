// cuFFT callbacks of the dealiased x transforms on one rank. Not compiled into the library: CMake turns this
// file into LTO-IR, which cuFFT links into its own x-transform kernels when the plan is made
// (cufftXtSetJITCallback), so the mask costs no pass over memory of its own.
// - load_kept: the backward transform reads only the kept (ky, kz) columns; the others count as zero.
// - store_kept: the forward transform writes zero to the dropped columns.
// The caller info is a device pointer to a KeptModeMask. cuFFT finds each function by its plain name as a
// C++ function of the callback signature in the global namespace (an extern "C" one it does not find).
#include <cufftXt.h>

#include "fft/KeptModeMask.hpp"

using kolmo::fft::KeptModeMask;

__device__ cufftComplex kolmo_load_kept_float(void* in, unsigned long long offset, void* info, void*) {
  if (!static_cast<const KeptModeMask*>(info)->kept(offset)) return make_cuComplex(0.f, 0.f);
  return static_cast<const cufftComplex*>(in)[offset];
}

__device__ cufftDoubleComplex kolmo_load_kept_double(void* in, unsigned long long offset, void* info, void*) {
  if (!static_cast<const KeptModeMask*>(info)->kept(offset)) return make_cuDoubleComplex(0., 0.);
  return static_cast<const cufftDoubleComplex*>(in)[offset];
}

__device__ void kolmo_store_kept_float(void* out, unsigned long long offset, cufftComplex value, void* info,
                                       void*) {
  const bool kept = static_cast<const KeptModeMask*>(info)->kept(offset);
  static_cast<cufftComplex*>(out)[offset] = kept ? value : make_cuComplex(0.f, 0.f);
}

__device__ void kolmo_store_kept_double(void* out, unsigned long long offset, cufftDoubleComplex value,
                                        void* info, void*) {
  const bool kept = static_cast<const KeptModeMask*>(info)->kept(offset);
  static_cast<cufftDoubleComplex*>(out)[offset] = kept ? value : make_cuDoubleComplex(0., 0.);
}
