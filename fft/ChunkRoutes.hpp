// Where each element of a rank's plane and x transforms goes in the all-to-all's buffers, so that the
// transforms' own kernels can write what the exchange sends and read what it received (kolmo's column FFTs,
// fft/ColumnFft.hpp's ElementRoute, or cuFFT's callbacks, fft/ExchangeCallbacks.cu) instead of separate
// packing, unpacking and own-chunk copies. Plain values for device code, built on the
// host from a SlabLayout.
//
// Contract (offsets and sizes in complex values; all offsets of a slab below 2^31, usable() says so):
// - PlaneRoute: for an element at `offset` of a rank's yz planes [x][y][kz] (the plane transforms' natural
//   layout), address<T>(offset) is where it goes (forward) or comes from (backward): the packed send or
//   receive layout [q][x][y of q][kz] of SlabLayout (dealiased: [q][x][kept y of q][kept kz]), or for the
//   rank's own rows, where they belong in the buffer the x transforms read. nullptr for elements that are
//   not exchanged (dropped by the 2/3 rule).
// - ColumnRoute: for an element at `offset` of a kx-major slab [kx][column] with `columns` columns of
//   `row_length` values (a full [ky][kz] plane or a compact [kept ky][kept kz] one):
//   own_row_address: rows kx of this rank's own x planes go to the own buffer, at the place the plane
//   transforms read them after the exchange; the others stay where they are (the send layout).
//   spread_address: the compact column's place in the full spectral slab [kx][ky][kz] at `spread`.
#pragma once

#include <vector>

#include "core/HostDevice.hpp"
#include "fft/KeptModeMask.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

// Offsets into a 3D array [a][b][c] (`slice` = nb nc values per a, `row` = nc per b) split into indices by
// multiplication (offsets below 2^31), as the callbacks do for every element.
struct Index3 {
  unsigned slice = 1, row = 1;
  FastDivisor by_slice, by_row;
  struct Indices {
    unsigned a, b, c;
  };
  static Index3 make(long slice, long row);  // sizes below 1 count as 1 (nothing is indexed then)
  KOLMO_HD unsigned a_of(unsigned long long offset) const {
    return by_slice.divide(static_cast<unsigned>(offset));
  }
  KOLMO_HD Indices split(unsigned long long offset) const {
    const unsigned index = static_cast<unsigned>(offset);
    const unsigned a = by_slice.divide(index), in_slice = index - a * slice, b = by_row.divide(in_slice);
    return {a, b, in_slice - b * row};
  }
};

// One row of a route: for PlaneRoute a global ky row of the yz planes, where (x = 0, this row, kz = 0) goes
// and the step from one x plane to the next; for the x transforms' routes (compact_line_rows, LineRoute) an
// x plane kx, where (kx, first ky, kz = 0) goes and the step from one ky to the next.
struct PlaneRow {
  long long base = 0, pitch = 0;
  int buffer = -1;  // index into PlaneRoute::buffers; -1: not exchanged
};

struct PlaneRoute {
  Index3 index;                    // [x][y][kz]
  unsigned kept_z = 1;             // kz below which values are exchanged
  const PlaneRow* rows = nullptr;  // Ny entries (device memory for callbacks)
  void* buffers[2] = {nullptr, nullptr};

  template <class T>
  KOLMO_HD T* address(unsigned long long offset) const {
    const Index3::Indices i = index.split(offset);  // x, y, kz
    const PlaneRow r = rows[i.b];
    if (r.buffer < 0 || i.c >= kept_z) return nullptr;
    return static_cast<T*>(buffers[r.buffer]) + (r.base + static_cast<long long>(i.a) * r.pitch + i.c);
  }
};

struct ColumnRoute {
  Index3 index;  // [kx][row][kz]: columns, row length
  // Own rows: kx in [own_first, own_first + own_count) go to own + own_base + (kx - own_first) columns.
  unsigned own_first = 0, own_count = 0;
  long long own_base = 0;
  void* own = nullptr;
  // Spread: compact row r, kz to spread + kx spread_pitch + row_offset[r] + kz.
  const long long* row_offset = nullptr;
  long long spread_pitch = 0;
  void* spread = nullptr;

  template <class T>
  KOLMO_HD T* own_row_address(T* natural, unsigned long long offset) const {
    const unsigned kx = index.a_of(offset);
    if (kx - own_first >= own_count) return natural + offset;  // unsigned: also kx < own_first
    return static_cast<T*>(own) + (own_base + static_cast<long long>(offset - own_first * index.slice));
  }
  template <class T>
  KOLMO_HD T* spread_address(T* base, unsigned long long offset) const {
    const Index3::Indices i = index.split(offset);  // kx, compact row, kz
    return base + (static_cast<long long>(i.a) * spread_pitch + row_offset[i.b] + i.c);
  }
};

