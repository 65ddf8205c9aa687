// The example runs in configs/ load, say what their comments claim, and survive load -> to_yaml -> load;
// defaults are the documented ones; every option round-trips through to_yaml; resolved_keys tells
// configurations apart by the keys that differ; a run from a checkpoint needs no initial files and fits no
// initial field to the grid.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "io/Config.hpp"
#include "io/ConfigSchema.hpp"
#include "tests/config/ConfigTestSupport.hpp"

using namespace kolmo::io;
using kolmo::testing::TemporaryFile;

namespace {

constexpr double two_pi = 2 * std::numbers::pi;

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kolmo::testing::source_dir() / "configs"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// load -> to_yaml -> load through a file gives the same configuration and the same text.
void check_round_trip(const RunConfig& config, const std::string& name) {
  const std::string yaml = to_yaml(config);
  TemporaryFile file(name + ".yaml", yaml);
  RunConfig again;
  REQUIRE_NOTHROW(again = load_config(file.path()));
  INFO(yaml);
  CHECK(again == config);
  CHECK(to_yaml(again) == yaml);
}

RunConfig example(const std::string& name) {
  return load_config((kolmo::testing::source_dir() / "configs" / name).string());
}

}  // namespace

TEST_CASE("every example in configs/ loads and round-trips through to_yaml", "[config]") {
  const auto files = example_files();
  REQUIRE(files.size() >= 5);
  for (const auto& path : files) {
    INFO(path.string());
    RunConfig config;
    REQUIRE_NOTHROW(config = load_config(path.string()));
    check_round_trip(config, path.stem().string());
  }
}

TEST_CASE("docs/configuration.md and README.md list every example in configs/, each with what it runs",
          "[config]") {
  std::vector<std::string> listed, in_configs;
  for (const ExampleConfig& example : example_configs()) {
    INFO(example.file);
    CHECK(!example.what.empty());
    CHECK(example.what.find('\n') == std::string_view::npos);
    listed.emplace_back(example.file);
  }
  for (const auto& path : example_files()) in_configs.push_back(path.filename().string());
  INFO("io/ConfigSchema.cpp's example_configs() must name every file of configs/, in the order of a listing");
  CHECK(listed == in_configs);
  for (const char* page : {"docs/configuration.md", "README.md"}) {
    INFO(page << " is out of date: run kolmo_config_doc docs/configuration.md README.md");
    CHECK(kolmo::testing::read_text(kolmo::testing::source_dir() / page).find(examples_markdown()) !=
          std::string::npos);
  }
}

