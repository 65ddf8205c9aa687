// Rotation and stratification: single-mode inertial and internal gravity waves against their exact
// solutions (about z, and about oblique axes), kinetic + potential energy conserved without diffusion, and
// the pressure's closed form with Coriolis and buoyancy.
//
// What the wave tests hold the solver to, precisely: a single Fourier mode (wavevector k and -k) with its
// velocity normal to k is an exact solution of the nonlinear equations: its advective terms are gradients
// (u x omega = -grad(...) at 2k) or vanish (u.grad b = 0, since u.k = 0), so the solution stays in that
// mode, which the test checks to round-off. Within the mode, Coriolis and buoyancy are linear couplings
// between the components that the integrators treat explicitly (they are part of R, Integrators.hpp): the
// computed oscillation is the Runge-Kutta solution of a linear oscillator, whose error against the exact
// exp(M t) falls as dt^p. The tests check that order over many periods (5.3: at a whole number of periods the
// exact wave is back where it started, so a missing oscillation would go unseen), and the error's size at the
// finer step; with equal diffusivities the integrating factor is exact and only the oscillation carries an
// error. The runs over many periods take hundreds of tiny steps, so each rank makes them alone
// (MPI_COMM_SELF: across oversubscribed ranks every transform waits on the all-to-all's latency); a run over
// all ranks for a few steps then equals the one-rank run to round-off.
#include <catch2/catch.hpp>
#include <cmath>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::cross;
using kolmo::testing::dot;
using kolmo::testing::global_max;
using kolmo::testing::kOrderCases;
using kolmo::testing::OrderCase;
using kolmo::testing::scaled;
using kolmo::testing::unit;
using kolmo::testing::Vec;

namespace {

// The wavevector of the tests: oblique, kept on the grid {10, 8, 8} (10 x planes: uneven slabs on 3, 4
// ranks).
const std::array<long, 3> kGrid{10, 8, 8};
const Vec kWave{1, 1, 2};

struct WaveError {
  double field_error;    // max over points of |q - exact| / amplitude
  double outside_error;  // largest coefficient outside the mode / amplitude
};

// Runs `steps` steps to end_time from a single mode and compares with exact(t, x, y, z) -> {u, v, w, b}.
template <class Exact>
WaveError run_wave(const FlowParameters& parameters, const Vec& u0, double b0, int steps, double end_time,
                   Exact exact, MPI_Comm comm = MPI_COMM_SELF, const Vec& wave = kWave) {
  auto flow = testing::make_flow<double>(kGrid, parameters, comm);
  auto phase = [&](double x, double y, double z) {
    return std::cos(wave[0] * x + wave[1] * y + wave[2] * z);
  };
  const auto u =
      testing::slab_of(*flow, [&](double x, double y, double z) { return u0[0] * phase(x, y, z); });
  const auto v =
      testing::slab_of(*flow, [&](double x, double y, double z) { return u0[1] * phase(x, y, z); });
  const auto w =
      testing::slab_of(*flow, [&](double x, double y, double z) { return u0[2] * phase(x, y, z); });
  flow->set_velocity(u, v, w);
  const bool buoyant = flow->scalar_count() > 0;
  if (buoyant)
    flow->set_scalar(
        0, testing::slab_of(*flow, [&](double x, double y, double z) { return b0 * phase(x, y, z); }));
  const double amplitude = std::sqrt(dot(u0, u0) + b0 * b0);
  for (int s = 0; s < steps; ++s) flow->step(end_time / steps);

  std::vector<double> slabs[4];
  flow->velocity_to_host(slabs[0], slabs[1], slabs[2]);
  if (buoyant) flow->scalar_to_host(0, slabs[3]);
  const auto& points = flow->points();
  double error = 0;
  for (long p = 0; p < points.size(); ++p) {
    const Mode g = points.index(p);
    const auto expected = exact(flow->time(), g.x * points.dx, g.y * points.dy, g.z * points.dz);
    for (int d = 0; d < (buoyant ? 4 : 3); ++d)
      error = testing::worse(error, std::fabs(slabs[d][p] - expected[d]));
  }
  double outside = testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->velocity()), wave, comm);
  if (buoyant)
    outside = testing::worse(
        outside, testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->scalar(0)), wave, comm));
  return {global_max(error, comm) / amplitude, outside / amplitude};
}

}  // namespace

