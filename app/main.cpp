// kolmo: the command users run.
//   kolmo run CONFIG.yaml [--set key.path=value]... [--restart | --checkpoint FILE]
//   kolmo check CONFIG.yaml [--set key.path=value]... [--restart | --checkpoint FILE]
//                                           everything a run does before it writes (configuration, memory,
//                                           input files, initial state); print the resolved configuration
//   kolmo info                              version, backends, GPUs, ranks, precisions, exchanges
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "app/FlowFromConfig.hpp"
#include "app/MemoryEstimate.hpp"
#include "app/Runs.hpp"
#include "app/StopRequest.hpp"
#include "core/BuildIdentity.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "fft/Exchange.hpp"
#include "io/Collective.hpp"
#include "io/Config.hpp"
#include "io/OutputDirectory.hpp"

namespace {

using namespace kolmo;

// The files a run reads, by key (a run from a checkpoint reads none of them).
std::vector<std::pair<std::string, std::string>> input_files(const io::RunConfig& config,
                                                             const app::RunOptions& options) {
  std::vector<std::pair<std::string, std::string>> files;
  if (options.from_checkpoint()) return files;
  if (config.problem == io::Problem::poisson) {
    if (config.poisson.rhs.type == io::RhsType::file)
      files.emplace_back("poisson.rhs.file", config.poisson.rhs.file);
    return files;
  }
  if (config.initial.type == io::InitialType::file) files.emplace_back("initial.file", config.initial.file);
  for (const auto& scalar : app::scalar_fields(config))  // the scalars' and b's
    if (scalar.initial.type == io::ScalarInitialType::file)
      files.emplace_back(scalar.key + ".initial.file", scalar.initial.file);
  const auto& magnetic = config.physics.magnetic;
  if (magnetic.type == io::MagneticType::mhd && magnetic.initial.type == io::MagneticInitialType::file)
    files.emplace_back("physics.magnetic.initial.file", magnetic.initial.file);
  return files;
}

// The output directory as the run will find it, checked with the configuration, before anything is written
// and with one message (io::prepare_output_directory checks again, collectively, when the run starts): one
// it can create or write, holding no earlier run's output unless the run continues that one or may overwrite,
// and then none that the run reads: output.overwrite removes it before the first step (the state read, the
// file gone, or replaced by the new run's dump of its step), nor, for a new run, the configuration file
// config_path as its config.yaml.
void check_output_directory(const std::string& config_path, const io::RunConfig& config,
                            const app::RunOptions& options) {
  const std::string& directory = config.output.directory;
  const std::string sources = io::sources_text(config, {"output.directory"});
  io::on_root(MPI_COMM_WORLD, [&] {
    if (const std::string problem = io::output_directory_problem(directory, app::output_subfolders(config));
        !problem.empty())
      throw Error("output.directory: " + problem + sources);
    if (options.continues_in(directory)) return;  // rewrites the config.yaml it wrote, with any --set
    // A new run writes its resolved configuration to <dir>/config.yaml: a configuration file of that name
    // there, the one the run reads, would be replaced, losing its comments and the values --set changed.
    const auto written = io::output_paths(directory).config;
    std::error_code error;
    if (std::filesystem::equivalent(config_path, written, error))
      throw Error("output.directory: the run writes its resolved configuration to " + written.string() +
                  ", which is " + config_path +
                  ", the configuration file it reads: rename that file or choose another directory" +
                  sources);
    if (config.output.overwrite) {
      const auto earlier = io::kolmo_output_files(directory);
      for (const auto& [key, file] : input_files(config, options))
        for (const auto& output : earlier) {
          if (std::filesystem::equivalent(file, std::filesystem::path(directory) / output, error))
            throw Error(key + ": " + file + " is earlier output of output.directory " + directory +
                        ", which output.overwrite: true removes before the run: copy it elsewhere first" +
                        io::sources_text(config, {key, "output.directory", "output.overwrite"}));
        }
      return;
    }
    // A Poisson run writes no checkpoint, so --restart, which it refuses, is no way out for it.
    if (const std::string earlier = io::earlier_output(directory); !earlier.empty()) {
      std::string message = "output.directory: " + earlier;
      message += ": choose another directory, set output.overwrite: true";
      if (config.problem != io::Problem::poisson) message += ", or continue it with --restart";
      throw Error(message + io::sources_text(config, {"output.directory", "output.overwrite"}));
    }
  });
}

// An MPMD launch (mpiexec -n 1 kolmo run a.yaml : -n 1 kolmo check a.yaml) gives each rank a command line of
// its own. Ranks that run different commands, or start from different states, would wait in each other's
// collectives or write a mixture, so they compare what changes the run beyond the configuration (the command,
// --restart, --checkpoint: the configuration itself is compared once read) with rank 0's, and all refuse
// together.
void check_same_command(const std::string& command, MPI_Comm comm) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  const std::string root = io::text_of_root(command, comm);
  io::agree(comm, command == root ? std::string()
                                  : "command line: rank " + std::to_string(rank) + " was started as 'kolmo " +
                                        command + "' and rank 0 as 'kolmo " + root +
                                        "': every rank of a run takes the same command and options");
}

