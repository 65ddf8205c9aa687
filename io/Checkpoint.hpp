// Checkpoints: the spectral fields (velocity, scalars) and the few numbers needed to continue a run, written
// so that a kill at any moment leaves at least one complete checkpoint, and readable on any rank count.
//
// Contract:
// - Contents: one dataset per spectral component, named (the velocity's u_hat, v_hat, w_hat; a scalar's
//   <name>_hat, checkpoint_dataset(name)), each the global spectral array [Nx][Ny][Nz/2+1] of complex values
//   in the run's precision, stored as the compound {r, i} (h5py reads it as numpy complex); root attributes
//   time, step, dt, grid, box, viscosity, rng_state (uint64, free for the caller's random generator),
//   precision ("single"/"double") and code_version.
// - write_checkpoint() is collective over comm (the communicator the layout describes). Each rank writes its
//   kx-major spectral slab (at least layout.spectral_size() values per component, SlabLayout's order: all kx,
//   its ky planes [y_offset, y_offset + y_count), all kz). The file is written as checkpoint.h5.tmp
//   (replacing any stale one); once every rank has closed it, rank 0 renames checkpoint.h5 to
//   checkpoint.prev.h5 and the new file to checkpoint.h5. At every moment checkpoint.h5 or checkpoint.prev.h5
//   is complete; latest_checkpoint() finds the newest complete one.
// - read_checkpoint() is collective over its comm, which may have any number of ranks (the layout must
// describe
//   that communicator): each rank reads its own ky range. It checks that the file's grid equals the layout's
//   and that every dataset has the spectral shape. Precision: a checkpoint may be read in the other
//   precision; HDF5 converts the values (double -> single rounds), and the returned info says the file's
//   precision, so a caller that must refuse the change can. Box and viscosity are returned, not checked: a
//   continued run may change them on purpose.
// - Errors throw kolmo::Error on every rank, one line naming the file (and dataset).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/Complex.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::io {

struct CheckpointInfo {
  double time = 0;
  long step = 0;
  double dt = 0;
  std::array<double, 3> box{};
  double viscosity = 0;
  std::uint64_t rng_state = 0;
  // Filled in by read_checkpoint() / read_checkpoint_info() from the file; write_checkpoint() ignores them
  // and writes the layout's grid, the Real type's precision and this build's version.
  std::array<long, 3> grid{};
  std::string precision;
  std::string code_version;
};

inline constexpr std::array<const char*, 3> kVelocityComponents = {"u_hat", "v_hat", "w_hat"};

std::filesystem::path checkpoint_path(const std::filesystem::path& directory);           // checkpoint.h5
std::filesystem::path previous_checkpoint_path(const std::filesystem::path& directory);  // checkpoint.prev.h5

// The newest complete checkpoint in directory (checkpoint.h5, else checkpoint.prev.h5); throws if there is
// none. Collective: rank 0 looks, every rank gets the answer.
std::filesystem::path latest_checkpoint(const std::filesystem::path& directory, MPI_Comm comm);

// The dataset of a scalar field's spectral coefficients: "<name>_hat".
inline std::string checkpoint_dataset(const std::string& field) {
  return field + "_hat";
}

// One named spectral dataset: this rank's slab of it, to write (SpectralDataset) or to read into
// (SpectralTarget).
template <class Real>
struct SpectralDataset {
  std::string name;
  std::span<const Complex<Real>> modes;
};
template <class Real>
struct SpectralTarget {
  std::string name;
  std::span<Complex<Real>> modes;
};
// The velocity's three components alone (u_hat, v_hat, w_hat).
template <class Real>
using VelocityModes = std::array<std::span<const Complex<Real>>, 3>;
template <class Real>
using VelocityTargets = std::array<std::span<Complex<Real>>, 3>;

// Returns the path of the new checkpoint.h5. The datasets' names must differ.
template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout,
                                       const std::vector<SpectralDataset<Real>>& datasets, MPI_Comm comm);
template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout, const VelocityModes<Real>& velocity,
                                       MPI_Comm comm);

// The attributes only (for choosing a grid or precision before allocating). Collective over comm.
CheckpointInfo read_checkpoint_info(const std::filesystem::path& path, MPI_Comm comm);

// Reads the named datasets (a missing one is an error naming it); other datasets of the file are ignored.
template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm);
template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const VelocityTargets<Real>& velocity, MPI_Comm comm);

}  // namespace kolmo::io
