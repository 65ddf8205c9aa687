// The time loop of a Navier-Stokes run: initial condition or restart, checked before anything is written;
// output schedule, progress, checkpoints, a blow-up check every step, clean stop on a signal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>

#include "app/BlowUp.hpp"
#include "app/FlowFromConfig.hpp"
#include "app/Inputs.hpp"
#include "app/Progress.hpp"
#include "app/RunStatus.hpp"
#include "app/Runs.hpp"
#include "app/Schedule.hpp"
#include "app/StopRequest.hpp"
#include "core/BuildIdentity.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "io/Checkpoint.hpp"
#include "io/Collective.hpp"
#include "io/FieldFile.hpp"
#include "io/Hdf5.hpp"
#include "io/OutputDirectory.hpp"
#include "io/RunIdentity.hpp"
#include "io/SeriesFile.hpp"
#include "io/SpectraFile.hpp"
#include "io/TextFile.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/NavierStokes.hpp"
#include "solver/Spectrum.hpp"

namespace kolmo::app {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A run's identity, kept in its series.h5 and checkpoints (attribute run): 16 hexadecimal digits from the
// system's random source. A restart continues its checkpoint's (or, for checkpoints from before kolmo wrote
// one, its series'); a new run, also one started from another run's checkpoint, draws its own.
std::string new_run_identity() {
  std::random_device source;
  const std::uint64_t value = (std::uint64_t(source()) << 32) ^ source();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A checkpoint in a run's own checkpoints/ continues the history the run's series.h5 holds; one of another
// run (copied there, or named by --checkpoint) would have the series cut at its step and its own history
// spliced on, and the run's later field dumps removed. Where both carry a run identity, they must be equal.
// Else (files from before kolmo wrote one) the series' columns `steps` and `times` must fit the checkpoint's
// (step, time): its row of that step has the checkpoint's time, the rows before it earlier times and the rows
// after it later ones. Rows of step -1 are a cut append's (io/RowTable.hpp) and do not count. The history
// alone cannot tell two runs apart whose checkpoints fall on the same step at the same time (a fixed step),
// nor any run where the series has no rows (output.series_every: 0). option: --restart or --checkpoint, which
// the refusal names.
void require_series_history(const std::string& option, const std::filesystem::path& series,
                            const std::string& series_run, const std::vector<double>& steps,
                            const std::vector<double>& times, const std::filesystem::path& checkpoint,
                            const std::string& checkpoint_run, long step, double time) {
  const std::string refusal = option + ": " + checkpoint.string() + " (step " + std::to_string(step) +
                              ", t = " + number_text(time, 10) + ") is not from the run of " +
                              series.string();
  const std::string advice =
      "; a restart continues the run that wrote its checkpoint: to go on from this one, give it with "
      "--checkpoint and another output.directory";
  if (!series_run.empty() && !checkpoint_run.empty()) {
    if (series_run != checkpoint_run)
      throw Error(refusal + " (the checkpoint's run is " + checkpoint_run + ", the series' " + series_run +
                  ")" + advice);
    return;
  }
  const double tolerance = 1e-12 * std::fmax(1.0, std::fabs(time));
  for (std::size_t row = 0; row < std::min(steps.size(), times.size()); ++row) {
    const double s = steps[row], t = times[row];
    if (s < 0 || !std::isfinite(t)) continue;
    const bool fits = s == double(step) ? std::fabs(t - time) <= tolerance
                                        : (s < double(step) ? t < time + tolerance : t > time - tolerance);
    if (!fits)
      throw Error(refusal + ", which holds step " + std::to_string(std::llround(s)) +
                  " at t = " + number_text(t, 10) + advice);
  }
}

template <class Real>
bool buoyant(const solver::NavierStokes<Real>& flow) {
  for (int j = 0; j < flow.scalar_count(); ++j)
    if (flow.terms().buoyant(j)) return true;
  return false;
}

// Warnings, one line each, for the output intervals given in simulation time (output.fields_every,
// spectra_every, checkpoint_every; the other *_every keys count steps) that are shorter than a step. An
// output is due at the first step that reaches the next multiple of its interval (next_multiple), so such an
// interval writes after every step, a step apart and not at its multiples: more files than asked for, at
// other times. A fixed time.dt is the step; an adaptive one stays within time.max_dt and diffusive_limit
// (diffusive_step_limit's), so an interval below both may meet longer steps; without time.max_dt nothing
// the user gave says how long the steps get, and nothing is said.
std::vector<std::string> output_interval_warnings(const io::RunConfig& config, double diffusive_limit) {
  const auto& out = config.output;
  const auto& time = config.time;
  const struct {
    const char* key;
    double interval;
    const char* written;
  } timed[] = {{"output.fields_every", out.fields_every, "a field dump is written"},
               {"output.spectra_every", out.spectra_every, "the spectra are written"},
               {"output.checkpoint_every", out.checkpoint_every, "a checkpoint is written"}};
  std::vector<std::string> warnings;
  for (const auto& [key, interval, written] : timed) {
    if (!(interval > 0)) continue;
    const std::string given = std::string(key) + " = " + number_text(interval);
    if (time.dt && interval < *time.dt)
      warnings.push_back(given + " is shorter than time.dt = " + number_text(*time.dt) + ": " + written +
                         " after every step, " + number_text(*time.dt) + " apart instead of " +
                         number_text(interval) + "; consider " + key + " >= " + number_text(*time.dt) +
                         " or time.dt <= " + number_text(interval));
    else if (!time.dt && time.max_dt && interval < std::min(*time.max_dt, diffusive_limit))
      warnings.push_back(given + " is shorter than the adaptive step may become (time.max_dt = " +
                         number_text(*time.max_dt) + "): while the step is longer, " + written +
                         " after every step instead of every " + number_text(interval) +
                         "; consider time.max_dt <= " + number_text(interval));
  }
  return warnings;
}

const std::vector<std::string> kSeriesColumns{
    "time",      "step",           "dt",  "energy",          "enstrophy",      "dissipation",
    "injection", "divergence_max", "cfl", "reynolds_lambda", "kolmogorov_eta", "kmax_eta"};
// Per scalar (prefixed with its name and _), after the columns above; then the buoyancy's.
const std::vector<std::string> kScalarColumns{"variance", "dissipation", "production",
                                              "flux_x",   "flux_y",      "flux_z"};
const std::vector<std::string> kBuoyancyColumns{"potential_energy", "buoyancy_flux"};
// MHD, after the above.
const std::vector<std::string> kMagneticColumns{
    "magnetic_energy",   "magnetic_enstrophy", "magnetic_dissipation", "cross_helicity",
    "magnetic_helicity", "current_max",        "magnetic_injection"};
// Per scalar (prefixed likewise), after energy_spectrum, transfer and flux.
const std::vector<std::string> kScalarSpectra{"spectrum", "transfer", "flux"};

template <class Real>
std::vector<std::string> series_columns(const solver::NavierStokes<Real>& flow) {
  std::vector<std::string> columns = kSeriesColumns;
  for (int j = 0; j < flow.scalar_count(); ++j)
    for (const auto& column : kScalarColumns) columns.push_back(flow.scalar_name(j) + "_" + column);
  if (buoyant(flow)) columns.insert(columns.end(), kBuoyancyColumns.begin(), kBuoyancyColumns.end());
  if (flow.magnetic()) columns.insert(columns.end(), kMagneticColumns.begin(), kMagneticColumns.end());
  return columns;
}

template <class Real>
std::vector<std::string> spectra_names(const solver::NavierStokes<Real>& flow) {
  std::vector<std::string> names{"energy_spectrum", "transfer", "flux"};
  for (int j = 0; j < flow.scalar_count(); ++j)
    for (const auto& spectrum : kScalarSpectra) names.push_back(flow.scalar_name(j) + "_" + spectrum);
  if (flow.magnetic()) names.insert(names.end(), {"magnetic_spectrum", "magnetic_transfer"});
  return names;
}

// The step to take next, its CFL number, and whether it ends the run at t_end.
struct StepChoice {
  double dt = 0, cfl = 0;
  bool reaches_end = false;
};

template <class Real>
class NavierStokesRun {
 public:
  NavierStokesRun(const io::RunConfig& config, const RunOptions& options, std::shared_ptr<Device> device,
                  MPI_Comm comm)
      : config_(config),
        options_(options),
        comm_(comm),
        device_(std::move(device)),
        fft_(config.grid.n, comm, device_, fft_options(config, comm)),
        flow_(fft_, flow_parameters(config)),
        paths_(io::output_paths(config.output.directory)) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &ranks_);
  }

