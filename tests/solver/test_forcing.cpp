// Forcing: band and linear forcing inject exactly the requested power, and the energy budget closes:
// dE/dt = injection - dissipation (the nonlinear term conserves energy).
#include <catch2/catch.hpp>
#include <cmath>

#include "core/Error.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

FlowParameters forced(ForcingKind kind, double power, double viscosity) {
  FlowParameters parameters;
  parameters.viscosity = viscosity;
  parameters.integrator = Integrator::rk4;
  parameters.forcing.kind = kind;
  parameters.forcing.power = power;
  parameters.forcing.k_min = 0.5;
  parameters.forcing.k_max = 2.5;
  return parameters;
}

}  // namespace

TEMPLATE_TEST_CASE("band and linear forcing inject exactly the requested power", "[solver]", float, double) {
  for (auto kind : {ForcingKind::band, ForcingKind::linear}) {
    INFO("forcing " << to_string(kind));
    auto flow = testing::make_flow<TestType>({16, 12, 12}, forced(kind, 0.3, 0.02));
    set_random_isotropic(*flow, 0.5, 3.0, 11);
    CHECK(compute_diagnostics(*flow).injection == Approx(0.3).epsilon(10 * testing::round_off<TestType>()));
    flow->step(0.05);
    CHECK(compute_diagnostics(*flow).injection == Approx(0.3).epsilon(10 * testing::round_off<TestType>()));
  }
}

TEST_CASE("the forced energy ignores whatever lies outside the 2/3 rule, as stage fields may hold there",
          "[solver]") {
  for (auto kind : {ForcingKind::band, ForcingKind::linear}) {
    INFO("forcing " << to_string(kind));
    auto flow = testing::make_flow<double>({16, 12, 12}, forced(kind, 0.3, 0.02));
    set_random_isotropic(*flow, 0.5, 3.0, 11);
    const double clean = flow->forcing().forced_energy(flow->velocity());
    REQUIRE(clean > 0);
    // Garbage at every dropped mode (the host backend's buffers are host memory).
    auto& u = flow->velocity();
    const auto& wavenumbers = flow->wavenumbers();
    for (int d = 0; d < 3; ++d)
      for (long m = 0; m < wavenumbers.size(); ++m)
        if (!wavenumbers.kept(wavenumbers.mode(m))) u.spectral(d)[m] = Complex<double>(1e3 + m, -7.0 * d);
    CHECK(flow->forcing().forced_energy(flow->velocity()) == Approx(clean).epsilon(1e-14));
  }
}

TEST_CASE("inviscid forced energy grows exactly as the injection says", "[solver]") {
  // A weak initial field keeps the integrator's own energy error (rk4, inviscid: ~(u k dt)^5) far below the
  // 1e-6 checked; applying the amplitude of the step's start to all stages would miss by ~5e-4.
  const double power = 0.1, end_time = 0.25;
  // Constant power: E(t) = E0 + eps t, whatever the nonlinear term does.
  for (auto kind : {ForcingKind::band, ForcingKind::linear}) {
    INFO("forcing " << to_string(kind));
    auto flow = testing::make_flow<double>({16, 16, 16}, forced(kind, power, 0));
    set_random_isotropic(*flow, 0.1, 3.0, 12);
    const double energy0 = kinetic_energy(*flow);
    for (int s = 0; s < 5; ++s) flow->step(end_time / 5);
    const double error = kinetic_energy(*flow) / (energy0 + power * end_time) - 1;
    INFO("relative error " << error);
    CHECK(std::fabs(error) < 1e-6);
  }
  // Fixed linear rate a: dE/dt = 2 a E, so E(t) = E0 exp(2 a t).
  FlowParameters parameters = forced(ForcingKind::linear, 0, 0);
  parameters.forcing.linear_rate = 0.4;
  auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
  set_random_isotropic(*flow, 0.1, 3.0, 13);
  const double energy0 = kinetic_energy(*flow);
  for (int s = 0; s < 5; ++s) flow->step(end_time / 5);
  const double error = kinetic_energy(*flow) / (energy0 * std::exp(2 * 0.4 * end_time)) - 1;
  INFO("fixed rate: relative error " << error);
  CHECK(std::fabs(error) < 1e-6);
}

