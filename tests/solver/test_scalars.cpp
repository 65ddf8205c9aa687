// Scalars: exact decay of modes that advection does not touch, each field at its own diffusivity, for every
// integrator (with rotation and a Boussinesq buoyancy present); the exact advection of a scalar with a mean
// gradient by a steady shear; the variance budget with a mean gradient; conservation of the variance by
// advection, in the nonlinear term and in time at the integrator's order; the random initial scalar; memory
// and refused parameters.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "core/Error.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/Spectrum.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

// The coefficients of a host copy, each mode multiplied by exp(-diffusivity |k|^2 t).
template <class Real>
testing::HostField<Real> decayed(const NavierStokes<Real>& flow, testing::HostField<Real> field,
                                 double diffusivity, double t) {
  const auto& wavenumbers = flow.wavenumbers();
  for (auto& component : field)
    for (long m = 0; m < wavenumbers.size(); ++m) {
      const double k2 = double(wavenumbers.k(wavenumbers.mode(m)).norm2());
      component[m] = Real(std::exp(-diffusivity * k2 * t)) * component[m];
    }
  return field;
}

// A flow with a passive scalar theta (mean gradient G) and the Boussinesq b.
FlowParameters scalar_flow(double viscosity, double kappa, double n2, double prandtl, Integrator integrator) {
  FlowParameters parameters;
  parameters.viscosity = viscosity;
  parameters.integrator = integrator;
  parameters.scalars.push_back({"theta", kappa});
  parameters.terms.push_back(mean_gradient(0, {0, 0, 1}));
  add_boussinesq(parameters, n2, prandtl, {0, 0, 1});
  return parameters;
}

}  // namespace

TEMPLATE_TEST_CASE(
    "modes that advection leaves alone decay exactly as exp(-D k^2 t), each field at its own D, for every "
    "integrator",
    "[solver]", float, double) {
  // The 2D Taylor-Green velocity has k_z = 0, so rotation about z does not act on it (P(2 Omega x u) =
  // 2 (Omega . k^) k^ x u = 0), and w = 0; scalars that depend on z alone are then not advected
  // (u.grad theta = w dtheta/dz = 0), their mean gradients along z add -w G = 0, and b(z) ez is a gradient,
  // so buoyancy does not act either. Each field decays at its own rate: exactly, since the integrating factor
  // holds the diffusion and the rest of R is round-off.
  for (auto integrator : {Integrator::rk2, Integrator::rk3, Integrator::rk4}) {
    INFO("integrator " << to_string(integrator));
    auto parameters = scalar_flow(0.1, 0.03, 2.0, 0.4, integrator);  // b's diffusivity 0.25
    parameters.terms.push_back(coriolis({0, 0, 1.5}));
    // 10 x planes: uneven slabs on 3 and 4 ranks.
    auto flow = testing::make_flow<TestType>({10, 12, 12}, parameters);
    set_taylor_green_2d(*flow, 1.2);
    flow->set_scalar(0,
                     testing::slab_of(*flow, [](double, double, double z) { return std::cos(2 * z) + 0.5; }));
    flow->set_scalar(1, testing::slab_of(*flow, [](double, double, double z) {
                       return std::sin(z) - 0.3 * std::cos(3 * z);
                     }));
    const auto velocity0 = testing::host_copy(*flow, flow->velocity());
    const auto theta0 = testing::host_copy(*flow, flow->scalar(0));
    const auto b0 = testing::host_copy(*flow, flow->scalar(1));
    const double scale = testing::max_magnitude(velocity0);
    for (int s = 0; s < 3; ++s) flow->step(0.2);
    const double t = flow->time();
    CHECK(testing::max_difference(testing::host_copy(*flow, flow->velocity()),
                                  decayed(*flow, velocity0, 0.1, t)) /
              scale <
          10 * testing::round_off<TestType>());
    CHECK(testing::max_difference(testing::host_copy(*flow, flow->scalar(0)),
                                  decayed(*flow, theta0, 0.03, t)) < 10 * testing::round_off<TestType>());
    CHECK(testing::max_difference(testing::host_copy(*flow, flow->scalar(1)), decayed(*flow, b0, 0.25, t)) <
          10 * testing::round_off<TestType>());
  }
}

