// Pointwise kernels written once, run on either backend.
//
// Contract:
// - parallel_for(device, n, f) calls f(i) for every i in [0, n): OpenMP threads on the host, one CUDA thread
// per
//   index on the device's stream (asynchronous). f must be a KOLMO_HD functor or KOLMO_LAMBDA lambda that
//   captures by value and touches only memory of that device.
// - sum(device, n, f) returns the sum over i of f(i) (a double or a fixed array of doubles), reduced in
// double
//   precision whatever the field precision, and synchronises.
// - A translation unit that includes this header must be compiled by nvcc when kolmo is built with CUDA
//   (list it in kolmo_kernel_sources(...) in CMake): compiled by the host compiler it would hold only host
//   loops, and fail on GPUs alone, which CI does not have. So such a build stops with #error instead.
#pragma once

#if defined(KOLMO_HAVE_CUDA) && !defined(__CUDACC__)
#error \
    "this source runs kolmo kernels (core/ParallelFor.hpp) but is compiled without nvcc in a CUDA build: list it in kolmo_kernel_sources(...) in CMake"
#endif

#include <array>
#include <cstddef>
#include <vector>

#include <omp.h>

#include "core/Device.hpp"
#include "core/Error.hpp"
#include "core/HostDevice.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include "core/CudaCheck.hpp"
#define KOLMO_LAMBDA [=] __host__ __device__
#else
#define KOLMO_LAMBDA [=]
#endif

namespace kolmo {

// A fixed set of sums reduced together (energy, enstrophy, ... in one pass).
template <int M>
struct Sums {
  double value[M];
  KOLMO_HD double& operator[](int m) { return value[m]; }
  KOLMO_HD double operator[](int m) const { return value[m]; }
};

#if defined(__CUDACC__)
namespace detail {

template <class F>
__global__ void for_each_kernel(long n, F f) {
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    f(i);
}

template <int M, class F>
__global__ void sum_kernel(long n, F f, double* partial) {
  __shared__ double shared[M][256];
  double local[M];
  for (int m = 0; m < M; ++m) local[m] = 0.0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    Sums<M> value = f(i);
    for (int m = 0; m < M; ++m) local[m] += value[m];
  }
  for (int m = 0; m < M; ++m) shared[m][threadIdx.x] = local[m];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      for (int m = 0; m < M; ++m) shared[m][threadIdx.x] += shared[m][threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int m = 0; m < M; ++m) partial[blockIdx.x * M + m] = shared[m][0];
}

inline int grid_for(long n, int threads) {
  long blocks = (n + threads - 1) / threads;
  return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

// Reductions: at most 1024 blocks, each thread striding, so the host adds few partial results.
inline int reduction_blocks(long n, int threads) {
  return grid_for(n, threads) < 1024 ? grid_for(n, threads) : 1024;
}

}  // namespace detail
#endif

template <class F>
void parallel_for(Device& device, long n, F f) {
  if (n <= 0) return;
  if (device.backend() == Backend::cuda) {
#if defined(__CUDACC__)
    constexpr int threads = 256;
    detail::for_each_kernel<<<detail::grid_for(n, threads), threads, 0,
                              static_cast<cudaStream_t>(device.stream())>>>(n, f);
    KOLMO_CHECK_LAUNCH("for_each_kernel");
#else
    throw Error("internal: a CUDA device in a build without CUDA");  // unreachable: Device::create refuses
#endif
    return;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) f(i);
}

// Sum of M quantities over i in [0, n); f(i) returns Sums<M>.
template <int M, class F>
Sums<M> sum(Device& device, long n, F f) {
  Sums<M> total{};
  for (int m = 0; m < M; ++m) total[m] = 0.0;
  if (n <= 0) return total;
  if (device.backend() == Backend::cuda) {
#if defined(__CUDACC__)
    constexpr int threads = 256;
    const int blocks = detail::reduction_blocks(n, threads);
    auto stream = static_cast<cudaStream_t>(device.stream());
    double* partial = nullptr;
    KOLMO_CHECK_CUDA(cudaMallocAsync(&partial, sizeof(double) * M * blocks, stream));
    detail::sum_kernel<M><<<blocks, threads, 0, stream>>>(n, f, partial);
    KOLMO_CHECK_LAUNCH("sum_kernel");
    std::array<double, static_cast<std::size_t>(M) * 1024> host{};
    KOLMO_CHECK_CUDA(
        cudaMemcpyAsync(host.data(), partial, sizeof(double) * M * blocks, cudaMemcpyDeviceToHost, stream));
    KOLMO_CHECK_CUDA(cudaFreeAsync(partial, stream));
    KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream));
    for (int b = 0; b < blocks; ++b)
      for (int m = 0; m < M; ++m) total[m] += host[static_cast<std::size_t>(b) * M + m];
#else
    throw Error("internal: a CUDA device in a build without CUDA");  // unreachable: Device::create refuses
#endif
    return total;
  }
  // Per-thread partials added in thread order: the same sum bit for bit on every run, which restarts and
  // forcing (whose amplitude depends on these sums) rely on.
  std::vector<Sums<M>> partial(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
  {
    Sums<M> local{};
    for (int m = 0; m < M; ++m) local[m] = 0.0;
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      Sums<M> value = f(i);
      for (int m = 0; m < M; ++m) local[m] += value[m];
    }
    partial[static_cast<std::size_t>(omp_get_thread_num())] = local;
  }
  for (const auto& local : partial)
    for (int m = 0; m < M; ++m) total[m] += local[m];
  return total;
}

}  // namespace kolmo
