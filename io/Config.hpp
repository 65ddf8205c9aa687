// kolmo's run configuration: a YAML file plus command-line overrides, resolved into a RunConfig.
//
// Contract:
// - load_config(path, overrides) reads the file, applies the overrides in order ("key.path=value" as given to
//   --set; the value is YAML, so "[64, 64, 32]" is a list and an empty value unsets the key), fills in every
//   default and checks everything that can be checked without MPI. The result is complete and consistent.
// - Every problem throws kolmo::Error with one line: where (file:line, the file, or the --set text), the
//   key's full dotted path, and what is wrong: unknown keys (with a suggestion when one is close), wrong
//   types, values out of range, missing required keys, missing input files, keys that contradict each other,
//   keys given where they are not used, YAML syntax errors (where the parser fails on a line that a tab
//   indents, that tab, file:line:column: YAML indents with spaces).
// - A problem that involves other keys as well (the grid an initial field must fit, time.dt against
//   time.cfl, the key that decides whether a key is used or required, ...) ends with where each of those
//   keys' values came from, so that a --set or another line that makes the combination wrong is seen:
//   "runs/x.yaml:18: initial.type: taylor_green has mode number 1 along x, which the 2/3 rule of grid.n =
//   [2, 64, 64] removes (it needs 3 x 1 < N) (grid.n from --set grid.n=[2,64,64])"; "from the default" for
//   a key not given, "from the same line" or "from the same --set" for one given with the key itself. The
//   loaded RunConfig keeps where each given key came from (RunConfig::sources), so that checks made after
//   loading that involve several keys (app/) end their messages alike (sources_text).
// - The keys, types, defaults, allowed values and meanings are the schema table (io/ConfigSchema.hpp);
//   docs/configuration.md is its reference. RunConfig mirrors the YAML: config.physics.forcing.k_min is the
//   key physics.forcing.k_min. Members of options not in use (the forcing shell when forcing is none, ...)
//   are left value-initialised (zero, empty).
// - to_yaml(config) writes every key in use, resolved, so that loading its output gives config again.
//   resolved_keys(config) gives the same keys and values one a line ("grid.n: 64", in the schema's order):
//   two configurations are the same run exactly when these are equal, and the first line that differs names a
//   key that does (the kolmo command compares its ranks' configurations so).
// - Fields beyond the velocity (RunConfig::physics): physics.scalars is a list of maps (item i's keys are
//   named physics.scalars[i].* in messages); a scalar's name is a plain identifier, differs from the other
//   scalars' and from b when the Boussinesq buoyancy is on, and from a field dump's own datasets (u, v, w,
//   pressure, vorticity_*); it has exactly one of diffusivity and schmidt. The buoyancy needs a gravity
//   direction of non-zero length and n2 != 0. output.fields may name scalars only when there are some.
// - MHD (physics.magnetic.type mhd): exactly one of resistivity and prandtl; b's forcing none or band (its
//   shell checked as physics.forcing's); scalars may not be named bx, by, bz, jx, jy, jz; output.fields may
//   name magnetic and current only with MHD, and initial.type orszag_tang only with it.
// - A run from a checkpoint (StartFrom::checkpoint: --restart, --checkpoint) takes its state from there and
//   reads no initial condition: the keys of the initial fields (initial.*, physics.scalars[i].initial.*,
//   physics.buoyancy.initial.*, physics.magnetic.initial.*) are read and their values checked as always, but
//   their files need not exist and their fields are not checked against the grid (the run checks the
//   checkpoint's grid instead, app/Inputs.hpp). Every other key is checked alike.
// - check_ranks(config, ranks) does the one check that needs the rank count: the slab split of the grid.
// - Relative paths (initial.file, poisson.rhs.file, output.directory) are relative to the working directory
//   of the run, not to the configuration file; they are kept as written. An output.directory starting with ~
//   is refused: kolmo does not expand it (a shell does, but not inside YAML), so it would name ./~.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/Device.hpp"
#include "fft/Exchange.hpp"
#include "fft/LocalTransforms.hpp"
#include "fft/SpectralSplit.hpp"
#include "solver/Options.hpp"

