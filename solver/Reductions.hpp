// The reductions the solver needs beyond kolmo::sum, written once for both backends like
// core/ParallelFor.hpp.
//
// Contract:
// - max_and_sum(device, n, f): f(i) returns MaxAndSum{a_i, b_i} with a_i >= 0; the result holds the largest
//   a_i (0 when n = 0) and the sum of the b_i, from one pass (the CFL number and the energy of a velocity).
//   A NaN a_i counts as +infinity: a plain comparison skips NaN, and a field holding NaN must never pass for
//   a calm one. f may write memory as a side effect (the solver fuses a kernel with its reduction). The
//   maximum is order-independent; the sum is added in a fixed order on the host (per-thread partials in
//   thread order), per block then on the host on CUDA. Synchronises.
// - max_of(device, n, f): the same largest value for f(i) returning a double alone.
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

#include <limits>
#include <vector>

#include "core/ParallelFor.hpp"

namespace kolmo::solver {

struct MaxAndSum {
  double max;
  double sum;
};

template <int M>
struct Binned {
  long bin;
  double value[M];
};

namespace detail {

// The larger of a running maximum and a new value, NaN counting as +infinity.
KOLMO_HD inline double larger(double maximum, double value) {
  if (value != value) return std::numeric_limits<double>::infinity();
  return value > maximum ? value : maximum;
}

// max_of's f as a max_and_sum term.
template <class F>
struct MaxOnly {
  F f;
  KOLMO_HD MaxAndSum operator()(long i) const { return MaxAndSum{f(i), 0.0}; }
};

}  // namespace detail

#if defined(__CUDACC__)
namespace detail {

template <class F>
__global__ void max_and_sum_kernel(long n, F f, MaxAndSum* partial) {
  __shared__ double largest[256];
  __shared__ double total[256];
  MaxAndSum local{0.0, 0.0};
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const MaxAndSum value = f(i);
    local.max = larger(local.max, value.max);
    local.sum += value.sum;
  }
  largest[threadIdx.x] = local.max;
  total[threadIdx.x] = local.sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      largest[threadIdx.x] = larger(largest[threadIdx.x], largest[threadIdx.x + stride]);
      total[threadIdx.x] += total[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = MaxAndSum{largest[0], total[0]};
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
MaxAndSum max_and_sum(Device& device, long n, F f) {
  MaxAndSum result{0.0, 0.0};
  if (n <= 0) return result;
  if (device.backend() == Backend::cuda) {
#if defined(__CUDACC__)
    constexpr int threads = 256;
    const int blocks = kolmo::detail::reduction_blocks(n, threads);
    auto stream = static_cast<cudaStream_t>(device.stream());
    MaxAndSum* partial = nullptr;
    KOLMO_CHECK_CUDA(cudaMallocAsync(&partial, sizeof(MaxAndSum) * blocks, stream));
    detail::max_and_sum_kernel<<<blocks, threads, 0, stream>>>(n, f, partial);
    KOLMO_CHECK_LAUNCH("max_and_sum_kernel");
    std::vector<MaxAndSum> host(static_cast<std::size_t>(blocks));
    KOLMO_CHECK_CUDA(
        cudaMemcpyAsync(host.data(), partial, sizeof(MaxAndSum) * blocks, cudaMemcpyDeviceToHost, stream));
    KOLMO_CHECK_CUDA(cudaFreeAsync(partial, stream));
    KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream));
    for (const MaxAndSum& value : host) {
      result.max = detail::larger(result.max, value.max);
      result.sum += value.sum;
    }
    return result;
#else
    throw Error("internal: a CUDA device in a build without CUDA");  // unreachable: Device::create refuses
#endif
  }
  std::vector<MaxAndSum> partial(static_cast<std::size_t>(omp_get_max_threads()), MaxAndSum{0.0, 0.0});
#pragma omp parallel
  {
    MaxAndSum local{0.0, 0.0};
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      const MaxAndSum value = f(i);
      local.max = detail::larger(local.max, value.max);
      local.sum += value.sum;
    }
    partial[static_cast<std::size_t>(omp_get_thread_num())] = local;
  }
  for (const MaxAndSum& local : partial) {
    result.max = detail::larger(result.max, local.max);
    result.sum += local.sum;
  }
  return result;
}

template <class F>
double max_of(Device& device, long n, F f) {
  return max_and_sum(device, n, detail::MaxOnly<F>{f}).max;
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
    throw Error("internal: a CUDA device in a build without CUDA");  // unreachable: Device::create refuses
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