TEST_CASE("the examples resolve to what their comments say", "[config]") {
  SECTION("taylor_green_small: 32^3, nu = 1/400, t_end 3, host-sized") {
    const RunConfig config = example("taylor_green_small.yaml");
    CHECK(config.grid.n == std::array<long, 3>{32, 32, 32});
    CHECK(config.grid.box == std::array<double, 3>{two_pi, two_pi, two_pi});
    CHECK(config.precision == Precision::float64);
    CHECK(config.physics.viscosity == 1.0 / 400);
    CHECK(config.time.integrator == Integrator::rk4);
    CHECK(!config.time.dt);
    CHECK(config.time.cfl == 0.5);
    CHECK(config.time.t_end == 3.0);
    CHECK(config.initial.type == InitialType::taylor_green);
    CHECK(config.output.directory == "runs/taylor_green_small");
    CHECK(config.output.fields_every > 0);
    CHECK(config.output.spectra_every > 0);
    CHECK(config.output.series_every == 1);
  }
  SECTION("taylor_green_re1600: the benchmark") {
    const RunConfig config = example("taylor_green_re1600.yaml");
    CHECK(config.grid.n == std::array<long, 3>{256, 256, 256});
    CHECK(config.physics.viscosity == 1.0 / 1600);
    CHECK(config.time.t_end == 20.0);
    CHECK(config.time.cfl == 0.5);
    CHECK(config.backend == BackendChoice::cuda);
    CHECK(config.output.spectra_every == 0.5);
    CHECK(config.output.series_every == 1);
  }
  SECTION("forced_isotropic_256: band forcing with k_max eta about 1.5") {
    const RunConfig config = example("forced_isotropic_256.yaml");
    const auto& forcing = config.physics.forcing;
    CHECK(config.grid.n == std::array<long, 3>{256, 256, 256});
    CHECK(forcing.type == ForcingKind::band);
    CHECK(forcing.power == 0.1);
    CHECK(forcing.k_min < forcing.k_max);
    const double eta = std::pow(std::pow(config.physics.viscosity, 3) / *forcing.power, 0.25);
    CHECK(256.0 / 3 * eta == Approx(1.5).margin(0.05));
    CHECK(config.initial.type == InitialType::random);
  }
  SECTION("decaying_isotropic: random field, no forcing") {
    const RunConfig config = example("decaying_isotropic.yaml");
    CHECK(config.grid.n == std::array<long, 3>{128, 128, 128});
    CHECK(config.physics.forcing.type == ForcingKind::none);
    CHECK(config.initial.type == InitialType::random);
    CHECK(config.initial.spectrum.shape == SpectrumShape::k4_exp);
  }
  SECTION("mhd_rotating_forced_64: linear forcing of u, band forcing of b, rotation, pressure dumps") {
    const RunConfig config = example("mhd_rotating_forced_64.yaml");
    CHECK(config.physics.magnetic.type == MagneticType::mhd);
    CHECK(config.physics.forcing.type == ForcingKind::linear);
    CHECK(config.physics.forcing.power == 0.1);
    CHECK(config.physics.magnetic.forcing.type == ForcingKind::band);
    CHECK(config.physics.magnetic.forcing.power == 0.05);
    CHECK(config.physics.magnetic.forcing.k_max == 2.5);
    CHECK(config.physics.rotation == std::array<double, 3>{0, 0, 1});
    CHECK(config.physics.magnetic.resolved_resistivity(config.physics.viscosity) == 0.01);
    CHECK(config.output.fields[1] == OutputField::pressure);
  }
  SECTION("mhd_taylor_green_c2: Pouquet et al. (2010) run C2, nu = eta = 1e-3, b0 = 1/sqrt(3), t = 0..10") {
    const RunConfig config = example("mhd_taylor_green_c2.yaml");
    CHECK(config.physics.viscosity == 0.001);
    CHECK(config.physics.magnetic.resolved_resistivity(config.physics.viscosity) == 0.001);
    CHECK(config.initial.type == InitialType::taylor_green);
    CHECK(config.initial.amplitude == 1.0);
    CHECK(config.physics.magnetic.initial.type == MagneticInitialType::taylor_green_conducting);
    CHECK(config.physics.magnetic.initial.amplitude == Approx(1 / std::sqrt(3.0)).epsilon(1e-15));
    CHECK(config.grid.box == std::array<double, 3>{two_pi, two_pi, two_pi});
    CHECK(config.time.t_end == std::optional<double>(10.0));
  }
  SECTION("poisson_example: manufactured right-hand side on an uneven, odd grid") {
    const RunConfig config = example("poisson_example.yaml");
    CHECK(config.problem == Problem::poisson);
    CHECK(config.grid.n == std::array<long, 3>{64, 48, 33});
    CHECK(config.grid.box == std::array<double, 3>{two_pi, two_pi, std::numbers::pi});
    CHECK(config.poisson.shift == 1.0);
    CHECK(config.poisson.rhs.type == RhsType::manufactured);
    CHECK(config.poisson.rhs.modes == std::vector<std::array<long, 3>>{{1, 2, 3}, {4, 0, -2}, {0, 5, 1}});
    CHECK(config.poisson.gradient);
    CHECK(config.output.directory == "runs/poisson_example");
  }
}