TEST_CASE("forced inviscid energy: the error of E0 + eps t falls at every integrator's order, MHD's too",
          "[solver]") {
  // The test above holds rk4 to E0 + eps t; this one every integrator, at its order. The amplitude is part
  // of R, recomputed from each stage's input (Forcing.hpp), so the forced equations are one ODE that the
  // scheme integrates at its order; an amplitude taken from another stage's field (the step's start, say) is
  // a first-order error, which the observed rate shows. MHD applies its forcings elsewhere: band forcing of u
  // as a stress, the linear one in the stage update from the copy of u with the rate the right-hand side
  // returns (Integrators.hpp), b's as a curl. With a fixed rate a the energy is E0 exp(2 a t).
  struct Case {
    const char* name;
    bool mhd;
    ForcingParameters u, b;
  };
  const ForcingParameters band{ForcingKind::band, 0.01, 0.5, 2.5, 0},
      power{ForcingKind::linear, 0.01, 0, 0, 0}, fixed{ForcingKind::linear, 0, 0, 0, 0.4},
      band_b{ForcingKind::band, 0.005, 0.5, 2.5, 0};
  const double end_time = 0.25;
  for (const Case& c :
       {Case{"band", false, band, {}}, Case{"linear, constant power", false, power, {}},
        Case{"linear, fixed rate", false, fixed, {}}, Case{"MHD: band u, band b", true, band, band_b},
        Case{"MHD: linear u, band b", true, power, band_b}}) {
    INFO(c.name);
    auto drift = [&](Integrator integrator, int steps) {
      FlowParameters parameters =
          c.mhd ? testing::mhd_parameters(0, 0, {0, 0, 0}, integrator) : FlowParameters{};
      parameters.integrator = integrator;
      parameters.forcing = c.u;
      parameters.magnetic.forcing = c.b;
      auto flow = testing::make_flow<double>({16, 16, 16}, parameters, MPI_COMM_SELF);
      set_random_isotropic(*flow, 0.01, 3.0, 15);
      if (c.mhd) set_random_isotropic(*flow, 0.005, 3.0, 16, SpectrumShape::k4_exp, VectorField::magnetic);
      auto total = [&] {
        const auto d = compute_diagnostics(*flow);
        return d.energy + d.magnetic.energy;
      };
      const double energy0 = total();
      for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
      const double expected = c.u.power == 0 ? energy0 * std::exp(2 * c.u.linear_rate * end_time)
                                             : energy0 + (c.u.power + c.b.power) * end_time;
      return std::fabs(total() / expected - 1);
    };
    testing::check_drift_falls_at_order(drift, 1e-6);
  }
}

TEST_CASE("the viscous energy budget closes: dE/dt = injection - dissipation", "[solver]") {
  testing::check_budget_closes(
      [](double h) {
        auto flow = testing::make_flow<double>({16, 16, 16}, forced(ForcingKind::band, 0.2, 0.03));
        set_random_isotropic(*flow, 0.5, 3.0, 14);
        const double before = kinetic_energy(*flow);
        flow->step(h);
        const auto middle = compute_diagnostics(*flow);
        flow->step(h);
        return (kinetic_energy(*flow) - before) / (2 * h) - (middle.injection - middle.dissipation);
      },
      0.01);
}

TEST_CASE("impossible forcing parameters are refused naming the key", "[solver]") {
  FlowParameters parameters = forced(ForcingKind::band, 0.1, 0.01);
  parameters.forcing.k_min = 3;
  parameters.forcing.k_max = 2;
  std::string message;
  try {
    testing::make_flow<double>({8, 8, 8}, parameters);
  } catch (const kolmo::Error& e) {
    message = e.what();
  }
  CHECK(message.find("forcing band k_min = 3") != std::string::npos);
  parameters.forcing.k_min = 40;
  parameters.forcing.k_max = 50;
  message.clear();
  try {
    testing::make_flow<double>({8, 8, 8}, parameters);
  } catch (const kolmo::Error& e) {
    message = e.what();
  }
  CHECK(message.find("contains no resolved mode") != std::string::npos);
}

TEST_CASE("the adaptive step counts the forcing's rate: P / (2 E_forced), or the fixed coefficient",
          "[solver]") {
  // The same field without forcing gives the advective rate alone: cfl / dt.
  auto plain = testing::make_flow<double>({16, 12, 12}, forced(ForcingKind::none, 0, 0.02));
  set_random_isotropic(*plain, 1e-4, 3.0, 11);  // a weak field: the forcing's rate dominates
  const double advective = 0.5 / plain->cfl_dt(0.5, 1e9);
  for (auto kind : {ForcingKind::band, ForcingKind::linear}) {
    INFO("forcing " << to_string(kind));
    auto flow = testing::make_flow<double>({16, 12, 12}, forced(kind, 0.3, 0.02));
    set_random_isotropic(*flow, 1e-4, 3.0, 11);
    const double a = 0.3 / (2 * flow->forcing().forced_energy(flow->velocity()));
    CHECK(flow->forcing_rate() == Approx(a).epsilon(1e-12));
    CHECK(flow->cfl_dt(0.5, 1e9) == Approx(0.5 / (advective + a)).epsilon(1e-12));
  }
  FlowParameters fixed = forced(ForcingKind::linear, 0, 0.02);
  fixed.forcing.linear_rate = 7.5;
  auto flow = testing::make_flow<double>({16, 12, 12}, fixed);
  set_random_isotropic(*flow, 1e-4, 3.0, 11);
  CHECK(flow->cfl_dt(0.5, 1e9) == Approx(0.5 / (advective + 7.5)).epsilon(1e-12));
}
