// What kolmo's benchmarks (tools/*_bench) share: the checks of their count options, the median they
// report, and the ranks whose work emulated ranks time.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "fft/SlabFFT.hpp"

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

// The ranks whose work an emulation times: rank 0, the rank with the most ky planes, and in dealiased
// transforms the rank with the most kept ky planes (whose x transforms and exchange carry the most rows:
// with the kept-row split rounded to sectors, not the widest), each the first of them, each once.
inline std::vector<int> emulated_ranks_of(std::array<long, 3> n, int ranks, fft::SpectralSplit split,
                                          fft::Modes modes) {
  const fft::SlabLayout layout(n, ranks, 0, split);
  std::vector<int> chosen{0};
  auto add = [&](int q) {
    if (std::find(chosen.begin(), chosen.end(), q) == chosen.end()) chosen.push_back(q);
  };
  add(layout.widest_spectral_rank());
  if (modes == fft::Modes::dealiased) {
    int most_kept = 0;
    for (int q = 1; q < ranks; ++q)
      if (layout.kept_y_count(q) > layout.kept_y_count(most_kept)) most_kept = q;
    add(most_kept);
  }
  return chosen;
}

}  // namespace kolmo::tools
