// Wavenumbers::mode turns a spectral index into signed mode indices by 32-bit division where the rank's slab
// holds fewer than 2^31 modes and by 64-bit division otherwise (2048 x 2048 x 1024 on one rank: 2.15e9
// modes, which one GPU holds for a transform pair). Both paths against plain 64-bit arithmetic, at indices
// around 2^31 and the slab's end, on layouts alone (nothing is allocated).
#include <catch2/catch.hpp>
#include <vector>

#include "fft/SlabLayout.hpp"
#include "solver/Wavenumbers.hpp"

using namespace kolmo;
using namespace kolmo::solver;

TEST_CASE("mode indices of slabs just below and above 2^31 modes, on one rank and on the last of two",
          "[solver]") {
  struct Case {
    std::array<long, 3> n;
    int ranks;
  };
  const long limit = 1L << 31;
  // 2048 x 2040 x 1024: 2.143e9 modes, the 32-bit path up to its end; 2048 x 2048 x 1024: 2.15e9, the 64-bit
  // one; rank 1 of 2 at 4096 x 2048 x 2048: 4.3e9 modes, ky from 1024 on.
  for (const Case c :
       {Case{{2048, 2040, 1024}, 1}, Case{{2048, 2048, 1024}, 1}, Case{{4096, 2048, 2048}, 2}}) {
    const fft::SlabLayout layout(c.n, c.ranks, c.ranks - 1);
    const auto w = Wavenumbers<double>::make(layout, Box{});
    const long size = long(layout.spectral_size()), nzc = layout.nzc(), y_count = layout.y_count();
    INFO(layout.describe() << ", " << size << " modes");
    CHECK((size < limit) == (c.n[1] == 2040));
    std::vector<long> indices{0, 1, nzc, nzc * y_count + 3, limit / 2, size / 2, size - 1};
    for (long m : {limit - 2, limit - 1, limit, limit + 1, 2 * limit - 1, 2 * limit, 2 * limit + 7})
      if (m < size) indices.push_back(m);
    for (long m : indices) {
      const long kz = m % nzc, j = (m / nzc) % y_count, i = m / nzc / y_count, ky = layout.y_offset() + j;
      const Mode mode = w.mode(m);
      INFO("m = " << m);
      CHECK(mode.x == (2 * i <= c.n[0] ? i : i - c.n[0]));
      CHECK(mode.y == (2 * ky <= c.n[1] ? ky : ky - c.n[1]));
      CHECK(mode.z == kz);
    }
  }
}
