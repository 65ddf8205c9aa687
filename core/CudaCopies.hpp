// Strided copies by the copy engines on a given CUDA stream (CUDA translation units only): the one place that
// fills cudaMemcpy3DParms, for the p2p exchange's copies into peers' memory on streams of its own
// (fft/P2pExchange.cu). Copies within one GPU go by a kernel, which is faster there (core/StridedCopy.hpp).
//
// Contract: depth slices of rows rows of width bytes, from src (rows spitch bytes apart, slices srows rows
// apart) to dst (dpitch, drows), asynchronous on stream; any memory of the unified address space (this GPU's,
// a peer's mapped by CUDA IPC, pinned host memory). Nothing happens when an extent is 0.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/CudaCheck.hpp"

namespace kolmo {

inline void copy_3d_on(cudaStream_t stream, void* dst, std::size_t dpitch, std::size_t drows, const void* src,
                       std::size_t spitch, std::size_t srows, std::size_t width, std::size_t rows,
                       std::size_t depth) {
  if (width == 0 || rows == 0 || depth == 0) return;
  cudaMemcpy3DParms parameters{};
  parameters.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), spitch, width, srows);
  parameters.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, drows);
  parameters.extent = make_cudaExtent(width, rows, depth);
  parameters.kind = cudaMemcpyDefault;
  KOLMO_CHECK_CUDA(cudaMemcpy3DAsync(&parameters, stream));
}

}  // namespace kolmo
