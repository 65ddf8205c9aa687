#include "fft/PhaseClock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <thread>

#if defined(KOLMO_HAVE_CUDA)
#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#endif

namespace kolmo::fft {

// One mark per lap plus the start: CUDA events made once and reused, or host clock readings; and the host
// clock at start().
struct PhaseClock::Marks {
  std::vector<std::chrono::steady_clock::time_point> host;
  std::chrono::steady_clock::time_point started;
#if defined(KOLMO_HAVE_CUDA)
  std::vector<Event> events;
#endif
};

namespace {

#if defined(KOLMO_HAVE_CUDA)
// The hold: a host function on the device's queue (cudaLaunchHostFunc) that sleeps. Its length travels in
// the user-data pointer itself, so that nothing it reads can be freed before it runs.
void hold_queue(void* microseconds) {
  std::this_thread::sleep_for(std::chrono::microseconds(reinterpret_cast<std::uintptr_t>(microseconds)));
}
#endif

}  // namespace

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", ms);
  return text;
}

std::vector<double> medians_taking_turns(std::size_t count, int untimed, int timed,
                                         const std::function<double(std::size_t)>& time_of) {
  if (timed < 1) throw std::logic_error("medians_taking_turns: no timed round");  // an internal fault
  std::vector<std::vector<double>> times(count);
  for (int round = 0; round < untimed + timed; ++round)
    for (std::size_t k = 0; k < count; ++k) {
      const double t = time_of(k);
      if (round >= untimed) times[k].push_back(t);
    }
  std::vector<double> medians;
  for (auto& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

PhaseClock::PhaseClock(std::shared_ptr<Device> device, bool held)
    : device_(std::move(device)), marks_(new Marks), held_(held) {}

PhaseClock::~PhaseClock() = default;

void PhaseClock::start() {
  slots_.clear();
#if defined(KOLMO_HAVE_CUDA)
  if (held_ && device_->backend() == Backend::cuda) {
    const double hold = std::clamp(2 * longest_queued_, 1e-4, 2e-2);
    KOLMO_CHECK_CUDA(cudaLaunchHostFunc(static_cast<cudaStream_t>(device_->stream()), hold_queue,
                                        reinterpret_cast<void*>(std::uintptr_t(hold * 1e6))));
  }
#endif
  marks_->started = std::chrono::steady_clock::now();
  lap(-1);
}

void PhaseClock::lap(int slot) {
  if (slot >= 0) slots_.push_back(slot);
  const std::size_t mark = slot >= 0 ? slots_.size() : 0;
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) {
    auto& events = marks_->events;
    while (events.size() <= mark) events.push_back(new_event(cudaEventDefault));
    KOLMO_CHECK_CUDA(cudaEventRecord(events[mark].get(), static_cast<cudaStream_t>(device_->stream())));
    return;
  }
#endif
  auto& host = marks_->host;
  if (host.size() <= mark) host.resize(mark + 1);
  host[mark] = std::chrono::steady_clock::now();
}

void PhaseClock::add_to(double* seconds) {
  queued_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - marks_->started).count();
  longest_queued_ = std::max(longest_queued_, queued_);
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

std::vector<double> held_medians_ms(const std::shared_ptr<Device>& device,
                                    const std::vector<std::function<void()>>& runs, int repeats,
                                    int untimed) {
  if (repeats < 1 || untimed < 1) throw std::logic_error("held_medians_ms: no run or no untimed round");
  PhaseClock clock(device, true);
  return medians_taking_turns(runs.size(), untimed, 5, [&](std::size_t k) {
    double seconds = 0;
    clock.start();
    for (int i = 0; i < repeats; ++i) runs[k]();
    clock.lap(0);
    clock.add_to(&seconds);
    return seconds * 1e3 / repeats;
  });
}

}  // namespace kolmo::fft
