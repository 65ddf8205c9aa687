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

TEST_CASE("a two-dimensional run's shells and k_max come from its plane, not from its single z point",
          "[solver]") {
  // Found by the output audit: grid [16, 12, 1] in a box [2 pi, 2 pi, 1] had shells 2 pi wide (2 pi / Lz)
  // and k_max eta 0 (the z direction keeps only n_z = 0), though its z side spaces no wavenumber.
  FlowParameters parameters;
  parameters.viscosity = 0.01;
  parameters.box = Box{kTwoPi, kTwoPi, 1.0};
  auto flow = testing::make_flow<double>({16, 12, 1}, parameters);
  set_taylor_green_2d(*flow, 1.0);
  const Spectrum spectrum = compute_spectrum(*flow, false);
  CHECK(spectrum.shell_width == Approx(1.0));
  // The mode (1, 1, 0), |k| = sqrt(2), holds E = 1/4 in shell round(sqrt(2)) = 1.
  REQUIRE(spectrum.energy.size() > 2);
  CHECK(spectrum.energy[1] == Approx(0.25).epsilon(1e-14));
  CHECK(std::fabs(spectrum.energy[0]) + std::fabs(spectrum.energy[2]) < 1e-15);
  // k_max: the largest kept |n_y| = (12 - 1) / 3 = 3 along y (2 pi / Ly = 1) is the smaller of x's 5 and
  // y's 3.
  const Diagnostics d = compute_diagnostics(*flow);
  CHECK(d.kmax_eta == Approx(3.0 * d.kolmogorov_eta).epsilon(1e-14));
}
