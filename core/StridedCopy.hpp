// Strided copies by a kernel on a CUDA stream (CUDA translation units only): the CUDA Device's copy_2d and
// copy_3d (core/CudaDevice.cu), which move a rank's own chunk, the emulated ranks' chunks and packed rows
// between places of one GPU.
//
// Contract: depth slices of rows rows of width bytes, from src (rows spitch bytes apart, slices srows rows
// apart) to dst (dpitch, drows), asynchronous on stream; memory the GPU's kernels can address (its own, a
// peer's with peer access, pinned host memory), source and destination not overlapping. Nothing happens
// when an extent is 0. Each thread moves 16, 8, 4, 2 or 1 bytes at a time, the most that the addresses,
// pitches and width allow.
//
// Why a kernel: between two places of one H100, cudaMemcpy3DAsync moved a rank's own chunk at 1.3-1.7 TB/s
// (reads and writes), a kernel like this one at 1.8-2.9 TB/s: 22.7 against 15.2 us for the own chunk of one
// rank of 8 at 512^3 in double precision (docs/results/device_copies_h100.log). Copies to a peer's memory
// stay on the copy engines (core/CudaCopies.hpp, fft/P2pExchange.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace kolmo {

void strided_copy(cudaStream_t stream, void* dst, std::size_t dpitch, std::size_t drows, const void* src,
                  std::size_t spitch, std::size_t srows, std::size_t width, std::size_t rows,
                  std::size_t depth);

}  // namespace kolmo