TEST_CASE("defaults are the documented ones", "[config]") {
  const RunConfig config = load_config_text("time: {t_end: 1}", "minimal");
  CHECK(config.grid.n == std::array<long, 3>{64, 64, 64});
  CHECK(config.grid.box == std::array<double, 3>{two_pi, two_pi, two_pi});
  CHECK(config.precision == Precision::float64);
  CHECK(config.backend == BackendChoice::automatic);
  CHECK(config.fft.exchange == kolmo::fft::ExchangeMethod::automatic);
  CHECK(!config.fft.cuda_aware_mpi);
  CHECK(config.fft.exchange_pieces == 1);
  CHECK(config.problem == Problem::navier_stokes);
  CHECK(config.physics.viscosity == 0.01);
  CHECK(config.physics.forcing.type == ForcingKind::none);
  CHECK(config.time.integrator == Integrator::rk4);
  CHECK(!config.time.dt);
  CHECK(config.time.cfl == 0.5);
  CHECK(!config.time.max_dt);
  CHECK(config.time.t_end == 1.0);
  CHECK(!config.time.steps);
  CHECK(config.initial.type == InitialType::taylor_green);
  CHECK(config.initial.amplitude == 1.0);
  CHECK(config.output.directory == "runs/minimal");
  CHECK(!config.output.overwrite);
  CHECK(config.output.progress_every == 10);
  CHECK(config.output.series_every == 1);
  CHECK(config.output.fields == std::vector<OutputField>{OutputField::velocity});
  CHECK(config.output.fields_every == 0);
  CHECK(config.output.spectra_every == 0);
  CHECK(config.output.checkpoint_every == 0);
  CHECK(config.output.checkpoint_wall_minutes == 0);

  const RunConfig band = load_config_text("time: {steps: 5}\nphysics: {forcing: {type: band, power: 0.2}}");
  CHECK(band.physics.forcing.k_min == 0.5);
  CHECK(band.physics.forcing.k_max == 2.5);
  const RunConfig abc = load_config_text("time: {steps: 5}\ninitial: {type: abc}");
  CHECK((abc.initial.A == 1 && abc.initial.B == 1 && abc.initial.C == 1 && abc.initial.k == 1));
  const RunConfig random = load_config_text("time: {steps: 5}\ninitial: {type: random}");
  CHECK(random.initial.spectrum.shape == SpectrumShape::k4_exp);
  CHECK(random.initial.spectrum.k0 == 4.0);
  CHECK(random.initial.spectrum.energy == 0.5);
  CHECK(random.initial.seed == 1);
  const RunConfig poisson = load_config_text("problem: poisson");
  CHECK(poisson.poisson.shift == 0.0);
  CHECK(poisson.poisson.rhs.type == RhsType::manufactured);
  CHECK(poisson.poisson.rhs.modes == std::vector<std::array<long, 3>>{{1, 2, 3}});
  CHECK(!poisson.poisson.gradient);
}

TEST_CASE("every option round-trips through to_yaml", "[config]") {
  TemporaryFile velocity("velocity.h5", "not read by the loader");
  TemporaryFile rhs("rhs.h5", "not read by the loader");
  const std::vector<std::string> variants = {
      "time: {dt: 0.001, steps: 20, integrator: rk2}\nprecision: single\nbackend: host",
      "time: {cfl: 1.2, max_dt: 0.05, t_end: 0.1, steps: 7, integrator: rk3}\nbackend: cuda\n"
      "fft: {exchange: nccl, cuda_aware_mpi: true, exchange_pieces: 4, lanes: 1}",
      "time: {t_end: 1}\nfft: {exchange: p2p, lanes: 2}\nbackend: cuda",
      "time: {t_end: 1}\nphysics: {forcing: {type: linear, power: 0.3}}\nfft: {exchange: alltoallv, "
      "exchange_pieces: 0}",
      "time: {t_end: 1}\nphysics: {forcing: {type: linear, coefficient: 0.7}}\nfft: {exchange: isend_irecv}",
      "time: {t_end: 1}\nphysics: {forcing: {type: band, k_min: 1, k_max: 3, power: 0.1}}",
      "time: {t_end: 1}\ninitial: {type: abc, A: 0.5, B: -1, C: 2, k: 3}\ngrid: {n: [16, 12, 10], box: [1, "
      "2pi, 3]}",
      "time: {t_end: 1}\ninitial: {type: random, spectrum: {shape: k2_exp, k0: 2.5, energy: 0.25}, seed: 99}",
      "time: {t_end: 1}\ninitial: {type: file, file: '" + velocity.path() + "'}",
      "time: {t_end: 1}\noutput: {directory: 'out dir/run: 1', overwrite: true, fields: [], progress_every: "
      "0,"
      " series_every: 0, spectra_every: 0.1, checkpoint_every: 2, checkpoint_wall_minutes: 30}",
      "time: {t_end: 1}\noutput: {fields: [pressure, velocity, vorticity], fields_every: 0.25}",
      "time: {t_end: 1}\nphysics: {rotation: [0, 0.5, 2], scalars: [{name: theta, schmidt: 0.7, "
      "mean_gradient: [0, 0, 1], initial: {type: random, variance: 0.3, k0: 3, shape: k2_exp, seed: 5}}, "
      "{name: salt_2, diffusivity: 0, initial: {type: file, file: '" +
          velocity.path() +
          "'}}]}\n"
          "output: {fields: [scalars, velocity], fields_every: 0.5}",
      "time: {t_end: 1}\nphysics: {buoyancy: {type: boussinesq, n2: -0.5, prandtl: 2, gravity: [0, -1, 0], "
      "initial: {type: file, file: '" +
          velocity.path() +
          "', dataset: buoyancy}}, scalars: [{name: c, "
          "diffusivity: 0.1}]}",
      "time: {t_end: 1}\nphysics: {buoyancy: {type: boussinesq, n2: 4, gravity: [0, 0, -9.8], initial: "
      "{type: random}}}",
      "problem: poisson\npoisson: {shift: 2.5, rhs: {type: file, file: '" + rhs.path() +
          "', dataset: rhs}, gradient: true}",
      "problem: poisson\ngrid: {n: 9}\npoisson: {rhs: {modes: [[1, 0, 0], [-4, 4, 0], [0, 0, 3]]}}",
      "problem: poisson\npoisson: {shift: 1, rhs: {modes: [[0, 0, 0]]}}",
  };
  int index = 0;
  for (const std::string& yaml : variants) {
    INFO(yaml);
    RunConfig config;
    REQUIRE_NOTHROW(config = load_config_text(yaml));
    check_round_trip(config, "variant" + std::to_string(index++));
  }
}

