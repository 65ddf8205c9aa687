#include "app/Progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kolmo::app {

Progress::Progress(bool printing, double start_time, long start_step, double t_end, long steps)
    : printing_(printing),
      start_time_(start_time),
      t_end_(t_end),
      start_step_(start_step),
      steps_(steps),
      wall_start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  // A run whose step is tiny against its time.t_end (dt = 1e-300) estimates more seconds than a long holds,
  // which the conversion below would turn into a negative number of hours: beyond 100000 hours (11 years)
  // the column says only that.
  if (seconds >= 3.6e8) return ">100000h";
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

void Progress::line(const solver::Diagnostics& d, double dt, double cfl) {
  if (!printing_) return;
  const double elapsed = elapsed_seconds();
  const long done = d.step - start_step_;
  const double rate = elapsed > 0 ? done / elapsed : 0;
  // Time left from whichever bound ends the run first, at the pace so far.
  double left = std::numeric_limits<double>::infinity();
  if (std::isfinite(t_end_) && d.time > start_time_)
    left = elapsed * (t_end_ - d.time) / (d.time - start_time_);
  if (steps_ < std::numeric_limits<long>::max() && rate > 0) left = std::min(left, (steps_ - d.step) / rate);
  if (lines_++ % 20 == 0)
    std::printf("%8s %10s %10s %12s %12s %6s %9s %9s\n", "step", "t", "dt", "energy", "dissipation", "CFL",
                "steps/s", "left");
  // t and the CFL number with significant digits, not decimals: a run in physical units (t_end = 1e-4 s)
  // printed t = 0.0000 and a CFL number of 0.000 on every line.
  std::printf("%8ld %#10.5g %10.3e %12.5e %12.5e %#6.3g %9.2f %9s\n", d.step, d.time, dt, d.energy,
              d.dissipation, cfl, rate, format_duration(left).c_str());
  std::fflush(stdout);
}

void Progress::message(const std::string& text) const {
  if (!printing_) return;
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

}  // namespace kolmo::app