  int run() {
    // restart: the run continues its own output; a checkpoint of another run starts a new one from its state.
    const bool restart = options_.continues_in(config_.output.directory);
    // Everything is read and checked before anything is written: a refused run leaves no trace.
    if (options_.from_checkpoint())
      restart_from_checkpoint();
    else
      set_initial_condition();
    const std::string series_run = restart ? check_continued_files() : std::string();
    // Rank 0 chooses (the series' identity is read there only) and draws a new one where the run needs it;
    // the other ranks take rank 0's.
    run_ = io::text_of_root(rank_ != 0                 ? std::string()
                            : !restart                 ? new_run_identity()
                            : !checkpoint_run_.empty() ? checkpoint_run_
                            : !series_run.empty()      ? series_run
                                                       : new_run_identity(),
                            comm_);
    const double unit = flow_.cfl_dt(1.0, kInfinity);  // the first step's pass, which also scans the state
    check_forced_modes();
    const StartVerdict start = check_start(config_, flow_.velocity_scan().rate,
                                           flow_.terms().wave_frequency_bound + flow_.forcing_rate());
    if (!start.error.empty()) throw Error(start.error + initial_sources());
    check_initial_scalars();
    if (!options_.from_checkpoint()) check_random_fields();
    choose_dt(config_.time.t_end.value_or(kInfinity), unit);  // throws where the step has no scale
    std::vector<std::string> warnings = output_interval_warnings(config_, diffusive_limit_);
    if (!start.warning.empty()) warnings.insert(warnings.begin(), start.warning);
    if (rank_ == 0)
      for (const auto& warning : warnings) std::fprintf(stderr, "kolmo: warning: %s\n", warning.c_str());
    warn_of_removed_amounts();
    if (options_.dry_run) {
      if (rank_ == 0 && !physics_changes_.empty() && options_.report)
        options_.report("changed " + physics_changes_);
      // The header's "resampled" lines: initial files of another grid than grid.n.
      if (rank_ == 0 && options_.report)
        for (const auto& resampled : resampled_) options_.report("resampled " + resampled);
      return 0;
    }
    blow_up_.emplace(config_, flow_.time(), blow_up_energy(), passive_variances());
    if (restart) blow_up_->checkpoint_kept(flow_.step_count(), flow_.time());  // the one it continues from

    // From here on the directory is ours: its lock, held to the end, keeps other runs out.
    directory_lock_ = io::prepare_output_directory(
        paths_.root,
        restart ? io::ExistingOutput::keep
                : (config_.output.overwrite ? io::ExistingOutput::replace : io::ExistingOutput::refuse),
        comm_, output_subfolders(config_), io::sources_text(config_, {"output.directory"}));
    // The series and spectra are opened before config.yaml and status change: a continued run's files are
    // checked there (their columns, the shells), and one that fails leaves its run's record as it was.
    const io::Opening opening = restart ? io::Opening::resume : io::Opening::create;
    auto spectrum = solver::compute_spectrum(flow_, true);
    try {
      series_ = std::make_unique<io::SeriesFile>(paths_.series, series_columns(flow_), opening, comm_, run_);
      spectra_ =
          std::make_unique<io::SpectraFile>(paths_.spectra, spectrum.k, spectra_names(flow_), opening, comm_);
    } catch (const std::exception& error) {
      if (!restart) write_run_status(paths_.root, std::string("failed: ") + error.what(), comm_);
      throw;
    }
    io::on_root(comm_, [&] { io::replace_text_file(paths_.config, options_.config_text); });
    write_run_status(paths_.root, "running: " + step_and_time(flow_.step_count(), flow_.time()), comm_);
    second_stop_directory(paths_.root);
    describe_second_stop_here();
    try {
      if (restart) {  // what came after the checkpoint belongs to a history this run replaces
        series_->truncate_after_step(flow_.step_count());
        spectra_->truncate_after_step(flow_.step_count());
        removed_dumps_ = io::remove_field_dumps_after(paths_.fields, flow_.step_count(), comm_);
        remove_checkpoint_ahead();
      }
      print_header();
      return time_loop(restart, spectrum, unit);
    } catch (const std::exception& error) {
      forget_second_stop();
      write_run_status(paths_.root, std::string("failed: ") + error.what(), comm_);
      throw;
    }
  }

 private:
  void set_initial_condition() {
    const auto& initial = config_.initial;
    switch (initial.type) {
      case io::InitialType::taylor_green:
        solver::set_taylor_green(flow_, initial.amplitude);
        break;
      case io::InitialType::abc:
        solver::set_abc(flow_, initial.A, initial.B, initial.C, static_cast<int>(initial.k));
        break;
      case io::InitialType::random:
        solver::set_random_isotropic(flow_, initial.spectrum.energy, initial.spectrum.k0,
                                     static_cast<std::uint64_t>(initial.seed), initial.spectrum.shape);
        break;
      case io::InitialType::file:
        set_from_file();
        break;
      case io::InitialType::orszag_tang:
        solver::set_orszag_tang(flow_, initial.amplitude, solver::VectorField::velocity);
        break;
    }
    set_initial_scalars();
    set_initial_magnetic();
  }

