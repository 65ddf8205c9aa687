// Exact solutions: the 2D Taylor-Green mode and ABC flows decay as exp(-nu k^2 t) with unchanged shape for
// every integrator (their nonlinear term is a pure gradient), the real-space outputs of the Taylor-Green
// mode (velocity, vorticity, pressure) match their closed forms, and so do the turbulence scales of an ABC
// flow.
#include <catch2/catch.hpp>
#include <cmath>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::global_max;

namespace {

// Steps the flow and checks u^(t) = exp(-nu k^2 t) u^(0) mode by mode, and the energy, after every step.
template <class Real>
void check_steady_shape(testing::Flow<Real>& flow, double k2, int steps, double dt) {
  const auto initial = testing::host_copy(*flow, flow->velocity());
  const double scale = testing::max_magnitude(initial);
  const double energy0 = kinetic_energy(*flow);
  const double nu = flow->parameters().viscosity;
  for (int s = 1; s <= steps; ++s) {
    flow->step(dt);
    const double decay = std::exp(-nu * k2 * flow->time());
    auto expected = initial;
    for (auto& component : expected)
      for (auto& value : component) value = Real(decay) * value;
    const double shape_error = testing::max_difference(testing::host_copy(*flow, flow->velocity()), expected);
    CHECK(shape_error / scale < 10 * testing::round_off<Real>());
    const double energy_error = std::fabs(kinetic_energy(*flow) / (energy0 * decay * decay) - 1);
    CHECK(energy_error < 10 * testing::round_off<Real>());
  }
  CHECK(flow->step_count() == steps);
  CHECK(flow->time() == Approx(steps * dt).epsilon(1e-14));
}

}  // namespace

TEMPLATE_TEST_CASE("the 2D Taylor-Green mode keeps its shape and decays as exp(-2 nu t) for every integrator",
                   "[solver]", float, double) {
  for (auto integrator :
       {Integrator::rk2, Integrator::rk3, Integrator::rk4, Integrator::lsrk3, Integrator::lsrk4}) {
    INFO("integrator " << to_string(integrator));
    FlowParameters parameters;
    parameters.viscosity = 0.1;
    parameters.integrator = integrator;
    auto flow = testing::make_flow<TestType>({12, 12, 8}, parameters);
    set_taylor_green_2d(*flow, 1.5);
    // |k|^2 = 2: the velocity decays as exp(-2 nu t), the energy as exp(-4 nu t).
    check_steady_shape(flow, 2.0, 3, 0.2);
  }
}

TEMPLATE_TEST_CASE("ABC flows have zero projected nonlinear term and decay as exp(-nu k^2 t)", "[solver]",
                   float, double) {
  for (int wavenumber : {1, 2}) {
    INFO("ABC wavenumber " << wavenumber);
    FlowParameters parameters;
    parameters.viscosity = 0.05;
    parameters.integrator = Integrator::rk4;
    auto flow = testing::make_flow<TestType>({12, 12, 12}, parameters);
    set_abc(*flow, 1.0, 0.7, 0.4, wavenumber);
    const double scale = testing::max_magnitude(testing::host_copy(*flow, flow->velocity()));
    // u x omega = n u x u = 0 for a Beltrami field.
    const auto& nonlinear = flow->nonlinear_term();
    CHECK(testing::max_magnitude(testing::host_copy(*flow, nonlinear)) / scale <
          10 * testing::round_off<TestType>());
    check_steady_shape(flow, double(wavenumber * wavenumber), 2, 0.25);
  }
}

TEST_CASE("real-space velocity, vorticity and pressure of the Taylor-Green mode match their closed forms",
          "[solver]") {
  FlowParameters parameters;
  parameters.viscosity = 0.01;
  auto flow = testing::make_flow<double>({16, 12, 8}, parameters);
  const double a = 1.3;
  set_taylor_green_2d(*flow, a);
  std::vector<double> u, v, w, ox, oy, oz, p;
  flow->velocity_to_host(u, v, w);
  flow->vorticity_to_host(ox, oy, oz);
  flow->pressure_to_host(p);
  const auto& points = flow->points();
  double error = 0;
  for (long i = 0; i < points.size(); ++i) {
    const Mode g = points.index(i);
    const double x = kTwoPi * g.x / points.nx, y = kTwoPi * g.y / points.ny;
    error = testing::worse(error, std::fabs(u[i] - a * std::sin(x) * std::cos(y)));
    error = testing::worse(error, std::fabs(v[i] + a * std::cos(x) * std::sin(y)));
    error = testing::worse(error, std::fabs(w[i]));
    // omega = (0, 0, dv/dx - du/dy) = (0, 0, 2 a sin x sin y).
    error = testing::worse(error, std::fabs(ox[i]) + std::fabs(oy[i]));
    error = testing::worse(error, std::fabs(oz[i] - 2 * a * std::sin(x) * std::sin(y)));
    // Steady Euler: u.grad u = -grad p gives p = a^2/4 (cos 2x + cos 2y), which has zero mean.
    error = testing::worse(error, std::fabs(p[i] - a * a / 4 * (std::cos(2 * x) + std::cos(2 * y))));
  }
  CHECK(global_max(error) < 1e-13);

  // And back: setting the velocity from its own real-space slabs reproduces the spectral field.
  const auto before = testing::host_copy(*flow, flow->velocity());
  flow->set_velocity(u, v, w);
  CHECK(testing::max_difference(before, testing::host_copy(*flow, flow->velocity())) < 1e-15);
}

