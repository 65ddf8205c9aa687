// check_ranks refuses a grid the slab decomposition cannot split, with the same verdict as SlabLayout itself.
#include <catch2/catch.hpp>

#include "fft/SlabLayout.hpp"
#include "io/Config.hpp"
#include "tests/TestSupport.hpp"
#include "tests/config/ConfigTestSupport.hpp"

using namespace kolmo::io;
using kolmo::testing::error_of;

TEST_CASE("check_ranks refuses a grid that cannot be split, naming where grid.n came from", "[config]") {
  // The message had named the key only (found by fuzzing the configuration).
  RunConfig config = load_config_text("grid: {n: 4}\ntime: {t_end: 1}", "run.yaml");
  CHECK(error_of([&] { check_ranks(config, 8); }) ==
        "run.yaml:1: grid.n: Nx = 4 cannot be split over 8 ranks (at most 4)");
  CHECK(error_of([&] { check_ranks(config, 4); }).empty());

  config = load_config_text("time: {t_end: 1}\ngrid: {n: [16, 4, 16]}", "run.yaml");
  CHECK(error_of([&] { check_ranks(config, 5); }) ==
        "run.yaml:2: grid.n: Ny = 4 cannot be split over 5 ranks (at most 4)");
  config = load_config_text("time: {t_end: 1}", "run.yaml", {"grid.n=[4, 8, 8]"});
  CHECK(error_of([&] { check_ranks(config, 5); }) ==
        "--set grid.n=[4, 8, 8]: grid.n: Nx = 4 cannot be split over 5 ranks (at most 4)");
  config = load_config_text("time: {t_end: 1}", "run.yaml");
  CHECK(error_of([&] { check_ranks(config, 65); }) ==
        "grid.n: Nx = 64 cannot be split over 65 ranks (at most 64) (grid.n from the default)");
  CHECK(error_of([&] { check_ranks(config, 0); }).find("ranks") != std::string::npos);

  // This run's own rank count with a grid just large enough.
  const int ranks = kolmo::testing::world_size();
  config.grid.n = {ranks, ranks, 1};
  CHECK(error_of([&] { check_ranks(config, ranks); }).empty());
}

TEST_CASE("check_ranks agrees with the slab layout", "[config]") {
  RunConfig config = load_config_text("time: {t_end: 1}");
  for (long nx = 1; nx <= 5; ++nx)
    for (long ny = 1; ny <= 5; ++ny)
      for (int ranks = 1; ranks <= 6; ++ranks) {
        config.grid.n = {nx, ny, 3};
        const bool config_refuses = !error_of([&] { check_ranks(config, ranks); }).empty();
        const bool layout_refuses =
            !error_of([&] { kolmo::fft::SlabLayout(config.grid.n, ranks, 0); }).empty();
        INFO("n = " << nx << " x " << ny << " x 3 over " << ranks << " ranks");
        CHECK(config_refuses == layout_refuses);
      }
}