  // b: zero unless configured otherwise.
  void set_initial_magnetic() {
    const auto& magnetic = config_.physics.magnetic;
    if (magnetic.type != io::MagneticType::mhd) return;
    const auto& initial = magnetic.initial;
    const auto b = solver::VectorField::magnetic;
    switch (initial.type) {
      case io::MagneticInitialType::zero:
        break;
      case io::MagneticInitialType::abc:
        solver::set_abc(flow_, initial.A, initial.B, initial.C, static_cast<int>(initial.k), b);
        break;
      case io::MagneticInitialType::orszag_tang:
        solver::set_orszag_tang(flow_, initial.amplitude, b);
        break;
      case io::MagneticInitialType::taylor_green_conducting:
        solver::set_taylor_green_conducting(flow_, initial.amplitude);
        break;
      case io::MagneticInitialType::random:
        solver::set_random_isotropic(flow_, initial.energy, initial.k0,
                                     static_cast<std::uint64_t>(initial.seed), initial.shape, b);
        break;
      case io::MagneticInitialType::file: {
        auto field = read_initial_magnetic<Real>(config_, fft_.layout(), comm_);
        if (!field.spectral) {
          flow_.set_magnetic(field.real[0], field.real[1], field.real[2]);
          break;
        }
        for (int d = 0; d < 3; ++d) flow_.magnetic_field().buffer(d).assign_from_host(field.modes[d]);
        flow_.enforce_constraints();
        if (!field.resampled.empty()) resampled_.push_back(field.resampled);
        note_resampled("physics.magnetic.initial.file", kMagnetic, field.stored_energy);
        break;
      }
    }
  }

  // What the run keeps of each field that it read (read_) against what its file held: a field file's
  // velocity that is not divergence-free or holds modes beyond the 2/3 rule's loses them to the projection
  // and the dealiasing that every state goes through, and a checkpoint resampled onto a coarser grid loses
  // the modes that grid cannot hold. Said when more than kNoticedLoss goes, so that a user who meant the
  // file's field knows the run starts from another. Collective (the kept amounts are reductions over the
  // ranks); rank 0 warns.
  void warn_of_removed_amounts() const {
    constexpr double kNoticedLoss = 1e-3;
    for (const ReadAmount& read : read_) {
      const double kept = read.field == kVelocity   ? solver::kinetic_energy(flow_)
                          : read.field == kMagnetic ? solver::mean_square_half(flow_, flow_.magnetic_field())
                                                    : solver::scalar_variance(flow_, read.field);
      if (rank_ != 0 || !(read.stored > 0) || read.stored - kept <= kNoticedLoss * read.stored) continue;
      std::fprintf(stderr,
                   "kolmo: warning: %s: %s removed %.3g %% of the file's %s (%.6g -> %.6g)%s; the run starts "
                   "from what is left\n",
                   read.where.c_str(), read.cause.c_str(), 100 * (read.stored - kept) / read.stored,
                   read.what.c_str(), read.stored, kept, read.why.c_str());
    }
  }

  // A field read from a checkpoint of another grid: what its file held, for warn_of_removed_amounts.
  void note_resampled(const std::string& where, int field, double stored) {
    if (!(stored > 0)) return;
    const std::string what = field == kVelocity   ? "kinetic energy"
                             : field == kMagnetic ? "magnetic energy"
                                                  : "variance of '" + flow_.scalar_name(field) + "'";
    read_.push_back({where, "resampling onto grid.n = " + list_text(config_.grid.n) + " and its 2/3 rule",
                     what, "", field, stored});
  }

  // A constant power cannot start on forced modes that hold no energy: its amplitude power / (2 E_forced)
  // is unbounded (Forcing.hpp applies none while E_forced = 0, and the round-off that the nonlinear term
  // then carries into the shell meets an amplitude of 1e30 and blows up). kEmptyForcedModes: far above
  // round-off's share of the energy (1e-14 in single precision), far below any seed meant as one. Nor on
  // modes that hold so little that the amplitude passes what the step can apply in the precision
  // (NavierStokes::largest_forcing_amplitude), with kAmplitudeRoom for the stages, whose forced energy may
  // fall a little below the start's: the first stage made the velocity infinite, a "blow-up at step 1" with
  // advice on time.cfl that could not help (an initial.spectrum.energy of 2e-308 under configs/
  // forced_isotropic_256.yaml's band forcing, on 16^3: an amplitude of 3e306, times 4096 points). And the
  // energies must be finite to be compared: the scan's sums 1/2 |u|^2 over the points before it divides by
  // their count, so its energy overflows first (an initial.spectrum.energy of 1e308 was said to leave the
  // forced modes "no energy": 8.06e307 of inf).
  void check_forced_modes() const {
    constexpr double kEmptyForcedModes = 1e-10, kAmplitudeRoom = 100;
    const auto& flow = flow_;
    const std::string precision = io::to_string(config_.precision) + " precision";
    auto check = [&](const solver::Forcing<Real>& forcing, const solver::SpectralField<Real>& field,
                     double energy, const std::string& key, const std::string& seed) {
      if (forcing.kind() == solver::ForcingKind::none || forcing.parameters().power == 0) return;
      const double forced = forcing.forced_energy(field);
      const std::string modes = forcing.kind() == solver::ForcingKind::band
                                    ? "the shell " + number_text(forcing.parameters().k_min) +
                                          " <= |k| <= " + number_text(forcing.parameters().k_max)
                                    : "the field";
      const std::string power = "a constant power of " + number_text(forcing.parameters().power);
      if (!std::isfinite(energy) || !std::isfinite(forced))
        throw Error(key + ": the energy at the start overflows " + precision + " (" + number_text(energy, 3) +
                    "; " + modes + " holds " + number_text(forced, 3) + "), so no amplitude for " + power +
                    " can be found from it; start from a smaller field (other units)" + initial_sources());
      if (!(forced > 0 && forced > kEmptyForcedModes * energy))
        throw Error(key + ": " + modes + " holds no energy at the start (" + number_text(forced, 3) + " of " +
                    number_text(energy, 3) + "), so no amplitude can inject " + power +
                    " into it; start from a field with energy there (" + seed + ")");
      const double amplitude = forcing.amplitude(forced);
      const double largest = flow.largest_forcing_amplitude(forcing.kind()) / kAmplitudeRoom;
      if (!(amplitude <= largest))
        throw Error(key + ": " + power + " into " + modes + ", which holds " + number_text(forced, 3) +
                    " at the start, needs an amplitude power / (2 E) of " + number_text(amplitude, 3) +
                    ", more than the step can apply in " + precision + " on this grid (at most " +
                    number_text(largest, 3) + ", with room for its stages); start from a field with more " +
                    "energy there (" + seed + ") or a smaller " + key + ".power" + initial_sources());
    };
    check(flow.forcing(), flow.velocity(), flow.velocity_scan().energy, "physics.forcing", "initial");
    if (flow.magnetic())
      check(flow.magnetic_forcing(), flow.magnetic_field(),
            solver::mean_square_half(flow, flow.magnetic_field()), "physics.magnetic.forcing",
            "physics.magnetic.initial");
  }