// --help (and whatever else CLI11 answers by printing and succeeding) on some ranks of an MPMD launch only
// would have those ranks print and exit while the others wait for them in the next collective. So the ranks
// compare whether they were asked with rank 0 and refuse together where that differs. Returns whether every
// rank was asked (then rank 0 prints the help once and all succeed).
bool help_on_every_rank(bool asked, MPI_Comm comm) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  int root_asked = asked ? 1 : 0;
  KOLMO_CHECK_MPI(MPI_Bcast(&root_asked, 1, MPI_INT, 0, comm));
  const auto with = [](bool given) { return std::string(given ? "with --help" : "without --help"); };
  io::agree(comm, asked == (root_asked != 0)
                      ? std::string()
                      : "command line: rank " + std::to_string(rank) + " was started " + with(asked) +
                            " and rank 0 " + with(root_asked != 0) +
                            ": give --help to every rank of a launch or to none");
  return asked;
}

// Each rank reads its configuration itself: an MPMD launch (mpiexec -n 1 kolmo run a.yaml : -n 1 kolmo run
// b.yaml), --set given to some ranks only, or one path whose copies differ between nodes give ranks
// configurations of their own, and ranks that disagree on the grid or the physics hang in the transforms or
// write a mixture. So every rank compares its resolved configuration with rank 0's, before anything is
// written, and all refuse together, naming the first key that differs.
void check_same_configuration(const io::RunConfig& config, const std::string& path, MPI_Comm comm) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  std::string keys;
  for (const std::string& line : io::resolved_keys(config)) keys += line + "\n";
  const std::string root_keys = io::text_of_root(keys, comm), root_path = io::text_of_root(path, comm);
  std::string problem;
  if (keys != root_keys) {
    const auto differs = static_cast<std::size_t>(
        std::mismatch(keys.begin(), keys.end(), root_keys.begin(), root_keys.end()).first - keys.begin());
    const std::size_t newline = std::string_view(keys).substr(0, differs).rfind('\n');
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;  // of the line that differs
    const auto line = [start](const std::string& text) {
      return text.substr(start, text.find('\n', start) - start);
    };
    const std::string sources = path == root_path
                                    ? path + " on both: copies that differ, or --set on some ranks"
                                    : path + " vs " + root_path;
    problem = "config: rank " + std::to_string(rank) + " read a different configuration than rank 0 (" +
              sources + "): " + line(keys) + " on rank " + std::to_string(rank) + ", " + line(root_keys) +
              " on rank 0";
  }
  io::agree(comm, problem);
}

// Whether every rank of comm reached this call within a few seconds (all failed together). comm is used for
// nothing else, so the non-blocking barrier cannot meet another collective.
bool all_ranks_failed(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(comm, &request) != MPI_SUCCESS) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done != 0;
}

