// Shell spectra: E(k) sums to the energy, T(k) sums to zero (the nonlinear term conserves energy), the flux
// vanishes past the last shell, a single Taylor-Green mode sits in the shell of its wavenumber, and shell by
// shell the transfers and fluxes are what the time stepping moves: dE(k)/dt = T(k) + F(k) for u, a scalar and
// MHD's u and b.
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

namespace {

// Each spectrum's change per unit time over two steps of h, by a centred difference, and the spectrum (with
// its transfers) at the middle.
struct ShellRates {
  Spectrum middle;
  std::vector<double> energy, magnetic;
  std::vector<std::vector<double>> scalars;
};

ShellRates shell_rates(NavierStokes<double>& flow, double h) {
  const Spectrum before = compute_spectrum(flow, false);
  flow.step(h);
  ShellRates r;
  r.middle = compute_spectrum(flow, true);
  flow.step(h);
  const Spectrum after = compute_spectrum(flow, false);
  auto rate = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> out;
    for (std::size_t s = 0; s < a.size(); ++s) out.push_back((b[s] - a[s]) / (2 * h));
    return out;
  };
  r.energy = rate(before.energy, after.energy);
  r.magnetic = rate(before.magnetic, after.magnetic);
  for (std::size_t j = 0; j < before.scalars.size(); ++j)
    r.scalars.push_back(rate(before.scalars[j].variance, after.scalars[j].variance));
  return r;
}

// max over shells of |rate - injection - transfer|, and of |flux + sum_{s' <= s} (rate - injection)| (the
// flux out of the shells up to s is what they lose to the nonlinear term), each over max |transfer|;
// injection empty for none.
struct BudgetErrors {
  double transfer = 0, flux = 0, scale = 0;
};

BudgetErrors shell_budget(const std::vector<double>& rate, const std::vector<double>& transfer,
                          const std::vector<double>& flux, const std::vector<double>& injection) {
  BudgetErrors e;
  for (double t : transfer) e.scale = std::fmax(e.scale, std::fabs(t));
  double lost = 0;
  for (std::size_t s = 0; s < rate.size(); ++s) {
    const double gained = rate[s] - (injection.empty() ? 0.0 : injection[s]);
    e.transfer = testing::worse(e.transfer, std::fabs(gained - transfer[s]) / e.scale);
    lost -= gained;
    if (!flux.empty()) e.flux = testing::worse(e.flux, std::fabs(flux[s] - lost) / e.scale);
  }
  return e;
}

}  // namespace

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