  // The energy the blow-up check bounds (app/BlowUp.hpp): the kinetic energy from cfl_dt's scan, plus with
  // buoyancy <b^2> / (2 |N2|) (one reduction over b), with MHD the magnetic energy (one reduction).
  double blow_up_energy() const {
    double energy = flow_.velocity_scan().energy;
    for (int j = 0; j < flow_.scalar_count(); ++j)
      if (flow_.terms().buoyant(j))
        energy += std::fabs(flow_.terms().potential_energy_factor(j)) * solver::scalar_variance(flow_, j);
    if (flow_.magnetic()) energy += solver::mean_square_half(flow_, flow_.magnetic_field());
    return energy;
  }

  // Where the keys that set the initial velocity (and with MHD b) came from, for a refusal of the start's
  // state (not finite, or past what the precision's transforms hold: an initial.amplitude of 1e308), which
  // had named none of them (found by fuzzing the configuration); empty for a start from a checkpoint.
  std::string initial_sources() const {
    if (options_.from_checkpoint()) return {};
    std::vector<std::string> keys{"initial.type"};
    switch (config_.initial.type) {
      case io::InitialType::taylor_green:
      case io::InitialType::orszag_tang:
        keys.emplace_back("initial.amplitude");
        break;
      case io::InitialType::abc:
        keys.insert(keys.end(), {"initial.A", "initial.B", "initial.C"});
        break;
      case io::InitialType::random:
        keys.emplace_back("initial.spectrum.energy");
        break;
      case io::InitialType::file:
        keys.emplace_back("initial.file");
        break;
    }
    if (config_.physics.magnetic.type == io::MagneticType::mhd) {
      keys.emplace_back("physics.magnetic.initial.type");
      switch (config_.physics.magnetic.initial.type) {
        case io::MagneticInitialType::orszag_tang:
        case io::MagneticInitialType::taylor_green_conducting:
          keys.emplace_back("physics.magnetic.initial.amplitude");
          break;
        case io::MagneticInitialType::abc:
          keys.insert(keys.end(), {"physics.magnetic.initial.A", "physics.magnetic.initial.B",
                                   "physics.magnetic.initial.C"});
          break;
        case io::MagneticInitialType::random:
          keys.emplace_back("physics.magnetic.initial.energy");
          break;
        case io::MagneticInitialType::file:
          keys.emplace_back("physics.magnetic.initial.file");
          break;
        case io::MagneticInitialType::zero:
          break;
      }
    }
    return io::sources_text(config_, keys);
  }

  // The scan sees the velocity and b only: a scalar whose initial field is not finite (a random one whose
  // variance the precision cannot scale to) was written at the start and stopped the run at step 1 as a
  // blow-up, advising a smaller time.cfl (found by fuzzing the configuration). Files and checkpoints are
  // checked finite as they are read, so the key named is the random field's variance.
  void check_initial_scalars() const {
    const auto fields = scalar_fields(config_);
    for (int j = 0; j < flow_.scalar_count(); ++j) {
      if (std::isfinite(solver::scalar_variance(flow_, j))) continue;
      throw Error(io::key_message(config_, fields[j].key + ".initial.variance",
                                  "the initial scalar '" + fields[j].name + "' is not finite in " +
                                      io::to_string(config_.precision) + " precision: a variance of " +
                                      number_text(fields[j].initial.variance) + " is beyond what it holds"));
    }
  }

  // A random initial field is scaled to its energy (or variance) to round-off; one that comes out otherwise
  // did not fit the precision: its modes fell below the smallest normal number (1e-38 in single precision,
  // where an energy of 1e-80 made zeros and subnormals, and the run went on from them without a word; found
  // by fuzzing the configuration). Fields that are not finite are check_start's and check_initial_scalars'.
  void check_random_fields() const {
    auto check = [&](const std::string& key, double asked, double made) {
      if (!std::isfinite(made) || std::fabs(made - asked) <= 1e-3 * asked) return;
      const bool single = config_.precision == io::Precision::float32;
      throw Error(io::key_message(
          config_, key,
          "a random initial field of " + number_text(asked) + " comes out as " + number_text(made) + " in " +
              io::to_string(config_.precision) +
              " precision: its modes fall below the smallest normal number it holds; give a larger value" +
              (single ? " or precision: double" : "")));
    };
    if (config_.initial.type == io::InitialType::random)
      check("initial.spectrum.energy", config_.initial.spectrum.energy, solver::kinetic_energy(flow_));
    const auto& magnetic = config_.physics.magnetic;
    if (flow_.magnetic() && magnetic.initial.type == io::MagneticInitialType::random)
      check("physics.magnetic.initial.energy", magnetic.initial.energy,
            solver::mean_square_half(flow_, flow_.magnetic_field()));
    const auto fields = scalar_fields(config_);
    for (int j = 0; j < flow_.scalar_count(); ++j)
      if (fields[j].initial.type == io::ScalarInitialType::random)
        check(fields[j].key + ".initial.variance", fields[j].initial.variance,
              solver::scalar_variance(flow_, j));
  }

  // The variances <theta^2> of the passive scalars (physics.scalars: the solver's first scalars), one
  // reduction each, for the blow-up check: it sees b and the magnetic field in blow_up_energy, but nothing of
  // a passive scalar reaches the velocity.
  std::vector<double> passive_variances() const {
    std::vector<double> variances;
    for (std::size_t j = 0; j < config_.physics.scalars.size(); ++j)
      variances.push_back(solver::scalar_variance(flow_, int(j)));
    return variances;
  }

  // Zero unless configured otherwise; files were read and checked before anything is written.
  void set_initial_scalars() {
    const auto fields = scalar_fields(config_);
    auto files = read_initial_scalars<Real>(config_, fft_.layout(), comm_);
    for (int j = 0; j < flow_.scalar_count(); ++j) {
      const auto& initial = fields[j].initial;
      if (initial.type == io::ScalarInitialType::random)
        solver::set_random_scalar(flow_, j, initial.variance, initial.k0,
                                  static_cast<std::uint64_t>(initial.seed), initial.shape);
      if (initial.type != io::ScalarInitialType::file) continue;
      if (!files[j].spectral) {
        flow_.set_scalar(j, files[j].real);
        continue;
      }
      flow_.scalar(j).buffer().assign_from_host(files[j].modes);
      flow_.enforce_constraints();
      if (!files[j].resampled.empty()) resampled_.push_back(files[j].resampled);
      note_resampled(fields[j].key + ".initial.file", j, files[j].stored_variance);
    }
  }

