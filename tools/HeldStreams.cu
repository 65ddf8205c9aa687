// tools/HeldStreams.hpp on CUDA: events and a sleeping host function.
#include "tools/HeldStreams.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "core/Error.hpp"

namespace kolmo::tools {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(status));
}

void CUDART_CB sleep_on_stream(void* milliseconds) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(*static_cast<double*>(milliseconds)));
}

}  // namespace

HeldTime time_held_streams(const std::vector<void*>& streams, const std::function<void()>& queue,
                           double hold_ms) {
  auto stream = [&](std::size_t s) { return static_cast<cudaStream_t>(streams.at(s)); };
  cudaEvent_t start, end;
  std::vector<cudaEvent_t> done(streams.size());
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  for (auto& e : done) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaLaunchHostFunc(stream(0), sleep_on_stream, &hold_ms), "cudaLaunchHostFunc");
  check(cudaEventRecord(start, stream(0)), "cudaEventRecord");
  for (std::size_t s = 1; s < streams.size(); ++s)
    check(cudaStreamWaitEvent(stream(s), start, 0), "cudaStreamWaitEvent");
  const auto begun = std::chrono::steady_clock::now();
  queue();
  HeldTime t;
  t.queued_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun).count();
  for (std::size_t s = 1; s < streams.size(); ++s) {
    check(cudaEventRecord(done[s], stream(s)), "cudaEventRecord");
    check(cudaStreamWaitEvent(stream(0), done[s], 0), "cudaStreamWaitEvent");
  }
  check(cudaEventRecord(end, stream(0)), "cudaEventRecord");
  check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
  t.device_ms = ms;
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  for (auto& e : done) cudaEventDestroy(e);
  return t;
}

}  // namespace kolmo::tools
