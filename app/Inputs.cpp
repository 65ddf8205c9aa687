#include "app/Inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <span>

#include "app/FlowFromConfig.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "io/Collective.hpp"
#include "io/FieldReader.hpp"
#include "io/Hdf5.hpp"
#include "io/OutputDirectory.hpp"
#include "solver/Poisson.hpp"

namespace kolmo::app {

namespace {

// Runs read and prefixes the key (or option) to any kolmo::Error it throws.
template <class Read>
void reading(const std::string& key, Read read) {
  try {
    read();
  } catch (const Error& error) {
    throw Error(key + ": " + error.what());
  }
}

// A kolmo file holds its field on the box of the run that wrote it (its attribute box): read on another box,
// the same values would be another field, its derivatives, divergence and spectrum scaled by the other
// 2 pi / L. So a file whose box differs from grid.box is refused, as one on another grid is; a file without
// a box (from another tool) is taken on grid.box. Equal to 1e-12, relative: 2pi written as a number is the
// same box. (A checkpoint continues on a new box on purpose through --checkpoint, not here.) sources: where
// the file's key and grid.box came from (io::sources_text), which the message ends with.
void require_same_box(const io::FieldReader& reader, const std::array<double, 3>& box,
                      const std::string& sources) {
  constexpr double kTolerance = 1e-12;
  const auto stored = reader.box();
  if (!stored) return;
  for (int d = 0; d < 3; ++d)
    if (!(std::fabs((*stored)[d] - box[d]) <=
          kTolerance * std::fmax(std::fabs((*stored)[d]), std::fabs(box[d]))))
      throw Error(reader.path().string() + " holds a field on the box " + list_text(*stored, 15) +
                  ", not on grid.box = " + list_text(box, 15) + ": set grid.box to the file's box" + sources);
}

// Field files are not interpolated (a checkpoint's modes are: resampled_text): a field on another grid than
// grid.n is refused before it is read, naming where both keys came from (read() would refuse it too, but by
// the dataset's shape in the file's axis order, with no word of grid.n). A field file's grid is its
// dataset's shape (a file from another tool may have nothing else). A dataset missing or not
// three-dimensional is left to read()'s error.
// or_checkpoint: the key takes a checkpoint too, which the refusal then offers.
void require_same_grid(const io::FieldReader& reader, const std::string& dataset,
                       const std::array<long, 3>& n, const std::string& sources, bool or_checkpoint) {
  const auto stored = reader.dataset_grid(dataset);
  if (stored && *stored != n)
    throw Error(reader.path().string() + " holds '" + dataset + "' on the grid " + list_text(*stored) +
                ", not on grid.n = " + list_text(n) + ": set grid.n to the file's grid" +
                (or_checkpoint
                     ? " (a field file is not interpolated; a checkpoint of another grid is resampled)"
                     : "") +
                sources);
}

// "key: file, grid [32, 32, 32] -> [64, 64, 64]" where a checkpoint's grid is not grid.n, else empty.
std::string resampled_text(const std::string& key, const std::string& file, const std::array<long, 3>& stored,
                           const std::array<long, 3>& n) {
  return stored == n ? std::string()
                     : key + ": " + file + ", grid " + list_text(stored) + " -> " + list_text(n);
}

std::string dataset_text(const std::string& key, const std::string& file, const std::string& dataset) {
  return key + ": " + file + " dataset '" + dataset + "'";
}

std::string forcing_text(const io::ForcingConfig& forcing) {
  switch (forcing.type) {
    case solver::ForcingKind::none:
      return "none";
    case solver::ForcingKind::band:
      return "band (k " + number_text(forcing.k_min) + " to " + number_text(forcing.k_max) + ", power " +
             number_text(forcing.power.value_or(0)) + ")";
    case solver::ForcingKind::linear:
      return forcing.power ? "linear (power " + number_text(*forcing.power) + ")"
                           : "linear (coefficient " + number_text(forcing.coefficient.value_or(0)) + ")";
  }
  return "?";
}

// A coefficient that either of two keys gives (a scalar's diffusivity or schmidt, b's resistivity or
// prandtl): the key that gives it, and its value.
struct Coefficient {
  std::string key;
  double value;
};
Coefficient coefficient(const std::string& first, const std::optional<double>& first_value,
                        const std::string& second, const std::optional<double>& second_value) {
  return first_value ? Coefficient{first, *first_value} : Coefficient{second, second_value.value_or(0)};
}

// One clause "key old -> new" for each key that config changes against the configuration the checkpoint was
// written with (written_with), of those the checkpoint's attributes do not hold: the forcings, the rotation,
// the time integrator and step, and the coefficients of the scalars, the buoyancy and b. Both have the same
// fields (read_restart refuses a field added or removed): a scalar is found by its name, and named by its
// index in config.
std::vector<std::string> changed_keys(const io::RunConfig& previous, const io::RunConfig& config) {
  std::vector<std::string> changes;
  auto name = [&](const std::string& key, const auto& was, const auto& now, auto text) {
    if (was != now) changes.push_back(key + " " + text(was) + " -> " + text(now));
  };
  const auto number = [](double x) { return number_text(x); };
  const auto vector = [](const std::array<double, 3>& v) { return list_text(v); };
  // Given by the other key now, the coefficient names both: "physics.magnetic.resistivity 0.01 ->
  // physics.magnetic.prandtl 2".
  auto name_coefficient = [&](const Coefficient& was, const Coefficient& now) {
    if (was.key == now.key)
      name(was.key, was.value, now.value, number);
    else
      changes.push_back(was.key + " " + number(was.value) + " -> " + now.key + " " + number(now.value));
  };
  const io::PhysicsConfig &old_physics = previous.physics, &physics = config.physics;
  name("physics.forcing", old_physics.forcing, physics.forcing, forcing_text);
  name("physics.rotation", old_physics.rotation, physics.rotation, vector);
  name("time.integrator", previous.time.integrator, config.time.integrator,
       [](solver::Integrator integrator) { return solver::to_string(integrator); });
  name("time.dt", previous.time.dt, config.time.dt,
       [](const std::optional<double>& dt) { return dt ? number_text(*dt) : std::string("adaptive (cfl)"); });
  for (std::size_t i = 0; i < physics.scalars.size(); ++i) {
    const io::ScalarConfig& scalar = physics.scalars[i];
    const auto old = std::find_if(old_physics.scalars.begin(), old_physics.scalars.end(),
                                  [&](const io::ScalarConfig& s) { return s.name == scalar.name; });
    if (old == old_physics.scalars.end()) continue;
    const std::string key = "physics.scalars[" + std::to_string(i) + "].";
    auto diffusivity = [&](const io::ScalarConfig& s) {
      return coefficient(key + "diffusivity", s.diffusivity, key + "schmidt", s.schmidt);
    };
    name_coefficient(diffusivity(*old), diffusivity(scalar));
    name(key + "mean_gradient", old->mean_gradient, scalar.mean_gradient, vector);
  }
  const io::BuoyancyConfig &old_buoyancy = old_physics.buoyancy, &buoyancy = physics.buoyancy;
  if (old_buoyancy.type == io::BuoyancyType::boussinesq && buoyancy.type == io::BuoyancyType::boussinesq) {
    name("physics.buoyancy.n2", old_buoyancy.n2, buoyancy.n2, number);
    name("physics.buoyancy.prandtl", old_buoyancy.prandtl, buoyancy.prandtl, number);
    name("physics.buoyancy.gravity", old_buoyancy.gravity, buoyancy.gravity, vector);
  }
  const io::MagneticConfig &old_magnetic = old_physics.magnetic, &magnetic = physics.magnetic;
  if (old_magnetic.type == io::MagneticType::mhd && magnetic.type == io::MagneticType::mhd) {
    auto resistivity = [](const io::MagneticConfig& m) {
      return coefficient("physics.magnetic.resistivity", m.resistivity, "physics.magnetic.prandtl",
                         m.prandtl);
    };
    name_coefficient(resistivity(old_magnetic), resistivity(magnetic));
    name("physics.magnetic.background", old_magnetic.background, magnetic.background, vector);
    name("physics.magnetic.forcing", old_magnetic.forcing, magnetic.forcing, forcing_text);
  }
  return changes;
}

// The configuration a checkpoint was written with, loaded as a run from a checkpoint loads its own (its
// initial files need not exist): the one the checkpoint stores, exactly that of the leg that wrote it, so
// right for checkpoint.prev.h5 after a leg that changed keys and for another run's checkpoint alike. A
// checkpoint from before kolmo stored it has only the run's config.yaml, where the run continues in its own
// directory (own_directory): that of the latest leg, which wrote the newest checkpoints. Text that does not
// load (from another version, or config.yaml edited by hand) gives the next of the two, or none: only the
// checkpoint's attributes are compared then.
std::optional<io::RunConfig> written_with(const io::CheckpointInfo& info, const std::filesystem::path& path,
                                          bool own_directory, const std::filesystem::path& config_yaml) {
  if (!info.configuration.empty()) {
    try {
      return io::load_config_text(info.configuration, path.string(), {}, io::StartFrom::checkpoint);
    } catch (const Error&) {
    }
  }
  if (own_directory && std::filesystem::is_regular_file(config_yaml)) {
    try {
      return io::load_config(config_yaml.string(), {}, io::StartFrom::checkpoint);
    } catch (const Error&) {
    }
  }
  return std::nullopt;
}

}  // namespace

std::string changes_text(const std::vector<std::string>& physics_changes) {
  if (physics_changes.empty()) return {};
  std::string text = "since the checkpoint: ";
  for (std::size_t i = 0; i < physics_changes.size(); ++i) text += (i ? ", " : "") + physics_changes[i];
  return text + " (the run continues with the new values)";
}

template <class T>
void require_finite(const std::vector<T>& values, const std::string& where, MPI_Comm comm) {
  const long long total = io::count_non_finite<T>(values, comm);
  if (total > 0)
    throw Error(where + ": " + std::to_string(total) + (total == 1 ? " value is" : " values are") +
                " NaN or infinite");
}

bool RunOptions::continues_in(const std::string& directory) const {
  if (restart) return true;
  if (checkpoint.empty()) return false;
  std::error_code file_error, own_error;  // a path that cannot be resolved names no file of directory
  const auto file = std::filesystem::weakly_canonical(checkpoint, file_error);
  const auto own = std::filesystem::weakly_canonical(io::output_paths(directory).checkpoints, own_error);
  return !file_error && !own_error && file.parent_path() == own;
}

// A vector field from a field file (its three real datasets) or a checkpoint (their <name>_hat), for the
// configuration key `key`, on the run's box.
template <class Real>
InitialVelocity<Real> read_vector_file(const io::RunConfig& config, const std::string& key,
                                       const std::string& file, const std::array<std::string, 3>& names,
                                       const fft::SlabLayout& layout, MPI_Comm comm) {
  InitialVelocity<Real> field;
  std::array<std::string, 3> spectral_names;
  for (int c = 0; c < 3; ++c) spectral_names[c] = io::checkpoint_dataset(names[c]);
  reading(key, [&] {
    io::FieldReader reader(file, comm);
    require_same_box(reader, config.grid.box, io::sources_text(config, {key, "grid.box"}));
    field.spectral = reader.has_dataset(spectral_names[0]);
    if (field.spectral) {
      field.resampled = resampled_text(key, file, reader.grid(), config.grid.n);
      std::vector<io::SpectralTarget<Real>> targets;
      for (int c = 0; c < 3; ++c) {
        io::resize_on_every_rank(comm, field.modes[c], layout.spectral_size(),
                                 file + " dataset '" + spectral_names[c] + "'");
        targets.push_back({spectral_names[c], field.modes[c]});
      }
      std::vector<double> squares;
      io::read_checkpoint_resampled<Real>(file, layout, targets, comm, &squares);
      for (double square : squares) field.stored_energy += 0.5 * square;
      return;
    }
    KOLMO_REQUIRE(reader.has_dataset(names[0]), file + " holds neither " + names[0] + ", " + names[1] + ", " +
                                                    names[2] + " (a field file) nor " + spectral_names[0] +
                                                    ", ... (a checkpoint)");
    require_same_grid(reader, names[0], config.grid.n, io::sources_text(config, {key, "grid.n"}), true);
    for (int c = 0; c < 3; ++c) {
      // Agreed (the reader's file is open on every rank, and its close is collective), as every step here.
      io::resize_on_every_rank(comm, field.real[c], layout.real_size(), file + " dataset '" + names[c] + "'");
      reader.read<Real>(names[c], layout, field.real[c]);
    }
  });
  for (int c = 0; c < 3; ++c) {
    if (field.spectral)
      require_finite(field.modes[c], dataset_text(key, file, spectral_names[c]), comm);
    else
      require_finite(field.real[c], dataset_text(key, file, names[c]), comm);
  }
  return field;
}

template <class Real>
InitialVelocity<Real> read_initial_file(const io::RunConfig& config, const fft::SlabLayout& layout,
                                        MPI_Comm comm) {
  return read_vector_file<Real>(config, "initial.file", config.initial.file, {"u", "v", "w"}, layout, comm);
}

template <class Real>
InitialVelocity<Real> read_initial_magnetic(const io::RunConfig& config, const fft::SlabLayout& layout,
                                            MPI_Comm comm) {
  const auto& magnetic = config.physics.magnetic;
  if (magnetic.type != io::MagneticType::mhd || magnetic.initial.type != io::MagneticInitialType::file)
    return {};
  return read_vector_file<Real>(config, "physics.magnetic.initial.file", magnetic.initial.file,
                                io::kMagneticNames, layout, comm);
}

template <class Real>
std::vector<InitialScalar<Real>> read_initial_scalars(const io::RunConfig& config,
                                                      const fft::SlabLayout& layout, MPI_Comm comm) {
  const auto fields = scalar_fields(config);
  std::vector<InitialScalar<Real>> scalars(fields.size());
  for (std::size_t j = 0; j < fields.size(); ++j) {
    const auto& initial = fields[j].initial;
    if (initial.type != io::ScalarInitialType::file) continue;
    // The dataset names the field in either kind of file: a checkpoint's is its <dataset>_hat, so that
    // `dataset: c2` reads c2 from a checkpoint too, not the field of the scalar's own name beside it.
    const std::string key = fields[j].key + ".initial.file",
                      spectral_name = io::checkpoint_dataset(initial.dataset);
    InitialScalar<Real>& scalar = scalars[j];
    scalar.given = true;
    reading(key, [&] {
      io::FieldReader reader(initial.file, comm);
      require_same_box(reader, config.grid.box, io::sources_text(config, {key, "grid.box"}));
      scalar.spectral = !reader.has_dataset(initial.dataset) && reader.has_dataset(spectral_name);
      if (scalar.spectral) {
        scalar.resampled = resampled_text(key, initial.file, reader.grid(), config.grid.n);
        io::resize_on_every_rank(comm, scalar.modes, layout.spectral_size(),
                                 initial.file + " dataset '" + spectral_name + "'");
        std::vector<double> squares;
        io::read_checkpoint_resampled<Real>(initial.file, layout, {{spectral_name, scalar.modes}}, comm,
                                            &squares);
        if (!squares.empty()) scalar.stored_variance = squares[0];
        return;
      }
      KOLMO_REQUIRE(reader.has_dataset(initial.dataset), initial.file + " holds neither " + initial.dataset +
                                                             " (a field file) nor " + spectral_name +
                                                             " (a checkpoint)");
      require_same_grid(reader, initial.dataset, config.grid.n, io::sources_text(config, {key, "grid.n"}),
                        true);
      io::resize_on_every_rank(comm, scalar.real, layout.real_size(),
                               initial.file + " dataset '" + initial.dataset + "'");
      reader.read<Real>(initial.dataset, layout, scalar.real);
    });
    if (scalar.spectral)
      require_finite(scalar.modes, dataset_text(key, initial.file, spectral_name), comm);
    else
      require_finite(scalar.real, dataset_text(key, initial.file, initial.dataset), comm);
  }
  return scalars;
}

template <class Real>
RestartState<Real> read_restart(const io::RunConfig& config, const RunOptions& options,
                                const fft::SlabLayout& layout, MPI_Comm comm) {
  const std::string option = options.checkpoint.empty() ? "--restart" : "--checkpoint";
  const auto paths = io::output_paths(config.output.directory);
  RestartState<Real> state;
  // Every field of the run, by name: the velocity's components and each scalar's.
  const auto scalars = scalar_fields(config);
  std::vector<std::string> names(io::kVelocityComponents.begin(), io::kVelocityComponents.end());
  for (const auto& scalar : scalars) names.push_back(io::checkpoint_dataset(scalar.name));
  const bool mhd = config.physics.magnetic.type == io::MagneticType::mhd;
  if (mhd)
    for (const auto& name : io::kMagneticNames) names.push_back(io::checkpoint_dataset(name));
  state.scalar_modes.resize(scalars.size());
  if (mhd) state.magnetic_modes.resize(3);
  // The i-th field of names: the velocity's components, the scalars, b's components.
  auto modes_of = [&](std::size_t i) -> std::vector<Complex<Real>>& {
    if (i < 3) return state.modes[i];
    if (i < 3 + scalars.size()) return state.scalar_modes[i - 3];
    return state.magnetic_modes[i - 3 - scalars.size()];
  };
  std::vector<io::SpectralTarget<Real>> targets;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto& modes = modes_of(i);
    modes.resize(layout.spectral_size());
    targets.push_back({names[i], modes});
  }
  bool read = false;
  std::map<std::string, double> stored_mean_squares;
  reading(option, [&] {
    // The named file, or the newest sound one of checkpoint.h5 and checkpoint.prev.h5, checksums verified:
    // its fields are read into targets in that pass where they are the run's (resampled onto another grid,
    // their mean squares summed).
    io::RestartCheckpoint chosen =
        io::choose_restart_checkpoint<Real>(paths.checkpoints, options.checkpoint, layout, targets, comm);
    state.path = chosen.path;
    state.info = chosen.info;
    state.note = chosen.note;
    read = chosen.read;
    stored_mean_squares = std::move(chosen.stored_mean_squares);
  });
  // Another grid is for a new run from the checkpoint: the run's own series and spectra (its shells) are
  // of the checkpoint's grid.
  state.resampled = state.info.grid != config.grid.n;
  if (state.resampled && options.continues_in(config.output.directory))
    throw Error("grid.n: " + list_text(config.grid.n) + " differs from the grid of the checkpoint " +
                state.path.string() + ", " + list_text(state.info.grid) +
                ": a run continues on its checkpoint's grid; to go on on another grid, give the checkpoint "
                "with --checkpoint and another output.directory (its modes are then resampled)" +
                io::sources_text(config, {"grid.n"}));
  // A field the configuration has and the checkpoint lacks (a scalar or b added since) is named as such, and
  // so is one the checkpoint holds and the configuration lacks (removed since): continuing without it would
  // drop it from the next checkpoints, and with it the only copy of that field's state.
  reading(option, [&] {
    io::on_root(comm, [&] {
      const io::File file = io::open_serial(state.path);
      for (std::size_t i = 3; i < names.size(); ++i)
        if (!io::has_link(file.get(), names[i]))
          throw Error(
              state.path.string() + " holds no " + names[i] + ": the configuration has a field (" +
              (i < 3 + scalars.size() ? "scalar '" + scalars[i - 3].name + "'" : std::string("b")) +
              ") that the checkpoint's run did not; a run continues the fields its checkpoint holds, so "
              "remove it from the configuration or start a new run with it");
      for (const std::string& name : io::dataset_names(file.get()))
        if (std::find(names.begin(), names.end(), name) == names.end())
          throw Error(state.path.string() + " holds " + name +
                      ", a field the configuration does not have (removed since); a run continues every "
                      "field its checkpoint holds, so put it back in the configuration, or start a new run "
                      "without it (the checkpoint can be its initial.file)");
    });
  });
  // The fields were read in the pass that chose the file (resampled onto another grid), which also found
  // them finite, unless its fields (refused above) are not the run's.
  if (!read) {
    reading(option,
            [&] { state.info = io::read_checkpoint_resampled<Real>(state.path, layout, targets, comm); });
    for (std::size_t i = 0; i < names.size(); ++i)
      require_finite(modes_of(i), dataset_text(option, state.path.string(), names[i]), comm);
  }
  if (state.resampled) {
    state.physics_changes.push_back("grid.n " + list_text(state.info.grid) + " -> " +
                                    list_text(config.grid.n) + " (modes resampled)");
    // The file holds every name (refused above otherwise), and its grid is not the run's: the pass that chose
    // it summed each one's mean square (as it verified or resampled it).
    for (const std::string& name : names) state.stored_mean_squares.push_back(stored_mean_squares.at(name));
  }

