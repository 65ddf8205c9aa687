// Reading real fields from HDF5 files into each rank's x-slab: initial conditions, Poisson right-hand sides,
// and kolmo's own field dumps.
//
// Contract:
// - FieldReader is collective over comm (which must outlive it): every rank constructs it and calls read()
//   together. The file may come from kolmo or from any tool (h5py, ...): a dataset is a real (or integer)
//   array, stored in any precision (HDF5 converts to the caller's Real), of shape [Nx][Ny][Nz] (x slowest),
//   or [Nz][Ny][Nx] (x fastest, as kolmo's dumps are) when the file's root attribute axis_order is "z y x"
//   (io/SlabTransfer.hpp).
// - read(name, layout, slab) fills this rank's x planes [x_offset, x_offset + x_count) of the global array
// into
//   the first layout.real_size() values of slab, for any rank count.
// - Errors (kolmo::Error, every rank, one line naming the file and dataset): the file is missing or not HDF5,
//   the dataset is missing, not numeric, or its shape is not the layout's global grid.
// - info() returns the attributes kolmo writes (time, step, box, viscosity) and grid(); they are not required
//   for read(), so files without them can still serve as input, but info() throws naming the missing one.
// - box() returns the box attribute alone, or nothing when the file has none (a file from another tool).
// - dataset_grid(name) returns the grid {Nx, Ny, Nz} that a three-dimensional dataset holds, read from its
//   shape and the file's axis order (any tool's file: the shape is all it may have), or nothing for a
//   dataset that is missing or not three-dimensional (read() says which).
#pragma once

#include <mpi.h>

#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fft/SlabLayout.hpp"
#include "io/FieldFile.hpp"
#include "io/Hdf5.hpp"

namespace kolmo::io {

class FieldReader {
 public:
  FieldReader(const std::filesystem::path& path, MPI_Comm comm);

  const std::filesystem::path& path() const { return path_; }
  bool has_dataset(const std::string& name) const;
  std::vector<std::string> datasets() const;  // the datasets in the file's root group, sorted by name
  FieldInfo info() const;
  std::optional<std::array<double, 3>> box() const;
  std::array<long, 3> grid() const;
  std::optional<std::array<long, 3>> dataset_grid(const std::string& name) const;
  std::string precision() const;  // "single" or "double", from the attribute

  template <class Real>
  void read(const std::string& name, const fft::SlabLayout& layout, std::span<Real> slab) const;

 private:
  std::filesystem::path path_;
  MPI_Comm comm_;
  File file_;
};

// One dataset, for callers that need only one.
template <class Real>
void read_field(const std::filesystem::path& path, const std::string& name, const fft::SlabLayout& layout,
                std::span<Real> slab, MPI_Comm comm) {
  FieldReader(path, comm).read(name, layout, slab);
}

}  // namespace kolmo::io
