// kolmo: the command users run.
//   kolmo run CONFIG.yaml [--set key.path=value ...] [--restart | --checkpoint FILE]
//   kolmo check CONFIG.yaml [--set ...]     validate and print the resolved configuration
//   kolmo info                              version, backends, GPUs, ranks, precisions
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "app/Runs.hpp"
#include "app/StopRequest.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "fft/Exchange.hpp"
#include "io/Config.hpp"

namespace {

using namespace kolmo;

void print_info(int ranks) {
  std::printf("kolmo %s\n", KOLMO_VERSION);
  std::printf("  backends:   host (FFTW + OpenMP)%s\n",
              cuda_compiled() ? ", cuda (cuFFT)" : " (built without CUDA)");
  const int gpus = cuda_device_count();
  std::printf("  GPUs seen:  %d%s\n", gpus, cuda_compiled() ? "" : " (CUDA not built)");
  for (int g = 0; g < gpus; ++g)
    std::printf("    GPU %d: %s\n", g, Device::create(Backend::cuda, g)->name().c_str());
  std::printf("  MPI ranks:  %d\n", ranks);
  std::printf("  precision:  single, double\n");
  std::printf("  exchanges:  isend_irecv, alltoallv%s\n", fft::nccl_compiled() ? ", nccl" : "");
  std::printf("  automatic backend here: %s\n", to_string(Device::automatic()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  CLI::App app{"kolmo: pseudo-spectral Navier-Stokes and Poisson solver in periodic boxes"};
  app.require_subcommand(1);
  std::string config_path;
  std::vector<std::string> overrides;
  app::RunOptions options;
  auto* run = app.add_subcommand("run", "run a configuration");
  run->add_option("config", config_path, "the YAML configuration")->required();
  run->add_option("--set", overrides, "override a key: --set time.t_end=2 (repeatable)");
  run->add_flag("--restart", options.restart, "continue from the newest checkpoint in the output directory");
  run->add_option("--checkpoint", options.checkpoint, "continue from this checkpoint file");
  auto* check = app.add_subcommand("check", "validate a configuration and print it with every default");
  check->add_option("config", config_path, "the YAML configuration")->required();
  check->add_option("--set", overrides, "override a key (repeatable)");
  auto* info = app.add_subcommand("info", "version, backends, GPUs and ranks");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0 ? 1 : 0);
    MPI_Finalize();
    return status;
  }

  if (info->parsed()) {
    if (rank == 0) print_info(ranks);
    MPI_Finalize();
    return 0;
  }

  // Configuration problems are found identically on every rank, before anything is written: rank 0 says so
  // once and all ranks exit together.
  io::RunConfig config;
  try {
    config = io::load_config(config_path, overrides);
    io::check_ranks(config, ranks);
    options.config_text = io::to_yaml(config);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "kolmo: %s\n", e.what());
    MPI_Finalize();
    return 1;
  }
  if (check->parsed()) {
    if (rank == 0)
      std::printf("%s# %s: configuration OK for %d rank(s)\n", options.config_text.c_str(),
                  config_path.c_str(), ranks);
    MPI_Finalize();
    return 0;
  }

  share_node_cores(MPI_COMM_WORLD);
  app::install_stop_handlers();
  int status = 0;
  try {
    const bool single = config.precision == io::Precision::float32;
    if (config.problem == io::Problem::poisson)
      status = single ? app::run_poisson<float>(config, options, MPI_COMM_WORLD)
                      : app::run_poisson<double>(config, options, MPI_COMM_WORLD);
    else
      status = single ? app::run_navier_stokes<float>(config, options, MPI_COMM_WORLD)
                      : app::run_navier_stokes<double>(config, options, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    // An error may reach one rank only while the others wait in a collective: each rank that fails says so,
    // and with several ranks the job is ended as a whole.
    if (ranks == 1) {
      std::fprintf(stderr, "kolmo: %s\n", e.what());
      MPI_Finalize();
      return 1;
    }
    std::fprintf(stderr, "kolmo: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
