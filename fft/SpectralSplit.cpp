#include "fft/SpectralSplit.hpp"

#include <algorithm>

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

// The kept planes are two runs, [0, Kp) and [Kp + D, Ny), the D dropped ones between them. Each rank holds q
// or q + 1 kept planes (q = K / ranks >= 1, K kept in all; `extra` = K mod ranks ranks hold q + 1), so its
// range is fixed by the kept counts before it, except around the dropped run: where the ranks before rank m
// hold exactly Kp kept planes, ranks m - 1 and m share the dropped run (the best share: their counts
// within 1); otherwise the one rank whose kept planes lie on both sides of it takes it all. Every other rank
// holds only its kept planes. So the sum of squared plane counts is that of the kept counts but for the one
// or two middle ranks; an extra kept plane costs a middle rank more than another rank (its count is larger),
// so the middle ranks take one only where the split forces it. The candidates (each m of either kind) are
// compared by that sum, the first of the least kept; the extra kept planes of the other ranks go to the
// lowest ranks on each side of the middle.
std::vector<long> kept_row_starts(long ny, int ranks) {
  long kept = 0, first_run = 0;  // K, Kp
  for (long y = 0; y < ny; ++y) {
    kept += SlabLayout::kept(y, ny) ? 1 : 0;
    first_run += SlabLayout::kept(y, ny) && y <= ny / 2 ? 1 : 0;
  }
  const long dropped = ny - kept, q = kept / ranks, extra = kept % ranks;
  // Fewer kept planes than ranks (more than about 2 Ny / 3 ranks, each holding one or two planes): the even
  // split, as only there can every rank hold a kept plane.
  if (q == 0) return even_starts(ny, ranks);
  // A candidate: two middle ranks m - 1 and m sharing the dropped run, or rank m alone; the extra kept planes
  // of ranks 0..m-1 (`before`, rank m - 1's included); those of the middle ranks (`first`: rank m - 1 of a
  // pair, or rank m alone; `second`: rank m of a pair).
  struct Middle {
    bool shared = false;
    int m = 0;
    long before = 0, first = 0, second = 0;
    long long cost = -1;
  };
  // The planes of the middle ranks together.
  auto middle_planes = [&](const Middle& c) { return (c.shared ? 2 : 1) * q + c.first + c.second + dropped; };
  Middle best;
  auto consider = [&](Middle c, int others) {
    const long others_extra = extra - c.first - c.second, middle = middle_planes(c);
    const long long k = q, half = middle / 2;
    c.cost = others_extra * (k + 1) * (k + 1) + (others - others_extra) * k * k +
             (c.shared ? (middle - half) * (middle - half) + half * half : (long long)middle * middle);
    if (best.cost < 0 || c.cost < best.cost) best = c;
  };
  for (int m = 1; m < ranks; ++m) {         // ranks m - 1 and m share the dropped run
    const long before = first_run - m * q;  // the extra kept planes of ranks 0..m-1
    if (before < std::max<long>(0, extra - (ranks - m)) || before > std::min<long>(m, extra)) continue;
    consider({true, m, before, before == m ? 1 : 0, extra - before == ranks - m ? 1 : 0}, ranks - 2);
  }
  for (int m = 0; m < ranks; ++m)  // rank m holds kept planes on both sides of the dropped run
    for (long plus = 0; plus <= std::min<long>(1, extra); ++plus) {
      // Extra kept planes before m, such that rank m's kept planes reach across Kp, and the ones left fit
      // on the ranks after m.
      const long low = std::max({0L, extra - plus - (ranks - m - 1), first_run - m * q - (q + plus) + 1});
      const long high = std::min({long(m), extra - plus, first_run - m * q - 1});
      if (low <= high) consider({false, m, low, plus, 0}, ranks - 1);
    }
  KOLMO_REQUIRE(best.cost >= 0, "no kept-row split of Ny = " + std::to_string(ny) + " ky planes over " +
                                    std::to_string(ranks) + " ranks was found (a bug: one always exists)");
  // Plane counts: the other ranks' kept planes, extra ones to the lowest ranks on each side; the middle.
  std::vector<long> counts(ranks, q);
  const int after = best.m + 1;
  for (int r = 0; r < best.before - (best.shared ? best.first : 0); ++r) ++counts[r];
  const long after_extra = extra - best.before - (best.shared ? best.second : best.first);
  for (int r = after; r < after + after_extra; ++r) ++counts[r];
  const long middle = middle_planes(best);
  if (best.shared) {
    counts[best.m - 1] = middle - middle / 2;
    counts[best.m] = middle / 2;
  } else {
    counts[best.m] = middle;
  }
  std::vector<long> starts(ranks + 1, 0);
  for (int r = 0; r < ranks; ++r) starts[r + 1] = starts[r] + counts[r];
  return starts;
}

