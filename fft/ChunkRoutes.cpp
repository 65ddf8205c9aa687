#include "fft/ChunkRoutes.hpp"

#include <algorithm>

namespace kolmo::fft {

Index3 Index3::make(long slice, long row) {
  Index3 index;
  index.slice = static_cast<unsigned>(std::max(slice, 1L));
  index.row = static_cast<unsigned>(std::max(row, 1L));
  index.by_slice = FastDivisor::make(index.slice);
  index.by_row = FastDivisor::make(index.row);
  return index;
}

PlaneRouteTable plane_route(const SlabLayout& l, bool dealiased, bool own_direct) {
  PlaneRouteTable table;
  PlaneRoute& route = table.route;
  route.index = Index3::make(l.ny() * l.nzc(), l.nzc());
  route.kept_z = static_cast<unsigned>(dealiased ? l.kept_z() : l.nzc());
  table.rows.resize(l.ny());
  const int me = l.rank();
  for (int q = 0; q < l.ranks(); ++q) {
    long kept_index = 0;  // of the row among q's kept rows
    for (long y = l.y_offset(q); y < l.y_offset(q) + l.y_count(q); ++y) {
      PlaneRow& row = table.rows[y];
      const bool own = q == me && own_direct;
      if (!dealiased) {
        const long within = y - l.y_offset(q);
        row.buffer = own ? 1 : 0;
        row.base = own ? (l.x_offset() * l.y_count() + within) * l.nzc()
                       : static_cast<long long>(l.packed_offset(q)) + within * l.nzc();
        row.pitch = l.y_count(q) * l.nzc();
      } else if (SlabLayout::kept(y, l.ny())) {
        row.buffer = own ? 1 : 0;
        row.base = own ? (l.x_offset() * l.kept_y_count() + kept_index) * l.kept_z()
                       : static_cast<long long>(l.compact_packed_offset(q)) + kept_index * l.kept_z();
        row.pitch = l.kept_y_count(q) * l.kept_z();
        ++kept_index;
      }
    }
  }
  return table;
}

ColumnRouteTable own_rows_route(const SlabLayout& l, bool dealiased) {
  ColumnRouteTable table;
  ColumnRoute& route = table.route;
  route.index = dealiased ? Index3::make(l.kept_y_count() * l.kept_z(), l.kept_z())
                          : Index3::make(l.y_count() * l.nzc(), l.nzc());
  route.own_first = static_cast<unsigned>(l.x_offset());
  route.own_count = static_cast<unsigned>(l.x_count());
  route.own_base =
      static_cast<long long>(dealiased ? l.compact_packed_offset(l.rank()) : l.packed_offset(l.rank()));
  return table;
}

ColumnRouteTable spread_route(const SlabLayout& l) {
  ColumnRouteTable table;
  ColumnRoute& route = table.route;
  route.index = Index3::make(l.kept_y_count() * l.kept_z(), l.kept_z());
  route.spread_pitch = l.y_count() * l.nzc();
  for (const auto& run : l.kept_runs(l.rank()))
    for (long y = run.start; y < run.start + run.count; ++y)
      table.row_offset.push_back((y - l.y_offset()) * l.nzc());
  return table;
}

std::vector<PlaneRow> x_line_rows(const SlabLayout& l, bool dealiased, bool own_packed) {
  const long pitch = dealiased ? l.kept_z() : l.nzc();
  const long long row = (dealiased ? l.kept_y_count() : l.y_count()) * pitch;
  const long own_first = l.x_offset(), own_end = own_first + l.x_count();
  const long long own_base =
      static_cast<long long>(dealiased ? l.compact_packed_offset(l.rank()) : l.packed_offset(l.rank()));
  std::vector<PlaneRow> rows(l.nx());
  for (long kx = 0; kx < l.nx(); ++kx) {
    const bool own = own_packed && kx >= own_first && kx < own_end;
    rows[kx] = {own ? own_base + (kx - own_first) * row : kx * row, pitch, own ? 1 : 0};
  }
  return rows;
}

LineRouteTable realigned_line_route(const SlabLayout& l) {
  LineRouteTable table;
  LineRoute& route = table.route;
  route.index = Index3::make(l.y_count() * l.nzc(), l.nzc());
  table.rows.resize(l.nx());
  for (int q = 0; q < l.ranks(); ++q)
    for (long i = 0; i < l.x_count(q); ++i) {
      PlaneRow& row = table.rows[l.x_offset(q) + i];
      const bool own = q == l.rank();
      row.buffer = own ? 1 : 0;
      row.base = static_cast<long long>(own ? l.packed_offset(q) : l.spectral_chunk_offset(q)) + i * l.nzc();
      row.pitch = l.x_count(q) * l.nzc();
    }
  return table;
}

SectorAlignment sector_alignment(const std::vector<PlaneRow>& rows, int value_bytes) {
  for (int modulus = 16; modulus * value_bytes >= 32; modulus /= 2) {
    auto residue = [modulus](long long v) { return static_cast<int>(((v % modulus) + modulus) % modulus); };
    SectorAlignment found{-1, -1, modulus};
    bool agree = true;
    for (const PlaneRow& r : rows) {
      if (r.buffer < 0) continue;
      if (found.base < 0) found.base = residue(r.base), found.pitch = residue(r.pitch);
      agree = agree && residue(r.base) == found.base && residue(r.pitch) == found.pitch;
    }
    if (agree && found.base >= 0) return found;
  }
  return {};
}

bool routes_usable(const SlabLayout& layout) {
  return KeptModeMask::usable(layout);
}

}  // namespace kolmo::fft