// Full transforms with realigned planes (FftOptions::realigned_planes): the plane transforms read and write
// [ky][x][kz] (cuFFT's advanced layout), so that each peer's chunk, the ky planes of q, is [ky of q][x][kz]
// and contiguous. The x transforms' lines [kx][column] (column = local ky * Nzc + kz) are then read from
// (forward) or written to (backward) the chunk of the rank that holds x plane kx: address<T>(offset) for an
// offset into [kx][column] is buffers[row.buffer] + row.base + ky row.pitch + kz with row = rows[kx] (a
// PlaneRow: here (kx, ky = 0, kz = 0) and the step from one ky to the next; every row is exchanged).
struct LineRoute {
  Index3 index;                    // [kx][ky][kz]
  const PlaneRow* rows = nullptr;  // Nx entries
  void* buffers[2] = {nullptr, nullptr};

  template <class T>
  KOLMO_HD T* address(unsigned long long offset) const {
    const Index3::Indices i = index.split(offset);
    const PlaneRow r = rows[i.a];
    return static_cast<T*>(buffers[r.buffer]) + (r.base + static_cast<long long>(i.b) * r.pitch + i.c);
  }
};

// The tables, built on the host; the caller puts `rows` / `row_offset` in device memory and points the route
// at them, and fills in the buffers.
struct PlaneRouteTable {
  PlaneRoute route;
  std::vector<PlaneRow> rows;
};
// buffers[0] is the packed buffer: what a forward transform sends, or what a backward one received, own chunk
// included. own_direct (forward only): this rank's rows go instead to buffers[1], the receive buffer that the
// x transforms read ([kx][ky][kz], dealiased [kx][kept ky][kept kz]), where they belong after the exchange.
PlaneRouteTable plane_route(const SlabLayout& layout, bool dealiased, bool own_direct);

struct ColumnRouteTable {
  ColumnRoute route;
  std::vector<long long> row_offset;
};
// The x transforms' output of a backward transform, kx-major: own rows to their packed receive place
// (route.own, to be filled in), the others stay (they are the send chunks).
ColumnRouteTable own_rows_route(const SlabLayout& layout, bool dealiased);
// Compact columns [kx][kept ky][kept kz] of this rank to and from the spectral slab [kx][ky][kz].
ColumnRouteTable spread_route(const SlabLayout& layout);

// The rows of kolmo's x column FFTs on the fused route (ElementRoute, fft/ColumnFft.hpp): row kx of the
// kx-major slab, dealiased the compact [kx][kept ky][kept kz] (by_compact), full the spectral [kx][ky][kz],
// its ky places pitch kept kz (dealiased) or Nzc apart, in buffer 0 at the chunks' places
// (compact_chunk_offset's or spectral_chunk_offset's): forward the receive slab, where they arrived;
// backward the send slab (each peer's chunk its x planes). own_packed: the own x planes' rows in buffer 1
// instead, at their packed place (own_rows_route's; plane_route's without own_direct): backward the
// receive slab, where the plane transforms read them; forward in place the send slab, where the plane
// transforms left them.
std::vector<PlaneRow> x_line_rows(const SlabLayout& layout, bool dealiased, bool own_packed);

struct LineRouteTable {
  LineRoute route;
  std::vector<PlaneRow> rows;
};
// Rows kx of other ranks' x planes from buffers[0], the all-to-all's x side (forward: the receive buffer,
// backward: the send buffer; peer q's chunk at spectral_chunk_offset(q)); this rank's own from buffers[1],
// the planes' side (forward: the send buffer, backward: the receive buffer; at packed_offset(rank)). The
// same rows serve cuFFT's callbacks (LineRoute) and kolmo's x column FFTs (ElementRoute, fft/ColumnFft.hpp).
LineRouteTable realigned_line_route(const SlabLayout& layout);

// Where every used row (buffer >= 0) puts column 0 of outer index `index` at the same place modulo
// `modulus` values, base + index pitch: the largest such modulus from 16 down to whole 32-byte sectors of
// values of `value_bytes`; modulus 0 where the rows agree on no such one. Kernels that store along the rows
// may align their tiles to those places (fft/ColumnFft.hpp's ElementRoute).
struct SectorAlignment {
  int base = 0, pitch = 0, modulus = 0;
};
SectorAlignment sector_alignment(const std::vector<PlaneRow>& rows, int value_bytes);

// Every offset in the routes fits the 32-bit arithmetic of the callbacks.
bool routes_usable(const SlabLayout& layout);

}  // namespace kolmo::fft
