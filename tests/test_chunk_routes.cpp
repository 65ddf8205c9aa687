// The routes of the fused exchange (fft/ChunkRoutes.hpp), evaluated on the host as the cuFFT callbacks do on
// a GPU: every element lands in its peer's chunk, each chunk is filled exactly once in the order the
// exchange's layout promises ([x][y of q][kz], dealiased only the kept modes), the own chunk goes to its
// place in the spectral slab, and the compact columns spread to exactly the kept modes. Uneven slabs and
// ranks without kept planes included.
#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "core/Complex.hpp"
#include "fft/ChunkRoutes.hpp"

using kolmo::Complex;
using namespace kolmo::fft;

namespace {

using C = Complex<double>;

const std::vector<std::array<long, 3>> kGrids{{9, 7, 5}, {24, 20, 18}, {16, 12, 1}, {30, 12, 16}, {8, 9, 6}};

// Where an element went: which buffer (0 or 1), at which offset.
struct Place {
  int buffer;
  long long offset;
};

// Two slabs for the routes to point into, and which of them a pointer falls in.
struct Slabs {
  std::vector<C> slab[2];
  explicit Slabs(const SlabLayout& l)
      : slab{std::vector<C>(l.alloc_complex()), std::vector<C>(l.alloc_complex())} {}
  Place place(const C* p) const {
    for (int b = 0; b < 2; ++b)
      if (p >= slab[b].data() && p < slab[b].data() + slab[b].size()) return {b, p - slab[b].data()};
    return {-1, 0};
  }
};

// Whether `places`, in the order of the elements that went there, fill [first, first + count) of buffer
// `buffer` exactly once and in increasing order.
bool fills_in_order(const std::vector<Place>& places, int buffer, long long first, long long count) {
  if (static_cast<long long>(places.size()) != count) return false;
  for (long long i = 0; i < count; ++i)
    if (places[i].buffer != buffer || places[i].offset != first + i) return false;
  return true;
}

// Each rank's layout of every grid on 1 to 4 ranks (as many as the grid can split), both spectral splits.
template <class Each>
void for_each_layout(Each each) {
  for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
    for (auto n : kGrids)
      for (int p = 1; p <= 4; ++p)
        for (int r = 0; r < p; ++r) {
          if (p > n[0] || p > n[1]) continue;
          const SlabLayout l(n, p, r, split);
          INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank " << r << " of " << p << ", split "
                       << to_string(split));
          each(l);
        }
}

}  // namespace

TEST_CASE("plane routes put each element in its peer's chunk, each chunk filled once in order", "[layout]") {
  for (SpectralSplit split : {SpectralSplit::even, SpectralSplit::kept_rows})
    for (auto n : kGrids)
      for (int p = 1; p <= 4; ++p)
        for (int r = 0; r < p; ++r)
          for (bool dealiased : {false, true})
            for (bool own_direct : {false, true}) {
              if (p > n[0] || p > n[1]) continue;
              const SlabLayout l(n, p, r, split);
              INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << ", rank " << r << " of " << p
                           << ", dealiased " << dealiased << ", own direct " << own_direct << ", split "
                           << to_string(split));
              Slabs slabs(l);
              PlaneRouteTable table = plane_route(l, dealiased, own_direct);
              table.route.rows = table.rows.data();
              table.route.buffers[0] = slabs.slab[0].data();
              table.route.buffers[1] = slabs.slab[1].data();
              // Elements in their natural order, collected per chunk (q = the peer owning the row).
              std::map<int, std::vector<Place>> chunks;
              long dropped = 0, kept_expected = 0;
              for (long x = 0; x < l.x_count(); ++x)
                for (long y = 0; y < l.ny(); ++y)
                  for (long kz = 0; kz < l.nzc(); ++kz) {
                    const std::size_t offset = (x * l.ny() + y) * l.nzc() + kz;
                    const C* place = table.route.address<C>(offset);
                    const bool kept = !dealiased || (SlabLayout::kept(y, l.ny()) && kz < l.kept_z());
                    kept_expected += kept ? 1 : 0;
                    if (place == nullptr) {
                      ++dropped;
                      REQUIRE(!kept);
                      continue;
                    }
                    REQUIRE(kept);
                    int q = 0;
                    while (y >= l.y_offset(q) + l.y_count(q)) ++q;
                    chunks[q].push_back(slabs.place(place));
                  }
              REQUIRE(dropped + kept_expected == static_cast<long>(l.planes_size()));
              for (int q = 0; q < p; ++q) {
                INFO("chunk for rank " << q);
                const auto& places = chunks[q];
                if (q == r && own_direct) {  // where the x transforms read it: the receive slab, kx-major
                  const long long first = dealiased ? l.compact_chunk_offset(r) : l.spectral_chunk_offset(r);
                  const long long count = dealiased ? l.compact_chunk_count(r) : l.spectral_chunk_count(r);
                  CHECK(fills_in_order(places, 1, first, count));
                } else {
                  const long long first = dealiased ? l.compact_packed_offset(q) : l.packed_offset(q);
                  const long long count = dealiased ? l.compact_packed_count(q) : l.packed_count(q);
                  CHECK(fills_in_order(places, 0, first, count));
                }
              }
            }
}

