#include "fft/PhaseClock.hpp"

#include <chrono>

#if defined(KOLMO_HAVE_CUDA)
#include "core/CudaCheck.hpp"
#include "core/UniqueHandle.hpp"
#endif

namespace kolmo::fft {

// One mark per lap plus the start: CUDA events made once and reused, or host clock readings.
struct PhaseClock::Marks {
  std::vector<std::chrono::steady_clock::time_point> host;
#if defined(KOLMO_HAVE_CUDA)
  std::vector<UniqueHandle<cudaEvent_t, cudaEventDestroy>> events;
#endif
};

PhaseClock::PhaseClock(std::shared_ptr<Device> device) : device_(std::move(device)), marks_(new Marks) {}

PhaseClock::~PhaseClock() = default;

void PhaseClock::start() {
  slots_.clear();
  lap(-1);
}

void PhaseClock::lap(int slot) {
  if (slot >= 0) slots_.push_back(slot);
  const std::size_t mark = slot >= 0 ? slots_.size() : 0;
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) {
    auto& events = marks_->events;
    while (events.size() <= mark) {
      cudaEvent_t event = nullptr;
      KOLMO_CHECK_CUDA(cudaEventCreate(&event));
      events.emplace_back(event);
    }
    KOLMO_CHECK_CUDA(cudaEventRecord(events[mark].get(), static_cast<cudaStream_t>(device_->stream())));
    return;
  }
#endif
  auto& host = marks_->host;
  if (host.size() <= mark) host.resize(mark + 1);
  host[mark] = std::chrono::steady_clock::now();
}

void PhaseClock::add_to(double* seconds) {
  if (slots_.empty()) return;
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) {
    const auto& events = marks_->events;
    KOLMO_CHECK_CUDA(cudaEventSynchronize(events[slots_.size()].get()));
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      float ms = 0;
      KOLMO_CHECK_CUDA(cudaEventElapsedTime(&ms, events[i].get(), events[i + 1].get()));
      seconds[slots_[i]] += ms * 1e-3;
    }
    slots_.clear();
    return;
  }
#endif
  const auto& host = marks_->host;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    seconds[slots_[i]] += std::chrono::duration<double>(host[i + 1] - host[i]).count();
  slots_.clear();
}

}  // namespace kolmo::fft
