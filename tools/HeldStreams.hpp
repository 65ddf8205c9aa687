// The device's time of work on several CUDA streams at once, queued while the device is held, for benchmarks
// of several transforms in flight (tools/fft_bench.cpp, --fields).
#pragma once

#include <functional>
#include <vector>

namespace kolmo::tools {

struct HeldTime {
  double device_ms = 0;  // from the release of the streams to the end of the last one's work
  double queued_ms = 0;  // the host's time to queue it all
};

// A host function sleeps hold_ms at the head of streams[0] (cudaStream_t as void*) and every other stream
// waits for it; queue() then queues the work on the streams, and the time is measured on the device from the
// sleep's end to the moment all streams are done, so that the host's launching does not count as long as it
// takes less than hold_ms (the caller compares queued_ms). Throws kolmo::Error without CUDA.
HeldTime time_held_streams(const std::vector<void*>& streams, const std::function<void()>& queue,
                           double hold_ms);

}  // namespace kolmo::tools
