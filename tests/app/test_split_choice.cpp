// The run's automatic split of the ky planes (app/MemoryEstimate.hpp: fft.spectral_split auto), without a
// run: which split it settles on for the problem and the ranks, and that memory too short for the kept-row
// split's widest slabs leaves the even split rather than refuse the run (the host backend's estimate: the
// GPU's asks cuFFT for its work areas, and CI has no GPU).
#include <catch2/catch.hpp>
#include <string>

#include "app/MemoryEstimate.hpp"
#include "fft/SlabLayout.hpp"
#include "io/Config.hpp"

using namespace kolmo;
using app::MemoryAvailable;
using io::SpectralSplitChoice;

namespace {

const std::string navier_stokes = R"(
grid: {n: 512, box: 2pi}
precision: single
physics: {viscosity: 0.001}
time: {t_end: 1}
)";
const std::string poisson = R"(
problem: poisson
grid: {n: 512, box: 2pi}
poisson: {rhs: {type: manufactured, modes: [[1, 2, 3]]}}
)";

const MemoryAvailable plenty{1e18, 1e18};

app::SplitChoice choose(const io::RunConfig& config, int ranks, const MemoryAvailable& available = plenty) {
  return app::choose_spectral_split(config, ranks, Backend::host, fft::ExchangeMethod::isend_irecv,
                                    io::StartFrom::initial_condition, available);
}

}  // namespace

TEST_CASE("fft.spectral_split auto splits by kept rows for Navier-Stokes on 3 to 8 ranks, evenly otherwise",
          "[app]") {
  const io::RunConfig flow = io::load_config_text(navier_stokes);
  REQUIRE(flow.fft.spectral_split == SpectralSplitChoice::automatic);  // the default
  for (int ranks : {1, 2, 3, 4, 8, 9, 16}) {
    const auto choice = choose(flow, ranks);
    const bool kept = ranks >= 3 && ranks <= 8;
    CHECK(choice.split == (kept ? SpectralSplitChoice::kept_rows : SpectralSplitChoice::even));
    CHECK(app::spectral_split(flow, ranks) ==
          (kept ? fft::SpectralSplit::kept_rows : fft::SpectralSplit::even));
    CHECK_THAT(choice.report, Catch::Contains("fft.spectral_split auto"));
  }
  // On 4 ranks the layout the FFT gets balances the kept planes (85-86 each of 341) where the even split
  // gives the first rank 128.
  const fft::SlabLayout first(flow.grid.n, 4, 0, app::spectral_split(flow, 4));
  CHECK(first.kept_y_count() <= 86);
  CHECK(fft::SlabLayout(flow.grid.n, 4, 0, fft::SpectralSplit::even).kept_y_count() == 128);
  // Poisson's transforms are full: even whatever the ranks.
  const io::RunConfig solve = io::load_config_text(poisson);
  CHECK(choose(solve, 4).split == SpectralSplitChoice::even);
  CHECK_THAT(choose(solve, 4).report, Catch::Contains("full transforms"));
  // A split given is kept as given, even where auto would choose the other.
  for (auto given : {SpectralSplitChoice::even, SpectralSplitChoice::kept_rows}) {
    io::RunConfig fixed = flow;
    fixed.fft.spectral_split = given;
    CHECK(choose(fixed, 4).split == given);
    CHECK(choose(fixed, 16).split == given);
  }
}

TEST_CASE("fft.spectral_split auto falls back to the even split where the kept-row split's memory is short",
          "[app]") {
  const io::RunConfig flow = io::load_config_text(navier_stokes);
  const auto estimate = [&](SpectralSplitChoice split) {
    io::RunConfig config = app::least_demanding(flow);
    config.fft.spectral_split = split;
    return app::estimate_memory(config, 8, Backend::host, fft::ExchangeMethod::isend_irecv,
                                io::StartFrom::initial_condition);
  };
  const auto even = estimate(SpectralSplitChoice::even), kept = estimate(SpectralSplitChoice::kept_rows);
  // On 8 ranks the middle ranks' spectral slabs are twice the even split's: more memory.
  REQUIRE(kept.host > 1.2 * even.host);
  const MemoryAvailable between{.device = 1e18, .host = 0.5 * (even.host + kept.host)};
  const auto choice = choose(flow, 8, between);
  CHECK(choice.split == SpectralSplitChoice::even);
  CHECK_THAT(choice.report, Catch::Contains("kept_rows would need"));
  // With just enough for it, kept rows.
  CHECK(choose(flow, 8, MemoryAvailable{.device = 1e18, .host = kept.host}).split ==
        SpectralSplitChoice::kept_rows);
  // The lanes then settle within the same shares, under the split chosen.
  io::RunConfig settled = flow;
  settled.fft.spectral_split = choice.split;
  const long lanes = app::choose_lanes(settled, 8, Backend::host, fft::ExchangeMethod::isend_irecv,
                                       io::StartFrom::initial_condition, between);
  settled.fft.lanes = lanes;
  CHECK(lanes >= 1);
  CHECK(app::estimate_memory(settled, 8, Backend::host, fft::ExchangeMethod::isend_irecv,
                             io::StartFrom::initial_condition)
            .host <= between.host);
}
