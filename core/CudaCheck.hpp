// Checks for CUDA runtime and cuFFT calls (CUDA translation units only): every call's status is checked and a
// failure names the call, the file and line, and the library's own description.
// current_device_attribute(attribute): an attribute of the current device (cudaDeviceGetAttribute), checked.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "core/Error.hpp"

#define KOLMO_CHECK_CUDA(call)                                                             \
  do {                                                                                     \
    cudaError_t kolmo_cuda_status_ = (call);                                               \
    if (kolmo_cuda_status_ != cudaSuccess)                                                 \
      ::kolmo::fail_at(#call, __FILE__, __LINE__, cudaGetErrorString(kolmo_cuda_status_)); \
  } while (0)

// After a kernel launch: launch configuration errors show up here, execution errors at the next sync.
#define KOLMO_CHECK_LAUNCH(name) KOLMO_CHECK_CUDA(cudaGetLastError())

namespace kolmo {

inline int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  KOLMO_CHECK_CUDA(cudaGetDevice(&device));
  KOLMO_CHECK_CUDA(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

}  // namespace kolmo

#define KOLMO_CHECK_CUFFT(call)                                                                           \
  do {                                                                                                    \
    cufftResult kolmo_cufft_status_ = (call);                                                             \
    if (kolmo_cufft_status_ != CUFFT_SUCCESS)                                                             \
      ::kolmo::fail_at(#call, __FILE__, __LINE__, "cuFFT status " + std::to_string(kolmo_cufft_status_)); \
  } while (0)