// The words of the command line that no option took (CLI11's extras), in the order given, for one line.
// With a --set on the line, a stray word that is no option is most likely a second value after one --set,
// or a piece of an unquoted value the shell split at its spaces: the line says so, and names the
// configuration a stray key=value took the place of (--set a=1 b=2 CONFIG.yaml).
std::string unexpected_arguments(int argc, char** argv, const std::vector<std::string>& extras,
                                 const std::string& config_path) {
  std::vector<std::string> stray;
  bool has_set = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    has_set = has_set || word == "--set" || word.starts_with("--set=");
    if (std::find(extras.begin(), extras.end(), word) != extras.end() &&
        std::find(stray.begin(), stray.end(), word) == stray.end())
      stray.push_back(word);
  }
  std::string text = stray.size() == 1 ? "unexpected argument " : "unexpected arguments ";
  for (std::size_t i = 0; i < stray.size(); ++i) text += (i == 0 ? "'" : ", '") + stray[i] + "'";
  if (config_path.find('=') != std::string::npos)
    text += " ('" + config_path + "' was taken as the configuration file)";
  const bool a_value =
      std::any_of(stray.begin(), stray.end(), [](const auto& word) { return word[0] != '-'; });
  if (has_set && a_value)
    return text +
           ": each --set takes one key=value (repeat --set for more; quote a value with spaces: --set " +
           "'physics.forcing={type: band, power: 0.1}')";
  return text + " (kolmo --help lists the options)";
}

