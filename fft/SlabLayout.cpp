#include "fft/SlabLayout.hpp"

#include <algorithm>
#include <limits>

#include "core/Error.hpp"

namespace kolmo::fft {

SlabLayout::SlabLayout(std::array<long, 3> n, int ranks, int rank, SpectralSplit split)
    : nx_(n[0]), ny_(n[1]), nz_(n[2]), ranks_(ranks), rank_(rank), split_(split) {
  const char* axis[3] = {"Nx", "Ny", "Nz"};
  for (int d = 0; d < 3; ++d)
    KOLMO_REQUIRE(n[d] >= 1, "grid size " + std::string(axis[d]) + " = " + std::to_string(n[d]) +
                                 " must be a positive number of points");
  // Lengths beyond int are refused: the loops over the ky planes below would run for hours before any
  // allocation could fail. (The host backend plans through FFTW's 64-bit interface, so products of lengths,
  // a plane's or a slab's values, may exceed int; a single length may not.)
  for (int d = 0; d < 3; ++d)
    KOLMO_REQUIRE(n[d] <= std::numeric_limits<int>::max(),
                  "grid size " + std::string(axis[d]) + " = " + std::to_string(n[d]) +
                      " is longer than the FFT libraries' int lengths (at most 2147483647)");
  // The whole spectrum's bytes in double precision must be a 64-bit size, or the slab sizes would overflow.
  const long most = std::numeric_limits<long>::max() / static_cast<long>(2 * sizeof(double));
  KOLMO_REQUIRE(nx_ <= most / ny_ / (nz_ / 2 + 1),
                "grid " + std::to_string(nx_) + " x " + std::to_string(ny_) + " x " + std::to_string(nz_) +
                    " is too large: its spectrum's bytes overflow 64-bit sizes");
  KOLMO_REQUIRE(ranks >= 1 && rank >= 0 && rank < ranks,
                "invalid rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  KOLMO_REQUIRE(ranks <= nx_, "cannot split Nx = " + std::to_string(nx_) + " x planes over " +
                                  std::to_string(ranks) + " ranks: use at most " + std::to_string(nx_) +
                                  (nx_ == 1 ? " rank" : " ranks"));
  KOLMO_REQUIRE(ranks <= ny_, "cannot split Ny = " + std::to_string(ny_) + " ky planes over " +
                                  std::to_string(ranks) + " ranks: use at most " + std::to_string(ny_) +
                                  (ny_ == 1 ? " rank" : " ranks"));
  x_split_ = Split{nx_, ranks_};
  y_starts_ = spectral_starts(split_, ny_, ranks_, sector_granule(nz_ / 2 + 1));
  kept_runs_.resize(ranks_);
  kept_y_count_.assign(ranks_, 0);
  kept_y_before_.assign(ranks_, 0);
  for (int q = 0; q < ranks_; ++q) {
    for (long y = y_offset(q); y < y_offset(q) + y_count(q); ++y) {
      if (!kept(y, ny_)) continue;
      auto& runs = kept_runs_[q];
      if (!runs.empty() && runs.back().start + runs.back().count == y)
        ++runs.back().count;
      else
        runs.push_back({y, 1});
      ++kept_y_count_[q];
    }
    if (q > 0) kept_y_before_[q] = kept_y_before_[q - 1] + kept_y_count_[q - 1];
  }
  for (const auto& run : kept_runs(rank_)) {
    const long first = (run.start - y_offset()) * nzc(), end = first + run.count * nzc();
    const long aligned = first - first % kColumnAlignment;
    if (!kept_column_runs_.empty() &&
        aligned < kept_column_runs_.back().start + kept_column_runs_.back().count)
      kept_column_runs_.back().count = end - kept_column_runs_.back().start;  // it would overlap: merged
    else
      kept_column_runs_.push_back({aligned, end - aligned});
  }
}

SlabLayout::Planes SlabLayout::piece(int q, int j, int pieces) const {
  const long unit = (ny_ * nz_) % 2 == 1 ? 2 : 1, planes = x_count(q);
  const Split units{(planes + unit - 1) / unit, pieces};
  const long first = std::min(planes, unit * units.offset(j));
  const long end = std::min(planes, unit * (units.offset(j) + units.count(j)));
  return {first, end - first};
}

bool SlabLayout::kept(long index, long n) {
  const long signed_index = index <= n / 2 ? index : index - n;
  // Strictly below n/3, as the solver's rule: alias-free also when n is a multiple of 3.
  return 3 * (signed_index < 0 ? -signed_index : signed_index) < n;
}

SlabLayout::KeptBounds SlabLayout::kept_bounds(long n) {
  KeptBounds bounds{0, n};
  while (bounds.below < n && kept(bounds.below, n)) ++bounds.below;
  while (bounds.from > bounds.below && kept(bounds.from - 1, n)) --bounds.from;
  return bounds;
}

std::size_t SlabLayout::alloc_complex() const {
  // Real data (unpadded) fit in planes_size() complex values, since 2 * Nzc >= Nz.
  return std::max(planes_size(), spectral_size());
}

int SlabLayout::widest_spectral_rank() const {
  int widest = 0;
  for (int q = 1; q < ranks_; ++q)
    if (y_count(q) > y_count(widest)) widest = q;
  return widest;
}

std::string SlabLayout::describe() const {
  // The fewest and the most of a count over the ranks, "64" or "85-171".
  auto range = [&](auto count) {
    long lo = count(0), hi = count(0);
    for (int q = 1; q < ranks_; ++q) lo = std::min(lo, count(q)), hi = std::max(hi, count(q));
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  };
  std::string text = std::to_string(nx_) + " x " + std::to_string(ny_) + " x " + std::to_string(nz_) +
                     " over " + std::to_string(ranks_) + (ranks_ == 1 ? " rank" : " ranks") + ": " +
                     range([&](int q) { return x_count(q); }) + " x planes, " +
                     range([&](int q) { return y_count(q); }) + " ky planes per rank";
  if (split_ == SpectralSplit::kept_rows)
    text += " (" + range([&](int q) { return kept_y_count(q); }) + " kept)";
  return text;
}

}  // namespace kolmo::fft
