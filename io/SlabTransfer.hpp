// Collective reads and writes of each rank's x-slab of a global real field stored in an HDF5 dataset, in
// either axis order.
//
// Contract:
// - The solver's real slab is [x][y][z], z fastest (fft/SlabLayout.hpp). A dataset stores the global array
//   either in that order (AxisOrder::xyz: shape [Nx][Ny][Nz]) or x fastest (AxisOrder::zyx: shape
//   [Nz][Ny][Nx]), the order in which ParaView and VisIt put x, y, z on their X, Y, Z axes.
// - write_slab()/read_slab() are collective over comm (the file's communicator) and move this rank's planes
//   [x_offset, x_offset + x_count) between the slab's first real_size() values and the dataset, for any
//   rank count (ranks without planes take part with empty selections). In the zyx order the planes are
//   transposed through a buffer of at most transpose_bytes per rank (at least one z plane), a block of z
//   planes at a time, every rank making the same number of collective calls.
// - The file's root attribute "axis_order" ("x y z" or "z y x", slowest first) records the order;
//   axis_order_of() reads it, taking files without it (older dumps, files from other tools) as "x y z".
//   Errors throw kolmo::Error as io/BlockTransfer.hpp does (every rank, the same line).
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstddef>
#include <string>

#include "fft/SlabLayout.hpp"

namespace kolmo::io {

enum class AxisOrder { xyz, zyx };

inline constexpr std::size_t kTransposeBytes = std::size_t(32) << 20;

inline const char* axis_order_name(AxisOrder order) {
  return order == AxisOrder::xyz ? "x y z" : "z y x";
}

// The dataset's shape, slowest first, for a grid {Nx, Ny, Nz}.
std::array<hsize_t, 3> stored_shape(const std::array<long, 3>& grid, AxisOrder order);

// The order recorded in file's "axis_order" attribute (AxisOrder::xyz when absent); throws for other text.
AxisOrder axis_order_of(hid_t file);

template <class Real>
void write_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, const Real* slab,
                MPI_Comm comm, std::size_t transpose_bytes = kTransposeBytes);
template <class Real>
void read_slab(hid_t dataset, AxisOrder order, const fft::SlabLayout& layout, Real* slab, MPI_Comm comm,
               std::size_t transpose_bytes = kTransposeBytes);

}  // namespace kolmo::io