// The starts rounded to multiples of `granule`, each down or up, whichever way of all keeps the kept counts
// most even (the least spread between the most and fewest, then the least sum of squared plane counts);
// every rank keeps a plane at least. Tried exhaustively up to 12 ranks (2^11 ways), else each to the
// nearest. Unrounded where a rank would keep fewer than 8 granules (the rounding would unbalance small
// slabs more than their alignment is worth) or no way keeps every rank a plane.
std::vector<long> rounded_starts(const std::vector<long>& starts, long ny, long granule) {
  const int ranks = int(starts.size()) - 1;
  std::vector<long> kept_before(ny + 1, 0);  // kept planes below y
  for (long y = 0; y < ny; ++y) kept_before[y + 1] = kept_before[y] + (SlabLayout::kept(y, ny) ? 1 : 0);
  if (kept_before[ny] / ranks < 8 * granule) return starts;
  std::vector<long> best = starts, trial = starts;
  long best_spread = -1;
  long long best_squares = 0;
  auto consider = [&] {
    long fewest = ny, most = 0;
    long long squares = 0;
    for (int r = 0; r < ranks; ++r) {
      if (trial[r + 1] <= trial[r]) return;
      const long kept = kept_before[trial[r + 1]] - kept_before[trial[r]], planes = trial[r + 1] - trial[r];
      fewest = std::min(fewest, kept), most = std::max(most, kept);
      squares += (long long)planes * planes;
    }
    if (best_spread < 0 || most - fewest < best_spread ||
        (most - fewest == best_spread && squares < best_squares))
      best = trial, best_spread = most - fewest, best_squares = squares;
  };
  auto down = [&](int r) { return starts[r] / granule * granule; };
  auto up = [&](int r) { return std::min(ny, (starts[r] + granule - 1) / granule * granule); };
  if (ranks <= 12) {
    for (long ways = 0; ways < (1L << (ranks - 1)); ++ways) {
      for (int r = 1; r < ranks; ++r) trial[r] = (ways >> (r - 1)) & 1 ? up(r) : down(r);
      consider();
    }
  } else {
    for (int r = 1; r < ranks; ++r) trial[r] = starts[r] - down(r) <= up(r) - starts[r] ? down(r) : up(r);
    consider();
  }
  return best;
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

std::vector<long> spectral_starts(SpectralSplit split, long ny, int ranks, long granule) {
  KOLMO_REQUIRE(ranks >= 1 && ranks <= ny, "cannot split Ny = " + std::to_string(ny) + " ky planes over " +
                                               std::to_string(ranks) + " ranks");
  KOLMO_REQUIRE(granule >= 1, "internal: a granule of ky planes must be positive");
  if (split == SpectralSplit::kept_rows && ranks > 1) {
    const std::vector<long> starts = kept_row_starts(ny, ranks);
    return granule > 1 ? rounded_starts(starts, ny, granule) : starts;
  }
  return even_starts(ny, ranks);
}

SpectralSplit automatic_spectral_split(int ranks, bool dealiased) {
  return dealiased && ranks >= 3 && ranks <= 8 ? SpectralSplit::kept_rows : SpectralSplit::even;
}

long sector_granule(long nzc) {
  long granule = 4;  // 4 single-precision complex values make a sector
  while (granule > 1 && nzc % 2 == 0) granule /= 2, nzc /= 2;
  return granule;
}

}  // namespace kolmo::fft
