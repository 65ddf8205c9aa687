// What kolmo's benchmarks (tools/*_bench) share: the checks of their count options and the median they
// report.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <limits>
#include <vector>

namespace kolmo::tools {

// A count of at least 1 (CLI11 2.1's PositiveNumber refuses 0 saying "Value 0 not in range 0.000000 to" a
// number of 309 digits; this says "Value 0 not in range 1 to 2147483647").
template <class Count>
CLI::Range at_least_one() {
  return CLI::Range(Count(1), std::numeric_limits<Count>::max());
}

// The median; of an even count, the mean of the middle two (the upper one of 10 steps was the 6th fastest).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace kolmo::tools