TEST_CASE("a scalar with a mean gradient: d<theta^2>/dt = production - chi", "[solver]") {
  testing::check_budget_closes(
      [](double h) {
        FlowParameters parameters;
        parameters.viscosity = 0.03;
        parameters.scalars.push_back({"theta", 0.05});
        parameters.terms.push_back(mean_gradient(0, {1.5, 0, 5}));
        auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
        set_random_isotropic(*flow, 0.5, 3.0, 21);
        set_random_scalar(*flow, 0, 0.4, 3.0, 22);
        auto variance = [&] { return compute_scalar_diagnostics(*flow)[0].variance; };
        const double before = variance();
        flow->step(h);
        const auto middle = compute_scalar_diagnostics(*flow)[0];
        flow->step(h);
        CHECK(std::fabs(middle.production) > 0.1 * middle.dissipation);
        return (variance() - before) / (2 * h) - (middle.production - middle.dissipation);
      },
      0.005);
}

TEST_CASE("a scalar with a mean gradient in a steady shear is the exact solution of its advection",
          "[solver]") {
  // u = U sin(y) x^ is a steady solution of the inviscid equations (u.grad u = 0), and it carries the total
  // scalar G.x + theta unchanged along x: G.x + theta = G.x' + cos(x'), x' = x - U t sin y. So
  // theta = cos(x - U t sin y) - G_x U t sin y exactly. The variance budgets and the conservation tests hold
  // for either sign of u.grad theta and for any component of G that the diagnostics read alike; this one
  // does not: a flipped advection moves the pattern the other way, and only G_x (not G_y = 0.4, nor
  // G_z) produces theta here. cos(x - a sin y) = sum_n J_n(a) cos(x - n y): at a = U t <= 0.6 the modes the
  // 2/3 rule drops on 32 points in y (|n| > 10) hold less than 1e-12 of it.
  const double speed = 1.0, end_time = 0.6;
  const std::array<double, 3> gradient{0.7, 0.4, -0.3};
  FlowParameters parameters;
  parameters.scalars.push_back({"theta", 0.0});
  parameters.terms.push_back(mean_gradient(0, gradient));
  // 10 x planes: uneven slabs on 3 and 4 ranks.
  auto flow = testing::make_flow<double>({10, 32, 6}, parameters);
  const auto u = testing::slab_of(*flow, [&](double, double y, double) { return speed * std::sin(y); });
  const std::vector<double> zero(u.size(), 0.0);
  flow->set_velocity(u, zero, zero);
  flow->set_scalar(0, testing::slab_of(*flow, [](double x, double, double) { return std::cos(x); }));
  const int steps = 60;
  for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
  const double t = flow->time();
  const auto expected = testing::slab_of(*flow, [&](double x, double y, double) {
    return std::cos(x - speed * t * std::sin(y)) - gradient[0] * speed * t * std::sin(y);
  });
  std::vector<double> theta;
  flow->scalar_to_host(0, theta);
  const double error = testing::max_relative(theta, expected);
  INFO("t = " << t << ": max |theta - exact| / max |exact| = " << error);
  // rk4 at U dt = 0.01: its error is a few 1e-11 of the field.
  CHECK(error < 1e-8);
}

