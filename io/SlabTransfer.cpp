#include "io/SlabTransfer.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"

namespace kolmo::io {

std::array<hsize_t, 3> stored_shape(const std::array<long, 3>& grid, AxisOrder order) {
  const auto [nx, ny, nz] = grid;
  return order == AxisOrder::xyz ? std::array<hsize_t, 3>{hsize_t(nx), hsize_t(ny), hsize_t(nz)}
                                 : std::array<hsize_t, 3>{hsize_t(nz), hsize_t(ny), hsize_t(nx)};
}

AxisOrder axis_order_of(hid_t file) {
  if (!has_attribute(file, "axis_order")) return AxisOrder::xyz;
  const std::string text = read_string_attribute(file, "axis_order");
  for (AxisOrder order : {AxisOrder::xyz, AxisOrder::zyx})
    if (text == axis_order_name(order)) return order;
  throw Error("attribute axis_order is '" + text + "', expected 'x y z' or 'z y x'");
}

namespace {

// In the zyx order the slab goes to and from the dataset in blocks of z planes: block b holds planes
// [b * per_block, ...) of every rank's x range, as a buffer [z][y][x] of x_count values per row.
template <class Real>
long z_planes_per_block(const fft::SlabLayout& layout, std::size_t transpose_bytes) {
  long widest = 0;  // the most x planes any rank holds: every rank must make the same number of calls
  for (int r = 0; r < layout.ranks(); ++r) widest = std::max(widest, layout.x_count(r));
  const std::size_t plane_bytes = std::size_t(std::max(1L, widest * layout.ny())) * sizeof(Real);
  return std::clamp(long(transpose_bytes / plane_bytes), 1L, layout.nz());
}

Block xyz_block(const fft::SlabLayout& layout) {
  return {{hsize_t(layout.x_offset()), 0, 0},
          {hsize_t(layout.x_count()), hsize_t(layout.ny()), hsize_t(layout.nz())}};
}

Block zyx_block(const fft::SlabLayout& layout, long z0, long zn) {
  return {{hsize_t(z0), 0, hsize_t(layout.x_offset())},
          {hsize_t(zn), hsize_t(layout.ny()), hsize_t(layout.x_count())}};
}

// Moves the slab [x][y][z] to (Writing) or from the zyx dataset through a buffer [z][y][x] of whole blocks
// of z planes. Slab is const Real* when writing, Real* when reading.
template <bool Writing, class Real, class Slab>
void transfer_zyx(hid_t dataset, const fft::SlabLayout& layout, Slab slab, MPI_Comm comm,
                  std::size_t transpose_bytes) {
  const long per_block = z_planes_per_block<Real>(layout, transpose_bytes), nx = layout.x_count(),
             ny = layout.ny(), nz = layout.nz();
  // Agreed: a rank out of memory here must not leave alone while the others wait in the transfer, with the
  // file open.
  std::vector<Real> buffer;
  resize_on_every_rank(comm, buffer, std::size_t(per_block * ny * nx),
                       "the buffer that turns its z planes to and from x fastest");
  std::optional<BlockReader> reader;
  if constexpr (!Writing) reader.emplace(dataset, comm);
  for (long z0 = 0; z0 < nz; z0 += per_block) {
    const long zn = std::min(per_block, nz - z0);
    const Block block = zyx_block(layout, z0, zn);
    if constexpr (!Writing) reader->read(native_type<Real>(), block, buffer.data());
    for (long x = 0; x < nx; ++x)
      for (long y = 0; y < ny; ++y)
        for (long k = 0; k < zn; ++k) {
          Real& in_buffer = buffer[std::size_t((k * ny + y) * nx + x)];
          const std::size_t in_slab = std::size_t((x * ny + y) * nz + z0 + k);
          if constexpr (Writing)
            in_buffer = slab[in_slab];
          else
            slab[in_slab] = in_buffer;
        }
    if constexpr (Writing) write_block(dataset, native_type<Real>(), block, buffer.data(), comm);
  }
}

}  // namespace

template <class Real>
void write_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, const Real* slab,
                MPI_Comm comm, std::size_t transpose_bytes) {
  if (order == AxisOrder::xyz)
    return write_block(dataset, native_type<Real>(), xyz_block(layout), slab, comm);
  transfer_zyx<true, Real>(dataset, layout, slab, comm, transpose_bytes);
}

template <class Real>
void read_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, Real* slab, MPI_Comm comm,
               std::size_t transpose_bytes) {
  if (order == AxisOrder::xyz)
    return BlockReader(dataset, comm).read(native_type<Real>(), xyz_block(layout), slab);
  transfer_zyx<false, Real>(dataset, layout, slab, comm, transpose_bytes);
}

template void write_slab<float>(hid_t, AxisOrder, const fft::SlabLayout&, const float*, MPI_Comm,
                                std::size_t);
template void write_slab<double>(hid_t, AxisOrder, const fft::SlabLayout&, const double*, MPI_Comm,
                                 std::size_t);
template void read_slab<float>(hid_t, AxisOrder, const fft::SlabLayout&, float*, MPI_Comm, std::size_t);
template void read_slab<double>(hid_t, AxisOrder, const fft::SlabLayout&, double*, MPI_Comm, std::size_t);

}  // namespace kolmo::io
