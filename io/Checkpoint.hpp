// Checkpoints: the spectral fields (velocity, scalars) and the few numbers needed to continue a run, written
// so that a kill at any moment leaves at least one complete checkpoint, and readable on any rank count.
//
// Contract:
// - Contents: one dataset per spectral component, named (the velocity's u_hat, v_hat, w_hat; a scalar's
//   <name>_hat, checkpoint_dataset(name)), each the global spectral array [Nx][Ny][Nz/2+1] of complex values
//   in the run's precision, stored as the compound {r, i} (h5py reads it as numpy complex); root attributes
//   time, step, dt, grid, box, viscosity, rng_state (uint64, free for the caller's random generator),
//   precision ("single"/"double"), code_version and run (the writer's identity, where the caller gives one;
//   checkpoints from before kolmo wrote it have none), and configuration (kConfigurationAttribute: the text
//   of the resolved configuration the writer ran with, its config.yaml, where the caller gives one;
//   checkpoints from before kolmo stored it have none, and read as before). The configuration is an
//   attribute, not a dataset, so that it is never taken for a field: a checkpoint's datasets are its fields
//   and nothing else.
// - Checksums: every byte is covered. The datasets are chunked (one ky plane, about 1 MiB of kx) with HDF5's
//   Fletcher32 filter on each chunk, and the file is written in the HDF5 1.10 format, whose metadata
//   (superblock, attributes, chunk index) carries checksums too; HDF5 verifies them on every read, so a
//   damaged checkpoint fails to read instead of restarting a wrong state. (Parallel HDF5 1.10.2 and newer
//   writes filtered datasets collectively, which is how kolmo writes.) Cost, 192^3 doubles to tmpfs: 2.9
//   times the write time of the unchecksummed contiguous layout on 1 rank (the filter runs at ~0.4 GB/s per
//   core), 0.8 times on 2 (each rank's chunks lie together in the file); docs/results/io_bench_cpu.log.
// - write_checkpoint() is collective over comm (the communicator the layout describes). Each rank writes its
//   kx-major spectral slab (at least layout.spectral_size() values per component, SlabLayout's order: all kx,
//   its ky planes [y_offset, y_offset + y_count), all kz). The file is written as checkpoint.h5.tmp
//   (replacing any stale one); once every rank has closed it, rank 0 renames checkpoint.h5 to
//   checkpoint.prev.h5 and the new file to checkpoint.h5. At every moment checkpoint.h5 or checkpoint.prev.h5
//   is complete. A disk without room for the new checkpoint fails before it is written into
//   (io/ParallelFile.hpp): every rank throws, and checkpoint.h5 and checkpoint.prev.h5 are left as they were.
// - read_checkpoint() is collective over its comm, which may have any number of ranks (the layout must
//   describe that communicator): each rank reads its own ky range. It checks that the file's grid equals the
//   layout's and that every dataset has the spectral shape. Precision: a checkpoint may be read in the other
//   precision; HDF5 converts the values (double -> single rounds), and the returned info says the file's
//   precision, so a caller that must refuse the change can. Box and viscosity are returned, not checked: a
//   continued run may change them on purpose. read_checkpoint_resampled() reads a file of any grid onto the
//   layout's (io/Resampling.hpp).
// - choose_restart_checkpoint() verifies a restart's checkpoint by reading every chunk once; with targets,
//   that pass reads the fields (resampled onto another grid, each field's mean square summed as it is read:
//   RestartCheckpoint::stored_mean_squares), so that a restart reads the file once.
// - Errors throw kolmo::Error on every rank, one line naming the file (and dataset).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
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
  std::string run;  // the run that wrote it (app: a random hexadecimal string), or empty: written if given
  // The YAML of the resolved configuration the writer ran with (app: its config.yaml), so that a restart
  // compares its own with the one its checkpoint was written with: written if given; read back, empty from
  // a checkpoint that stores none.
  std::string configuration;
  // Filled in from the file by read_checkpoint() and choose_restart_checkpoint(); write_checkpoint() ignores
  // them and writes the layout's grid, the Real type's precision and this build's version.
  std::array<long, 3> grid{};
  std::string precision;
  std::string code_version;
};

// The root attribute that holds CheckpointInfo::configuration.
inline constexpr char kConfigurationAttribute[] = "configuration";

inline constexpr std::array<const char*, 3> kVelocityComponents = {"u_hat", "v_hat", "w_hat"};
// The magnetic field's components (MHD), as named in field files; checkpoint_dataset gives theirs.
inline const std::array<std::string, 3> kMagneticNames = {"bx", "by", "bz"};

std::filesystem::path checkpoint_path(const std::filesystem::path& directory);           // checkpoint.h5
std::filesystem::path previous_checkpoint_path(const std::filesystem::path& directory);  // checkpoint.prev.h5