TEST_CASE(
    "a scalar's response through its mean gradient to one velocity mode is exact; its error falls at least "
    "at "
    "the integrator's order",
    "[solver]") {
  // u = exp(-nu k^2 t) u0 cos(k.x), u0 normal to k, is an exact solution (its advection is a gradient), and
  // it does not advect a theta of its own mode (u.grad theta = 0 since u0.k = 0): from theta = 0, theta obeys
  // dtheta/dt = -u.G + kappa lap theta in that mode alone, so
  //   theta = -(u0.G) cos(k.x) (exp(-nu k^2 t) - exp(-kappa k^2 t)) / ((kappa - nu) k^2).
  // k, u0 and G are oblique with three different components: a sign, a factor or a component of G mixed up
  // fails by the size of theta. -u.G is explicit and the diffusion exact: for a source that is a function of
  // t alone each scheme is its quadrature rule (rk3's is Simpson's, of order 4), so the order is at least the
  // scheme's.
  const std::array<long, 3> grid{10, 8, 8};
  const testing::Vec wave{1, 2, 1}, gradient{0.7, -0.4, 0.9};
  const testing::Vec u0 = testing::scaled(testing::unit(testing::cross(wave, {0.3, -0.5, 1})), 0.8);
  const double nu = 0.03, kappa = 0.15, k2 = testing::dot(wave, wave), end_time = 2.0;
  const double along = testing::dot(u0, gradient);
  auto exact = [&](double t, double x, double y, double z) {
    return -along * std::cos(wave[0] * x + wave[1] * y + wave[2] * z) *
           (std::exp(-nu * k2 * t) - std::exp(-kappa * k2 * t)) / ((kappa - nu) * k2);
  };
  struct Result {
    double error, outside;
  };
  auto run = [&](Integrator integrator, int steps, double span, MPI_Comm comm) {
    FlowParameters parameters;
    parameters.viscosity = nu;
    parameters.integrator = integrator;
    parameters.scalars.push_back({"theta", kappa});
    parameters.terms.push_back(mean_gradient(0, gradient));
    auto flow = testing::make_flow<double>(grid, parameters, comm);
    auto component = [&](int d) {
      return testing::slab_of(*flow, [&](double x, double y, double z) {
        return u0[d] * std::cos(wave[0] * x + wave[1] * y + wave[2] * z);
      });
    };
    flow->set_velocity(component(0), component(1), component(2));
    for (int s = 0; s < steps; ++s) flow->step(span / steps);
    std::vector<double> theta;
    flow->scalar_to_host(0, theta);
    const auto& points = flow->points();
    double error = 0;
    for (long p = 0; p < points.size(); ++p) {
      const Mode g = points.index(p);
      error = testing::worse(error, std::fabs(theta[p] - exact(flow->time(), g.x * points.dx, g.y * points.dy,
                                                               g.z * points.dz)));
    }
    const double outside = testing::worse(
        testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->scalar(0)), wave, comm),
        testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->velocity()), wave, comm));
    // Relative to theta's largest value over the run, |u0.G| / (kappa k^2) e^{-1} at most: of order 0.1.
    const double scale = std::fabs(along) / k2;
    return Result{testing::global_max(error, comm) / scale, outside / scale};
  };
  for (const testing::OrderCase& c : testing::kOrderCases) {
    const int steps = c.integrator == Integrator::rk2 ? 16 : 8;
    const Result coarse = run(c.integrator, steps, end_time, MPI_COMM_SELF);
    const Result fine = run(c.integrator, 2 * steps, end_time, MPI_COMM_SELF);
    const double observed = std::log2(coarse.error / fine.error);
    INFO("integrator " << to_string(c.integrator) << ": errors " << coarse.error << ", " << fine.error
                       << ", observed order " << observed << "; outside the mode " << fine.outside);
    CHECK(observed > c.order - 0.3);
    CHECK(fine.error < 1e-3);
    CHECK(fine.outside < 1e-13);
    if (c.integrator != Integrator::rk4) continue;
    // Over all ranks: the same error as alone.
    const Result alone = run(c.integrator, 3, 0.5, MPI_COMM_SELF);
    const Result distributed = run(c.integrator, 3, 0.5, MPI_COMM_WORLD);
    CHECK(std::fabs(distributed.error - alone.error) < 1e-12);
    CHECK(distributed.outside < 1e-13);
  }
}

