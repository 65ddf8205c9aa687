// Kernels that may be launched while the kernel before them on the stream is still running (programmatic
// dependent launch, GPUs of compute capability 9.0 and up), so that the start of one pass hides behind the
// end of the last (CUDA translation units only).
//
// Contract:
// - launch_dependent(kernel, grid, block, shared, stream, args...) queues kernel<<<grid, block, shared,
//   stream>>>(args...), allowed to start before the stream's previous kernel has finished. Where the GPU
//   cannot (compute capability below 9.0) it is an ordinary launch. Errors as KOLMO_CHECK_CUDA.
// - A kernel so launched calls wait_for_previous_kernel() before it reads or writes global memory: it
//   returns once everything queued before the kernel has finished and its writes are visible. Called in a
//   kernel launched the ordinary way it returns at once.
// - Dependence {waits, releases_early}, for kernels that take one and call follow(dependence) first instead:
//   waits (the default), wait_for_previous_kernel(); releases_early, the next kernel launched on the stream
//   may start once every block of this one has started, and take the multiprocessors that this one's last
//   blocks leave. A kernel may skip the wait only where it touches nothing the kernel before it on its stream
//   reads or writes and that kernel waited for its own predecessor (everything before it had then finished);
//   a kernel releases early only before such a kernel (one that waits would hold multiprocessors idle).
//
// Why: on an H100, the row FFTs then the column FFTs of 64 planes of 512^2 (single precision) took 87.0
// instead of 90.5 us back to back, 156 instead of 160 over 128 planes; in a transform, one rank's work of 8
// at 512^3 (dealiased, single precision) took 1.5 % less, the one-GPU pair 0.3 % less
// (docs/results/dependent_launch_h100.log). Consecutive plane groups on a stream that neither wait for nor
// hold back the next (Dependence): the one-GPU dealiased forward plane transforms at 512^3 (single
// precision) in 57 groups 5 % faster than in one, the pair 2 % (docs/results/small_kernels_h100.log,
// section 19).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/CudaCheck.hpp"
#include "core/Dependence.hpp"

namespace kolmo {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void follow(Dependence dependence) {
  if (dependence.waits) wait_for_previous_kernel();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (dependence.releases_early) asm volatile("griddepcontrol.launch_dependents;");
#endif
}

template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared,
                      cudaStream_t stream, Args&&... args) {
  const int major = current_device_attribute(cudaDevAttrComputeCapabilityMajor);
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = major >= 9 ? 1 : 0;
  KOLMO_CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace kolmo