TEST_CASE("a single inertial wave oscillates at 2 Omega k_z / |k|; the error falls at the integrator's order",
          "[solver]") {
  const double omega = 1.0, nu = 0.02;
  const Vec k_hat = unit(kWave);
  const double frequency = 2 * omega * k_hat[2];  // 2 Omega . k^
  const double k2 = dot(kWave, kWave), periods = 5.3, end_time = periods * kTwoPi / frequency;
  // u0 normal to k; the exact solution turns it about k: u(t) = exp(-nu k^2 t) (cos(s t) u0 - sin(s t) k^ x
  // u0).
  const Vec u0 = scaled(unit(cross(kWave, {0, 0, 1})), 0.8);
  const Vec turned = cross(k_hat, u0);
  auto exact = [&](double t, double x, double y, double z) {
    const double phase = std::cos(kWave[0] * x + kWave[1] * y + kWave[2] * z) * std::exp(-nu * k2 * t);
    std::array<double, 4> q{};
    for (int d = 0; d < 3; ++d)
      q[d] = phase * (std::cos(frequency * t) * u0[d] - std::sin(frequency * t) * turned[d]);
    return q;
  };
  for (const OrderCase& c : kOrderCases) {
    FlowParameters parameters;
    parameters.viscosity = nu;
    parameters.integrator = c.integrator;
    parameters.terms.push_back(coriolis({0, 0, omega}));
    const int steps = static_cast<int>(std::ceil(frequency * end_time / c.coarse_step));
    const auto coarse = run_wave(parameters, u0, 0, steps, end_time, exact);
    const auto fine = run_wave(parameters, u0, 0, 2 * steps, end_time, exact);
    const double observed = std::log2(coarse.field_error / fine.field_error);
    INFO("integrator " << to_string(c.integrator) << ", " << periods << " periods in " << steps << " and "
                       << 2 * steps << " steps: errors " << coarse.field_error << ", " << fine.field_error
                       << ", observed order " << observed << "; outside the mode " << fine.outside_error);
    CHECK(observed == Approx(c.order).margin(0.3));
    CHECK(fine.field_error < 0.05);
    CHECK(fine.outside_error < 1e-13);
    // Over all ranks, a few steps: the same error as alone (the integrators share the stage kernel, so one
    // suffices).
    if (c.integrator != Integrator::rk4) continue;
    const double span = 4 * end_time / steps;
    const auto alone = run_wave(parameters, u0, 0, 4, span, exact);
    const auto distributed = run_wave(parameters, u0, 0, 4, span, exact, MPI_COMM_WORLD);
    CHECK(std::fabs(distributed.field_error - alone.field_error) < 1e-13);
    CHECK(distributed.outside_error < 1e-13);
  }
}

