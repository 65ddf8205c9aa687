#include <cufft.h>

#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "tools/CufftReference.hpp"

namespace kolmo::tools {

namespace {

// One pair of plans, in place (padded z) or out of place.
std::vector<double> time_pair(std::array<long, 3> n, bool dp, bool in_place, int warmup, int reps) {
  const long nzc = n[2] / 2 + 1;
  const std::size_t real_bytes = (dp ? 8 : 4) * std::size_t(n[0]) * n[1] * (in_place ? 2 * nzc : n[2]);
  const std::size_t complex_bytes = (dp ? 16 : 8) * std::size_t(n[0]) * n[1] * nzc;
  void *a = nullptr, *b = nullptr;
  KOLMO_CHECK_CUDA(cudaMalloc(&a, std::max(real_bytes, complex_bytes)));
  if (!in_place) KOLMO_CHECK_CUDA(cudaMalloc(&b, complex_bytes));
  KOLMO_CHECK_CUDA(cudaMemset(a, 0, std::max(real_bytes, complex_bytes)));
  void* spectral = in_place ? a : b;
  cufftHandle forward, backward;
  KOLMO_CHECK_CUFFT(cufftPlan3d(&forward, int(n[0]), int(n[1]), int(n[2]), dp ? CUFFT_D2Z : CUFFT_R2C));
  KOLMO_CHECK_CUFFT(cufftPlan3d(&backward, int(n[0]), int(n[1]), int(n[2]), dp ? CUFFT_Z2D : CUFFT_C2R));
  auto pair = [&] {
    if (dp) {
      KOLMO_CHECK_CUFFT(cufftExecD2Z(forward, (double*)a, (cufftDoubleComplex*)spectral));
      KOLMO_CHECK_CUFFT(cufftExecZ2D(backward, (cufftDoubleComplex*)spectral, (double*)a));
    } else {
      KOLMO_CHECK_CUFFT(cufftExecR2C(forward, (float*)a, (cufftComplex*)spectral));
      KOLMO_CHECK_CUFFT(cufftExecC2R(backward, (cufftComplex*)spectral, (float*)a));
    }
  };
  const Event start = new_event(cudaEventDefault), stop = new_event(cudaEventDefault);
  std::vector<double> times;
  for (int r = 0; r < warmup + reps; ++r) {
    KOLMO_CHECK_CUDA(cudaEventRecord(start.get()));
    pair();
    KOLMO_CHECK_CUDA(cudaEventRecord(stop.get()));
    KOLMO_CHECK_CUDA(cudaEventSynchronize(stop.get()));
    float ms = 0;
    KOLMO_CHECK_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (r >= warmup) times.push_back(ms);
  }
  cufftDestroy(forward);
  cufftDestroy(backward);
  cudaFree(a);
  if (b) cudaFree(b);
  return times;
}

}  // namespace

ReferenceTimes time_cufft_3d(std::array<long, 3> n, bool dp, int warmup, int reps) {
  ReferenceTimes times;
  times.in_place_ms = time_pair(n, dp, true, warmup, reps);
  times.out_of_place_ms = time_pair(n, dp, false, warmup, reps);
  return times;
}

}  // namespace kolmo::tools

#include <cufftXt.h>

#include <chrono>

namespace kolmo::tools {

std::vector<double> time_cufftxt_3d(std::array<long, 3> n, bool dp, int gpus, int warmup, int reps) {
  int current = 0;
  KOLMO_CHECK_CUDA(cudaGetDevice(&current));
  std::vector<int> which(gpus);
  for (int g = 0; g < gpus; ++g) which[g] = g;
  cufftHandle forward, backward;
  std::vector<std::size_t> work(gpus);
  KOLMO_CHECK_CUFFT(cufftCreate(&forward));
  KOLMO_CHECK_CUFFT(cufftCreate(&backward));
  KOLMO_CHECK_CUFFT(cufftXtSetGPUs(forward, gpus, which.data()));
  KOLMO_CHECK_CUFFT(cufftXtSetGPUs(backward, gpus, which.data()));
  KOLMO_CHECK_CUFFT(
      cufftMakePlan3d(forward, int(n[0]), int(n[1]), int(n[2]), dp ? CUFFT_D2Z : CUFFT_R2C, work.data()));
  KOLMO_CHECK_CUFFT(
      cufftMakePlan3d(backward, int(n[0]), int(n[1]), int(n[2]), dp ? CUFFT_Z2D : CUFFT_C2R, work.data()));
  cudaLibXtDesc* data = nullptr;
  KOLMO_CHECK_CUFFT(cufftXtMalloc(forward, &data, CUFFT_XT_FORMAT_INPLACE));
  for (int g = 0; g < gpus; ++g) {
    KOLMO_CHECK_CUDA(cudaSetDevice(data->descriptor->GPUs[g]));
    KOLMO_CHECK_CUDA(cudaMemset(data->descriptor->data[g], 0, data->descriptor->size[g]));
  }
  auto sync_all = [&] {
    for (int g = 0; g < gpus; ++g) {
      KOLMO_CHECK_CUDA(cudaSetDevice(g));
      KOLMO_CHECK_CUDA(cudaDeviceSynchronize());
    }
  };
  std::vector<double> times;
  for (int r = 0; r < warmup + reps; ++r) {
    sync_all();
    auto start = std::chrono::steady_clock::now();
    if (dp) {
      KOLMO_CHECK_CUFFT(cufftXtExecDescriptorD2Z(forward, data, data));
      KOLMO_CHECK_CUFFT(cufftXtExecDescriptorZ2D(backward, data, data));
    } else {
      KOLMO_CHECK_CUFFT(cufftXtExecDescriptorR2C(forward, data, data));
      KOLMO_CHECK_CUFFT(cufftXtExecDescriptorC2R(backward, data, data));
    }
    sync_all();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r >= warmup) times.push_back(ms);
  }
  cufftXtFree(data);
  cufftDestroy(forward);
  cufftDestroy(backward);
  KOLMO_CHECK_CUDA(cudaSetDevice(current));
  return times;
}

}  // namespace kolmo::tools
