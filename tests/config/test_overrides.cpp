// Command-line overrides ("key.path=value", as given to --set) change exactly their key and are checked like
// values from the file; a bad one is reported with its --set text and its key.
#include <catch2/catch.hpp>

#include "io/Config.hpp"
#include "tests/config/ConfigTestSupport.hpp"

using namespace kolmo::io;
using kolmo::testing::error_of;

namespace {

const std::string small = (kolmo::testing::source_dir() / "configs" / "taylor_green_small.yaml").string();
const std::string forced = (kolmo::testing::source_dir() / "configs" / "forced_isotropic_256.yaml").string();

std::string error_with(const std::string& file, const std::vector<std::string>& overrides) {
  return error_of([&] { load_config(file, overrides); });
}

}  // namespace

TEST_CASE("an override changes its key and nothing else", "[config]") {
  const RunConfig original = load_config(small);
  RunConfig expected = original;
  expected.time.t_end = 1.5;
  CHECK(load_config(small, {"time.t_end=1.5"}) == expected);

  expected = original;
  expected.grid.n = {64, 64, 32};
  CHECK(load_config(small, {"grid.n=[64, 64, 32]"}) == expected);
  CHECK(load_config(small, {"grid.n=[64,64,32]"}) == expected);

  expected = original;
  expected.output.fields = {OutputField::pressure};
  expected.physics.viscosity = 0.001;
  CHECK(load_config(small, {"output.fields=[pressure]", "physics.viscosity=1e-3"}) == expected);
}

TEST_CASE("overrides apply in order, later ones winning", "[config]") {
  CHECK(load_config(small, {"time.t_end=1", "time.t_end=2"}).time.t_end == 2.0);
}

TEST_CASE("an empty override unsets a key; a section override merges or resets", "[config]") {
  const RunConfig fixed = load_config_text("time: {dt: 0.01, t_end: 1}");
  REQUIRE(fixed.time.dt == 0.01);
  const RunConfig adaptive =
      load_config_text("time: {dt: 0.01, t_end: 1}", "config", {"time.dt=", "time.cfl=0.3"});
  CHECK(!adaptive.time.dt);
  CHECK(adaptive.time.cfl == 0.3);

  const RunConfig band = load_config(small, {"physics.forcing={type: band, power: 0.2}"});
  CHECK(band.physics.forcing.type == ForcingKind::band);
  CHECK(band.physics.forcing.power == 0.2);
  CHECK(band.physics.forcing.k_max == 2.5);

  const RunConfig unforced = load_config(forced, {"physics.forcing="});
  CHECK(unforced.physics.forcing.type == ForcingKind::none);
  CHECK(!unforced.physics.forcing.power);
}

TEST_CASE("a bad override names its --set text and its key, on one line", "[config]") {
  struct Case {
    std::vector<std::string> overrides;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {{"physics.viscosity=-1"}, {"--set physics.viscosity=-1", "physics.viscosity: must be > 0, got -1"}},
      {{"physics.viscocity=1"},
       {"--set physics.viscocity=1", "unknown key", "did you mean physics.viscosity?"}},
      {{"grid.n=abc"}, {"grid.n: expected an integer or a list of 3 integers, got 'abc'"}},
      {{"grid.n=[64, 64]"}, {"grid.n: expected an integer or a list of 3 integers"}},
      {{"grid.n=[1, 2"}, {"--set grid.n=[1, 2", "grid.n", "YAML syntax error"}},
      {{"time.cfl=2"}, {"--set time.cfl=2", "time.cfl: must be in (0, 2), got 2"}},
      {{"time.dt=0.01"}, {"time.cfl", "time.dt", "not both"}},
      {{"time.integrator=rk5"},
       {"time.integrator: unknown value 'rk5' (expected rk2, rk3, rk4, lsrk3 or lsrk4)"}},
      {{"time.t_end="}, {"time.t_end: missing"}},
      {{"noequals"}, {"--set noequals", "expected key.path=value"}},
      {{"=3"}, {"--set =3", "expected key.path=value"}},
      {{"physics=3"}, {"physics: expected a section"}},
      {{"grid.n.x=3"}, {"grid.n.x: unknown key (did you mean grid.n?)"}},
      {{"physics.forcing.k_min=1"}, {"physics.forcing.k_min: not used here", "physics.forcing.type is band"}},
      {{"output.fields=[velocity, velocity]"}, {"output.fields: 'velocity' is listed twice"}},
      // A key missing from an item of a list given by --set: named with that --set, not the file.
      {{"physics.scalars=[{name: theta}]"},
       {"--set physics.scalars=[{name: theta}]: physics.scalars[0].diffusivity: missing"}},
      // Found by fuzzing the loader: a newline in a --set without '=' gave two lines; a second document in
      // the value, and a name given twice in a value's map, were dropped or merged without a word.
      {{"grid\nn"}, {"--set grid n: expected key.path=value"}},
      {{"time.t_end=1\n---\n2"}, {"--set time.t_end=1 --- 2: time.t_end: a second YAML document"}},
      {{"time={t_end: 1, t_end: 2}"}, {"--set time={t_end: 1, t_end: 2}: time.t_end: given twice"}},
      {{"physics={forcing: {type: band}, forcing: {power: 1}}"}, {"physics.forcing: given twice"}},
      {{"physics.scalars=[{name: a, schmidt: 1, name: b}]"}, {"physics.scalars[0].name: given twice"}},
      // A comma after the value's node was dropped (a file's hung yaml-cpp's LoadAll: test_cli.py).
      {{"time={t_end: 1},"},
       {"--set time={t_end: 1},: time: YAML syntax error in the value: text after the end of the first "
        "node"}},
  };
  for (const Case& each : cases) {
    const std::string message = error_with(small, each.overrides);
    INFO("overrides: " << each.overrides.front() << "\nmessage: " << message);
    REQUIRE(!message.empty());
    CHECK(message.find('\n') == std::string::npos);
    for (const std::string& part : each.expected) CHECK(message.find(part) != std::string::npos);
  }
}