TEST_CASE(
    "a single internal gravity wave oscillates at N k_h / |k|; the error falls at the integrator's order",
    "[solver]") {
  // u = U e cos(k.x) + V e2 cos(k.x), b = B cos(k.x), e = P z / |P z|, e2 = k^ x e: buoyancy drives U
  // (dU/dt = c B, c = |P z| = k_h / |k|), U drives b (db/dt = -N2 w = -N2 c U), V only decays. With diffusion
  // [U, B]' = M [U, B], M = [[-nu k^2, c], [-N2 c, -kappa k^2]]: for nu = kappa the frequency is N c.
  const double n2 = 4.0, k2 = dot(kWave, kWave);
  const Vec k_hat = unit(kWave);
  const Vec pz = {-k_hat[2] * k_hat[0], -k_hat[2] * k_hat[1], 1 - k_hat[2] * k_hat[2]};
  const double c = std::sqrt(dot(pz, pz));
  const Vec e = unit(pz), e2 = cross(k_hat, e);
  const double u_amplitude = 0.6, v_amplitude = 0.3, b_amplitude = 0.5;
  const Vec u0 = {u_amplitude * e[0] + v_amplitude * e2[0], u_amplitude * e[1] + v_amplitude * e2[1],
                  u_amplitude * e[2] + v_amplitude * e2[2]};
  for (double prandtl : {1.0, 0.4}) {
    const double nu = 0.02, kappa = nu / prandtl;
    // exp(M t) = exp(s t) (cos(q t) I + sin(q t) / q (M - s I)), s = tr M / 2, q^2 = -det(M - s I) > 0.
    const double a = -nu * k2, d = -kappa * k2, s = (a + d) / 2;
    const double q = std::sqrt(n2 * c * c - (a - d) * (a - d) / 4);
    const double frequency = std::sqrt(n2) * c, end_time = 5.3 * kTwoPi / frequency;
    auto exact = [&](double t, double x, double y, double z) {
      const double phase = std::cos(kWave[0] * x + kWave[1] * y + kWave[2] * z);
      const double growth = std::exp(s * t), cq = std::cos(q * t), sq = std::sin(q * t) / q;
      const double u = growth * ((cq + sq * (a - s)) * u_amplitude + sq * c * b_amplitude);
      const double b = growth * (sq * (-n2 * c) * u_amplitude + (cq + sq * (d - s)) * b_amplitude);
      const double v = std::exp(a * t) * v_amplitude;
      std::array<double, 4> out{};
      for (int i = 0; i < 3; ++i) out[i] = phase * (u * e[i] + v * e2[i]);
      out[3] = phase * b;
      return out;
    };
    for (const OrderCase& oc : kOrderCases) {
      FlowParameters parameters;
      parameters.viscosity = nu;
      parameters.integrator = oc.integrator;
      add_boussinesq(parameters, n2, prandtl, {0, 0, 1});
      const int steps = static_cast<int>(std::ceil(frequency * end_time / oc.coarse_step));
      const auto coarse = run_wave(parameters, u0, b_amplitude, steps, end_time, exact);
      const auto fine = run_wave(parameters, u0, b_amplitude, 2 * steps, end_time, exact);
      const double observed = std::log2(coarse.field_error / fine.field_error);
      INFO("Pr " << prandtl << ", integrator " << to_string(oc.integrator) << ": errors "
                 << coarse.field_error << ", " << fine.field_error << ", observed order " << observed
                 << "; outside the mode " << fine.outside_error);
      CHECK(observed == Approx(oc.order).margin(0.3));
      CHECK(fine.field_error < 0.05);
      CHECK(fine.outside_error < 1e-13);
      if (oc.integrator != Integrator::rk4) continue;
      const double span = 4 * end_time / steps;
      const auto alone = run_wave(parameters, u0, b_amplitude, 4, span, exact);
      const auto distributed = run_wave(parameters, u0, b_amplitude, 4, span, exact, MPI_COMM_WORLD);
      CHECK(std::fabs(distributed.field_error - alone.field_error) < 1e-13);
      CHECK(distributed.outside_error < 1e-13);
    }
  }
}

