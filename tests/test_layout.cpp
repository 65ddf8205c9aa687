// SlabLayout arithmetic: slabs and chunks cover the grid exactly once, peers agree on chunk sizes, and
// impossible requests are refused.
#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <vector>

#include "core/Error.hpp"
#include "fft/KeptModeMask.hpp"
#include "fft/SlabLayout.hpp"

using kolmo::fft::FastDivisor;
using kolmo::fft::KeptModeMask;
using kolmo::fft::sector_granule;
using kolmo::fft::SlabLayout;
using kolmo::fft::spectral_starts;
using kolmo::fft::SpectralSplit;

TEST_CASE("slabs and chunks tile the grid exactly once", "[layout]") {
  for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
    for (long nx : {1L, 2L, 3L, 7L, 16L, 30L, 64L, 97L})
      for (long ny : {1L, 5L, 12L, 20L, 33L})
        for (long nz : {1L, 2L, 9L, 18L})
          for (int p = 1; p <= 9; ++p) {
            if (p > nx || p > ny) continue;
            std::vector<SlabLayout> ranks;
            for (int r = 0; r < p; ++r) ranks.emplace_back(std::array<long, 3>{nx, ny, nz}, p, r, split);
            std::vector<int> x_hits(nx, 0), y_hits(ny, 0);
            long smallest = nx, largest = 0;
            for (const auto& l : ranks) {
              for (long x = l.x_offset(); x < l.x_offset() + l.x_count(); ++x) ++x_hits[x];
              for (long y = l.y_offset(); y < l.y_offset() + l.y_count(); ++y) ++y_hits[y];
              smallest = std::min(smallest, l.x_count());
              largest = std::max(largest, l.x_count());
              // Packed chunks tile the transformed planes; spectral chunks tile the spectral slab.
              std::size_t packed = 0, spectral = 0;
              for (int q = 0; q < p; ++q) {
                REQUIRE(l.packed_offset(q) == packed);
                REQUIRE(l.spectral_chunk_offset(q) == spectral);
                packed += l.packed_count(q);
                spectral += l.spectral_chunk_count(q);
              }
              REQUIRE(packed == l.planes_size());
              REQUIRE(spectral == l.spectral_size());
              REQUIRE(l.alloc_complex() * 2 >= l.real_size());
              REQUIRE(l.alloc_complex() >= l.spectral_size());
            }
            for (int h : x_hits) REQUIRE(h == 1);
            for (int h : y_hits) REQUIRE(h == 1);
            REQUIRE(largest - smallest <= 1);
            // What r sends to q is what q expects from r, for full and dealiased transforms.
            for (int r = 0; r < p; ++r)
              for (int q = 0; q < p; ++q) {
                REQUIRE(ranks[r].packed_count(q) == ranks[q].spectral_chunk_count(r));
                REQUIRE(ranks[r].compact_packed_count(q) == ranks[q].compact_chunk_count(r));
              }
            // Kept ky planes: the runs of every rank together are exactly the planes the 2/3 rule keeps.
            std::vector<int> kept_hits(ny, 0);
            for (int q = 0; q < p; ++q) {
              long count = 0;
              for (const auto& run : ranks[0].kept_runs(q)) {
                REQUIRE(run.start >= ranks[0].y_offset(q));
                REQUIRE(run.start + run.count <= ranks[0].y_offset(q) + ranks[0].y_count(q));
                for (long y = run.start; y < run.start + run.count; ++y) ++kept_hits[y];
                count += run.count;
              }
              REQUIRE(count == ranks[0].kept_y_count(q));
            }
            for (long y = 0; y < ny; ++y) {
              const long n = y <= ny / 2 ? y : ny - y;  // |signed index|
              REQUIRE(kept_hits[y] == (3 * n < ny ? 1 : 0));
            }
          }
}

