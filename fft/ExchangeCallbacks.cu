// cuFFT callbacks that put the all-to-all's packing and unpacking into the transforms' own kernels (several
// ranks on GPUs). Not compiled into the library: CMake turns this file into LTO-IR, which cuFFT links into
// its kernels when a plan is made (cufftXtSetJITCallback), as for fft/DealiasCallbacks.cu.
// - store_chunks / load_chunks (plane transforms): each element of the yz planes is written to, or read
//   from, its place in the packed send or receive buffer (or the own chunk's final place); elements dropped
//   by the 2/3 rule are not written, and read as zero. Caller info: a PlaneRoute.
// - store_own_rows (x transforms of a backward transform): the kx rows of this rank's own x planes go
//   straight to where the plane transforms read them; the others stay (the chunks sent). Caller info: a
//   ColumnRoute.
// - load_spread / store_spread (x transforms of dealiased transforms): the compact columns are read from, or
//   written to, their places in the full spectral slab. Caller info: a ColumnRoute; the store goes to the
//   route's `spread` buffer, so that cuFFT may use its own output buffer for intermediate results.
// - load_lines / store_lines (x transforms of full transforms with realigned planes): each element of the
//   kx-major slab is read from, or written to, its place in the chunk of the rank holding its x plane.
//   Caller info: a LineRoute.
// cuFFT finds each function by its plain name as a C++ function of the callback signature in the global
// namespace.
#include <cufftXt.h>

#include "fft/ChunkRoutes.hpp"

using kolmo::fft::ColumnRoute;
using kolmo::fft::LineRoute;
using kolmo::fft::PlaneRoute;

namespace {

template <class T>
__device__ void store_chunks(unsigned long long offset, T value, void* info) {
  if (T* place = static_cast<const PlaneRoute*>(info)->address<T>(offset)) *place = value;
}

template <class T>
__device__ T load_chunks(unsigned long long offset, void* info) {
  const T* place = static_cast<const PlaneRoute*>(info)->address<T>(offset);
  return place != nullptr ? *place : T{0, 0};
}

template <class T>
__device__ void store_own_rows(void* out, unsigned long long offset, T value, void* info) {
  *static_cast<const ColumnRoute*>(info)->own_row_address(static_cast<T*>(out), offset) = value;
}

template <class T>
__device__ T load_spread(void* in, unsigned long long offset, void* info) {
  return *static_cast<const ColumnRoute*>(info)->spread_address(static_cast<T*>(in), offset);
}

template <class T>
__device__ void store_spread(unsigned long long offset, T value, void* info) {
  const auto* route = static_cast<const ColumnRoute*>(info);
  *route->spread_address(static_cast<T*>(route->spread), offset) = value;
}

template <class T>
__device__ T load_lines(unsigned long long offset, void* info) {
  return *static_cast<const LineRoute*>(info)->address<T>(offset);
}

template <class T>
__device__ void store_lines(unsigned long long offset, T value, void* info) {
  *static_cast<const LineRoute*>(info)->address<T>(offset) = value;
}

}  // namespace

__device__ void kolmo_store_chunks_float(void*, unsigned long long offset, cufftComplex value, void* info,
                                         void*) {
  store_chunks(offset, value, info);
}
__device__ void kolmo_store_chunks_double(void*, unsigned long long offset, cufftDoubleComplex value,
                                          void* info, void*) {
  store_chunks(offset, value, info);
}
__device__ cufftComplex kolmo_load_chunks_float(void*, unsigned long long offset, void* info, void*) {
  return load_chunks<cufftComplex>(offset, info);
}
__device__ cufftDoubleComplex kolmo_load_chunks_double(void*, unsigned long long offset, void* info, void*) {
  return load_chunks<cufftDoubleComplex>(offset, info);
}
__device__ void kolmo_store_own_rows_float(void* out, unsigned long long offset, cufftComplex value,
                                           void* info, void*) {
  store_own_rows(out, offset, value, info);
}
__device__ void kolmo_store_own_rows_double(void* out, unsigned long long offset, cufftDoubleComplex value,
                                            void* info, void*) {
  store_own_rows(out, offset, value, info);
}
__device__ cufftComplex kolmo_load_spread_float(void* in, unsigned long long offset, void* info, void*) {
  return load_spread<cufftComplex>(in, offset, info);
}
__device__ cufftDoubleComplex kolmo_load_spread_double(void* in, unsigned long long offset, void* info,
                                                       void*) {
  return load_spread<cufftDoubleComplex>(in, offset, info);
}
__device__ void kolmo_store_spread_float(void*, unsigned long long offset, cufftComplex value, void* info,
                                         void*) {
  store_spread(offset, value, info);
}
__device__ void kolmo_store_spread_double(void*, unsigned long long offset, cufftDoubleComplex value,
                                          void* info, void*) {
  store_spread(offset, value, info);
}
__device__ cufftComplex kolmo_load_lines_float(void*, unsigned long long offset, void* info, void*) {
  return load_lines<cufftComplex>(offset, info);
}
__device__ cufftDoubleComplex kolmo_load_lines_double(void*, unsigned long long offset, void* info, void*) {
  return load_lines<cufftDoubleComplex>(offset, info);
}
__device__ void kolmo_store_lines_float(void*, unsigned long long offset, cufftComplex value, void* info,
                                        void*) {
  store_lines(offset, value, info);
}
__device__ void kolmo_store_lines_double(void*, unsigned long long offset, cufftDoubleComplex value,
                                         void* info, void*) {
  store_lines(offset, value, info);
}