TEST_CASE("about oblique axes: inertial waves at 2 Omega.k^, internal gravity waves at N |k^ x up|",
          "[solver]") {
  // The waves above with Omega and up along z and k = (1, 1, 2), whose x and y are alike: a rotation or a
  // buoyancy that mixed up the components of its vector would pass them. Here k = (1, 2, 1) and the axes
  // have three different components. For u normal to k only Omega's part along k turns u (the rest of
  // Omega x u is along k, which the projection removes): frequency 2 Omega.k^. The buoyancy drives u along
  // e = P up / |P up| at the rate c = |P up| = |k^ x up|, as above with z. rk4 at the wave tests' finer step.
  const Vec wave{1, 2, 1}, k_hat = unit(wave);
  // Little viscosity: the wave keeps most of its amplitude over the run, so a wrong frequency shows by far.
  const double nu = 0.002, k2 = dot(wave, wave);
  const OrderCase rk4 = kOrderCases[2];
  REQUIRE(rk4.integrator == Integrator::rk4);
  auto phase_of = [&](double x, double y, double z) { return wave[0] * x + wave[1] * y + wave[2] * z; };
  SECTION("inertial wave") {
    const Vec omega{0.6, 0.3, -0.5};
    const double frequency = 2 * dot(omega, k_hat), end_time = 3.3 * kTwoPi / std::fabs(frequency);
    const Vec u0 = scaled(unit(cross(wave, {0, 0, 1})), 0.8), turned = cross(k_hat, u0);
    auto exact = [&](double t, double x, double y, double z) {
      const double phase = std::cos(phase_of(x, y, z)) * std::exp(-nu * k2 * t);
      std::array<double, 4> q{};
      for (int d = 0; d < 3; ++d)
        q[d] = phase * (std::cos(frequency * t) * u0[d] - std::sin(frequency * t) * turned[d]);
      return q;
    };
    FlowParameters parameters;
    parameters.viscosity = nu;
    parameters.terms.push_back(coriolis(omega));
    const int steps = static_cast<int>(std::ceil(std::fabs(frequency) * end_time / rk4.coarse_step));
    const auto error = run_wave(parameters, u0, 0, 2 * steps, end_time, exact, MPI_COMM_WORLD, wave);
    INFO("error " << error.field_error << ", outside the mode " << error.outside_error);
    CHECK(error.field_error < 1e-3);
    CHECK(error.outside_error < 1e-13);
  }
  SECTION("internal gravity wave") {
    const double n2 = 4.0;
    const Vec up = unit({0.5, -0.3, 0.8});
    const double along = dot(up, k_hat);
    const Vec projected{up[0] - along * k_hat[0], up[1] - along * k_hat[1], up[2] - along * k_hat[2]};
    const double c = std::sqrt(dot(projected, projected));
    const Vec e = unit(projected), e2 = cross(k_hat, e);
    const double u_amplitude = 0.6, v_amplitude = 0.3, b_amplitude = 0.5;
    const Vec u0{u_amplitude * e[0] + v_amplitude * e2[0], u_amplitude * e[1] + v_amplitude * e2[1],
                 u_amplitude * e[2] + v_amplitude * e2[2]};
    // Pr = 1: U and B decay alike, and [U, B] turns at N c: U' = c B, B' = -N2 c U.
    const double frequency = std::sqrt(n2) * c, end_time = 3.3 * kTwoPi / frequency;
    auto exact = [&](double t, double x, double y, double z) {
      const double phase = std::cos(phase_of(x, y, z)) * std::exp(-nu * k2 * t);
      const double cq = std::cos(frequency * t), sq = std::sin(frequency * t);
      const double u = cq * u_amplitude + sq * b_amplitude / std::sqrt(n2);
      const double b = -sq * std::sqrt(n2) * u_amplitude + cq * b_amplitude;
      std::array<double, 4> q{};
      for (int i = 0; i < 3; ++i) q[i] = phase * (u * e[i] + v_amplitude * e2[i]);
      q[3] = phase * b;
      return q;
    };
    FlowParameters parameters;
    parameters.viscosity = nu;
    add_boussinesq(parameters, n2, 1.0, up);
    const int steps = static_cast<int>(std::ceil(frequency * end_time / rk4.coarse_step));
    const auto error =
        run_wave(parameters, u0, b_amplitude, 2 * steps, end_time, exact, MPI_COMM_WORLD, wave);
    INFO("c = " << c << ": error " << error.field_error << ", outside the mode " << error.outside_error);
    CHECK(error.field_error < 1e-3);
    CHECK(error.outside_error < 1e-13);
  }
}