TEMPLATE_TEST_CASE(
    "advection conserves the scalar variance: sum T_theta(k) = 0, sum E_theta(k) = <theta^2>/2", "[solver]",
    float, double) {
  auto parameters = scalar_flow(0.01, 0.02, 1.0, 1.0, Integrator::rk4);
  auto flow = testing::make_flow<TestType>({16, 12, 18}, parameters);
  set_random_isotropic(*flow, 1.0, 3.0, 7);
  set_random_scalar(*flow, 0, 0.5, 2.0, 8);
  set_random_scalar(*flow, 1, 0.2, 3.0, 9);
  const auto spectrum = compute_spectrum(*flow);
  const auto diagnostics = compute_scalar_diagnostics(*flow);
  REQUIRE(spectrum.scalars.size() == 2);
  for (int j = 0; j < 2; ++j) {
    const auto& s = spectrum.scalars[j];
    INFO("scalar " << s.name);
    CHECK(s.name == flow->scalar_name(j));
    CHECK(std::accumulate(s.variance.begin(), s.variance.end(), 0.0) ==
          Approx(diagnostics[j].variance / 2).epsilon(10 * testing::round_off<TestType>()));
    double scale = 0;
    for (double t : s.transfer) scale += std::fabs(t);
    const double total = std::accumulate(s.transfer.begin(), s.transfer.end(), 0.0);
    INFO("sum T = " << total << ", sum |T| = " << scale);
    CHECK(scale > 1e-3);
    CHECK(std::fabs(total) / scale < 10 * testing::round_off<TestType>());
    CHECK(std::fabs(s.flux.back()) / scale < 10 * testing::round_off<TestType>());
    // Dealiased: zero outside the 2/3 rule (the host backend's buffers are host memory).
    const auto& wavenumbers = flow->wavenumbers();
    double outside = 0;
    for (long m = 0; m < wavenumbers.size(); ++m)
      if (!wavenumbers.kept(wavenumbers.mode(m)))
        outside = testing::worse(outside, double(norm2(flow->scalar_nonlinear_term(j)[m])));
    CHECK(testing::global_max(outside) == 0.0);
  }
}

// Each rank alone (MPI_COMM_SELF): a property of the time stepping, which the distributed tests above share;
// alone, the many small steps do not wait on all-to-all latency.
TEST_CASE("with zero diffusivity the scalar variance drift falls at the integrator's order", "[solver]") {
  const double end_time = 0.4;
  auto drift = [&](Integrator integrator, int steps) {
    FlowParameters parameters;
    parameters.integrator = integrator;
    parameters.scalars.push_back({"theta", 0.0});
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters, MPI_COMM_SELF);
    set_random_isotropic(*flow, 0.5, 3.0, 99);
    set_random_scalar(*flow, 0, 1.0, 3.0, 98);
    const double variance0 = compute_scalar_diagnostics(*flow)[0].variance;
    for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
    return std::fabs(compute_scalar_diagnostics(*flow)[0].variance - variance0) / variance0;
  };
  testing::check_drift_falls_at_order(drift, 1e-5);
}

TEMPLATE_TEST_CASE("the random scalar has the requested variance and does not depend on the rank count",
                   "[solver]", float, double) {
  const std::array<long, 3> n{16, 12, 10};
  FlowParameters parameters;
  parameters.scalars = {{"a", 0.1}, {"c", 0.2}};
  auto distributed = testing::make_flow<TestType>(n, parameters);
  auto alone = testing::make_flow<TestType>(n, parameters, MPI_COMM_SELF);
  for (auto* flow : {&distributed, &alone}) {
    set_random_scalar(**flow, 1, 0.3, 2.5, 42);
    set_random_isotropic(**flow, 0.7, 2.5, 42);
  }
  const auto part = testing::host_copy(*distributed, distributed->scalar(1));
  const auto whole = testing::host_copy(*alone, alone->scalar(1));
  const auto mine = testing::rank_part_of(*distributed, whole);
  const double scale = testing::max_magnitude(mine);
  CHECK(testing::max_difference(part, mine) / scale < testing::round_off<TestType>());
  const auto diagnostics = compute_scalar_diagnostics(*distributed);
  CHECK(diagnostics[1].variance == Approx(0.3).epsilon(10 * testing::round_off<TestType>()));
  CHECK(diagnostics[0].variance == 0.0);  // never set: zero
  // Real: through real space and back the coefficients are unchanged.
  std::vector<TestType> slab;
  distributed->scalar_to_host(1, slab);
  distributed->set_scalar(1, slab);
  CHECK(testing::max_difference(part, testing::host_copy(*distributed, distributed->scalar(1))) / scale <
        10 * testing::round_off<TestType>());
  // The scalar's phases are not the velocity's: correlation <u theta> is small against u' theta'.
  const auto& flux = diagnostics[1].flux;
  CHECK(std::fabs(flux[0]) < 0.5 * std::sqrt(2 * 0.7 / 3 * 0.3));
}