struct RestartCheckpoint {
  std::filesystem::path path;  // the checkpoint to restart from
  CheckpointInfo info;         // its attributes
  std::string note;            // empty, or one line: which checkpoint was unusable and why, which one is used
  bool read = false;           // the targets given hold its datasets (the overload with targets)
  // Dataset name -> <|q|^2> of that field as the file holds it (all its modes, Parseval), summed as the
  // verifying pass read it (or resampled it into a target), for each dataset of a file whose grid is not the
  // layout's (the overload without targets: of every file); empty otherwise. What
  // read_checkpoint_resampled's stored_mean_squares gives.
  std::map<std::string, double> stored_mean_squares;
};

// The checkpoint a restart continues from, chosen and verified before the run writes anything. Collective
// over comm; every rank gets the same answer or the same kolmo::Error.
// - explicit_file given (--checkpoint): that file, or an error saying why it cannot be used (a directory: the
//   newest checkpoint file in it or its checkpoints/ folder, to give instead; a field file of u, v, w: that
//   it serves as initial.file).
// - otherwise (--restart): checkpoint.h5 in directory if usable, else checkpoint.prev.h5 with a note. Errors:
//   neither exists, or both are unusable (one line naming both files and why).
// Usable: it opens (in parallel, and serially on rank 0: a file whose writer was killed with it open keeps
// HDF5's consistency flags, which only the serial open refuses), holds the attributes above and the datasets
// with the spectral shape of its own grid, and every chunk reads back with its checksums (each rank reads an
// even share of the ky planes, one plane at a time in pieces of at most 16 MiB, so this costs one read of the
// file and a buffer of 16 MiB per rank). As it reads a dataset it sums the dataset's mean square, which
// stored_mean_squares keeps (a restart takes the overload with targets below, which reads the fields in the
// same pass). Whether its grid and precision suit the run is the caller's to judge, from info
// (read_checkpoint refuses another grid).
RestartCheckpoint choose_restart_checkpoint(const std::filesystem::path& directory,
                                            const std::filesystem::path& explicit_file, MPI_Comm comm);

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

// Reads the named datasets (a missing one is an error naming it); other datasets of the file are ignored.
template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm);
template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const VelocityTargets<Real>& velocity, MPI_Comm comm);

// read_checkpoint for a file whose grid may differ from the layout's: its modes are placed on the layout's
// grid (io/Resampling.hpp: zero padding onto a finer grid, truncation onto a coarser one, the Nyquist modes
// as said there), every other mode zero; a file on the layout's grid reads as read_checkpoint reads it. The
// returned info holds the file's grid. The solver's 2/3 rule and projection are the caller's to apply. Each
// chunk that the layout takes modes from is read once, through a buffer of 16 MiB, or of one chunk's rows of
// one ky plane where that is more (about 1 MiB in kolmo's files).
// stored_mean_squares, where given and the file's grid is not the layout's: for each target, the mean square
// <|q|^2> of its field as the file holds it (all its modes, Parseval; summed in double), so that the caller
// can say what the new grid dropped, summed as the file is read (in the layout's precision: a double file
// for a single-precision layout rounds first); every chunk is then read once, those that hold no mode the
// layout takes too. Empty otherwise.
template <class Real>
CheckpointInfo read_checkpoint_resampled(const std::filesystem::path& path, const fft::SlabLayout& layout,
                                         const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm,
                                         std::vector<double>* stored_mean_squares = nullptr);

// choose_restart_checkpoint that reads the run's fields in the same pass that verifies a checkpoint, so that
// a restart reads the file once, not once to verify it and again to read it: where a candidate's grid is the
// layout's, each of its datasets that a target names is read into that target (this rank's slab, in Real)
// instead of only through a buffer, its checksums verified all the same; where it is another grid,
// resampled into it as read_checkpoint_resampled places it (every chunk read, its mean square summed as it
// goes). A candidate whose values so read hold a NaN or infinity (damage Fletcher-32 does not detect: a zero
// 16-bit word turned to 0xffff), in the modes the layout takes or in those it drops, is unusable, as one that
// fails its checksum. read (in the result) says that the chosen file's datasets are exactly the targets':
// the targets then hold its fields. Otherwise they hold nothing of
// use (perhaps part of a candidate found unusable), and the caller refuses the grid or the fields, or reads
// them with read_checkpoint or read_checkpoint_resampled. The layout must describe comm.
template <class Real>
RestartCheckpoint choose_restart_checkpoint(const std::filesystem::path& directory,
                                            const std::filesystem::path& explicit_file,
                                            const fft::SlabLayout& layout,
                                            const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm);

}  // namespace kolmo::io