TEST_CASE("pieces of the exchange tile the packed buffer and the spectral slab, and peers agree",
          "[layout]") {
  using Planes = SlabLayout::Planes;
  for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
    for (std::array<long, 3> n : {std::array<long, 3>{9, 7, 5}, {30, 12, 16}, {16, 33, 18}})
      for (int p = 1; p <= 5; ++p)
        for (int pieces : {1, 2, 3, 7}) {
          std::vector<SlabLayout> ranks;
          for (int r = 0; r < p; ++r) ranks.emplace_back(n, p, r, split);
          auto piece_of = [&](int r, int j) {
            const Planes piece = ranks[0].piece(r, j, pieces);
            // Non-empty pieces start where their real data are aligned to a complex value.
            REQUIRE((piece.count == 0 || (piece.first * n[1] * n[2]) % 2 == 0));
            return piece;
          };
          for (int r = 0; r < p; ++r) {
            const SlabLayout& l = ranks[r];
            // Sent: piece after piece, peer after peer, without gaps, full and dealiased.
            std::size_t packed = 0, compact = 0;
            for (int j = 0; j < pieces; ++j)
              for (int q = 0; q < p; ++q) {
                REQUIRE(l.packed_offset(q, piece_of(r, j)) == packed);
                REQUIRE(l.compact_packed_offset(q, piece_of(r, j)) == compact);
                packed += l.packed_count(q, piece_of(r, j));
                compact += l.compact_packed_count(q, piece_of(r, j));
              }
            REQUIRE(packed == l.planes_size());
            REQUIRE(compact == static_cast<std::size_t>(l.x_count() * l.compact_packed_plane()));
            // Received: peer after peer, its pieces in order, filling the (compact) spectral slab.
            std::size_t spectral = 0, kept = 0;
            for (int q = 0; q < p; ++q)
              for (int j = 0; j < pieces; ++j) {
                REQUIRE(l.spectral_chunk_offset(q, piece_of(q, j)) == spectral);
                REQUIRE(l.compact_chunk_offset(q, piece_of(q, j)) == kept);
                spectral += l.spectral_chunk_count(q, piece_of(q, j));
                kept += l.compact_chunk_count(q, piece_of(q, j));
                // What r sends q in piece j is what q expects from r in piece j.
                REQUIRE(l.packed_count(q, piece_of(r, j)) ==
                        ranks[q].spectral_chunk_count(r, piece_of(r, j)));
                REQUIRE(l.compact_packed_count(q, piece_of(r, j)) ==
                        ranks[q].compact_chunk_count(r, piece_of(r, j)));
              }
            REQUIRE(spectral == l.spectral_size());
            REQUIRE(kept == l.compact_spectral_size());
          }
        }
}

namespace {

// Kept ky planes among [first, end), counted one by one.
long kept_between(long first, long end, long ny) {
  long count = 0;
  for (long y = first; y < end; ++y) count += SlabLayout::kept(y, ny) ? 1 : 0;
  return count;
}

// Independently of fft/SpectralSplit.cpp: the least sum of squared plane counts over every split of ny
// planes into p contiguous non-empty ranges whose kept counts differ by at most 1 (each q or q + 1, q =
// kept / p), by trying them all (ranges holding another kept count are cut off at once).
long long least_even_sum_of_squares(long ny, int p) {
  const long q = kept_between(0, ny, ny) / p;
  long long best = -1;
  std::function<void(int, long, long long)> place = [&](int r, long start, long long squares) {
    if (r == p) {
      if (start == ny && (best < 0 || squares < best)) best = squares;
      return;
    }
    for (long end = start + 1; end <= ny; ++end) {
      const long kept = kept_between(start, end, ny);
      if (kept > q + 1) break;
      if (kept >= q) place(r + 1, end, squares + (long long)(end - start) * (end - start));
    }
  };
  place(0, 0, 0);
  return best;
}

}  // namespace

