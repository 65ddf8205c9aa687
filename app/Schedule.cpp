#include "app/Schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kolmo::app {

double clock_tolerance(double t, long steps, double dt) {
  const double gathered = std::fabs(t) * double(steps) * std::numeric_limits<double>::epsilon();
  return std::max(1e-12 * std::fabs(t), std::min(gathered, 1e-2 * dt));
}

bool reaches(double t, double target, double tolerance) {
  return t >= target - tolerance;
}

double next_multiple(double t, double interval, double tolerance) {
  if (interval <= 0) return std::numeric_limits<double>::infinity();
  const double count = std::floor((t + tolerance) / interval) + 1;
  if (!std::isfinite(count)) return t;  // an interval below t's precision: due every step, as warned
  const double next = count * interval;
  return reaches(t, next, tolerance) ? next + interval : next;  // the division rounded down
}

}  // namespace kolmo::app
