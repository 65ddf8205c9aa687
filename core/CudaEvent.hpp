// An owned CUDA event (CUDA translation units only), its creation checked.
//
// Contract:
// - Event: the owner of one event (core/UniqueHandle.hpp), which destroys it once.
// - new_event(flags): an event made by cudaEventCreateWithFlags(flags): cudaEventDefault for one that times,
//   cudaEventDisableTiming for one that only orders streams (cheaper to record and wait on), with
//   cudaEventInterprocess for one another process opens. A failure throws kolmo::Error naming the call.
// - Private to the library: not installed.
#pragma once

#include <cuda_runtime.h>

#include "core/CudaCheck.hpp"
#include "core/UniqueHandle.hpp"

namespace kolmo {

using Event = UniqueHandle<cudaEvent_t, cudaEventDestroy>;

inline Event new_event(unsigned flags) {
  cudaEvent_t event = nullptr;
  KOLMO_CHECK_CUDA(cudaEventCreateWithFlags(&event, flags));
  return Event(event);
}

}  // namespace kolmo