TEST_CASE("resolved_keys: one line a key in use, differing exactly in the keys that differ", "[config]") {
  const std::string yaml = "time: {t_end: 1}\nphysics: {scalars: [{name: s, schmidt: 1}]}";
  const std::vector<std::string> lines = resolved_keys(load_config_text(yaml));
  const auto key_of_line = [](const std::string& line) { return line.substr(0, line.find(": ")); };
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(find_key(key_of_line(line)) != nullptr);
    CHECK(std::count(lines.begin(), lines.end(), line) == 1);
  }
  // The same run written otherwise is the same.
  CHECK(
      resolved_keys(load_config_text("grid:\n  n: [64, 64, 64]\n  box: 2*pi\ntime:\n  t_end: 1.0\nphysics:\n"
                                     "  scalars:\n  - {schmidt: 1, name: s}\n")) == lines);
  // One key changed: that line and no other.
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"grid.n=[64, 64, 32]", "grid.n"},
      {"precision=single", "precision"},
      {"fft.spectral_split=kept_rows", "fft.spectral_split"},
      {"physics.viscosity=0.02", "physics.viscosity"},
      {"physics.scalars[0].schmidt=2", "physics.scalars"},
      {"time.t_end=2", "time.t_end"},
      {"initial.amplitude=2", "initial.amplitude"},
      {"output.directory=elsewhere", "output.directory"},
  };
  for (const auto& [change, key] : changes) {
    INFO(change);
    const std::vector<std::string> changed = resolved_keys(load_config_text(yaml, "config", {change}));
    REQUIRE(changed.size() == lines.size());
    std::vector<std::string> differing;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (changed[i] != lines[i]) differing.push_back(key_of_line(changed[i]));
    CHECK(differing == std::vector<std::string>{key});
  }
  // The default output directory follows the file's name: another name is another run.
  CHECK(resolved_keys(load_config_text(yaml, "other")) != lines);
}

