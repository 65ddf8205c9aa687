// What rank 0 prints while a run goes: a header, then one line every few steps with the state of the run,
// its speed and the time left.
#pragma once

#include <chrono>
#include <string>

#include "solver/Diagnostics.hpp"

namespace kolmo::app {

class Progress {
 public:
  // t_end and steps bound the run (either may be infinite / huge); start_step/start_time are where it starts.
  Progress(bool printing, double start_time, long start_step, double t_end, long steps);

  void line(const solver::Diagnostics& d, double dt, double cfl);
  void message(const std::string& text) const;
  double elapsed_seconds() const;

 private:
  bool printing_;
  double start_time_, t_end_;
  long start_step_, steps_;
  std::chrono::steady_clock::time_point wall_start_;
  long lines_ = 0;
};

// "1:02:03" or "4:05"; "?" for a time not known, ">100000h" beyond that.
std::string format_duration(double seconds);

}  // namespace kolmo::app
