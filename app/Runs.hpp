// The two kinds of run the kolmo command performs, on the backend and precision the configuration names.
//
// Contract: collective over comm. The configuration has been loaded and checked (io::load_config,
// io::check_ranks) and the memory estimate found to fit before. Every input (initial file, restart
// checkpoint, right-hand side) is read and checked, and the initial state found sound (app/BlowUp.hpp),
// before anything is written: a refused run leaves no trace. A dry run (kolmo check) stops there. Output goes
// to config.output.directory; an earlier run's output there is refused unless output.overwrite (or a restart,
// which continues its own run: RunOptions::continues_in). The run keeps <dir>/status current
// (app/RunStatus.hpp). Errors throw kolmo::Error. Returns the process exit status (0, or 130 when stopped by
// a signal after checkpointing).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "app/MemoryEstimate.hpp"
#include "fft/SlabFFT.hpp"
#include "io/Config.hpp"
#include "io/OutputDirectory.hpp"

namespace kolmo::app {

struct RunOptions {
  bool restart = false;       // continue from the newest checkpoint in the output directory
  std::string checkpoint;     // or from this checkpoint file
  std::string config_text;    // the resolved configuration, saved as config.yaml and in every checkpoint
  std::string memory_report;  // the memory estimate per rank and what is available, for the header
  std::string split_report;   // fft.spectral_split as settled, and why (app::choose_spectral_split)
  bool dry_run = false;       // kolmo check: everything a run does before it writes, then return 0
  // kolmo check: takes, on rank 0, each line its dry run has to say beyond its checks (what changed since the
  // checkpoint, which a run's header says), for the summary printed after the configuration.
  std::function<void(const std::string&)> report;

  bool from_checkpoint() const { return restart || !checkpoint.empty(); }
  // Whether the run continues the one whose output is in directory: --restart, or --checkpoint naming a file
  // of directory/checkpoints/. Only then is that output kept and its series cut at the checkpoint; a
  // checkpoint of another run starts a new one there, guarded like any new run (output.overwrite).
  bool continues_in(const std::string& directory) const;
};

// The FFT options a configuration asks for (fft.*), for a run over comm.
inline fft::FftOptions fft_options(const io::RunConfig& config, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  fft::FftOptions options;
  options.exchange = config.fft.exchange;
  options.cuda_aware_mpi = config.fft.cuda_aware_mpi;
  options.exchange_pieces = static_cast<int>(config.fft.exchange_pieces);
  options.spectral_split = spectral_split(config, ranks);
  options.fftw_planning = config.fft.planning;
  options.fftw_wisdom_directory = fft::default_cache_directory();
  options.route_choices_directory = fft::default_cache_directory();
  return options;
}

// The subfolders of the output directory that the configuration's run writes into: a Poisson run writes no
// checkpoints.
inline io::Subfolders output_subfolders(const io::RunConfig& config) {
  return config.problem == io::Problem::poisson ? io::Subfolders::fields
                                                : io::Subfolders::fields_and_checkpoints;
}

template <class Real>
int run_navier_stokes(const io::RunConfig& config, const RunOptions& options, std::shared_ptr<Device> device,
                      MPI_Comm comm);
template <class Real>
int run_poisson(const io::RunConfig& config, const RunOptions& options, std::shared_ptr<Device> device,
                MPI_Comm comm);

}  // namespace kolmo::app