  // A kolmo field file (u, v, w) or a checkpoint (u_hat, v_hat, w_hat): the velocity only, from t = 0,
  // projected and dealiased.
  void set_from_file() {
    auto velocity = read_initial_file<Real>(config_, fft_.layout(), comm_);
    if (!velocity.spectral) {
      // Its energy as the file holds it, for the warning when the projection and the 2/3 rule take much.
      double sum = 0;
      for (const auto& component : velocity.real)
        for (const Real value : component) sum += double(value) * double(value);
      KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm_));
      const auto& n = config_.grid.n;
      read_.push_back({"initial.file", "the projection onto divergence-free fields and the 2/3 rule",
                       "kinetic energy",
                       ": its velocity is not divergence-free or holds modes the dealiasing drops", kVelocity,
                       0.5 * sum / (double(n[0]) * double(n[1]) * double(n[2]))});
      flow_.set_velocity(velocity.real[0], velocity.real[1], velocity.real[2]);
      return;
    }
    for (int d = 0; d < 3; ++d) flow_.velocity().buffer(d).assign_from_host(velocity.modes[d]);
    flow_.enforce_constraints();
    if (!velocity.resampled.empty()) resampled_.push_back(velocity.resampled);
    note_resampled("initial.file", kVelocity, velocity.stored_energy);
  }

  // The coefficients are kept bit for bit: a projection, though idempotent in exact arithmetic, would change
  // the last bits and a restart would not continue the run exactly.
  void restart_from_checkpoint() {
    auto state = read_restart<Real>(config_, options_, fft_.layout(), comm_);
    if (rank_ == 0 && !state.note.empty()) std::fprintf(stderr, "kolmo: %s\n", state.note.c_str());
    for (int d = 0; d < 3; ++d) flow_.velocity().buffer(d).assign_from_host(state.modes[d]);
    for (int j = 0; j < flow_.scalar_count(); ++j)
      flow_.scalar(j).buffer().assign_from_host(state.scalar_modes[j]);
    for (std::size_t d = 0; d < state.magnetic_modes.size(); ++d)
      flow_.magnetic_field().buffer(int(d)).assign_from_host(state.magnetic_modes[d]);
    // On a coarser grid the 2/3 rule drops more modes; otherwise the coefficients stay bit for bit (below).
    if (state.resampled) {
      flow_.enforce_constraints();
      // The checkpoint's fields in read_restart's order: the velocity's components, the scalars, b's.
      const auto& squares = state.stored_mean_squares;
      const std::string where = options_.checkpoint.empty() ? "--restart" : "--checkpoint";
      const int scalars = flow_.scalar_count();
      if (squares.size() >= std::size_t(3 + scalars)) {
        note_resampled(where, kVelocity, 0.5 * (squares[0] + squares[1] + squares[2]));
        for (int j = 0; j < scalars; ++j) note_resampled(where, j, squares[std::size_t(3 + j)]);
        if (squares.size() == std::size_t(6 + scalars))
          note_resampled(where, kMagnetic,
                         0.5 * (squares[std::size_t(3 + scalars)] + squares[std::size_t(4 + scalars)] +
                                squares[std::size_t(5 + scalars)]));
      }
    }
    flow_.set_clock(state.info.time, state.info.step, state.info.dt);
    last_checkpoint_ = step_and_time(state.info.step, state.info.time);
    restart_path_ = state.path;
    checkpoint_run_ = state.info.run;
    // A run cannot go back: an end before the checkpoint would leave output past it, marked finished. An end
    // at the checkpoint is a finished run restarted, which takes no step.
    const auto& time = config_.time;
    if (time.t_end && state.info.time > *time.t_end * (1 + 1e-12))
      throw Error("time.t_end = " + number_text(*time.t_end, 10) + " is before the checkpoint's " +
                  last_checkpoint_ + ": a restart continues from there, so raise time.t_end" +
                  io::sources_text(config_, {"time.t_end"}));
    if (time.steps && state.info.step > *time.steps)
      throw Error("time.steps = " + std::to_string(*time.steps) + " is below the checkpoint's " +
                  last_checkpoint_ + ": a restart continues from there, so raise time.steps" +
                  io::sources_text(config_, {"time.steps"}));
    char text[512];
    std::snprintf(text, sizeof text, "restarting from %s: step %ld, t = %.6g (written in %s precision)",
                  state.path.c_str(), state.info.step, state.info.time, state.info.precision.c_str());
    restart_report_ = text;
    physics_changes_ = changes_text(state.physics_changes);
  }

  // Continuing in place from checkpoint.prev.h5 (chosen, or checkpoint.h5 was damaged): checkpoint.h5 is of
  // the history this run replaces, or unreadable. Left there, the next checkpoint would push it to
  // checkpoint.prev.h5, and a restart before that would take it up: removed, as the later dumps are.
  void remove_checkpoint_ahead() {
    const auto current = io::checkpoint_path(paths_.checkpoints);
    io::on_root(comm_, [&] {
      std::error_code error;
      if (!std::filesystem::exists(current) || std::filesystem::equivalent(current, restart_path_, error) ||
          error)
        return;
      std::filesystem::remove(current, error);
      if (error) throw Error("cannot remove " + current.string() + ": " + error.message());
      removed_checkpoint_ = true;
    });
    int removed = removed_checkpoint_;
    KOLMO_CHECK_MPI(MPI_Bcast(&removed, 1, MPI_INT, 0, comm_));
    removed_checkpoint_ = removed != 0;
  }

  // The series and spectra a restart continues are read before anything is written, and by kolmo check: a
  // damaged one, or one that a run still going holds, is refused here, not after status and config.yaml have
  // been replaced. Their columns and shells are checked when the run opens them to write, before that too.
  // The series must be the checkpoint's run's (require_series_history). Returns the series' run identity (on
  // rank 0; empty elsewhere, or where it has none).
  std::string check_continued_files() const {
    std::string series_run;
    std::vector<std::string> spectra = spectra_names(flow_);
    spectra.insert(spectra.end(), {"k", "time", "step"});
    const std::pair<std::filesystem::path, std::vector<std::string>> files[] = {
        {paths_.series, series_columns(flow_)}, {paths_.spectra, spectra}};
    io::on_root(comm_, [&] {
      std::vector<double> steps, times;  // the series'
      for (const auto& [path, names] : files) {
        if (!std::filesystem::exists(path)) continue;  // started anew at the checkpoint's step
        try {  // every dataset the run continues read whole: damage to the file's structure shows
          const io::File file = io::open_serial(path);
          if (path == paths_.series) series_run = io::run_identity(file.get());
          for (const auto& name : names) {
            if (!io::has_link(file.get(), name)) continue;  // a new column, padded when the run opens it
            const io::Dataset dataset = io::open_dataset(file.get(), name);
            std::size_t values = 1;
            for (const hsize_t extent : io::dataset_shape(dataset.get())) values *= extent;
            if (values == 0) continue;
            std::vector<double> data(values);
            KOLMO_CHECK_HDF5(
                H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()));
            if (path == paths_.series && (name == "step" || name == "time"))
              (name == "step" ? steps : times) = std::move(data);
          }
        } catch (const Error& error) {
          throw Error(path.string() + ": " + error.what() +
                      ": a run still going holds it, or it is damaged (then move it away: the restart starts "
                      "it anew at the checkpoint's step)");
        }
      }
      require_series_history(options_.restart ? "--restart" : "--checkpoint", paths_.series, series_run,
                             steps, times, restart_path_, checkpoint_run_, flow_.step_count(), flow_.time());
    });
    return series_run;
  }

  void print_header() const {
    if (rank_ != 0) return;
    const auto& layout = fft_.layout();
    const double field_bytes = double(layout.nx()) * layout.ny() * layout.nz() * sizeof(Real) / ranks_;
    if (!restart_report_.empty()) std::printf("%s\n", restart_report_.c_str());
    if (removed_dumps_ > 0)
      std::printf("removed %ld field dump(s) past the checkpoint's step: the history this run replaces\n",
                  removed_dumps_);
    if (removed_checkpoint_)
      std::printf("removed %s: a checkpoint of the history this run replaces (or damaged)\n",
                  io::checkpoint_path(paths_.checkpoints).c_str());
    std::printf("kolmo %s: incompressible %s\n", build_identity().c_str(),
                flow_.magnetic() ? "MHD" : "Navier-Stokes");
    std::printf("  grid      %s, box %.6g x %.6g x %.6g\n", layout.describe().c_str(), config_.grid.box[0],
                config_.grid.box[1], config_.grid.box[2]);
    std::printf("  backend   %s: %s, exchange %s, %s precision\n", to_string(device_->backend()).c_str(),
                device_->name().c_str(), fft::to_string(fft_.exchange_method()).c_str(),
                io::to_string(config_.precision).c_str());
    std::printf("  dealias   %s\n", fft_.dealiasing_report().c_str());
    std::printf("  exchange  %s; %s\n", fft_.exchange_pieces_report().c_str(), fft_.strided_report().c_str());
    if (ranks_ > 1 && !options_.split_report.empty())
      std::printf("  split     ky planes: %s\n", options_.split_report.c_str());
    std::printf("  lanes     %d: fields transformed at once, each lane a transform of its own (fft.lanes)\n",
                flow_.transform_lanes());
    if (!fft_.planning_report().empty()) std::printf("  plans     %s\n", fft_.planning_report().c_str());
    if (!fft_.route_choices_report().empty())
      std::printf("  choices   %s\n", fft_.route_choices_report().c_str());
    std::printf(
        "  memory    %.1f MiB per rank held by the solver (%.1f real-field equivalents); estimated: %s\n",
        flow_.bytes_held() / 1048576.0, flow_.bytes_held() / field_bytes, options_.memory_report.c_str());
    std::printf("  physics   nu = %.6g, forcing %s, integrator %s, %s\n", config_.physics.viscosity,
                solver::to_string(config_.physics.forcing.type).c_str(),
                solver::to_string(config_.time.integrator).c_str(),
                config_.time.dt ? ("dt = " + std::to_string(*config_.time.dt)).c_str()
                                : ("CFL " + std::to_string(config_.time.cfl)).c_str());
    const auto& physics = config_.physics;
    if (physics.rotation != std::array<double, 3>{0, 0, 0})
      std::printf("  rotation  Omega = [%.6g, %.6g, %.6g]\n", physics.rotation[0], physics.rotation[1],
                  physics.rotation[2]);
    if (physics.buoyancy.type == io::BuoyancyType::boussinesq)
      std::printf("  buoyancy  b: N2 = %.6g, Pr = %.6g, gravity [%.6g, %.6g, %.6g]\n", physics.buoyancy.n2,
                  physics.buoyancy.prandtl, physics.buoyancy.gravity[0], physics.buoyancy.gravity[1],
                  physics.buoyancy.gravity[2]);
    if (flow_.magnetic()) {
      std::printf("  magnetic  MHD: eta = %.6g, B0 = [%.6g, %.6g, %.6g]\n",
                  physics.magnetic.resolved_resistivity(physics.viscosity), physics.magnetic.background[0],
                  physics.magnetic.background[1], physics.magnetic.background[2]);
      const auto& f = physics.magnetic.forcing;
      if (f.type == solver::ForcingKind::band)
        std::printf("  magnetic  band forcing of b: power %.6g on %.6g <= |k| <= %.6g\n", f.power.value_or(0),
                    f.k_min, f.k_max);
    }
    for (const auto& scalar : physics.scalars)
      std::printf("  scalar    %s: kappa = %.6g, mean gradient [%.6g, %.6g, %.6g]\n", scalar.name.c_str(),
                  scalar.resolved_diffusivity(physics.viscosity), scalar.mean_gradient[0],
                  scalar.mean_gradient[1], scalar.mean_gradient[2]);
    std::printf(
        "  step      %d transforms per Runge-Kutta stage (%s form of the advective term), products %s\n",
        flow_.transforms_per_stage(), solver::to_string(flow_.nonlinear_form()).c_str(),
        flow_.products_between_rows() ? "between the row FFTs" : "in real slabs");
    if (!physics_changes_.empty()) std::printf("  changed   %s\n", physics_changes_.c_str());
    for (const auto& resampled : resampled_) std::printf("  resampled %s\n", resampled.c_str());
    std::printf("  output    %s (its state in %s)\n", paths_.root.c_str(), (paths_.root / "status").c_str());
    std::fflush(stdout);
  }

  // The step to take after the state whose cfl_dt(1) is unit (1 / max(|u|/dx + ...)), and its CFL number.
  // The last step before t_end is clipped to end there exactly.
  StepChoice choose_dt(double t_end, double unit) const {
    StepChoice next;
    next.dt =
        config_.time.dt
            ? *config_.time.dt
            : std::min({config_.time.cfl * unit, config_.time.max_dt.value_or(kInfinity), diffusive_limit_});
    const double end = flow_.time() + next.dt;  // as the step will sum it
    next.reaches_end = reaches(end, t_end, clock_tolerance(end, flow_.step_count() + 1, next.dt));
    if (next.reaches_end) next.dt = t_end - flow_.time();
    if (!std::isfinite(next.dt))
      throw Error(
          "time.cfl: the velocity is zero everywhere, so an adaptive step has no scale; give "
          "time.max_dt, time.t_end or a fixed time.dt");
    next.cfl = std::isfinite(unit) ? next.dt / unit : 0.0;
    return next;
  }

  void write_series(const solver::Diagnostics& d, double dt, double cfl) {
    std::vector<double> row{d.time,      double(d.step),   dt,  d.energy,    d.enstrophy,      d.dissipation,
                            d.injection, d.max_divergence, cfl, d.re_lambda, d.kolmogorov_eta, d.kmax_eta};
    for (const auto& s : d.scalars)
      row.insert(row.end(), {s.variance, s.dissipation, s.production, s.flux[0], s.flux[1], s.flux[2]});
    if (buoyant(flow_)) row.insert(row.end(), {d.potential_energy, d.buoyancy_flux});
    if (flow_.magnetic()) {
      const auto& m = d.magnetic;
      row.insert(row.end(), {m.energy, m.enstrophy, m.dissipation, m.cross_helicity, m.magnetic_helicity,
                             solver::max_current(flow_), m.injection});
    }
    series_->append(row);
  }

  void write_spectra(const solver::Spectrum& s) {
    std::vector<std::vector<double>> spectra{s.energy, s.transfer, s.flux};
    for (const auto& scalar : s.scalars)
      spectra.insert(spectra.end(), {scalar.variance, scalar.transfer, scalar.flux});
    if (flow_.magnetic()) spectra.insert(spectra.end(), {s.magnetic, s.magnetic_transfer});
    spectra_->append(flow_.time(), flow_.step_count(), spectra);
  }

  void write_fields() {
    const auto& layout = fft_.layout();
    std::vector<std::vector<Real>> storage;
    std::vector<io::NamedSlab<Real>> slabs;
    auto add = [&](const std::string& name, std::vector<Real>&& data) {
      storage.push_back(std::move(data));
      slabs.push_back({name, {}});
    };
    storage.reserve(13 + flow_.scalar_count());
    auto add_vector = [&](const std::array<const char*, 3>& names, std::vector<Real>& a, std::vector<Real>& b,
                          std::vector<Real>& c) {
      add(names[0], std::move(a));
      add(names[1], std::move(b));
      add(names[2], std::move(c));
    };
    for (auto field : config_.output.fields) {
      std::vector<Real> a, b, c;
      if (field == io::OutputField::velocity) {
        flow_.velocity_to_host(a, b, c);
        add_vector({"u", "v", "w"}, a, b, c);
      } else if (field == io::OutputField::vorticity) {
        flow_.vorticity_to_host(a, b, c);
        add_vector({"vorticity_x", "vorticity_y", "vorticity_z"}, a, b, c);
      } else if (field == io::OutputField::magnetic) {
        flow_.magnetic_to_host(a, b, c);
        add_vector({"bx", "by", "bz"}, a, b, c);
      } else if (field == io::OutputField::current) {
        flow_.current_to_host(a, b, c);
        add_vector({"jx", "jy", "jz"}, a, b, c);
      } else if (field == io::OutputField::scalars) {
        for (int j = 0; j < flow_.scalar_count(); ++j) {
          flow_.scalar_to_host(j, a);
          add(flow_.scalar_name(j), std::move(a));
        }
      } else {
        flow_.pressure_to_host(a);
        add("pressure", std::move(a));
      }
    }
    for (std::size_t i = 0; i < slabs.size(); ++i)
      slabs[i].slab = std::span<const Real>(storage[i].data(), layout.real_size());
    io::FieldInfo info{flow_.time(), flow_.step_count(), config_.grid.box, config_.physics.viscosity};
    io::write_field_file<Real>(paths_.fields, info, layout, slabs, comm_);
  }

  void write_checkpoint() {
    const auto& layout = fft_.layout();
    // Every field by name: the velocity's components, then each scalar's, then b's.
    std::vector<std::vector<Complex<Real>>> host;
    std::vector<std::string> names(io::kVelocityComponents.begin(), io::kVelocityComponents.end());
    for (int d = 0; d < 3; ++d) host.push_back(std::as_const(flow_).velocity().buffer(d).host_copy());
    for (int j = 0; j < flow_.scalar_count(); ++j) {
      host.push_back(std::as_const(flow_).scalar(j).buffer().host_copy());
      names.push_back(io::checkpoint_dataset(flow_.scalar_name(j)));
    }
    if (flow_.magnetic())
      for (int d = 0; d < 3; ++d) {
        host.push_back(std::as_const(flow_).magnetic_field().buffer(d).host_copy());
        names.push_back(io::checkpoint_dataset(io::kMagneticNames[d]));
      }
    std::vector<io::SpectralDataset<Real>> datasets;
    for (std::size_t i = 0; i < host.size(); ++i)
      datasets.push_back({names[i], std::span<const Complex<Real>>(host[i].data(), layout.spectral_size())});
    io::CheckpointInfo info;
    info.time = flow_.time();
    info.step = flow_.step_count();
    info.dt = flow_.last_dt();
    info.box = config_.grid.box;
    info.viscosity = config_.physics.viscosity;
    info.rng_state = static_cast<std::uint64_t>(config_.initial.seed);
    info.run = run_;
    info.configuration = options_.config_text;  // what a restart from it compares its own with
    io::write_checkpoint<Real>(paths_.checkpoints, info, layout, datasets, comm_);
    last_checkpoint_ = step_and_time(info.step, info.time);
    blow_up_->checkpoint_kept(info.step, info.time);
    // status says how far the run got that a restart keeps: one small file a checkpoint, not a step.
    write_run_status(paths_.root, "running: " + last_checkpoint_ + " (checkpoint written)", comm_);
    describe_second_stop_here();
  }

  // What a second signal, which ends the run at once, leaves in status and says (app/StopRequest.hpp): the
  // state reached, and the checkpoint to continue from; kept current every step and checkpoint.
  void describe_second_stop_here() {
    describe_second_stop(
        "stopped: interrupted twice at " + step_and_time(flow_.step_count(), flow_.time()) +
        "; no checkpoint written; " +
        (last_checkpoint_.empty()
             ? std::string("there is none yet: start the run anew with output.overwrite: true")
             : "the newest checkpoint is " + last_checkpoint_ + " (continue with --restart)"));
  }

  int time_loop(bool restart, const solver::Spectrum& initial_spectrum, double unit) {
    const auto& out = config_.output;
    const double t_end = config_.time.t_end.value_or(kInfinity);
    const long last_step = config_.time.steps.value_or(std::numeric_limits<long>::max());
    const bool checkpoints = out.checkpoint_every > 0 || out.checkpoint_wall_minutes > 0;
    Progress progress(rank_ == 0, flow_.time(), flow_.step_count(), t_end, last_step);
    // As after the step that wrote the checkpoint a restart continues from: the same decisions follow.
    double tolerance = clock_tolerance(flow_.time(), flow_.step_count(), flow_.last_dt());
    double next_fields = next_multiple(flow_.time(), out.fields_every, tolerance);
    double next_spectra = next_multiple(flow_.time(), out.spectra_every, tolerance);
    double next_checkpoint = next_multiple(flow_.time(), out.checkpoint_every, tolerance);
    WallClockCheckpoints wall_checkpoints(out.checkpoint_wall_minutes);

    StepChoice next = choose_dt(t_end, unit);
    // The state at the start: a new run's, and a restart's checkpoint where its series or spectra start anew
    // (moved away as damaged, or kept by an earlier leg with another cadence: without rows).
    const bool series_start = out.series_every > 0 && (!restart || series_->rows() == 0);
    if (!restart || series_start) {
      auto d = solver::compute_diagnostics(flow_);
      if (series_start) write_series(d, next.dt, next.cfl);
      if (!restart && out.progress_every > 0) progress.line(d, next.dt, next.cfl);
    }
    if (out.spectra_every > 0 && (!restart || spectra_->rows() == 0)) write_spectra(initial_spectrum);
    if (!restart && out.fields_every > 0) write_fields();
    const long first_step = flow_.step_count();
    while (flow_.step_count() < last_step && !reaches(flow_.time(), t_end, tolerance)) {
      const StepChoice used = next;
      flow_.step(used.dt);
      if (used.reaches_end)
        flow_.set_clock(t_end, flow_.step_count(), used.dt);  // t_end, not a rounding of it
      const long step = flow_.step_count();
      // Every step's state is checked before anything of it is written, from the pass over the velocity that
      // the next step needs anyway (app/BlowUp.hpp).
      unit = flow_.cfl_dt(1.0, kInfinity);
      const auto& scan = flow_.velocity_scan();
      if (auto problem =
              blow_up_->problem(step, flow_.time(), scan.rate, blow_up_energy(), passive_variances()))
        throw Error(*problem);
      describe_second_stop_here();
      tolerance = clock_tolerance(flow_.time(), step, used.dt);
      const bool finishing = step >= last_step || reaches(flow_.time(), t_end, tolerance);
      const bool series_due = out.series_every > 0 && (step % out.series_every == 0 || finishing);
      const bool progress_due = out.progress_every > 0 && (step % out.progress_every == 0 || finishing);
      if (series_due || progress_due) {
        auto d = solver::compute_diagnostics(flow_);
        if (series_due) write_series(d, used.dt, used.cfl);
        if (progress_due) progress.line(d, used.dt, used.cfl);
      }
      if (reaches(flow_.time(), next_spectra, tolerance) || (finishing && out.spectra_every > 0)) {
        write_spectra(solver::compute_spectrum(flow_, true));
        next_spectra = next_multiple(flow_.time(), out.spectra_every, tolerance);
      }
      if (reaches(flow_.time(), next_fields, tolerance) || (finishing && out.fields_every > 0)) {
        write_fields();
        next_fields = next_multiple(flow_.time(), out.fields_every, tolerance);
      }
      bool wall_due = false;
      if (out.checkpoint_wall_minutes > 0) {
        int due = wall_checkpoints.due(progress.elapsed_seconds());
        MPI_Bcast(&due, 1, MPI_INT, 0, comm_);  // rank 0's clock decides, so all ranks agree
        wall_due = due != 0;
      }
      const bool checkpoint_due =
          reaches(flow_.time(), next_checkpoint, tolerance) || wall_due || (finishing && checkpoints);
      if (checkpoint_due) {
        write_checkpoint();
        next_checkpoint = next_multiple(flow_.time(), out.checkpoint_every, tolerance);
        wall_checkpoints.written(progress.elapsed_seconds());  // whatever made it due (Schedule.hpp)
      }
      if (stop_requested(comm_)) {
        // Not twice at one step: the second would make checkpoint.prev.h5 this state too, losing the earlier.
        if (!checkpoint_due) write_checkpoint();
        // A second signal from here on leaves this checkpoint and the status below as they are.
        forget_second_stop();
        const std::string where = step_and_time(step, flow_.time());
        progress.message("stopped by a signal at " + where + "; checkpoint written to " +
                         io::checkpoint_path(paths_.checkpoints).string() + " (continue with --restart)");
        write_run_status(paths_.root,
                         "stopped by a signal: " + where + "; checkpoint written, continue with --restart",
                         comm_);
        return 130;
      }
      if (!finishing) next = choose_dt(t_end, unit);
    }
    // A new run from a checkpoint at its end already (--checkpoint FILE of another run, at time.t_end or
    // time.steps) takes no step, but ends with a checkpoint as every run does where checkpoints are asked
    // for: its directory would otherwise have none to continue from. (A restart in place has the one it
    // read.)
    if (!restart && checkpoints && flow_.step_count() == first_step) write_checkpoint();
    progress.message("done: " + std::to_string(flow_.step_count()) +
                     " steps, t = " + number_text(flow_.time(), 10) + ", wall time " +
                     format_duration(progress.elapsed_seconds()) + "; output in " + paths_.root.string());
    forget_second_stop();
    write_run_status(paths_.root, "finished: " + step_and_time(flow_.step_count(), flow_.time()), comm_);
    return 0;
  }

  const io::RunConfig& config_;
  const RunOptions& options_;
  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  std::shared_ptr<Device> device_;
  fft::SlabFFT<Real> fft_;
  solver::NavierStokes<Real> flow_;
  io::OutputPaths paths_;
  io::DirectoryLock directory_lock_;  // rank 0's, from the start of writing to the end of the run
  // A field read from a file, with what the file held of it (warn_of_removed_amounts).
  static constexpr int kVelocity = -1, kMagnetic = -2;  // else a scalar's index
  struct ReadAmount {
    std::string where;  // the key or option that read it
    std::string cause;  // what may remove part of it
    std::string what;   // the amount: "kinetic energy", "variance of 'theta'"
    std::string why;    // "" or ": why the file's field loses some"
    int field;          // kVelocity, kMagnetic or a scalar's index
    double stored;      // as the file held it
  };
  std::vector<ReadAmount> read_;
  std::unique_ptr<io::SeriesFile> series_;
  std::unique_ptr<io::SpectraFile> spectra_;
  std::string restart_report_, physics_changes_;  // for the header
  std::vector<std::string> resampled_;  // initial files on another grid (InitialVelocity::resampled)
  long removed_dumps_ = 0;              // field dumps of steps after the restart's checkpoint
  bool removed_checkpoint_ = false;     // checkpoint.h5, ahead of the restart's checkpoint
  std::filesystem::path restart_path_;  // the checkpoint the run continues from
  std::string checkpoint_run_;          // its run identity (empty: none, or not a restart)
  std::string run_;                     // this run's (new_run_identity)
  const double diffusive_limit_ = diffusive_step_limit(config_);  // the adaptive step's bound (BlowUp.hpp)
  std::string last_checkpoint_;         // "step S, t = T" of the newest checkpoint, if any
  std::optional<BlowUpCheck> blow_up_;  // from the state the run starts or continues from
};

}  // namespace

template <class Real>
int run_navier_stokes(const io::RunConfig& config, const RunOptions& options, std::shared_ptr<Device> device,
                      MPI_Comm comm) {
  NavierStokesRun<Real> run(config, options, std::move(device), comm);
  return run.run();
}

template int run_navier_stokes<float>(const io::RunConfig&, const RunOptions&, std::shared_ptr<Device>,
                                      MPI_Comm);
template int run_navier_stokes<double>(const io::RunConfig&, const RunOptions&, std::shared_ptr<Device>,
                                       MPI_Comm);

}  // namespace kolmo::app
