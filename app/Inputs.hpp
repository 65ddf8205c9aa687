// The input files of a run, read and checked before anything is written: the initial velocity file, the
// restart checkpoint and the Poisson right-hand side (kolmo check is a run that stops before writing).
//
// Contract:
// - Every function is collective over comm; the layout must describe comm: the FFT's (SlabFFT::layout(),
//   whose fft.spectral_split it follows).
// - Every problem throws kolmo::Error on every rank, one line naming the configuration key or command-line
//   option, the file and the dataset: no such file, not HDF5, a missing dataset, a shape or grid other than
//   grid.n, an initial file whose box attribute (absent in files from other tools) is not grid.box, values
//   that are NaN or infinite, a Poisson right-hand side whose mean the problem cannot take.
// - read_initial_file: initial.file is a kolmo field file (datasets u, v, w of shape grid.n, any real type)
//   or a checkpoint (u_hat, v_hat, w_hat) of any grid: the rank's slabs of whichever it holds, a checkpoint's
//   modes resampled onto grid.n where its grid differs (io/Resampling.hpp: zero padding onto a finer grid,
//   truncation onto a coarser one), which `resampled` then says (one clause: "initial.file: FILE, grid [32,
//   32, 32] -> [64, 64, 64]"). Field files are not interpolated: another grid is refused, naming both keys.
// - read_initial_scalars: for each scalar (app/FlowFromConfig.hpp's order) whose initial.type is file, its
//   initial.dataset of a field file or its <name>_hat of a checkpoint, whichever the file holds; nothing for
//   the others.
// - read_restart: the checkpoint --checkpoint names, or for --restart checkpoint.h5 in the output directory's
//   checkpoints/, or checkpoint.prev.h5 when checkpoint.h5 is missing, damaged or fails its checksums (note
//   then says which file was bad, why, and which is used: io::choose_restart_checkpoint, whose pass that
//   verifies the file also reads the fields, resampled onto another grid, so it is read once); it must hold
//   every field of the run (the velocity, each scalar's <name>_hat, and with MHD bx_hat, by_hat, bz_hat) and
//   no other. Its grid must be grid.n where the run continues in its own output directory (its series and
//   spectra are of that grid); a checkpoint named by --checkpoint for a run in another directory may hold
//   another grid: its modes are resampled onto grid.n as for initial files, resampled is set, and
//   physics_changes says "grid.n [32, 32, 32] -> [64, 64, 64] (modes resampled)". The caller then applies the
//   2/3 rule of the new grid (a coarser grid keeps modes its rule drops). Resampled fields come with what the
//   file held of them (stored_energy, stored_variance: io::read_checkpoint_resampled; stored_mean_squares:
//   summed by io::choose_restart_checkpoint's verifying pass as it resamples them),
//   for the run to say what a coarser grid removed.
//   physics_changes lists what the configuration changes against it, one clause per key ("physics.viscosity
//   0.01 -> 0.005"), from the checkpoint's viscosity, box and precision and, from the configuration the
//   checkpoint was written with (read as a run from a checkpoint reads its own: its initial files need not
//   exist), the forcing, rotation, integrator and time step, each scalar's diffusivity or schmidt and
//   mean_gradient, the buoyancy's n2, prandtl and gravity, and b's resistivity or prandtl, background and
//   forcing: a restart may change them, and says so. That configuration is the one the checkpoint stores
//   (io/Checkpoint.hpp), whichever directory it is in and whichever of checkpoint.h5 and checkpoint.prev.h5
//   it is; a checkpoint from before kolmo stored it (or whose stored text does not load: another version)
//   is compared with the run's config.yaml where the run continues in its own directory (the latest leg's),
//   and elsewhere on its attributes alone.
// - changes_text(physics_changes): the one line that says them, "since the checkpoint: <clause>, <clause>
//   (the run continues with the new values)", which the run's header and kolmo check print; empty for none.
// - require_finite(values, where, comm): refuses, on every rank, values holding NaN or infinities ("<where>:
//   N values are NaN or infinite"); real and complex values of either precision.
// - read_poisson_rhs: poisson.rhs.dataset of poisson.rhs.file. With poisson.subtract_mean the mean is
//   subtracted (and returned); otherwise, for poisson.shift = 0, a mean beyond round-off
//   (solver::Poisson::mean_tolerance) is refused.
#pragma once

#include <mpi.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "app/Runs.hpp"
#include "core/Complex.hpp"
#include "fft/SlabLayout.hpp"
#include "io/Checkpoint.hpp"
#include "io/Config.hpp"

namespace kolmo::app {

template <class Real>
struct InitialVelocity {
  bool spectral = false;                            // from a checkpoint
  std::array<std::vector<Real>, 3> real;            // u, v, w: the rank's x-slab (a field file)
  std::array<std::vector<Complex<Real>>, 3> modes;  // u_hat, v_hat, w_hat: the rank's spectral slab
  std::string resampled;                            // empty, or which file on which grid was resampled
  double stored_energy = 0;  // where resampled: 1/2 <|q|^2> as the file holds it, all its modes
};

template <class Real>
InitialVelocity<Real> read_initial_file(const io::RunConfig& config, const fft::SlabLayout& layout,
                                        MPI_Comm comm);

// physics.magnetic.initial.file: b from a field file (bx, by, bz) or a checkpoint (bx_hat, by_hat, bz_hat);
// empty unless that is b's initial type.
template <class Real>
InitialVelocity<Real> read_initial_magnetic(const io::RunConfig& config, const fft::SlabLayout& layout,
                                            MPI_Comm comm);

template <class Real>
struct InitialScalar {
  bool given = false;                // initial.type is file
  bool spectral = false;             // from a checkpoint
  std::vector<Real> real;            // the rank's x-slab (a field file)
  std::vector<Complex<Real>> modes;  // the rank's spectral slab (a checkpoint)
  std::string resampled;             // as InitialVelocity's
  double stored_variance = 0;        // where resampled: <q^2> as the file holds it, all its modes
};

template <class Real>
std::vector<InitialScalar<Real>> read_initial_scalars(const io::RunConfig& config,
                                                      const fft::SlabLayout& layout, MPI_Comm comm);

template <class Real>
struct RestartState {
  std::filesystem::path path;
  io::CheckpointInfo info;
  std::array<std::vector<Complex<Real>>, 3> modes;
  std::vector<std::vector<Complex<Real>>> scalar_modes;    // in app/FlowFromConfig.hpp's order
  std::vector<std::vector<Complex<Real>>> magnetic_modes;  // MHD: bx_hat, by_hat, bz_hat; empty otherwise
  std::vector<std::string> physics_changes;
  std::string note;        // empty, or one line: the newest checkpoint was unusable, the previous one is used
  bool resampled = false;  // the checkpoint's grid was not grid.n
  // Where resampled: <|q|^2> of each field (the velocity's components, the scalars, b's) as the checkpoint
  // holds it, all its modes.
  std::vector<double> stored_mean_squares;
};

template <class Real>
RestartState<Real> read_restart(const io::RunConfig& config, const RunOptions& options,
                                const fft::SlabLayout& layout, MPI_Comm comm);

std::string changes_text(const std::vector<std::string>& physics_changes);

template <class Real>
std::vector<Real> read_poisson_rhs(const io::RunConfig& config, const fft::SlabLayout& layout, MPI_Comm comm,
                                   double& subtracted_mean);

template <class T>
void require_finite(const std::vector<T>& values, const std::string& where, MPI_Comm comm);

}  // namespace kolmo::app