TEST_CASE("column routes send own rows to their packed place and spread compact columns to kept modes",
          "[layout]") {
  for_each_layout([](const SlabLayout& l) {
    const int r = l.rank();
    Slabs slabs(l);  // the x transforms' output (slab 0) and the receive slab (1)
    C* slab = slabs.slab[0].data();
    for (bool dealiased : {false, true}) {
      ColumnRouteTable table = own_rows_route(l, dealiased);
      table.route.own = slabs.slab[1].data();
      const long columns = dealiased ? l.kept_y_count() * l.kept_z() : l.y_count() * l.nzc();
      std::vector<Place> own_places;
      bool others_stay = true;
      for (long kx = 0; kx < l.nx(); ++kx)
        for (long column = 0; column < columns; ++column) {
          const std::size_t offset = kx * columns + column;
          const C* place = table.route.own_row_address(slab, offset);
          const bool own_row = kx >= l.x_offset() && kx < l.x_offset() + l.x_count();
          if (own_row)
            own_places.push_back(slabs.place(place));
          else
            others_stay = others_stay && place == slab + offset;
        }
      CHECK(others_stay);
      const long long first = dealiased ? l.compact_packed_offset(r) : l.packed_offset(r);
      const long long count = dealiased ? l.compact_packed_count(r) : l.packed_count(r);
      CHECK(fills_in_order(own_places, 1, first, count));
    }
    // Spread: compact [kx][kept ky][kept kz] onto exactly the kept modes of [kx][ky][kz], in order.
    ColumnRouteTable table = spread_route(l);
    table.route.row_offset = table.row_offset.data();
    const long columns = l.kept_y_count() * l.kept_z();
    std::vector<long long> kept_modes, spread_to;
    for (long kx = 0; kx < l.nx(); ++kx)
      for (long j = 0; j < l.y_count(); ++j)
        for (long kz = 0; kz < l.nzc(); ++kz)
          if (SlabLayout::kept(l.y_offset() + j, l.ny()) && kz < l.kept_z())
            kept_modes.push_back((kx * l.y_count() + j) * l.nzc() + kz);
    for (long kx = 0; kx < l.nx(); ++kx)
      for (long column = 0; column < columns; ++column)
        spread_to.push_back(table.route.spread_address(slab, kx * columns + column) - slab);
    CHECK(spread_to == kept_modes);
  });
}

