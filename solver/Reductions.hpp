// Two reductions the solver needs beyond kolmo::sum, written once for both backends like
// core/ParallelFor.hpp.
//
// Contract:
// - max_of(device, n, f): the largest f(i) over i in [0, n), for f(i) >= 0 (0 when n = 0). f may write memory
//   as a side effect (the solver fuses a kernel with its reduction). Order-independent, hence reproducible.
//   Synchronises.
// - binned_sum<M>(device, n, bins, f): f(i) returns Binned<M>{bin, values}; the result holds, for each bin b
// in
//   [0, bins) and m in [0, M), the sum of values[m] over the i that fell in bin b, at [b * M + m]. Indices
//   with a bin outside [0, bins) are skipped. Host: per-thread partial arrays added in thread order
//   (reproducible for a fixed thread count). CUDA: a per-block histogram in shared memory with atomics, added
//   into a small device array with atomics (order not reproducible, round-off level differences).
//   Synchronises.
// - Local to the rank: callers reduce across ranks themselves.
#pragma once

#include <omp.h>

#include <vector>

#include "core/ParallelFor.hpp"

namespace kolmo::solver {

template <int M>
struct Binned {
  long bin;
  double value[M];
};

#if defined(__CUDACC__)
namespace detail {

template <class F>
__global__ void max_kernel(long n, F f, double* partial) {
  __shared__ double shared[256];
  double local = 0.0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const double value = f(i);
    local = value > local ? value : local;
  }
  shared[threadIdx.x] = local;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride && shared[threadIdx.x + stride] > shared[threadIdx.x])
      shared[threadIdx.x] = shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
}

// One histogram per block in shared memory (bins * M doubles), then one atomic per bin and block into totals.
template <int M, class F>
__global__ void binned_sum_shared_kernel(long n, F f, long bins, double* totals) {
  extern __shared__ double histogram[];
  for (long b = threadIdx.x; b < bins * M; b += blockDim.x) histogram[b] = 0.0;
  __syncthreads();
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const Binned<M> value = f(i);
    if (value.bin >= 0 && value.bin < bins)
      for (int m = 0; m < M; ++m) atomicAdd(&histogram[value.bin * M + m], value.value[m]);
  }
  __syncthreads();
  for (long b = threadIdx.x; b < bins * M; b += blockDim.x)
    if (histogram[b] != 0.0) atomicAdd(&totals[b], histogram[b]);
}

// Too many bins for shared memory: atomics straight into totals.
template <int M, class F>
__global__ void binned_sum_global_kernel(long n, F f, long bins, double* totals) {
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const Binned<M> value = f(i);
    if (value.bin >= 0 && value.bin < bins)
      for (int m = 0; m < M; ++m) atomicAdd(&totals[value.bin * M + m], value.value[m]);
  }
}

}  // namespace detail
#endif

template <class F>
double max_of(Device& device, long n, F f) {
  if (n <= 0) return 0.0;
  if (device.backend() == Backend::cuda) {
#if defined(__CUDACC__)
    constexpr int threads = 256;
    const int blocks = kolmo::detail::reduction_blocks(n, threads);
    auto stream = static_cast<cudaStream_t>(device.stream());
    double* partial = nullptr;
    KOLMO_CHECK_CUDA(cudaMallocAsync(&partial, sizeof(double) * blocks, stream));
    detail::max_kernel<<<blocks, threads, 0, stream>>>(n, f, partial);
    KOLMO_CHECK_LAUNCH("max_kernel");
    std::vector<double> host(static_cast<std::size_t>(blocks));
    KOLMO_CHECK_CUDA(
        cudaMemcpyAsync(host.data(), partial, sizeof(double) * blocks, cudaMemcpyDeviceToHost, stream));
    KOLMO_CHECK_CUDA(cudaFreeAsync(partial, stream));
    KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream));
    double result = 0.0;
    for (double value : host) result = value > result ? value : result;
    return result;
#else
    throw Error("internal: a CUDA reduction was requested from a translation unit not compiled by nvcc");
#endif
  }
  double result = 0.0;
#pragma omp parallel for schedule(static) reduction(max : result)
  for (long i = 0; i < n; ++i) {
    const double value = f(i);
    result = value > result ? value : result;
  }
  return result;
}

template <int M, class F>
std::vector<double> binned_sum(Device& device, long n, long bins, F f) {
  std::vector<double> totals(static_cast<std::size_t>(bins * M), 0.0);
  if (n <= 0 || bins <= 0) return totals;
  if (device.backend() == Backend::cuda) {
#if defined(__CUDACC__)
    constexpr int threads = 256;
    const int blocks = kolmo::detail::reduction_blocks(n, threads);
    auto stream = static_cast<cudaStream_t>(device.stream());
    const std::size_t bytes = sizeof(double) * totals.size();
    double* device_totals = nullptr;
    KOLMO_CHECK_CUDA(cudaMallocAsync(&device_totals, bytes, stream));
    KOLMO_CHECK_CUDA(cudaMemsetAsync(device_totals, 0, bytes, stream));
    if (bytes <= 48 * 1024) {
      detail::binned_sum_shared_kernel<M><<<blocks, threads, bytes, stream>>>(n, f, bins, device_totals);
    } else {
      detail::binned_sum_global_kernel<M><<<blocks, threads, 0, stream>>>(n, f, bins, device_totals);
    }
    KOLMO_CHECK_LAUNCH("binned_sum_kernel");
    KOLMO_CHECK_CUDA(cudaMemcpyAsync(totals.data(), device_totals, bytes, cudaMemcpyDeviceToHost, stream));
    KOLMO_CHECK_CUDA(cudaFreeAsync(device_totals, stream));
    KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream));
    return totals;
#else
    throw Error("internal: a CUDA reduction was requested from a translation unit not compiled by nvcc");
#endif
  }
  const std::size_t width = totals.size();
  std::vector<double> partial(width * static_cast<std::size_t>(omp_get_max_threads()), 0.0);
#pragma omp parallel
  {
    double* local = partial.data() + width * static_cast<std::size_t>(omp_get_thread_num());
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      const Binned<M> value = f(i);
      if (value.bin >= 0 && value.bin < bins)
        for (int m = 0; m < M; ++m) local[value.bin * M + m] += value.value[m];
    }
  }
  for (std::size_t t = 0; t < partial.size() / width; ++t)
    for (std::size_t b = 0; b < width; ++b) totals[b] += partial[t * width + b];
  return totals;
}

}  // namespace kolmo::solver