TEST_CASE("a single-precision field of tiny amplitude has its energies summed, not flushed to zero",
          "[solver]") {
  // Modes of about 1e-30, whose squares (1e-60) float cannot hold: the sums are formed in double, so the
  // diagnostics, the spectrum and the forced energy equal those of the same field in double precision.
  auto single = testing::make_flow<float>({16, 16, 12}, testing::mhd_parameters(0.01, 0.01));
  auto reference = testing::make_flow<double>({16, 16, 12}, testing::mhd_parameters(0.01, 0.01));
  set_random_isotropic(*single, 1e-60, 2.5, 3);
  set_random_isotropic(*single, 2e-60, 2.5, 4, SpectrumShape::k4_exp, VectorField::magnetic);
  set_random_isotropic(*reference, 1e-60, 2.5, 3);
  set_random_isotropic(*reference, 2e-60, 2.5, 4, SpectrumShape::k4_exp, VectorField::magnetic);
  const Diagnostics a = compute_diagnostics(*single), b = compute_diagnostics(*reference);
  CHECK(a.energy == Approx(1e-60).epsilon(1e-5));
  CHECK(a.enstrophy == Approx(b.enstrophy).epsilon(1e-5));
  CHECK(a.magnetic.energy == Approx(2e-60).epsilon(1e-5));
  CHECK(a.magnetic.enstrophy == Approx(b.magnetic.enstrophy).epsilon(1e-5));
  const Spectrum spectrum = compute_spectrum(*single, false);
  CHECK(std::accumulate(spectrum.energy.begin(), spectrum.energy.end(), 0.0) == Approx(1e-60).epsilon(1e-5));
  CHECK(std::accumulate(spectrum.magnetic.begin(), spectrum.magnetic.end(), 0.0) ==
        Approx(2e-60).epsilon(1e-5));
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

TEST_CASE("shell budgets: dE(k)/dt = T(k) + F(k) in every shell, and Pi(k) is what the shells up to k lose",
          "[solver]") {
  // Sum T = 0 and Pi(k_last) = 0 hold for a T of either sign, for any factor and for any assignment of modes
  // to shells; these do not. Without diffusion each shell's energy changes by its transfer and its forcing
  // alone, which the time stepping measures independently of the spectrum's code: a centred difference over
  // two steps (error h^2 against the tolerance 1e-3 of the largest |T|). The band forcing (1 <= |k| <= 2.5 in
  // the 2 pi cube: exactly shells 1 and 2, |k|^2 = 1 .. 6) injects 2 a E(k) there, a = eps / (2 E_band), and
  // nothing elsewhere.
  const double h = 0.002;
  SECTION("velocity with band forcing, and a passive scalar") {
    const double power = 0.3;
    FlowParameters parameters;
    parameters.integrator = Integrator::rk4;
    parameters.forcing = {ForcingKind::band, power, 1.0, 2.5, 0};
    parameters.scalars.push_back({"theta", 0.0});
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
    set_random_isotropic(*flow, 0.5, 3.0, 81);
    set_random_scalar(*flow, 0, 0.4, 3.0, 82);
    for (int s = 0; s < 15; ++s) flow->step(0.02);  // random phases transfer little: let triads build up
    const ShellRates r = shell_rates(*flow, h);
    const auto& energy = r.middle.energy;
    REQUIRE(energy.size() > 3);
    std::vector<double> injection(energy.size(), 0.0);
    for (std::size_t s : {1, 2}) injection[s] = power * energy[s] / (energy[1] + energy[2]);
    const BudgetErrors u = shell_budget(r.energy, r.middle.transfer, r.middle.flux, injection);
    INFO("velocity: max |T| " << u.scale << ", errors " << u.transfer << " (transfer), " << u.flux
                              << " (flux)");
    // The transfer is a tenth of the injection and more: a wrong sign, factor or shell misses by 1e2 times
    // the tolerance.
    CHECK(u.scale > 0.05);
    CHECK(u.transfer < 1e-3);
    CHECK(u.flux < 1e-3);
    const auto& theta = r.middle.scalars.at(0);
    const BudgetErrors t = shell_budget(r.scalars[0], theta.transfer, theta.flux, {});
    INFO("scalar: max |T| " << t.scale << ", errors " << t.transfer << " (transfer), " << t.flux
                            << " (flux)");
    CHECK(t.scale > 0.03);
    CHECK(t.transfer < 1e-3);
    CHECK(t.flux < 1e-3);
  }
  SECTION("MHD: the kinetic transfer (Lorentz force's work included) and the magnetic transfer") {
    // Without B0 (whose linear exchange between u and b is in neither transfer: Spectrum.hpp).
    auto flow = testing::make_flow<double>({16, 16, 16}, testing::mhd_parameters(0, 0));
    set_random_isotropic(*flow, 0.5, 3.0, 83);
    set_random_isotropic(*flow, 0.4, 2.5, 84, SpectrumShape::k4_exp, VectorField::magnetic);
    for (int s = 0; s < 15; ++s) flow->step(0.02);
    const ShellRates r = shell_rates(*flow, h);
    const BudgetErrors u = shell_budget(r.energy, r.middle.transfer, r.middle.flux, {});
    const BudgetErrors b = shell_budget(r.magnetic, r.middle.magnetic_transfer, {}, {});
    INFO("kinetic: max |T| " << u.scale << ", errors " << u.transfer << ", " << u.flux
                             << "; magnetic: max |T| " << b.scale << ", error " << b.transfer);
    CHECK(u.scale > 0.1);
    CHECK(b.scale > 0.1);
    CHECK(u.transfer < 1e-3);
    CHECK(u.flux < 1e-3);
    CHECK(b.transfer < 1e-3);
  }
}
