// Times of the phases of a transform as the device runs them, for profiles: marks put on the device's queue
// between phases (CUDA events on a GPU; the wall clock on the host, whose work is synchronous), so that the
// phases run back to back, unslowed by synchronisation.
//
// Contract: start() before the first phase; lap(slot) after the work of a phase has been queued (the time
// since the previous mark counts for that slot); add_to(seconds) waits for the device, adds each lap's time
// to seconds[slot] and forgets the laps.
#pragma once

#include <memory>
#include <vector>

#include "core/Device.hpp"

namespace kolmo::fft {

class PhaseClock {
 public:
  explicit PhaseClock(std::shared_ptr<Device> device);
  ~PhaseClock();
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

  void start();
  void lap(int slot);
  void add_to(double* seconds);

 private:
  struct Marks;
  std::shared_ptr<Device> device_;
  std::unique_ptr<Marks> marks_;
  std::vector<int> slots_;
};

}  // namespace kolmo::fft
