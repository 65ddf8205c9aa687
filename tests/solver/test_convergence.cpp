// Order of accuracy of the three integrators on a nonlinear, viscous flow: a random isotropic field on 16^3,
// integrated to the same time with n, 2n and 4n steps. In the asymptotic regime the differences between
// successive solutions shrink by 2^p, so log2 of their ratio estimates the order p without a reference run.
#include <catch2/catch.hpp>
#include <cmath>

#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

testing::HostField<double> solve_to(Integrator integrator, double end_time, int steps) {
  FlowParameters parameters;
  parameters.viscosity = 0.05;
  parameters.integrator = integrator;
  auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
  set_random_isotropic(*flow, 0.5, 3.0, 2024);
  for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
  return testing::host_copy(*flow, flow->velocity());
}

}  // namespace

TEST_CASE("integrators converge at orders 2, 3 and 4 on a nonlinear viscous flow", "[solver]") {
  const double end_time = 0.3;
  struct Case {
    Integrator integrator;
    double order;
    int steps;
  };
  for (const Case& c :
       {Case{Integrator::rk2, 2, 3}, Case{Integrator::rk3, 3, 3}, Case{Integrator::rk4, 4, 3}}) {
    const auto coarse = solve_to(c.integrator, end_time, c.steps);
    const auto medium = solve_to(c.integrator, end_time, 2 * c.steps);
    const auto fine = solve_to(c.integrator, end_time, 4 * c.steps);
    const double coarse_change = testing::max_difference(coarse, medium);
    const double fine_change = testing::max_difference(medium, fine);
    const double observed = std::log2(coarse_change / fine_change);
    INFO("integrator " << to_string(c.integrator) << ": changes " << coarse_change << ", " << fine_change
                       << ", observed order " << observed);
    CHECK(observed == Approx(c.order).margin(0.3));
  }
}
