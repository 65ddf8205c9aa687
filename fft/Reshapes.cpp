#include "fft/Reshapes.hpp"

#include <utility>

namespace kolmo::fft {

namespace {

// One side of a strided copy: where it starts, its row pitch in bytes and its rows per slice (3D copies).
struct Side {
  const void* at;
  std::size_t pitch, rows = 0;
};

// A 2D or 3D copy between a and b, towards b where to_b, else towards a (each reshape and its reverse are
// the same copy with the sides swapped).
void copy_2d(Device& device, Side a, Side b, bool to_b, std::size_t width, std::size_t rows) {
  if (!to_b) std::swap(a, b);
  device.copy_2d(const_cast<void*>(b.at), b.pitch, a.at, a.pitch, width, rows);
}
void copy_3d(Device& device, Side a, Side b, bool to_b, std::size_t width, std::size_t rows,
             std::size_t depth) {
  if (!to_b) std::swap(a, b);
  device.copy_3d(const_cast<void*>(b.at), b.pitch, b.rows, a.at, a.pitch, a.rows, width, rows, depth);
}

// Planes [first, first + count) of a rank's `total` planes [x][y][kz] (`planes` at the first of them) and the
// packed layout [q][x][y of q][kz] of all `total`, towards packed where to_packed. With `spectral`, the
// rank's own rows go to or come from their place in the spectral slab [kx][ky][kz] there instead of their
// chunk.
template <class Real>
void pack_or_unpack(Device& device, const SlabLayout& layout, const Complex<Real>* planes,
                    const Complex<Real>* packed, const Complex<Real>* spectral, SlabLayout::Planes block,
                    long total, bool to_packed) {
  using C = Complex<Real>;
  // peer q's rows y in its range, for every x, are one contiguous block.
  const std::size_t row = layout.ny() * layout.nzc() * sizeof(C);
  for (int q = 0; q < layout.ranks(); ++q) {
    const std::size_t width = layout.y_count(q) * layout.nzc() * sizeof(C);
    const C* chunk = spectral != nullptr && q == layout.rank() ? spectral + layout.spectral_chunk_offset(q)
                                                               : packed + layout.packed_offset(q, {0, total});
    copy_2d(device, {planes + layout.y_offset(q) * layout.nzc(), row},
            {chunk + block.first * layout.y_count(q) * layout.nzc(), width}, to_packed, width, block.count);
  }
}

// The kept modes of planes [x][y][kz] and the compact packed layout [q][x][kept y of q][kept kz].
template <class Real>
void kept_planes(Device& device, const SlabLayout& layout, const Complex<Real>* planes,
                 const Complex<Real>* packed, long count, bool to_packed) {
  using C = Complex<Real>;
  const std::size_t width = layout.kept_z() * sizeof(C), row = layout.nzc() * sizeof(C);
  for (int q = 0; q < layout.ranks(); ++q) {
    const C* chunk = packed + layout.compact_packed_offset(q, {0, count});
    const std::size_t rows = layout.kept_y_count(q);
    long done = 0;
    for (const auto& run : layout.kept_runs(q)) {
      copy_3d(device, {planes + run.start * layout.nzc(), row, static_cast<std::size_t>(layout.ny())},
              {chunk + done * layout.kept_z(), width, rows}, to_packed, width, run.count, count);
      done += run.count;
    }
  }
}

// The kept modes of the spectral slab [kx][ky][kz] and the compact slab [kx][kept ky][kept kz].
template <class Real>
void kept_spectral(Device& device, const SlabLayout& layout, const Complex<Real>* spectral,
                   const Complex<Real>* compact, bool to_compact) {
  using C = Complex<Real>;
  const std::size_t width = layout.kept_z() * sizeof(C), row = layout.nzc() * sizeof(C);
  const std::size_t rows = layout.kept_y_count();
  long done = 0;
  for (const auto& run : layout.kept_runs(layout.rank())) {
    copy_3d(device,
            {spectral + (run.start - layout.y_offset()) * layout.nzc(), row,
             static_cast<std::size_t>(layout.y_count())},
            {compact + done * layout.kept_z(), width, rows}, to_compact, width, run.count, layout.nx());
    done += run.count;
  }
}

}  // namespace

template <class Real>
void pack(Device& device, const SlabLayout& layout, const Complex<Real>* planes, Complex<Real>* packed,
          long count) {
  pack_or_unpack<Real>(device, layout, planes, packed, nullptr, {0, count}, count, true);
}

template <class Real>
void unpack(Device& device, const SlabLayout& layout, const Complex<Real>* packed, Complex<Real>* planes,
            long count) {
  pack_or_unpack<Real>(device, layout, planes, packed, nullptr, {0, count}, count, false);
}

template <class Real>
void pack_block(Device& device, const SlabLayout& layout, const Complex<Real>* planes,
                SlabLayout::Planes block, Complex<Real>* packed, Complex<Real>* spectral) {
  pack_or_unpack<Real>(device, layout, planes, packed, spectral, block, layout.x_count(), true);
}

template <class Real>
void unpack_block(Device& device, const SlabLayout& layout, const Complex<Real>* packed,
                  const Complex<Real>* spectral, SlabLayout::Planes block, Complex<Real>* planes) {
  pack_or_unpack<Real>(device, layout, planes, packed, spectral, block, layout.x_count(), false);
}

template <class Real>
void pack_kept(Device& device, const SlabLayout& layout, const Complex<Real>* planes, Complex<Real>* packed,
               long count) {
  kept_planes<Real>(device, layout, planes, packed, count, true);
}

template <class Real>
void zero_planes(Device& device, const SlabLayout& layout, Complex<Real>* planes, long count) {
  device.fill_zero(planes, count * layout.ny() * layout.nzc() * sizeof(Complex<Real>));
}

template <class Real>
void expand_kept_planes(Device& device, const SlabLayout& layout, const Complex<Real>* packed,
                        Complex<Real>* planes, long count) {
  kept_planes<Real>(device, layout, planes, packed, count, false);
}

template <class Real>
void gather_kept_spectral(Device& device, const SlabLayout& layout, const Complex<Real>* spectral,
                          Complex<Real>* compact) {
  kept_spectral<Real>(device, layout, spectral, compact, true);
}

template <class Real>
void scatter_kept_spectral(Device& device, const SlabLayout& layout, const Complex<Real>* compact,
                           Complex<Real>* spectral) {
  kept_spectral<Real>(device, layout, spectral, compact, false);
}

#define KOLMO_RESHAPES(Real)                                                                               \
  template void pack<Real>(Device&, const SlabLayout&, const Complex<Real>*, Complex<Real>*, long);        \
  template void unpack<Real>(Device&, const SlabLayout&, const Complex<Real>*, Complex<Real>*, long);      \
  template void pack_block<Real>(Device&, const SlabLayout&, const Complex<Real>*, SlabLayout::Planes,     \
                                 Complex<Real>*, Complex<Real>*);                                          \
  template void unpack_block<Real>(Device&, const SlabLayout&, const Complex<Real>*, const Complex<Real>*, \
                                   SlabLayout::Planes, Complex<Real>*);                                    \
  template void pack_kept<Real>(Device&, const SlabLayout&, const Complex<Real>*, Complex<Real>*, long);   \
  template void zero_planes<Real>(Device&, const SlabLayout&, Complex<Real>*, long);                       \
  template void expand_kept_planes<Real>(Device&, const SlabLayout&, const Complex<Real>*, Complex<Real>*, \
                                         long);                                                            \
  template void gather_kept_spectral<Real>(Device&, const SlabLayout&, const Complex<Real>*,               \
                                           Complex<Real>*);                                                \
  template void scatter_kept_spectral<Real>(Device&, const SlabLayout&, const Complex<Real>*, Complex<Real>*);
KOLMO_RESHAPES(float)
KOLMO_RESHAPES(double)
#undef KOLMO_RESHAPES

}  // namespace kolmo::fft