TEST_CASE("the 2D Taylor-Green mode in a box with unequal sides decays as exp(-nu (a^2 + b^2) t)",
          "[solver]") {
  // With B = -A Ly / Lx the field is an eigenfunction of the Laplacian that solves the steady Euler
  // equations, in any box: k^2 = (2 pi / Lx)^2 + (2 pi / Ly)^2 = 1/4 + 4 for Lx = 4 pi, Ly = pi.
  FlowParameters parameters;
  parameters.viscosity = 0.02;
  parameters.box = Box{2 * kTwoPi, 0.5 * kTwoPi, kTwoPi};
  auto flow = testing::make_flow<double>({12, 12, 8}, parameters);
  set_taylor_green_2d(*flow, 1.2);
  check_steady_shape(flow, 0.25 + 4.0, 3, 0.05);
}

TEST_CASE(
    "the turbulence scales of an ABC flow in closed form: lambda = sqrt(5) / n whatever nu and amplitude",
    "[solver]") {
  // An ABC field of wavenumber n has |omega| = n |u| pointwise: Omega = n^2 E and eps = 2 nu n^2 E, with
  // E = (A^2 + B^2 + C^2) / 2. With u'^2 = 2E/3: lambda = sqrt(15 nu u'^2 / eps) = sqrt(5) / n,
  // Re_lambda = u' lambda / nu, eta = (nu^3 / eps)^(1/4), and k_max = 3 on 12 points in the 2 pi cube.
  const double a = 1.0, b = 0.7, c = 0.4, nu = 0.05;
  const int n = 2;
  FlowParameters parameters;
  parameters.viscosity = nu;
  auto flow = testing::make_flow<double>({12, 12, 12}, parameters);
  set_abc(*flow, a, b, c, n);
  const Diagnostics d = compute_diagnostics(*flow);
  const double energy = (a * a + b * b + c * c) / 2, eps = 2 * nu * n * n * energy;
  const double u_rms = std::sqrt(2 * energy / 3), lambda = std::sqrt(5.0) / n;
  const double eta = std::pow(nu * nu * nu / eps, 0.25);
  CHECK(d.energy == Approx(energy).epsilon(1e-14));
  CHECK(d.enstrophy == Approx(n * n * energy).epsilon(1e-14));
  CHECK(d.dissipation == Approx(eps).epsilon(1e-14));
  CHECK(d.u_rms == Approx(u_rms).epsilon(1e-14));
  CHECK(d.taylor_microscale == Approx(lambda).epsilon(1e-14));
  CHECK(d.re_lambda == Approx(u_rms * lambda / nu).epsilon(1e-14));
  CHECK(d.kolmogorov_eta == Approx(eta).epsilon(1e-14));
  CHECK(d.kmax_eta == Approx(3 * eta).epsilon(1e-14));
}

TEST_CASE("the Taylor-Green vortex at t = 0.1 has the energy and enstrophy of spectralDNS's regression case",
          "[solver]") {
  // An independent code: demo/TG.py of github.com/spectralDNS/spectralDNS (u = (sin x cos y cos z,
  // -cos x sin y cos z, 0), 2 pi cube, 32^3, nu = 0.000625, RK4 with dt = 0.01 to t = 0.1, double) asserts
  // E = 0.124953117517 and Omega = 0.375249930801 to 7 decimals (round(x - reference, 7) == 0), which its
  // variants (64^3, other integrators and dealiasing) meet as well. kolmo, whose step differs (the viscous
  // term in the integrating factor; 2/3 rule |n| <= 10 on 32 points, where spectralDNS's short version keeps
  // |n| < 2/3 (N/2 + 1), up to 11), gives them to 3e-13 and 3e-10 in either form, checked at 1e-10 and 1e-9.
  // Vortex stretching raises Omega by 4e-4 over the run against viscous decay alone: a wrong sign or factor
  // of the nonlinear term misses by far (a factor 1.1 on it by 8e-5).
  for (const auto form : {NonlinearForm::divergence, NonlinearForm::rotational}) {
    INFO(to_string(form) << " form");
    FlowParameters parameters;
    parameters.viscosity = 0.000625;
    parameters.integrator = Integrator::rk4;
    parameters.nonlinear_form = form;
    auto flow = testing::make_flow<double>({32, 32, 32}, parameters);
    set_taylor_green(*flow, 1.0);
    for (int s = 0; s < 10; ++s) flow->step(0.01);
    const Diagnostics d = compute_diagnostics(*flow);
    INFO("t = " << flow->time() << ": E = " << d.energy << ", Omega = " << d.enstrophy);
    CHECK(std::fabs(d.energy - 0.124953117517) < 1e-10);
    CHECK(std::fabs(d.enstrophy - 0.375249930801) < 1e-9);
  }
}
