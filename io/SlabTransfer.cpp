#include "io/SlabTransfer.hpp"

#include <algorithm>
#include <vector>

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
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

// Offsets of value (x, y, z0 + k) in the slab [x][y][z] and in a block buffer [k][y][x].
struct Indices {
  long nx, ny, nz, z0;
  std::size_t slab(long x, long y, long k) const { return std::size_t((x * ny + y) * nz + z0 + k); }
  std::size_t buffer(long x, long y, long k) const { return std::size_t((k * ny + y) * nx + x); }
};

}  // namespace

template <class Real>
void write_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, const Real* slab,
                MPI_Comm comm, std::size_t transpose_bytes) {
  if (order == AxisOrder::xyz)
    return write_block(dataset, native_type<Real>(), xyz_block(layout), slab, comm);
  const long per_block = z_planes_per_block<Real>(layout, transpose_bytes), nx = layout.x_count(),
             ny = layout.ny();
  std::vector<Real> buffer(std::size_t(per_block * ny * nx));
  for (long z0 = 0; z0 < layout.nz(); z0 += per_block) {
    const long zn = std::min(per_block, layout.nz() - z0);
    const Indices at{nx, ny, layout.nz(), z0};
    for (long x = 0; x < nx; ++x)
      for (long y = 0; y < ny; ++y)
        for (long k = 0; k < zn; ++k) buffer[at.buffer(x, y, k)] = slab[at.slab(x, y, k)];
    write_block(dataset, native_type<Real>(), zyx_block(layout, z0, zn), buffer.data(), comm);
  }
}

template <class Real>
void read_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, Real* slab, MPI_Comm comm,
               std::size_t transpose_bytes) {
  if (order == AxisOrder::xyz) return read_block(dataset, native_type<Real>(), xyz_block(layout), slab, comm);
  const long per_block = z_planes_per_block<Real>(layout, transpose_bytes), nx = layout.x_count(),
             ny = layout.ny();
  std::vector<Real> buffer(std::size_t(per_block * ny * nx));
  for (long z0 = 0; z0 < layout.nz(); z0 += per_block) {
    const long zn = std::min(per_block, layout.nz() - z0);
    const Indices at{nx, ny, layout.nz(), z0};
    read_block(dataset, native_type<Real>(), zyx_block(layout, z0, zn), buffer.data(), comm);
    for (long x = 0; x < nx; ++x)
      for (long y = 0; y < ny; ++y)
        for (long k = 0; k < zn; ++k) slab[at.slab(x, y, k)] = buffer[at.buffer(x, y, k)];
  }
}

template void write_slab<float>(hid_t, AxisOrder, const fft::SlabLayout&, const float*, MPI_Comm,
                                std::size_t);
template void write_slab<double>(hid_t, AxisOrder, const fft::SlabLayout&, const double*, MPI_Comm,
                                 std::size_t);
template void read_slab<float>(hid_t, AxisOrder, const fft::SlabLayout&, float*, MPI_Comm, std::size_t);
template void read_slab<double>(hid_t, AxisOrder, const fft::SlabLayout&, double*, MPI_Comm, std::size_t);

}  // namespace kolmo::io