void print_info(int ranks) {
  std::printf("kolmo %s\n", build_identity().c_str());
  std::printf("  backends:   host (FFTW + OpenMP)%s\n",
              cuda_compiled() ? ", cuda (cuFFT)" : " (built without CUDA)");
  const int gpus = cuda_device_count();
  std::printf("  GPUs seen:  %d%s\n", gpus, cuda_compiled() ? "" : " (CUDA not built)");
  for (int g = 0; g < gpus; ++g)
    std::printf("    GPU %d: %s\n", g, Device::create(Backend::cuda, g)->name().c_str());
  std::printf("  MPI ranks:  %d\n", ranks);
  std::printf("  precision:  single, double\n");
  std::printf("  exchanges:  isend_irecv, alltoallv%s%s\n", fft::nccl_compiled() ? ", nccl" : "",
              cuda_compiled() ? ", p2p" : "");
  std::printf("  automatic backend here: %s\n", to_string(Device::automatic()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const MpiRuntime mpi(argc, argv);
  const int rank = mpi.rank(), ranks = mpi.size();

  CLI::App app{"kolmo: pseudo-spectral Navier-Stokes and Poisson solver in periodic boxes"};
  app.require_subcommand(1);
  std::string config_path;
  std::vector<std::string> overrides;
  app::RunOptions options;
  // One KEY=VALUE per --set: CLI11 lets a vector option take every word up to the next option, so a stray
  // word (--set a=1 b=2, or an unquoted value the shell split at its spaces) would be applied as an override
  // of its own, or fail as a piece of YAML; one value each makes it an unexpected argument, named.
  const auto add_set = [&](CLI::App* command) {
    command->add_option("--set", overrides, "override one key: --set time.t_end=2 (repeat --set for more)")
        ->allow_extra_args(false);
  };
  auto* run = app.add_subcommand("run", "run a configuration");
  run->add_option("config", config_path, "the YAML configuration")->required();
  add_set(run);
  run->add_flag("--restart", options.restart, "continue from the newest checkpoint in the output directory");
  auto* run_checkpoint =
      run->add_option("--checkpoint", options.checkpoint, "continue from this checkpoint file");
  auto* check = app.add_subcommand("check",
                                   "a run's checks before it writes (configuration, memory, input files, "
                                   "initial state); print the configuration with every default");
  check->add_option("config", config_path, "the YAML configuration")->required();
  add_set(check);
  check->add_flag("--restart", options.restart, "also check the newest checkpoint of the output directory");
  auto* check_checkpoint =
      check->add_option("--checkpoint", options.checkpoint, "also check this checkpoint file");
  auto* info = app.add_subcommand("info", "version, backends, GPUs, ranks, precisions and exchanges");

  std::string parse_error;
  std::exception_ptr help;  // --help: printed once the ranks agree that every one of them was asked
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds, once the ranks agree that all of them were asked; a mistake is one line and
    // status 1, like every other refusal (CLI11's own codes, 106, 109, ..., mean nothing to a job script).
    // A mistyped command, or an option before the command, reaches CLI11 as a missing command: name the word.
    // A stray word is named in full, and where a --set was given with the likely cause (one value per --set).
    const bool no_command = argc > 1 && app.get_subcommands().empty();
    if (e.get_exit_code() == 0)
      help = std::current_exception();
    else if (no_command)
      parse_error = std::string("unknown ") +
                    (argv[1][0] == '-' ? "option, before any command," : "command") + " '" + argv[1] +
                    "': kolmo run, check or info (kolmo --help)";
    else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
      parse_error = unexpected_arguments(argc, argv, app.remaining(true), config_path);
    else
      parse_error = std::string(e.what()) + " (kolmo --help lists the options)";
  }
  // A mistake on some ranks only (an MPMD launch) stops them all; so do --help and commands that differ
  // between ranks.
  try {
    io::agree(MPI_COMM_WORLD, parse_error);
    if (help_on_every_rank(help != nullptr, MPI_COMM_WORLD)) std::rethrow_exception(help);
    std::string command = app.get_subcommands().front()->get_name();
    if (options.restart) command += " --restart";
    if (!options.checkpoint.empty()) command += " --checkpoint " + options.checkpoint;
    check_same_command(command, MPI_COMM_WORLD);
  } catch (const CLI::ParseError& e) {  // --help on every rank: rank 0 prints it once
    return rank == 0 ? app.exit(e) : 0;
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "kolmo: %s\n", e.what());
    return 1;
  }

  if (info->parsed()) {
    if (rank == 0) print_info(ranks);
    return 0;
  }

  // Configuration problems are found before anything is written, and the ranks agree on them: rank 0 says so
  // once and all ranks exit together.
  io::RunConfig config;
  // A run from a checkpoint reads no initial condition: its files may be gone, its fields on another grid
  // (and its memory holds the checkpoint's fields instead).
  const io::StartFrom start =
      options.from_checkpoint() ? io::StartFrom::checkpoint : io::StartFrom::initial_condition;
  try {
    // Each rank reads its own file (the same, or one of an MPMD launch), which may fail on some ranks only.
    io::on_every_rank(MPI_COMM_WORLD, [&] {
      // An empty --checkpoint (an unset shell variable: --checkpoint "$CHECKPOINT") names no file; taken as
      // no option, the run would start anew from the initial condition, and output.overwrite: true would
      // remove the run it was meant to continue.
      if (run_checkpoint->count() + check_checkpoint->count() > 0 && options.checkpoint.empty())
        throw Error("--checkpoint: an empty file name: name the checkpoint to continue from");
      config = io::load_config(config_path, overrides, start);
    });
    check_same_configuration(config, config_path, MPI_COMM_WORLD);
    io::check_ranks(config, ranks);
    options.config_text = io::to_yaml(config);
    if (config.problem == io::Problem::poisson && options.from_checkpoint())
      throw Error(std::string(options.restart ? "--restart" : "--checkpoint") +
                  ": a Poisson problem is solved in one go and writes no checkpoint to continue from");
    check_output_directory(config_path, config, options);  // kolmo check says what the run would refuse
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "kolmo: %s\n", e.what());
    return 1;
  }

  share_node_cores(MPI_COMM_WORLD);
  const Communicator error_comm(MPI_COMM_WORLD);
  int status = 0;
  std::string report;  // kolmo check: what its dry run said beyond its checks, comment lines
  try {
    // Before anything is allocated or written: the memory the run needs against what there is. The run then
    // reads and checks its inputs and initial state before it writes; kolmo check does all that and stops.
    // backend: cuda where there is no GPU, or no CUDA: where it was given opens the message (it had named the
    // key only; found by fuzzing the configuration).
    auto device = [&] {
      try {
        return Device::create(io::resolve(config.backend), node_rank(MPI_COMM_WORLD));
      } catch (const Error& error) {
        const auto given = config.sources.where.find("backend");
        if (given == config.sources.where.end()) throw;
        throw Error(given->second + ": " + error.what());
      }
    }();
    const auto exchange = [&] {
      try {
        return fft::resolve(config.fft.exchange, *device, MPI_COMM_WORLD);
      } catch (const Error& error) {  // name the key, and where the backend came from
        throw Error(std::string("fft.exchange: ") + error.what() +
                    (config.backend == io::BackendChoice::automatic
                         ? "; backend auto chose " + to_string(device->backend()) + " here"
                         : std::string()));
      }
    }();
    // The loader refuses nccl and p2p with backend host; with auto, the exchange refused them only when made,
    // in words that named neither the key nor its file (found by fuzzing the configuration).
    if ((exchange == fft::ExchangeMethod::nccl || exchange == fft::ExchangeMethod::p2p) &&
        device->backend() != Backend::cuda) {
      const auto given = config.sources.where.find("fft.exchange");
      throw Error((given == config.sources.where.end() ? config_path : given->second) +
                  ": fft.exchange: " + fft::to_string(exchange) + " needs the cuda backend, but backend " +
                  io::to_string(config.backend) + " chose " + to_string(device->backend()) + " here" +
                  io::sources_text(config, {"backend"}));
    }
    // fft.exchange auto may choose nccl here, which takes one lane only (the loader refuses nccl by name).
    if (exchange == fft::ExchangeMethod::nccl && ranks > 1 && config.fft.lanes > 1) {
      const auto given = config.sources.where.find("fft.lanes");
      throw Error(
          (given == config.sources.where.end() ? config_path : given->second) +
          ": fft.lanes: " + std::to_string(config.fft.lanes) +
          " with the nccl exchange (fft.exchange auto chose it here), whose communicators may deadlock "
          "when used at once: 1 lane, or fft.exchange p2p inside a node");
    }
    // The automatic choices (fft.spectral_split, fft.lanes) settle within the memory there is
    // (app/MemoryEstimate.hpp); a run that does not fit at their least is refused here.
    const Backend backend = device->backend();
    const io::RunConfig least = app::least_demanding(config);
    const auto shares = app::check_memory(least, app::estimate_memory(least, ranks, backend, exchange, start),
                                          *device, MPI_COMM_WORLD);
    const app::SplitChoice split =
        app::choose_spectral_split(config, ranks, backend, exchange, start, shares);
    config.fft.spectral_split = split.split;
    options.split_report = split.report;
    config.fft.lanes = app::choose_lanes(config, ranks, backend, exchange, start, shares);
    const auto estimate = app::estimate_memory(config, ranks, backend, exchange, start);
    const auto available = app::check_memory(config, estimate, *device, MPI_COMM_WORLD);
    options.memory_report = app::describe(estimate, available, device->backend());
    options.dry_run = check->parsed();
    if (options.dry_run) options.report = [&](const std::string& line) { report += "# " + line + "\n"; };
    if (!options.dry_run) app::install_stop_handlers(MPI_COMM_WORLD);
    const bool single = config.precision == io::Precision::float32;
    if (config.problem == io::Problem::poisson)
      status = single ? app::run_poisson<float>(config, options, device, MPI_COMM_WORLD)
                      : app::run_poisson<double>(config, options, device, MPI_COMM_WORLD);
    else
      status = single ? app::run_navier_stokes<float>(config, options, device, MPI_COMM_WORLD)
                      : app::run_navier_stokes<double>(config, options, device, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    // Most of kolmo's errors reach every rank together (collective checks); then rank 0 says it once and all
    // exit cleanly. An error on some ranks only would leave the others waiting in a collective: the failing
    // ranks say so and end the whole job.
    if (all_ranks_failed(error_comm.get())) {
      if (rank == 0) std::fprintf(stderr, "kolmo: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "kolmo: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (options.dry_run && rank == 0)
    std::printf(
        "%s# memory: %s\n%s%s# %s: configuration OK for %d rank(s); input files and the initial state "
        "checked\n",
        options.config_text.c_str(), options.memory_report.c_str(),
        ranks > 1 ? ("# split of the ky planes: " + options.split_report + "\n").c_str() : "", report.c_str(),
        config_path.c_str(), ranks);
  return status;
}