TEST_CASE("without diffusion, kinetic + potential energy drift falls at the integrator's order", "[solver]") {
  // Boussinesq b (N2 = 10) with rotation and a passive scalar: Coriolis does no work, buoyancy moves energy
  // between E and <b^2> / (2 N2), so E + potential_energy is the invariant. Each rank alone, like the waves'
  // long runs; the distributed runs of the budget test below share the terms.
  const double end_time = 0.4;
  auto drift = [&](Integrator integrator, int steps) {
    FlowParameters parameters;
    parameters.integrator = integrator;
    parameters.scalars.push_back({"theta", 0});
    parameters.terms.push_back(mean_gradient(0, {0, 1, 0}));
    parameters.terms.push_back(coriolis({0.3, 0, 0.8}));
    add_boussinesq(parameters, 10.0, 1.0, {0, 0, 1});
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters, MPI_COMM_SELF);
    set_random_isotropic(*flow, 0.5, 3.0, 31);
    set_random_scalar(*flow, 0, 0.5, 3.0, 32);
    set_random_scalar(*flow, 1, 0.5, 3.0, 33);
    auto total = [&] {
      const auto d = compute_diagnostics(*flow);
      return d.energy + d.potential_energy;
    };
    const auto start = compute_diagnostics(*flow);
    const double total0 = total();
    for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
    const auto end = compute_diagnostics(*flow);
    // Buoyancy did move energy: the invariant is not trivially each part's.
    CHECK(std::fabs(end.potential_energy - start.potential_energy) > 1e-3 * total0);
    return std::fabs(total() - total0) / total0;
  };
  testing::check_drift_falls_at_order(drift, 1e-5);
}

TEST_CASE("the kinetic energy budget closes with buoyancy: dE/dt = buoyancy flux - dissipation", "[solver]") {
  testing::check_budget_closes(
      [](double h) {
        FlowParameters parameters;
        parameters.viscosity = 0.03;
        parameters.terms.push_back(coriolis({0, 0, 1}));
        add_boussinesq(parameters, 2.0, 0.7, {0, 0, 1});
        auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
        set_random_isotropic(*flow, 0.5, 3.0, 41);
        set_random_scalar(*flow, 0, 0.8, 2.0, 42);
        const double before = kinetic_energy(*flow);
        flow->step(h);
        const auto middle = compute_diagnostics(*flow);
        flow->step(h);
        CHECK(std::fabs(middle.buoyancy_flux) > 0.1 * middle.dissipation);
        // <b^2> / (2 N2) for the Boussinesq b.
        CHECK(middle.potential_energy == Approx(middle.scalars[0].variance / 4).epsilon(1e-14));
        return (kinetic_energy(*flow) - before) / (2 * h) - (middle.buoyancy_flux - middle.dissipation);
      },
      0.01);
}

TEST_CASE("the pressure holds the Coriolis and buoyancy parts: geostrophic and hydrostatic closed forms",
          "[solver]") {
  // 2D Taylor-Green u, rotation Omega z, b = B sin z: p = a^2/4 (cos 2x + cos 2y) - 2 Omega a sin x sin y
  // - B cos z (u.grad u = -grad p_1, 2 Omega x u = -grad p_2 since the flow is 2D, b z = grad p_3).
  const double a = 1.3, omega = 0.7, b_amplitude = 0.9;
  FlowParameters parameters;
  parameters.viscosity = 0.01;
  parameters.terms.push_back(coriolis({0, 0, omega}));
  add_boussinesq(parameters, 3.0, 1.0, {0, 0, 1});
  auto flow = testing::make_flow<double>({16, 12, 10}, parameters);
  set_taylor_green_2d(*flow, a);
  flow->set_scalar(
      0, testing::slab_of(*flow, [&](double, double, double z) { return b_amplitude * std::sin(z); }));
  std::vector<double> p;
  flow->pressure_to_host(p);
  const auto& points = flow->points();
  double error = 0;
  for (long i = 0; i < points.size(); ++i) {
    const Mode g = points.index(i);
    const double x = g.x * points.dx, y = g.y * points.dy, z = g.z * points.dz;
    const double expected = a * a / 4 * (std::cos(2 * x) + std::cos(2 * y)) -
                            2 * omega * a * std::sin(x) * std::sin(y) - b_amplitude * std::cos(z);
    error = testing::worse(error, std::fabs(p[i] - expected));
  }
  CHECK(global_max(error) < 1e-13);
}
