// Which elements of a rank's kx-major spectral slab [kx][ky local][kz] survive the 2/3 rule in ky and kz, as
// a plain value for device code: the cuFFT callbacks of dealiased x transforms (DealiasCallbacks.cu) test it
// for every element they touch, so the test avoids integer division.
//
// Contract: KeptModeMask::make(layout) for a slab of fewer than 2^31 elements (usable() says so); then
// kept(offset), for an element offset into the slab, is true when 3 |n_y| < Ny and 3 n_z < Nz, the rule of
// SlabLayout::kept (n_y the signed global index). kx is not looked at.
#pragma once

#include "core/HostDevice.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

// n / d for n < 2^31 as a multiply and a shift: magic = floor(2^(31+s) / d) + 1 with 2^s >= d fits in 32 bits
// and the quotient is exact for every n below 2^31.
struct FastDivisor {
  unsigned long long magic = 1;
  unsigned shift = 0;

  static FastDivisor make(unsigned d) {
    unsigned s = 0;
    while ((1ULL << s) < d) ++s;
    return {(1ULL << (31 + s)) / d + 1, 31 + s};
  }
  KOLMO_HD unsigned divide(unsigned n) const { return static_cast<unsigned>((n * magic) >> shift); }
};

struct KeptModeMask {
  unsigned column_count = 1, nzc = 1, y_offset = 0;  // column_count = ky count * Nzc
  long long ny = 1, nz = 1;
  FastDivisor by_columns, by_nzc;

  static bool usable(const SlabLayout& layout) { return layout.alloc_complex() < (1ULL << 31); }
  static KeptModeMask make(const SlabLayout& layout) {
    KeptModeMask m;
    m.column_count = static_cast<unsigned>(layout.y_count() * layout.nzc());
    m.nzc = static_cast<unsigned>(layout.nzc());
    m.y_offset = static_cast<unsigned>(layout.y_offset());
    m.ny = layout.ny();
    m.nz = layout.nz();
    m.by_columns = FastDivisor::make(m.column_count);
    m.by_nzc = FastDivisor::make(m.nzc);
    return m;
  }

  KOLMO_HD bool kept(unsigned long long offset) const {
    const unsigned index = static_cast<unsigned>(offset);
    const unsigned column = index - by_columns.divide(index) * column_count;
    const unsigned row = by_nzc.divide(column);
    const long long kz = column - row * nzc;
    const long long ky = y_offset + row;
    const long long signed_ky = 2 * ky <= ny ? ky : ky - ny;
    return 3 * (signed_ky < 0 ? -signed_ky : signed_ky) < ny && 3 * kz < nz;
  }
};

}  // namespace kolmo::fft
