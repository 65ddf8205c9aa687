// Times of the phases of a transform as the device runs them, for profiles: marks put on the device's queue
// between phases (CUDA events on a GPU; the wall clock on the host, whose work is synchronous), so that the
// phases run back to back, unslowed by synchronisation.
//
// Contract: start() before the first phase; lap(slot) after the work of a phase has been queued (the time
// since the previous mark counts for that slot); add_to(seconds) waits for the device (where laps were
// taken), adds each lap's time to seconds[slot] and forgets the laps. queued_seconds(): the host's time from
// start() to add_to() of the last transform (queuing its work, and on the host doing it).
// - held (GPUs): start() first queues a wait of twice the longest queuing time seen so far (at least 0.1
//   ms, at most 20 ms) before the first mark, so that the device starts a transform once the host has
//   queued it, as it does when the host runs ahead in a solver: the laps time the device's work. Unheld,
//   the device starts the first phase as soon as its first launch arrives, and the host's launching of the
//   rest counts wherever the device waits for it (with small transforms, mostly in the first phase).
// - format_ms(ms): a time as the reports of choices made by timing print it ("1.234 ms").
// - medians_taking_turns(count, untimed, timed, time_of): for choices among `count` candidates, time_of(k)
//   for every k in turn, `untimed` rounds discarded and then `timed` rounds (at least one); each
//   candidate's median. In turns, a passing slowdown of the host or the device falls on all candidates, not
//   on the one being timed.
// - held_medians_ms(device, runs, repeats, untimed): the device's milliseconds per run of each of `runs`,
//   for choices among routes that involve no other rank: rounds of `repeats` runs queued back to back
//   behind a hold (a held PhaseClock), `untimed` rounds discarded (at least one: the clock learns how long
//   the host takes to queue a round) and 5 timed, taking turns; each run's median. Held, a route of many
//   small launches is timed as a solver whose host runs ahead sees it, not by how fast this host launches.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/Device.hpp"

namespace kolmo::fft {

std::string format_ms(double ms);

std::vector<double> medians_taking_turns(std::size_t count, int untimed, int timed,
                                         const std::function<double(std::size_t)>& time_of);

std::vector<double> held_medians_ms(const std::shared_ptr<Device>& device,
                                    const std::vector<std::function<void()>>& runs, int repeats, int untimed);

class PhaseClock {
 public:
  PhaseClock(std::shared_ptr<Device> device, bool held);
  ~PhaseClock();
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

  void start();
  void lap(int slot);
  void add_to(double* seconds);
  double queued_seconds() const { return queued_; }

 private:
  struct Marks;
  std::shared_ptr<Device> device_;
  std::unique_ptr<Marks> marks_;
  std::vector<int> slots_;
  bool held_;
  double queued_ = 0, longest_queued_ = 0;
};

}  // namespace kolmo::fft