// The x column FFTs' rows on the fused route (kolmo's kernels): element kx of column (q, kz) at
// buffers[row.buffer] + row.base + q row.pitch + kz, q a (kept) ky of the rank. Forward out of place they
// read the slab the chunks arrived in, [kx][ky][kz] (dealiased: [kx][kept ky][kept kz]) from 0; with the own
// rows packed (backward, and forward in place) they address the same element where the callbacks' column
// route puts it (own_rows_route: the own x planes' rows at their packed place in buffer 1, the others where
// they stay), which is where the plane route without own_direct puts the own chunk in its buffer 0.
TEST_CASE("the x column FFTs' rows on the fused route address what the column routes do", "[layout]") {
  for_each_layout([](const SlabLayout& l) {
    Slabs slabs(l);  // the send slab (0) and the receive slab (1)
    for (bool dealiased : {true, false}) {
      ColumnRouteTable table = own_rows_route(l, dealiased);
      table.route.own = slabs.slab[1].data();
      const long ys = dealiased ? l.kept_y_count() : l.y_count(), zs = dealiased ? l.kept_z() : l.nzc();
      for (bool own_packed : {false, true}) {
        const std::vector<PlaneRow> rows = x_line_rows(l, dealiased, own_packed);
        REQUIRE(static_cast<long>(rows.size()) == l.nx());
        bool same = true;
        for (long kx = 0; kx < l.nx(); ++kx)
          for (long q = 0; q < ys; ++q)
            for (long kz = 0; kz < zs; ++kz) {
              const PlaneRow& row = rows[kx];
              const Place place{row.buffer, row.base + q * row.pitch + kz};
              const long long offset = (kx * ys + q) * zs + kz;
              const Place expected =
                  !own_packed ? Place{0, offset}
                              : slabs.place(table.route.own_row_address(slabs.slab[0].data(), offset));
              same = same && place.buffer == expected.buffer && place.offset == expected.offset;
            }
        INFO((dealiased ? "dealiased " : "full ") << (own_packed ? "own rows packed" : "what arrived"));
        CHECK(same);
      }
    }
  });
}

// Forward in place the plane transforms pack the own chunk with the others (plane_route without
// own_direct, its buffer 0 the send slab), and the x transforms read it there (x_line_rows with the own
// rows packed, their buffer 1 the send slab): every element of the own chunk, from its plane place
// (x, y, kz), is read at the place it was stored, as the x line of kx = x_offset + x.
TEST_CASE("forward in place, the x column FFTs' rows read the own chunk where the plane route packed it",
          "[layout]") {
  for_each_layout([](const SlabLayout& l) {
    for (bool dealiased : {true, false}) {
      PlaneRouteTable planes = plane_route(l, dealiased, false);
      planes.route.rows = planes.rows.data();
      std::vector<C> send(l.alloc_complex());
      planes.route.buffers[0] = send.data();
      const std::vector<PlaneRow> rows = x_line_rows(l, dealiased, true);
      const long zs = dealiased ? l.kept_z() : l.nzc();
      long elements = 0;
      bool same = true;
      for (long x = 0; x < l.x_count(); ++x) {
        long q = 0;  // the (kept) ky's index among this rank's
        for (long y = l.y_offset(); y < l.y_offset() + l.y_count(); ++y) {
          if (dealiased && !SlabLayout::kept(y, l.ny())) continue;
          for (long kz = 0; kz < zs; ++kz) {
            const C* stored = planes.route.address<C>((x * l.ny() + y) * l.nzc() + kz);
            const PlaneRow& row = rows[l.x_offset() + x];
            same = same && stored != nullptr && row.buffer == 1 &&
                   stored - send.data() == row.base + q * row.pitch + kz;
            ++elements;
          }
          ++q;
        }
      }
      INFO((dealiased ? "dealiased" : "full"));
      CHECK(same);
      CHECK(elements ==
            static_cast<long>(dealiased ? l.compact_packed_count(l.rank()) : l.packed_count(l.rank())));
    }
  });
}

