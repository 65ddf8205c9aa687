// Shell spectra: E(k) sums to the energy, T(k) sums to zero (the nonlinear term conserves energy), the flux
// vanishes past the last shell, and a single Taylor-Green mode sits in the shell of its wavenumber.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/Spectrum.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

TEMPLATE_TEST_CASE("shell sums: sum E(k) = E, sum T(k) = 0, flux vanishes at the last shell", "[solver]",
                   float, double) {
  FlowParameters parameters;
  parameters.viscosity = 0.01;
  auto flow = testing::make_flow<TestType>({16, 16, 12}, parameters);
  set_random_isotropic(*flow, 0.8, 2.5, 3);
  const Spectrum spectrum = compute_spectrum(*flow);
  const double energy = kinetic_energy(*flow);
  const double total = std::accumulate(spectrum.energy.begin(), spectrum.energy.end(), 0.0);
  CHECK(total == Approx(energy).epsilon(10 * testing::round_off<TestType>()));
  REQUIRE(spectrum.transfer.size() == spectrum.energy.size());
  double transfer_scale = 0;
  for (double t : spectrum.transfer) transfer_scale += std::fabs(t);
  const double transfer_sum = std::accumulate(spectrum.transfer.begin(), spectrum.transfer.end(), 0.0);
  INFO("sum T = " << transfer_sum << ", sum |T| = " << transfer_scale);
  CHECK(transfer_scale > 1e-3);
  CHECK(std::fabs(transfer_sum) / transfer_scale < 10 * testing::round_off<TestType>());
  CHECK(std::fabs(spectrum.flux.back()) / transfer_scale < 10 * testing::round_off<TestType>());
  CHECK(spectrum.shell_width == Approx(1.0));
  CHECK(spectrum.k[3] == Approx(3.0));
}

TEST_CASE("a Taylor-Green mode puts all its energy in the shell of its wavenumber", "[solver]") {
  FlowParameters parameters;
  parameters.box = Box{2 * kTwoPi, 2 * kTwoPi, kTwoPi};  // dk = 1 (set by Lz); the mode has |k| = sqrt(2)/2
  auto flow = testing::make_flow<double>({16, 16, 8}, parameters);
  set_taylor_green_2d(*flow, 1.0);
  const Spectrum spectrum = compute_spectrum(*flow, false);
  CHECK(spectrum.transfer.empty());
  // E = 1/2 (<sin^2 cos^2> + <cos^2 sin^2>) = 1/4.
  CHECK(spectrum.energy[1] == Approx(0.25).epsilon(1e-14));
  CHECK(std::fabs(spectrum.energy[0]) + std::fabs(spectrum.energy[2]) < 1e-15);
}
