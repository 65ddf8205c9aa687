// Real-space field dumps: one HDF5 file per dump, readable by ParaView/VisIt through an XDMF file beside it.
//
// Contract:
// - write_field_file() is collective over comm (the communicator the layout describes). It writes
//   <directory>/fields_<step, 6 digits>.h5 (making <directory> where it is missing) with one dataset per
//   named field, each the global real array stored x fastest, [Nz][Ny][Nx] (root attribute axis_order =
//   "z y x"; io/SlabTransfer.hpp), in the run's precision (float or double): in h5py, f["u"][k, j, i] is u
//   at x_i, y_j, z_k. Rank r writes its x planes [x_offset, x_offset + x_count) from its slab (at least
//   layout.real_size() values of host memory, laid out as SlabLayout's real slab). Root attributes: time,
//   step, grid (3 ints, Nx Ny Nz), box (3 doubles, Lx Ly Lz), viscosity, code_version, precision ("single"
//   or "double"), axis_order; and shift (double) where FieldInfo has one: a Poisson run's lambda
//   (poisson.shift), so that the file says which equation, lap(phi) - shift phi = f, its phi solves.
// - Beside it, fields_<step>.xmf describes the datasets on a 3DCoRectMesh (origin 0, spacing L/N), so that
//   ParaView and VisIt show kolmo's x, y, z along their X, Y, Z axes (io/Xdmf.hpp).
// - Datasets are contiguous and carry no checksums: HDF5's Fletcher32 filter on one-plane chunks made a
//   192^3 dump of u, v, w 2.7 times slower to write on 1 rank and 1.7 times on 2 (to tmpfs, where the
//   filter's ~0.4 GB/s per core shows; tools/io_bench.cpp, docs/results/io_bench_cpu.log), a price paid at
//   every dump for files a restart never reads. Checkpoints, which a restart trusts, are checksummed.
// - Both files are written under a temporary name (".tmp" appended) and renamed once both are complete, so a
//   dump is whole or absent. An existing dump of the same step is replaced.
// - Errors throw kolmo::Error on every rank with one line naming the file (and dataset). A disk without room
//   for the dump fails before anything is written into it (io/ParallelFile.hpp); a failed dump leaves no
//   temporary file and every earlier file as it was.
#pragma once

#include <mpi.h>

#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fft/SlabLayout.hpp"

namespace kolmo::io {

// What a field dump records about the run besides the fields themselves (the grid comes from the layout).
struct FieldInfo {
  double time = 0;
  long step = 0;
  std::array<double, 3> box{};
  double viscosity = 0;
  std::optional<double> shift{};  // a Poisson run's Helmholtz shift lambda (attribute shift); none otherwise
};

template <class Real>
struct NamedSlab {
  std::string name;            // dataset name: u, v, w, vorticity_x, pressure, ...
  std::span<const Real> slab;  // this rank's real slab
};

std::string field_file_name(long step);  // "fields_000123.h5"

// Returns the path of the written .h5 file.
template <class Real>
std::filesystem::path write_field_file(const std::filesystem::path& directory, const FieldInfo& info,
                                       const fft::SlabLayout& layout,
                                       const std::vector<NamedSlab<Real>>& fields, MPI_Comm comm);

}  // namespace kolmo::io