// Realigned planes, all ranks of an uneven split at once: every element goes from its plane transform's
// place [ky][x][kz] through the all-to-all's chunk tables (the own chunk staying where it is) to the place
// the line route of the rank holding its ky plane reads it from (forward), and back (backward).
TEST_CASE("realigned planes and line routes move every element to its x line and back", "[layout]") {
  // An element's name: its global indices.
  const auto name = [](long x, long y, long kz) { return C(double(x * 1000 + y), double(kz)); };
  const auto same = [](C a, C b) { return a.re == b.re && a.im == b.im; };
  // Whether p points into one of two slabs (a wrong route must fail the test, not write out of bounds).
  const auto inside = [](const C* p, std::vector<C>& a, std::vector<C>& b) {
    return (p >= a.data() && p < a.data() + a.size()) || (p >= b.data() && p < b.data() + b.size());
  };
  for (auto n : kGrids)
    for (int p = 1; p <= 4; ++p) {
      if (p > n[0] || p > n[1]) continue;
      INFO("grid " << n[0] << "x" << n[1] << "x" << n[2] << " over " << p << " ranks");
      std::vector<SlabLayout> l;
      for (int r = 0; r < p; ++r) l.emplace_back(n, p, r);
      const long nzc = l[0].nzc();
      std::vector<std::vector<C>> send(p), receive(p);
      for (int r = 0; r < p; ++r) {
        send[r].assign(l[r].alloc_complex(), C(-1, -1));
        receive[r].assign(l[r].alloc_complex(), C(-1, -1));
      }
      // The all-to-all: rank s's chunk for r, [packed_offset(r), +packed_count(r)) of its realigned planes,
      // to r's receive buffer at spectral_chunk_offset(s); backward the reverse. The own chunk does not move.
      const auto exchange = [&](bool forward) {
        for (int s = 0; s < p; ++s)
          for (int r = 0; r < p; ++r) {
            if (r == s) continue;
            const std::size_t count = forward ? l[s].packed_count(r) : l[r].packed_count(s);
            for (std::size_t i = 0; i < count; ++i)
              if (forward)
                receive[r][l[r].spectral_chunk_offset(s) + i] = send[s][l[s].packed_offset(r) + i];
              else
                receive[r][l[r].packed_offset(s) + i] = send[s][l[s].spectral_chunk_offset(r) + i];
          }
      };
      // Forward: planes [ky][x][kz] in the send buffers, the exchange, each rank's lines read by its route.
      for (int s = 0; s < p; ++s)
        for (long y = 0; y < n[1]; ++y)
          for (long x = 0; x < l[s].x_count(); ++x)
            for (long kz = 0; kz < nzc; ++kz)
              send[s][(y * l[s].x_count() + x) * nzc + kz] = name(l[s].x_offset() + x, y, kz);
      exchange(true);
      bool lines_right = true;
      for (int r = 0; r < p; ++r) {
        LineRouteTable table = realigned_line_route(l[r]);
        table.route.rows = table.rows.data();
        table.route.buffers[0] = receive[r].data();
        table.route.buffers[1] = send[r].data();
        for (long kx = 0; kx < n[0]; ++kx)
          for (long j = 0; j < l[r].y_count(); ++j)
            for (long kz = 0; kz < nzc; ++kz) {
              const C* place = table.route.address<C>((kx * l[r].y_count() + j) * nzc + kz);
              lines_right = lines_right && inside(place, receive[r], send[r]) &&
                            same(*place, name(kx, l[r].y_offset() + j, kz));
            }
      }
      CHECK(lines_right);
      // Backward: each rank's lines written through its route into its send buffer (own rows: into its
      // receive buffer), the exchange, the planes [ky][x][kz] read from the receive buffers.
      for (int r = 0; r < p; ++r) {
        send[r].assign(send[r].size(), C(-1, -1));
        receive[r].assign(receive[r].size(), C(-1, -1));
      }
      bool planes_right = true;
      for (int s = 0; s < p; ++s) {
        LineRouteTable table = realigned_line_route(l[s]);
        table.route.rows = table.rows.data();
        table.route.buffers[0] = send[s].data();
        table.route.buffers[1] = receive[s].data();
        for (long kx = 0; kx < n[0]; ++kx)
          for (long j = 0; j < l[s].y_count(); ++j)
            for (long kz = 0; kz < nzc; ++kz) {
              C* place = table.route.address<C>((kx * l[s].y_count() + j) * nzc + kz);
              if (inside(place, send[s], receive[s]))
                *place = name(kx, l[s].y_offset() + j, kz);
              else
                planes_right = false;
            }
      }
      exchange(false);
      for (int r = 0; r < p; ++r)
        for (long y = 0; y < n[1]; ++y)
          for (long x = 0; x < l[r].x_count(); ++x)
            for (long kz = 0; kz < nzc; ++kz)
              planes_right = planes_right && same(receive[r][(y * l[r].x_count() + x) * nzc + kz],
                                                  name(l[r].x_offset() + x, y, kz));
      CHECK(planes_right);
    }
}