  // Changed physics is allowed (a run may continue with another viscosity on purpose), and said.
  if (state.info.viscosity != config.physics.viscosity)
    state.physics_changes.push_back("physics.viscosity " + number_text(state.info.viscosity) + " -> " +
                                    number_text(config.physics.viscosity));
  if (state.info.box != config.grid.box) {
    // The shells of the spectra depend on the box: the run's spectra.h5 cannot take the new ones.
    if (options.continues_in(config.output.directory) && std::filesystem::is_regular_file(paths.spectra))
      throw Error("grid.box: " + list_text(config.grid.box) + " differs from the checkpoint's " +
                  list_text(state.info.box) + ", and " + paths.spectra.string() +
                  " holds the old box's shells: continue with a new box in another output.directory "
                  "(--checkpoint FILE)");
    state.physics_changes.push_back("grid.box " + list_text(state.info.box) + " -> " +
                                    list_text(config.grid.box));
  }
  // The other keys against the configuration the checkpoint was written with: its own, or for an older
  // checkpoint the run's config.yaml where the run continues in its own directory (--restart, or --checkpoint
  // of its own checkpoint.prev.h5).
  if (const auto previous =
          written_with(state.info, state.path, options.continues_in(config.output.directory), paths.config)) {
    const auto changes = changed_keys(*previous, config);
    state.physics_changes.insert(state.physics_changes.end(), changes.begin(), changes.end());
  }
  // The precision: a checkpoint may be read in the other one (double -> single rounds its values).
  if (state.info.precision != io::to_string(config.precision))
    state.physics_changes.push_back("precision " + state.info.precision + " -> " +
                                    io::to_string(config.precision));
  return state;
}