TEST_CASE("gravity gives a direction at any finite length but 0; huge term coefficients name their key",
          "[config]") {
  const std::string buoyant =
      "grid: {n: 16}\nphysics: {buoyancy: {type: boussinesq, n2: 1.0, gravity: [0, 0, -1]}}"
      "\ntime: {t_end: 1}\n";
  // Only gravity's direction is used: lengths whose square (the naive norm) under- or overflows are fine.
  for (const std::string gravity :
       {"[0, 0, 1e-300]", "[1e300, 0, 1e300]", "[1.5e308, -1.5e308, 1.5e308]", "[0, 4.9e-324, 0]"}) {
    const RunConfig config = load_config_text(buoyant, "run.yaml", {"physics.buoyancy.gravity=" + gravity});
    CHECK(config.physics.buoyancy.gravity != std::array<double, 3>{0, 0, 0});
  }
  // Finite values whose term may overflow: each refused with its --set text and key (before any solver
  // sees them, which said "not finite" or blamed the initial velocity).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"physics.rotation=[0, 0, 1e300]",
       "--set physics.rotation=[0, 0, 1e300]: physics.rotation: 2 |Omega| = 2e+300 may overflow"},
      {"physics.buoyancy.n2=1e300", "physics.buoyancy.n2: |N2| = 1e+300 may overflow double precision"},
  };
  for (const auto& [set, expected] : cases) {
    const std::string message = error_of([&] { load_config_text(buoyant, "run.yaml", {set}); });
    INFO(message);
    CHECK(message.find(expected) != std::string::npos);
  }
  // Just inside the bound (2 |Omega| <= U k_max, 6.2e152 on 16^3 in a 2 pi box): taken.
  CHECK_NOTHROW(load_config_text(buoyant, "run.yaml", {"physics.rotation=[0, 0, 3e152]"}));
}