TEST_CASE("scalars and buoyancy: defaults, Schmidt numbers, overrides of one item or the whole list",
          "[config]") {
  const std::string yaml =
      "time: {t_end: 1}\nphysics: {viscosity: 0.02, scalars: [{name: a, schmidt: 4}, {name: c, diffusivity: "
      "0.3, mean_gradient: [1, 0, 0]}], buoyancy: {type: boussinesq, n2: 2, gravity: [0, 0, -1]}}";
  const RunConfig config = load_config_text(yaml);
  REQUIRE(config.physics.scalars.size() == 2);
  CHECK(config.physics.scalars[0].resolved_diffusivity(0.02) == 0.005);
  CHECK(config.physics.scalars[0].mean_gradient == std::array<double, 3>{0, 0, 0});
  CHECK(config.physics.scalars[0].initial.type == ScalarInitialType::zero);
  CHECK(config.physics.scalars[1].resolved_diffusivity(0.02) == 0.3);
  CHECK(config.physics.buoyancy.prandtl == 1.0);
  CHECK(config.physics.buoyancy.initial.type == ScalarInitialType::zero);
  const RunConfig one = load_config_text(yaml, "config", {"physics.scalars[1].diffusivity=0.5"});
  CHECK(one.physics.scalars[1].resolved_diffusivity(0.02) == 0.5);
  const RunConfig replaced = load_config_text(yaml, "config", {"physics.scalars=[{name: z, schmidt: 1}]"});
  REQUIRE(replaced.physics.scalars.size() == 1);
  CHECK(replaced.physics.scalars[0].name == "z");
  CHECK(load_config_text(yaml, "config", {"physics.scalars="}).physics.scalars.empty());
  // An item the list does not hold is named.
  const std::string message =
      kolmo::testing::error_of([&] { load_config_text(yaml, "config", {"physics.scalars[2].schmidt=1"}); });
  CHECK(message.find("physics.scalars[2].schmidt: not used here") != std::string::npos);
}

TEST_CASE("box lengths accept numbers and multiples of pi", "[config]") {
  auto box = [](const std::string& value) {
    return load_config_text("time: {t_end: 1}\ngrid: {box: " + value + "}").grid.box;
  };
  CHECK(box("2pi") == std::array<double, 3>{two_pi, two_pi, two_pi});
  CHECK(box("2*pi") == std::array<double, 3>{two_pi, two_pi, two_pi});
  CHECK(box("2 * pi") == std::array<double, 3>{two_pi, two_pi, two_pi});
  CHECK(box("pi")[0] == std::numbers::pi);
  CHECK(box("0.5pi")[0] == 0.5 * std::numbers::pi);
  CHECK(box("[1, 4pi, 2.5]") == std::array<double, 3>{1, 2 * two_pi, 2.5});
  CHECK(box("6.283185307179586") == std::array<double, 3>{two_pi, two_pi, two_pi});
}

TEST_CASE("a box is refused when its wavenumbers or spacings are not numbers of the run's precision",
          "[config]") {
  // The message of loading grid (and precision), "" if none; a Taylor-Green field (its modes are 1 on any
  // box) with three points or more a side, a random one (its peak is 4 on any box) with fewer.
  auto message = [](const std::string& grid, const std::string& precision = "double") {
    const std::string initial = grid.find("[1, ") == std::string::npos ? "taylor_green" : "random";
    return kolmo::testing::error_of([&] {
      load_config_text("time: {t_end: 1}\ninitial: {type: " + initial + "}\nprecision: " + precision +
                       "\ngrid: " + grid);
    });
  };
  // Boxes of 1e-6 to 1e6 times 2 pi pass on the largest grid kolmo takes (2^20 a side, 2^50 points), in
  // either precision.
  const std::string small = "6.283185307179586e-6", large = "6.283185307179586e6";
  for (const char* precision : {"single", "double"})
    for (const std::string& box : {small, large, "[" + small + ", 2pi, " + large + "]"}) {
      INFO(precision << ", box " << box);
      CHECK(message("{n: [1048576, 1024, 1048576], box: " + box + "}", precision).empty());
    }
  // The largest |k|^2 of a box of 1e-20 on 64 points, 3 (2 pi 1e20 x 32)^2 = 1.2e45, is a double but beyond
  // the largest float; the smallest (2 pi / L)^2 of a box of 1e20, 3.9e-39, is below the smallest normal
  // float.
  CHECK(message("{box: 1e-20}").empty());
  CHECK(message("{box: 1e-20}", "single").find("grid.box: [1e-20, 1e-20, 1e-20] is too small for grid.n") !=
        std::string::npos);
  CHECK(message("{box: [1, 1, 1e20]}").empty());
  CHECK(message("{box: [1, 1, 1e20]}", "single").find("grid.box: [1.0, 1.0, 1e+20] is too large: along z") !=
        std::string::npos);
  // One point along x: no wavenumber there but 0, however small the box, but the spacing must be normal.
  CHECK(message("{n: [1, 16, 16], box: [1e-300, 1, 1]}").empty());
  CHECK(message("{n: [1, 16, 16], box: [1e-320, 1, 1]}").find("along x the spacing L / N = 1e-320") !=
        std::string::npos);
}