// sector_alignment against its definition, place by place: every used row's place of column 0 of outer
// indices 0 to 40 agrees with base + index pitch modulo the modulus it found, and modulo twice that (up to 16
// values; or, where it found none, modulo one 32-byte sector) some two places differ. On the fused route's
// rows of every layout (x lines, plane routes, realigned lines), and on rows made to agree modulo 16, 8,
// 4, 2.
TEST_CASE("sector alignment finds the largest modulus on which a route's rows agree", "[layout]") {
  auto place = [](long long base, long long pitch, long long index, int modulus) {
    return ((base + index * pitch) % modulus + modulus) % modulus;
  };
  auto check = [&](const std::vector<PlaneRow>& rows, int bytes) {
    const SectorAlignment a = sector_alignment(rows, bytes);
    INFO("value bytes " << bytes << ": modulus " << a.modulus << ", base " << a.base << ", pitch "
                        << a.pitch);
    bool agrees = true, finer_differs = false;
    const int finer = a.modulus > 0 ? 2 * a.modulus : 32 / bytes;
    long long first[41];
    bool any = false;
    for (const PlaneRow& r : rows) {
      if (r.buffer < 0) continue;
      for (long long index = 0; index <= 40; ++index) {
        if (a.modulus > 0)
          agrees =
              agrees && place(r.base, r.pitch, index, a.modulus) == place(a.base, a.pitch, index, a.modulus);
        const long long here = place(r.base, r.pitch, index, finer);
        if (!any) first[index] = here;
        finer_differs = finer_differs || (any && here != first[index]);
      }
      any = true;
    }
    if (a.modulus > 0)
      CHECK((a.modulus * bytes >= 32 && a.modulus <= 16 && (a.modulus & (a.modulus - 1)) == 0));
    CHECK(agrees);
    if (any && finer <= 16) CHECK(finer_differs);
  };
  for_each_layout([&](const SlabLayout& l) {
    for (int bytes : {8, 16}) {
      for (bool dealiased : {true, false}) {
        for (bool own_packed : {true, false}) check(x_line_rows(l, dealiased, own_packed), bytes);
        for (bool own_direct : {true, false}) check(plane_route(l, dealiased, own_direct).rows, bytes);
      }
      check(realigned_line_route(l).rows, bytes);
    }
  });
  // Rows agreeing modulo 16, then one moved by 8 (agreeing modulo 8), by 4, by 2; unused rows count for
  // nothing.
  for (long long moved : {0, 8, 4, 2}) {
    std::vector<PlaneRow> rows{
        {35, 21, 0}, {16 * 7 + 3, 16 * 5 + 5, 1}, {1, 1, -1}, {16 * 9 + 3 + moved, 5, 0}};
    for (int bytes : {8, 16}) check(rows, bytes);
    const SectorAlignment a = sector_alignment(rows, 16);
    CHECK(a.modulus == (moved == 0 ? 16 : static_cast<int>(moved)));
  }
}