TEST_CASE("the kept-row split balances the kept ky planes within one, as evenly as any such split",
          "[layout]") {
  // Nz = 6: Nzc = 4 values make whole sectors, so the starts are not rounded (the next test).
  for (long ny = 1; ny <= 48; ++ny)
    for (int p = 1; p <= std::min(ny, 9L); ++p) {
      INFO("Ny = " << ny << " over " << p << " ranks");
      std::vector<SlabLayout> ranks;
      for (int r = 0; r < p; ++r)
        ranks.emplace_back(std::array<long, 3>{p, ny, 6}, p, r, SpectralSplit::kept_rows);
      if (kept_between(0, ny, ny) < p) {  // fewer kept planes than ranks: the even split
        for (int r = 0; r < p; ++r) REQUIRE(ranks[r].y_count() == SlabLayout({p, ny, 6}, p, r).y_count());
        continue;
      }
      long fewest = ny, most = 0, next = 0;
      long long squares = 0;
      for (int r = 0; r < p; ++r) {
        const SlabLayout& l = ranks[r];
        REQUIRE(l.spectral_split() == SpectralSplit::kept_rows);
        REQUIRE(l.y_offset() == next);  // contiguous, in rank order, from 0
        REQUIRE(l.y_count() >= 1);
        next += l.y_count();
        const long kept = kept_between(l.y_offset(), l.y_offset() + l.y_count(), ny);
        REQUIRE(kept == l.kept_y_count());
        fewest = std::min(fewest, kept), most = std::max(most, kept);
        squares += (long long)l.y_count() * l.y_count();
        for (int q = 0; q < p; ++q) REQUIRE(ranks[q].y_offset(r) == l.y_offset());  // every rank agrees
      }
      REQUIRE(next == ny);
      REQUIRE(most - fewest <= 1);
      if (p <= 8) REQUIRE(squares == least_even_sum_of_squares(ny, p));
    }
  // 512 ky planes: 341 kept (|n_y| <= 170: 171 from 0 on, 170 at the end), 171 dropped in the middle.
  // Even on 4 ranks: 128 kept on ranks 0 and 3, 43 and 42 on the middle ones. Kept rows: 85 or 86 each, so
  // rank 0 ends within the first kept run and ranks 1 and 2 share the dropped planes: 170 and 171 (Nz = 510,
  // Nzc = 256: no rounding).
  const std::array<long, 3> n{512, 512, 510};
  CHECK(SlabLayout(n, 4, 0).kept_y_count() == 128);
  CHECK(SlabLayout(n, 4, 1).kept_y_count() == 43);
  long widest = 0;
  for (int r = 0; r < 4; ++r) {
    const SlabLayout l(n, 4, r, SpectralSplit::kept_rows);
    CHECK((l.kept_y_count() == 85 || l.kept_y_count() == 86));
    widest = std::max(widest, l.y_count());
  }
  CHECK(widest == 171);
  // Nz = 512 (Nzc = 257, odd): starts rounded to 4 planes, kept 84 to 87.
  for (int r = 0; r < 4; ++r) {
    const SlabLayout l({512, 512, 512}, 4, r, SpectralSplit::kept_rows);
    CHECK(l.y_offset() % 4 == 0);
    CHECK((l.kept_y_count() >= 84 && l.kept_y_count() <= 87));
  }
  // On 2 ranks the even split already keeps 171 and 170: the two splits are the same.
  for (int r = 0; r < 2; ++r) CHECK(SlabLayout(n, 2, r, SpectralSplit::kept_rows).y_count() == 256);
}