TEST_CASE("names of the choices are the YAML names", "[config]") {
  CHECK(to_string(Precision::float32) == "single");
  CHECK(to_string(Precision::float64) == "double");
  CHECK(to_string(BackendChoice::automatic) == "auto");
  CHECK(to_string(BackendChoice::host) == "host");
  CHECK(to_string(BackendChoice::cuda) == "cuda");
  CHECK(to_string(Problem::navier_stokes) == "navier_stokes");
  CHECK(to_string(Problem::poisson) == "poisson");
  // The solver's options are the solver's enums: the schema lists their names in their order.
  CHECK(choice_names(*find_key("time.integrator")) == kolmo::solver::integrator_names());
  CHECK(choice_names(*find_key("physics.forcing.type")) == kolmo::solver::forcing_names());
  CHECK(choice_names(*find_key("physics.nonlinear_form")) == kolmo::solver::nonlinear_form_names());
  for (const char* key :
       {"initial.spectrum.shape", "physics.buoyancy.initial.shape", "physics.scalars[].initial.shape"})
    CHECK(choice_names(*find_key(key)) == kolmo::solver::spectrum_shape_names());
  CHECK(choice_names(*find_key("physics.scalars[].initial.type")) ==
        choice_names(*find_key("physics.buoyancy.initial.type")));
  CHECK(to_string(ScalarInitialType::random) == "random");
  CHECK(to_string(BuoyancyType::boussinesq) == "boussinesq");
  CHECK(to_string(OutputField::scalars) == "scalars");
  CHECK(to_string(InitialType::taylor_green) == "taylor_green");
  CHECK(to_string(InitialType::abc) == "abc");
  CHECK(to_string(InitialType::random) == "random");
  CHECK(to_string(InitialType::file) == "file");
  CHECK(to_string(OutputField::velocity) == "velocity");
  CHECK(to_string(OutputField::vorticity) == "vorticity");
  CHECK(to_string(OutputField::pressure) == "pressure");
  CHECK(to_string(RhsType::manufactured) == "manufactured");
  CHECK(to_string(RhsType::file) == "file");
  CHECK(resolve(BackendChoice::host) == kolmo::Backend::host);
  CHECK(resolve(BackendChoice::cuda) == kolmo::Backend::cuda);
}

TEST_CASE("a run from a checkpoint needs no initial files and fits no initial field to the grid",
          "[config]") {
  using kolmo::testing::error_of;
  // On 8 points a side the 2/3 rule keeps |n| <= 2: an ABC flow of k = 3 and a peak at 4 are not kept.
  const std::string physics =
      "grid: {n: 8}\ntime: {t_end: 1}\nphysics:\n"
      "  buoyancy: {type: boussinesq, n2: 1, gravity: [0, 0, -1], initial: {type: file, file: no/b.h5}}\n"
      "  scalars: [{name: s, schmidt: 1, initial: {type: random, k0: 4}}]\n"
      "  magnetic: {type: mhd, prandtl: 1, initial: {type: abc, k: 3}}\n";
  for (const char* initial : {"{type: file, file: no/u.h5}", "{type: abc, k: 3}", "{type: random}"}) {
    const std::string yaml = physics + "initial: " + initial + "\n";
    INFO(yaml);
    CHECK(!error_of([&] { load_config_text(yaml); }).empty());
    RunConfig config;
    REQUIRE_NOTHROW(config = load_config_text(yaml, "config", {}, StartFrom::checkpoint));
    CHECK(config.physics.buoyancy.initial.file == "no/b.h5");
    CHECK(config.physics.scalars[0].initial.k0 == 4);
  }
  // The keys' own values are checked as always, and so is every other key against the grid.
  const std::string yaml = physics + "initial: {type: file, file: no/u.h5}\n";
  CHECK(error_of([&] {
          load_config_text(yaml, "config", {"physics.scalars[0].initial.k0=-1"}, StartFrom::checkpoint);
        }).find("physics.scalars[0].initial.k0: must be > 0, got -1") != std::string::npos);
  CHECK(error_of([&] {
          load_config_text(yaml, "config", {"physics.forcing={type: band, power: 1, k_min: 3.5, k_max: 4}"},
                           StartFrom::checkpoint);
        }).find("physics.forcing.k_max: the shell 3.5 <= |k| <= 4 holds no wavevector") != std::string::npos);
}