namespace kolmo::io {

// The enums' values are in the order of the names in the schema's allowed column. The solver's options
// (integrator, nonlinear form, forcing, spectrum shape) are the solver's own enums (solver/Options.hpp), with
// the same names.
enum class Precision { float32, float64 };  // "single", "double"
enum class BackendChoice { automatic, host, cuda };
// fft.spectral_split: automatic is settled per run (app::choose_spectral_split), the others are fft's.
enum class SpectralSplitChoice { automatic, even, kept_rows };
enum class Problem { navier_stokes, poisson };
enum class InitialType { taylor_green, abc, random, file, orszag_tang };
enum class ScalarInitialType { zero, random, file };
enum class BuoyancyType { none, boussinesq };
enum class OutputField { velocity, vorticity, pressure, scalars, magnetic, current };
enum class MagneticType { none, mhd };
enum class MagneticInitialType { zero, abc, orszag_tang, taylor_green_conducting, random, file };
enum class RhsType { manufactured, file };
using solver::ForcingKind;
using solver::Integrator;
using solver::NonlinearForm;
using solver::SpectrumShape;

struct GridConfig {
  std::array<long, 3> n{};      // points along x, y, z
  std::array<double, 3> box{};  // Lx, Ly, Lz
  bool operator==(const GridConfig&) const = default;
};

struct FftConfig {
  fft::ExchangeMethod exchange{};
  bool cuda_aware_mpi{};
  long exchange_pieces{};
  long lanes{};  // 0: automatic (fft/TransformLanes.hpp)
  SpectralSplitChoice spectral_split{};
  fft::FftwPlanning planning{};
  bool operator==(const FftConfig&) const = default;
};

struct ForcingConfig {
  ForcingKind type{};
  double k_min{}, k_max{};            // band: the forced shell k_min <= |k| <= k_max
  std::optional<double> power;        // band (always set), linear: the injection rate to hold
  std::optional<double> coefficient;  // linear: fixed A in f = A u (set when power is not)
  bool operator==(const ForcingConfig&) const = default;
};

// The initial field of a scalar (or of the buoyancy b).
struct ScalarInitialConfig {
  ScalarInitialType type{};
  double variance{}, k0{};  // random
  SpectrumShape shape{};    // random
  long seed{};              // random
  std::string file;         // file
  std::string dataset;      // file: a field file's dataset, a checkpoint's <dataset>_hat
  bool operator==(const ScalarInitialConfig&) const = default;
};

struct ScalarConfig {
  std::string name;
  std::optional<double> diffusivity, schmidt;  // exactly one is set
  std::array<double, 3> mean_gradient{};
  ScalarInitialConfig initial;
  // kappa: the diffusivity, or nu / schmidt.
  double resolved_diffusivity(double viscosity) const {
    return diffusivity ? *diffusivity : viscosity / *schmidt;
  }
  bool operator==(const ScalarConfig&) const = default;
};

struct BuoyancyConfig {
  BuoyancyType type{};
  double n2{}, prandtl{};           // boussinesq
  std::array<double, 3> gravity{};  // boussinesq: its direction
  ScalarInitialConfig initial;      // boussinesq: of b
  bool operator==(const BuoyancyConfig&) const = default;
};

// The magnetic field of MHD (physics.magnetic.*).
struct MagneticInitialConfig {
  MagneticInitialType type{};
  double amplitude{};     // orszag_tang, taylor_green_conducting
  double A{}, B{}, C{};   // abc
  long k{};               // abc
  double energy{}, k0{};  // random
  SpectrumShape shape{};  // random
  long seed{};            // random
  std::string file;       // file
  bool operator==(const MagneticInitialConfig&) const = default;
};

struct MagneticConfig {
  MagneticType type{};
  std::optional<double> resistivity, prandtl;  // mhd: exactly one is set
  std::array<double, 3> background{};          // B0
  ForcingConfig forcing;                       // of b: none or band
  MagneticInitialConfig initial;
  double resolved_resistivity(double viscosity) const {
    return resistivity ? *resistivity : viscosity / *prandtl;
  }
  bool operator==(const MagneticConfig&) const = default;
};

struct PhysicsConfig {
  double viscosity{};
  NonlinearForm nonlinear_form{};
  ForcingConfig forcing;
  std::array<double, 3> rotation{};  // Omega
  BuoyancyConfig buoyancy;
  std::vector<ScalarConfig> scalars;
  MagneticConfig magnetic;
  bool operator==(const PhysicsConfig&) const = default;
};

struct TimeConfig {
  Integrator integrator{};
  std::optional<double> dt;      // fixed step; not set: adaptive from cfl
  double cfl{};                  // adaptive step only
  std::optional<double> max_dt;  // adaptive step only; not set: no bound
  std::optional<double> t_end;   // at least one of t_end and steps is set; the run stops at whichever
  std::optional<long> steps;     // comes first
  bool operator==(const TimeConfig&) const = default;
};

struct SpectrumConfig {
  SpectrumShape shape{};
  double k0{};
  double energy{};
  bool operator==(const SpectrumConfig&) const = default;
};

struct InitialConfig {
  InitialType type{};
  double amplitude{};       // taylor_green
  double A{}, B{}, C{};     // abc
  long k{};                 // abc
  SpectrumConfig spectrum;  // random
  long seed{};              // random
  std::string file;         // file
  bool operator==(const InitialConfig&) const = default;
};

struct OutputConfig {
  std::string directory;
  bool overwrite{};
  long progress_every{};  // intervals in steps
  long series_every{};
  std::vector<OutputField> fields;
  double fields_every{};  // intervals in simulation time
  double spectra_every{};
  double checkpoint_every{};
  double checkpoint_wall_minutes{};  // wall-clock interval
  bool operator==(const OutputConfig&) const = default;
};

struct RhsConfig {
  RhsType type{};
  std::vector<std::array<long, 3>> modes;  // manufactured
  std::string file;                        // file
  std::string dataset;                     // file
  bool operator==(const RhsConfig&) const = default;
};

struct PoissonConfig {
  double shift{};
  RhsConfig rhs;
  bool subtract_mean{};  // file: subtract the right-hand side's mean before solving
  bool gradient{};
  bool operator==(const PoissonConfig&) const = default;
};

// Where the values of a loaded configuration came from: for each key given (a list item's named with its
// index, "physics.scalars[1].name"), the file:line or --set text that gave it. For the messages of checks
// made after loading that involve several keys (app/: an input file against grid.box, ...), which end as the
// loader's own do (sources_text). Not part of the configuration: two configurations that differ only in
// where their values came from are equal.
struct KeySources {
  std::map<std::string, std::string, std::less<>> where;
  bool operator==(const KeySources&) const { return true; }
};

struct RunConfig {
  GridConfig grid;
  Precision precision{};
  BackendChoice backend{};
  FftConfig fft;
  Problem problem{};
  PhysicsConfig physics;  // navier_stokes
  TimeConfig time;        // navier_stokes
  InitialConfig initial;  // navier_stokes
  OutputConfig output;
  PoissonConfig poisson;  // poisson
  KeySources sources;     // filled by load_config; compares equal always
  bool operator==(const RunConfig&) const = default;
};

// What a run starts from: the initial condition its configuration describes, or a checkpoint.
enum class StartFrom { initial_condition, checkpoint };

// Reads, resolves and checks a configuration file; overrides are "key.path=value" strings.
RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {},
                      StartFrom start = StartFrom::initial_condition);