TEST_CASE("the kept-row split starts each rank on whole sectors of its x columns where Ny allows",
          "[layout]") {
  CHECK(sector_granule(3) == 4);
  CHECK(sector_granule(6) == 2);
  CHECK(sector_granule(4) == 1);
  CHECK(sector_granule(513) == 4);
  // Nz = 4: Nzc = 3, a granule of 4 planes. Where every rank keeps 32 planes or more, every start is a
  // multiple of 4 and the kept counts differ by 4 at most; otherwise the split is the unrounded one.
  for (long ny = 8; ny <= 1024; ny += 4)
    for (int p = 2; p <= 8; ++p) {
      INFO("Ny = " << ny << " over " << p << " ranks");
      const long kept = kept_between(0, ny, ny);
      if (kept < p) continue;
      const std::vector<long> unrounded = spectral_starts(SpectralSplit::kept_rows, ny, p);
      long fewest = ny, most = 0;
      for (int r = 0; r < p; ++r) {
        const SlabLayout l({p, ny, 4}, p, r, SpectralSplit::kept_rows);
        REQUIRE(l.y_count() >= 1);
        if (kept / p >= 32)
          REQUIRE(l.y_offset() % 4 == 0);
        else
          REQUIRE(l.y_offset() == unrounded[r]);
        fewest = std::min(fewest, l.kept_y_count()), most = std::max(most, l.kept_y_count());
      }
      REQUIRE(most - fewest <= (kept / p >= 32 ? 4 : 1));
    }
}

TEST_CASE("spectral splits are named, and an unknown name is refused", "[layout]") {
  for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
    CHECK(kolmo::fft::parse_spectral_split(kolmo::fft::to_string(split)) == split);
  CHECK_THROWS_WITH(kolmo::fft::parse_spectral_split("kept"),
                    Catch::Contains("'kept'") && Catch::Contains("kept_rows"));
  CHECK(SlabLayout({512, 512, 512}, 4, 0, SpectralSplit::kept_rows).describe() ==
        "512 x 512 x 512 over 4 ranks: 128 x planes, 84-172 ky planes per rank (84-87 kept)");
}

