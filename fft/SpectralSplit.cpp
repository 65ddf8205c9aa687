#include "fft/SpectralSplit.hpp"

#include <algorithm>
#include <limits>

#include "core/Error.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

namespace {

std::vector<long> even_starts(long ny, int ranks) {
  const Split split{ny, ranks};
  std::vector<long> starts(ranks + 1, ny);
  for (int r = 0; r < ranks; ++r) starts[r] = split.offset(r);
  return starts;
}

// Dynamic programming over the boundaries between ranks. Boundary r (where rank r starts) can only sit
// where the ranks before it hold between r q + max(0, extra - (ranks - r)) and r q + min(r, extra) kept
// planes (q = kept / ranks, extra = kept mod ranks: each rank holds q or q + 1): a window of positions, one
// per count inside the kept runs, the whole dropped middle where a count reaches it. For each position of
// boundary r + 1, the least sum of squared plane counts of ranks 0..r ending there, and where rank r began.
std::vector<long> kept_row_starts(long ny, int ranks) {
  std::vector<long> before(ny + 1, 0);  // kept planes among [0, b)
  for (long y = 0; y < ny; ++y) before[y + 1] = before[y] + (SlabLayout::kept(y, ny) ? 1 : 0);
  const long kept = before[ny], q = kept / ranks, extra = kept % ranks;
  // Positions b in [first, last] with before[b] in [low, high].
  auto first_with = [&](long count) {
    return std::lower_bound(before.begin(), before.end(), count) - before.begin();
  };
  auto last_with = [&](long count) {
    return std::upper_bound(before.begin(), before.end(), count) - before.begin() - 1;
  };
  struct Window {
    long first, last;
    std::vector<long long> cost;  // by position - first; unreachable: the largest value
    std::vector<long> from;       // where the rank ending here began
  };
  constexpr long long unreachable = std::numeric_limits<long long>::max();
  std::vector<Window> windows(ranks + 1);
  for (int r = 0; r <= ranks; ++r) {
    Window& w = windows[r];
    const long low = r * q + std::max<long>(0, extra - (ranks - r)), high = r * q + std::min<long>(r, extra);
    w.first = r == 0 ? 0 : r == ranks ? ny : first_with(low);
    w.last = r == 0 ? 0 : r == ranks ? ny : last_with(high);
    w.cost.assign(w.last - w.first + 1, unreachable);
    w.from.assign(w.last - w.first + 1, -1);
  }
  windows[0].cost[0] = 0;
  for (int r = 0; r < ranks; ++r) {
    const Window& w = windows[r];
    Window& next = windows[r + 1];
    for (long b = w.first; b <= w.last; ++b) {
      const long long cost = w.cost[b - w.first];
      if (cost == unreachable) continue;
      // Rank r holds q or q + 1 kept planes, and at least one plane.
      const long lo = std::max({first_with(before[b] + q), b + 1, next.first});
      const long hi = std::min(last_with(before[b] + q + 1), next.last);
      for (long e = lo; e <= hi; ++e) {
        const long long candidate = cost + (long long)(e - b) * (e - b);
        if (candidate < next.cost[e - next.first]) {
          next.cost[e - next.first] = candidate;
          next.from[e - next.first] = b;
        }
      }
    }
  }
  KOLMO_REQUIRE(windows[ranks].cost[0] != unreachable, "no kept-row split of Ny = " + std::to_string(ny) +
                                                           " ky planes over " + std::to_string(ranks) +
                                                           " ranks was found (a bug: one always exists)");
  std::vector<long> starts(ranks + 1, ny);
  for (int r = ranks; r > 0; --r) starts[r - 1] = windows[r].from[starts[r] - windows[r].first];
  return starts;
}

}  // namespace

const std::vector<std::string>& spectral_split_names() {
  static const std::vector<std::string> names{"even", "kept_rows"};
  return names;
}

SpectralSplit parse_spectral_split(const std::string& name) {
  const auto& names = spectral_split_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return static_cast<SpectralSplit>(i);
  throw Error("unknown spectral split '" + name + "' (expected even or kept_rows)");
}

const std::string& to_string(SpectralSplit split) {
  return spectral_split_names().at(static_cast<std::size_t>(split));
}

std::vector<long> spectral_starts(SpectralSplit split, long ny, int ranks) {
  KOLMO_REQUIRE(ranks >= 1 && ranks <= ny, "cannot split Ny = " + std::to_string(ny) + " ky planes over " +
                                               std::to_string(ranks) + " ranks");
  if (split == SpectralSplit::kept_rows && ranks > 1) return kept_row_starts(ny, ranks);
  return even_starts(ny, ranks);
}

}  // namespace kolmo::fft
