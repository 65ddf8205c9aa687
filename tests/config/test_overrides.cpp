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