template <class Real>
std::vector<Real> read_poisson_rhs(const io::RunConfig& config, const fft::SlabLayout& layout, MPI_Comm comm,
                                   double& subtracted_mean) {
  const auto& rhs = config.poisson.rhs;
  std::vector<Real> f(layout.real_size());
  reading("poisson.rhs.file", [&] {
    // Values at the grid's points on another box would be another right-hand side (its derivatives, and so
    // phi, scaled by the other 2 pi / L), as for an initial file.
    io::FieldReader reader(rhs.file, comm);
    require_same_box(reader, config.grid.box, io::sources_text(config, {"poisson.rhs.file", "grid.box"}));
    require_same_grid(reader, rhs.dataset, config.grid.n,
                      io::sources_text(config, {"poisson.rhs.file", "grid.n"}), false);
    reader.read<Real>(rhs.dataset, layout, std::span<Real>(f));
  });
  require_finite(f, dataset_text("poisson.rhs.file", rhs.file, rhs.dataset), comm);

  const double points = double(config.grid.n[0]) * double(config.grid.n[1]) * double(config.grid.n[2]);
  double mean = 0, rms = 0;
  auto measure = [&] {
    double local[2] = {0, 0}, total[2] = {0, 0};
    for (Real value : f) {
      local[0] += double(value);
      local[1] += double(value) * double(value);
    }
    KOLMO_CHECK_MPI(MPI_Allreduce(local, total, 2, MPI_DOUBLE, MPI_SUM, comm));
    mean = total[0] / points;
    rms = std::sqrt(total[1] / points);
  };
  measure();
  subtracted_mean = 0;
  if (config.poisson.subtract_mean) {
    // Twice: a mean large against f's variation (a density 1000.3 + 1e-3 g) leaves its own round-off (its
    // sum's, its rounding to Real) behind, beyond the solver's tolerance of the smaller rms; the second pass,
    // on values of the size of that variation, removes it.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass > 0) measure();  // what the first pass left
      for (Real& value : f) value -= Real(mean);
      subtracted_mean += mean;
    }
  } else if (config.poisson.shift == 0 && !(std::fabs(mean) <= solver::Poisson<Real>::mean_tolerance(rms))) {
    throw Error(dataset_text("poisson.rhs.file", rhs.file, rhs.dataset) + " has mean " + number_text(mean) +
                " (rms " + number_text(rms) +
                "); with poisson.shift = 0 a periodic problem needs a zero mean: set poisson.subtract_mean: "
                "true to remove it" +
                io::sources_text(config, {"poisson.rhs.file", "poisson.shift", "poisson.subtract_mean"}));
  }
  return f;
}