// The same from YAML text; name stands for the file in messages and in the default output directory.
RunConfig load_config_text(const std::string& yaml, const std::string& name = "config",
                           const std::vector<std::string>& overrides = {},
                           StartFrom start = StartFrom::initial_condition);
// The resolved configuration as YAML: every key in use, one comment per key; loads back to the same config.
std::string to_yaml(const RunConfig& config);
// The keys in use with their resolved values, "key.path: value" (YAML), one a key in the schema's order.
std::vector<std::string> resolved_keys(const RunConfig& config);
// " (initial.file from runs/x.yaml:20; grid.box from --set grid.box=4pi)": where each of keys' values came
// from ("from the default" for a key not given), to end the message of a check made after loading that
// involves these keys, as the loader's messages of checks across keys end.
std::string sources_text(const RunConfig& config, const std::vector<std::string>& keys);
// "runs/x.yaml:3: grid.n: <message>": the message of a check made after loading that involves one key,
// opened by where its value came from as the loader's messages of one key are; a key not given ends it
// instead, "grid.n: <message> (grid.n from the default)".
std::string key_message(const RunConfig& config, const std::string& key, const std::string& message);
// Throws kolmo::Error when the grid cannot be split over this many ranks.
void check_ranks(const RunConfig& config, int ranks);

// k_max,d: the largest wavenumber along axis d that the 2/3 rule keeps (solver/Wavenumbers.hpp), and the
// largest kept |k|^2, the sum over the axes of k_max,d^2.
double largest_kept_wavenumber(const GridConfig& grid, int d);
double largest_kept_k2(const GridConfig& grid);
// The largest velocity before the first step may overflow the precision: the nonlinear term multiplies the
// velocity by its gradient, up to U^2 k_max at a point (k_max = sqrt(largest_kept_k2)), and its forward
// transform sums the N^3 points' values, so U^2 k_max N^3 must stay below the precision's largest number L:
// U = sqrt(L / (k_max N^3)), infinite where no mode but 0 is kept. The start check refuses velocities beyond
// it (app/BlowUp.cpp), the configuration the coefficients of terms formed with the velocity beyond U k_max.
double largest_safe_velocity(const GridConfig& grid, Precision precision);

// The backend to use: automatic picks cuda when a GPU is usable.
Backend resolve(BackendChoice choice);

// The names used in the YAML file.
std::string to_string(Precision value);
std::string to_string(BackendChoice value);
std::string to_string(SpectralSplitChoice value);
std::string to_string(Problem value);
std::string to_string(InitialType value);
std::string to_string(ScalarInitialType value);
std::string to_string(BuoyancyType value);
std::string to_string(OutputField value);
std::string to_string(RhsType value);
std::string to_string(MagneticType value);
std::string to_string(MagneticInitialType value);

}  // namespace kolmo::io