TEST_CASE("memory held: 5 (rk4) or 4 (rk2) slabs per passive scalar, 6 or 5 for a buoyancy", "[solver]") {
  const std::array<long, 3> n{32, 32, 32};
  for (auto integrator : {Integrator::rk2, Integrator::rk4}) {
    FlowParameters pure;
    pure.integrator = integrator;
    auto flow = testing::make_flow<double>(n, pure);
    const auto parameters = scalar_flow(0.01, 0.01, 1.0, 1.0, integrator);
    auto with_scalars = testing::make_flow<double>(n, parameters);
    const std::size_t slab = flow.fft->layout().alloc_complex() * sizeof(Complex<double>);
    const std::size_t per_scalar = integrator == Integrator::rk2 ? 4 : 5;
    const std::size_t table = 2 * sizeof(ScalarSlots<double>);
    CHECK(with_scalars->bytes_held() == flow->bytes_held() + (2 * per_scalar + 1) * slab + table);
  }
}

TEST_CASE("refused scalars and terms: negative diffusivity, duplicate names, unknown scalar, zero vectors",
          "[solver]") {
  auto message_of = [](const FlowParameters& parameters) {
    return testing::error_message([&] { testing::make_flow<double>({8, 8, 8}, parameters); });
  };
  FlowParameters parameters;
  parameters.viscosity = 0.1;
  parameters.scalars = {{"theta", -0.1}};
  CHECK(message_of(parameters).find("scalar 'theta': diffusivity = -0.1") != std::string::npos);
  parameters.scalars = {{"theta", 0.1}, {"theta", 0.2}};
  CHECK(message_of(parameters).find("two scalars are named 'theta'") != std::string::npos);
  parameters.scalars = {{"theta", 0.1}};
  parameters.terms = {mean_gradient(1, {0, 0, 1})};
  CHECK(message_of(parameters).find("mean_gradient term names scalar 1, but there are 1") !=
        std::string::npos);
  parameters.terms = {buoyancy(0, {0, 0, 0})};
  CHECK(message_of(parameters).find("buoyancy term of scalar 'theta': the buoyancy vector is zero") !=
        std::string::npos);
  CHECK(testing::error_message([&] {
          add_boussinesq(parameters, 1.0, 1.0, {0, 0, 0});
        }).find("buoyancy: the up direction [0, 0, 0] has no length") != std::string::npos);
  CHECK(testing::error_message([&] {
          add_boussinesq(parameters, 1.0, 0.0, {0, 0, 1});
        }).find("Prandtl number = 0") != std::string::npos);
}

TEST_CASE("add_boussinesq normalises any finite up direction but 0, however long or short", "[solver]") {
  // Scaled by the largest component first: the naive length of these under- or overflows.
  const double r = 1 / std::sqrt(2.0);
  const std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>> cases = {
      {{0, 0, 1e-300}, {0, 0, 1}},
      {{0, 0, -4.9e-324}, {0, 0, -1}},
      {{1e300, 0, 1e300}, {r, 0, r}},
      {{-1.5e308, 0, 1.5e308}, {-r, 0, r}},
  };
  for (const auto& [up, unit] : cases) {
    FlowParameters parameters;
    parameters.viscosity = 0.1;
    add_boussinesq(parameters, 2.0, 1.0, up);
    const TermCoefficients c = fold_terms(parameters.scalars, parameters.terms);
    for (int d = 0; d < 3; ++d) {
      CHECK(c.buoyancy[0][d] == Approx(unit[d]).margin(1e-15));
      CHECK(c.mean_gradient[0][d] == Approx(2 * unit[d]).margin(1e-15));
    }
    CHECK(c.wave_frequency_bound == Approx(std::sqrt(2.0)));
  }
  // A rotation whose length's square overflows is finite, and folds as such.
  const TermCoefficients c = fold_terms({}, {coriolis({0, 0, 1e300})});
  CHECK(c.wave_frequency_bound == Approx(2e300));
}