#define KOLMO_INSTANTIATE_INPUTS(Real)                                                                      \
  template InitialVelocity<Real> read_initial_file<Real>(const io::RunConfig&, const fft::SlabLayout&,      \
                                                         MPI_Comm);                                         \
  template InitialVelocity<Real> read_initial_magnetic<Real>(const io::RunConfig&, const fft::SlabLayout&,  \
                                                             MPI_Comm);                                     \
  template std::vector<InitialScalar<Real>> read_initial_scalars<Real>(const io::RunConfig&,                \
                                                                       const fft::SlabLayout&, MPI_Comm);   \
  template RestartState<Real> read_restart<Real>(const io::RunConfig&, const RunOptions&,                   \
                                                 const fft::SlabLayout&, MPI_Comm);                         \
  template std::vector<Real> read_poisson_rhs<Real>(const io::RunConfig&, const fft::SlabLayout&, MPI_Comm, \
                                                    double&);                                               \
  template void require_finite<Real>(const std::vector<Real>&, const std::string&, MPI_Comm);               \
  template void require_finite<Complex<Real>>(const std::vector<Complex<Real>>&, const std::string&,        \
                                              MPI_Comm);
KOLMO_INSTANTIATE_INPUTS(float)
KOLMO_INSTANTIATE_INPUTS(double)
#undef KOLMO_INSTANTIATE_INPUTS

}  // namespace kolmo::app