TEST_CASE("impossible grids are refused with a message naming the problem", "[layout]") {
  auto message = [](std::array<long, 3> n, int p) {
    try {
      SlabLayout layout(n, p, 0);
    } catch (const kolmo::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(message({4, 16, 16}, 8), Catch::Contains("Nx = 4"));
  CHECK_THAT(message({16, 3, 16}, 4), Catch::Contains("Ny = 3"));
  CHECK_THAT(message({16, 16, 0}, 1), Catch::Contains("Nz = 0"));
  CHECK_THAT(message({-2, 16, 16}, 1), Catch::Contains("Nx = -2"));
  CHECK(message({16, 16, 16}, 16).empty());
  // Lengths beyond the FFT libraries' ints, and grids whose sizes overflow 64 bits, are refused before the
  // layout's loops over the ky planes start (at Ny = 2^40 they ran for hours).
  CHECK_THAT(message({4, 4, 1L << 31}, 1), Catch::Contains("Nz = 2147483648") && Catch::Contains("int"));
  CHECK_THAT(message({4, 1L << 40, 4}, 2), Catch::Contains("Ny = 1099511627776"));
  CHECK_THAT(message({1L << 21, 1L << 21, 1L << 22}, 1), Catch::Contains("too large"));
  CHECK(message({1L << 20, 1L << 10, 1L << 10}, 1).empty());  // 2^40 points: large, not impossible
}

TEST_CASE("the kept bounds of an axis hold exactly the indices the 2/3 rule keeps, as one rank's kept runs",
          "[layout]") {
  for (long n = 1; n <= 300; ++n) {
    const auto [below, from] = SlabLayout::kept_bounds(n);
    REQUIRE(0 < below);
    REQUIRE(below <= from);
    REQUIRE(from <= n);
    for (long index = 0; index < n; ++index)
      if (SlabLayout::kept(index, n) != (index < below || index >= from))
        FAIL("n = " << n << ", index " << index);
    std::vector<SlabLayout::Run> runs{{0, below}};
    if (from < n) runs.push_back({from, n - from});
    const SlabLayout layout({1, n, 1}, 1, 0);
    const auto& one_rank = layout.kept_runs(0);
    REQUIRE(one_rank.size() == runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      CHECK(one_rank[r].start == runs[r].start);
      CHECK(one_rank[r].count == runs[r].count);
    }
  }
}

TEST_CASE("the division-free divisor of the cuFFT mask equals integer division below 2^31", "[layout]") {
  std::mt19937 random(5);
  std::uniform_int_distribution<unsigned> numerator(0, (1U << 31) - 1);
  std::vector<unsigned> divisors{1, 2, 3, 5, 7, 33, 64, 65, 257, 513, 1025, 131584, 65537, (1U << 31) - 1};
  for (unsigned d = 1; d < 3000; d += 7) divisors.push_back(d);
  for (unsigned d : divisors) {
    const FastDivisor divisor = FastDivisor::make(d);
    std::vector<unsigned> n{0, 1, d - 1, d, d + 1, (1U << 31) - 1, (1U << 31) - d};
    for (int i = 0; i < 2000; ++i) n.push_back(numerator(random));
    for (unsigned value : n) {
      if (value >= (1U << 31)) continue;
      if (divisor.divide(value) != value / d) FAIL("d = " << d << ", n = " << value);
    }
  }
}

TEST_CASE("the cuFFT dealiasing mask keeps exactly the 2/3-rule columns of every rank's slab", "[layout]") {
  for (long n : {6L, 9L, 16L, 17L, 24L})
    for (int p : {1, 2, 3, 4}) {
      if (p > n) continue;
      for (int r = 0; r < p; ++r) {
        const SlabLayout layout({n + 1, n, n + 2}, p, r);
        REQUIRE(KeptModeMask::usable(layout));
        const KeptModeMask mask = KeptModeMask::make(layout);
        long mismatches = 0;
        for (long kx = 0; kx < layout.nx(); ++kx)
          for (long j = 0; j < layout.y_count(); ++j)
            for (long kz = 0; kz < layout.nzc(); ++kz) {
              const unsigned long long offset = (kx * layout.y_count() + j) * layout.nzc() + kz;
              const bool expected =
                  SlabLayout::kept(layout.y_offset() + j, layout.ny()) && SlabLayout::kept(kz, layout.nz());
              if (mask.kept(offset) != expected) ++mismatches;
            }
        CHECK(mismatches == 0);
      }
    }
}

TEST_CASE("one rank: the column runs of the kept-row x transforms cover every kept row once, aligned",
          "[layout]") {
  for (std::array<long, 3> n : {std::array<long, 3>{8, 7, 5}, {12, 48, 20}, {16, 64, 64}, {9, 96, 33}}) {
    INFO("grid " << n[0] << "x" << n[1] << "x" << n[2]);
    const SlabLayout l(n, 1, 0);
    std::vector<int> hits(l.ny() * l.nzc(), 0);
    for (const auto& run : l.kept_column_runs()) {
      REQUIRE(run.start % SlabLayout::kColumnAlignment == 0);
      REQUIRE(run.start >= 0);
      REQUIRE(run.start + run.count <= l.ny() * l.nzc());
      for (long c = run.start; c < run.start + run.count; ++c) ++hits[c];
    }
    // Every column of a kept row is covered; a column covered only because of the alignment lies within
    // kColumnAlignment columns before a run of kept rows.
    for (long y = 0; y < l.ny(); ++y)
      for (long z = 0; z < l.nzc(); ++z) {
        const long c = y * l.nzc() + z;
        REQUIRE(hits[c] <= 1);  // runs transformed in place must not overlap
        if (SlabLayout::kept(y, l.ny())) {
          REQUIRE(hits[c] >= 1);
        } else if (hits[c] > 0) {
          bool near_kept_row = false;
          for (long later = y + 1; later < l.ny() && later * l.nzc() - c <= SlabLayout::kColumnAlignment;
               ++later)
            near_kept_row = near_kept_row || SlabLayout::kept(later, l.ny());
          REQUIRE(near_kept_row);
        }
      }
  }
}