// A check that involves several keys names each with where its value came from, not only the key checked
// and its file: a --set that makes the file's values wrong together is named (found by a user's audit:
// `--set grid.n=[...]` under a file's initial.type: taylor_green named initial.type and the file only).
TEST_CASE("a check across keys names the --set that gave another key's value", "[config]") {
  const std::string poisson = (kolmo::testing::source_dir() / "configs" / "poisson_example.yaml").string();
  // The audit's case, in full: initial.type from line 18 of the file, grid.n from the --set.
  CHECK(
      error_with(small, {"grid.n=[2,64,64]"}) ==
      small +
          ":18: initial.type: taylor_green has mode number 1 along x, which the 2/3 rule of grid.n = [2, 64, "
          "64] removes (it needs 3 x 1 < N) (grid.n from --set grid.n=[2,64,64])");
  struct Case {
    std::string file;
    std::vector<std::string> overrides;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      // A value valid only without another key's.
      {small, {"time.dt=0.1"}, {small + ":15: time.cfl: give time.dt", "(time.dt from --set time.dt=0.1)"}},
      // Keys of the file that another key's --set leaves unused, or required.
      {forced,
       {"physics.forcing.type=none"},
       {forced + ":17: physics.forcing.k_max: not used here: only used when physics.forcing.type is band",
        "(physics.forcing.type from --set physics.forcing.type=none)"}},
      {small,
       {"problem=poisson"},
       {small + ":19: initial.amplitude: not used here",
        "and initial.type only when problem is navier_stokes",
        "(initial.type from " + small + ":18; problem from --set problem=poisson)"}},
      {small,
       {"physics.forcing.type=band"},
       {small + ": physics.forcing.power: missing",
        "(physics.forcing.type from --set physics.forcing.type=band)"}},
      {small,
       {"physics.forcing.type=linear"},
       {small + ": physics.forcing.power: missing: linear forcing needs",
        "(physics.forcing.type from --set physics.forcing.type=linear)"}},
      {small,
       {"physics.magnetic.type=mhd"},
       {small + ": physics.magnetic.resistivity: missing",
        "(physics.magnetic.type from --set physics.magnetic.type=mhd)"}},
      // The grid against Poisson's modes, and against the term of a rotation in the precision a --set gives.
      {poisson,
       {"grid.n=8"},
       {poisson + ":15: poisson.rhs.modes: mode [4, 0, -2] is not resolved by grid.n = [8, 8, 8]",
        "(grid.n from --set grid.n=8)"}},
      {small,
       {"precision=single", "physics.rotation=[0, 0, 1e37]"},
       {"--set physics.rotation=[0, 0, 1e37]: physics.rotation: 2 |Omega| = 2e+37 may overflow single",
        "(grid.n from " + small + ":7; grid.box from " + small +
            ":8; precision from --set precision=single)"}},
      // The key checked from a --set, the other from the file, and both from one --set.
      {small,
       {"initial.type=abc", "initial.k=11"},
       {"--set initial.k=11: initial.k: the ABC flow has mode number 11", "(grid.n from " + small + ":7)"}},
      {small,
       {"physics.forcing={type: band, k_min: 5, k_max: 3, power: 1}"},
       {"physics.forcing.k_min: must be below physics.forcing.k_max = 3, got 5",
        "(physics.forcing.k_max from the same --set)"}},
  };
  for (const Case& each : cases) {
    const std::string message = error_with(each.file, each.overrides);
    INFO("overrides: " << each.overrides.back() << "\nmessage: " << message);
    REQUIRE(!message.empty());
    CHECK(message.find('\n') == std::string::npos);
    for (const std::string& part : each.expected) CHECK(message.find(part) != std::string::npos);
  }
}

TEST_CASE("a check across keys of one file names the line of each", "[config]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"grid:\n  n: [2, 64, 64]\ntime: {t_end: 1}\ninitial:\n  type: taylor_green\n",
       "run.yaml:5: initial.type: taylor_green has mode number 1 along x, which the 2/3 rule of grid.n = [2, "
       "64, 64] removes (it needs 3 x 1 < N) (grid.n from run.yaml:2)"},
      {"time:\n  dt: 0.01\n  t_end: 1\n  cfl: 0.5\n",
       "run.yaml:4: time.cfl: give time.dt (a fixed step) or time.cfl (an adaptive step), not both (time.dt "
       "from run.yaml:2)"},
      {"time: {t_end: 1}\nphysics:\n  forcing:\n    type: band\n    k_max: 2\n    power: 1\n    k_min: 3\n",
       "run.yaml:7: physics.forcing.k_min: must be below physics.forcing.k_max = 2, got 3 "
       "(physics.forcing.k_max "
       "from run.yaml:5)"},
      {"time: {t_end: 1}\nphysics:\n  scalars:\n    - {name: t, schmidt: 1}\n    - {name: t, schmidt: 2}\n",
       "run.yaml:5: physics.scalars[1].name: 't' names another field too (the scalars' names must differ, "
       "and b "
       "is the buoyancy's) (physics.scalars[0].name from run.yaml:4)"},
      {"time: {t_end: 1}\nphysics:\n  forcing: {type: linear, power: 0.1, coefficient: 0.5}\n",
       "run.yaml:3: physics.forcing.coefficient: give physics.forcing.power or physics.forcing.coefficient "
       "for "
       "linear forcing, not both (physics.forcing.power from the same line)"},
      {"time: {t_end: 1}\ninitial: {type: orszag_tang}\n",
       "run.yaml:2: initial.type: orszag_tang is an MHD initial condition, but physics.magnetic.type is none "
       "(physics.magnetic.type from the default)"},
      {"problem: poisson\ntime:\n  t_end: 1\n",
       "run.yaml:3: time.t_end: not used here: only used when problem is navier_stokes (problem from "
       "run.yaml:1)"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    CHECK(kolmo::testing::error_of([&] { load_config_text(text, "run.yaml"); }) == expected);
  }
}

TEST_CASE("a loaded configuration keeps where each key came from, outside its comparison", "[config]") {
  const RunConfig config = load_config(small, {"grid.box=4pi"});
  // For the messages of checks made after loading (app/), ending as the loader's do.
  CHECK(sources_text(config, {"initial.type", "grid.box", "time.dt"}) ==
        " (initial.type from " + small + ":18; grid.box from --set grid.box=4pi; time.dt from the default)");
  CHECK(sources_text(config, {}).empty());
  // The same values from elsewhere are the same configuration.
  CHECK(load_config(small, {"time.t_end=3.0"}) == load_config(small));
}
