// Order of accuracy of the five integrators on a nonlinear, viscous flow: a random isotropic field on 16^3,
// integrated to the same time with n, 2n and 4n steps. In the asymptotic regime the differences between
// successive solutions shrink by 2^p, so log2 of their ratio estimates the order p without a reference run.
// The same with every term of Terms.hpp: a passive scalar with a mean gradient, a Boussinesq buoyancy with
// its own diffusivity, and rotation, all fields compared.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <utility>
#include <vector>

#include "solver/InitialConditions.hpp"
#include "solver/Integrators.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

// Every field's coefficients, one after the other: [component][mode].
testing::HostField<double> solve_to(Integrator integrator, double end_time, int steps, bool all_terms) {
  FlowParameters parameters;
  parameters.viscosity = 0.05;
  parameters.integrator = integrator;
  if (all_terms) {
    parameters.scalars.push_back({"theta", 0.02});
    parameters.terms.push_back(mean_gradient(0, {0.5, 0, 1}));
    parameters.terms.push_back(coriolis({0, 0.6, 1.2}));
    add_boussinesq(parameters, 3.0, 0.5, {0, 0, 1});
  }
  // With every term each rank runs alone (MPI_COMM_SELF): the order is a property of the time stepping, and
  // 21 steps of 17 transforms per stage would wait on the all-to-all's latency; the distributed runs of the
  // other tests share the terms' code.
  auto flow =
      testing::make_flow<double>({16, 16, 16}, parameters, all_terms ? MPI_COMM_SELF : MPI_COMM_WORLD);
  set_random_isotropic(*flow, 0.5, 3.0, 2024);
  for (int j = 0; j < flow->scalar_count(); ++j) set_random_scalar(*flow, j, 0.5, 3.0, 2025);
  for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
  auto fields = testing::host_copy(*flow, flow->velocity());
  for (int j = 0; j < flow->scalar_count(); ++j)
    fields.push_back(testing::host_copy(*flow, flow->scalar(j))[0]);
  return fields;
}

}  // namespace

TEST_CASE(
    "integrators converge at orders 2, 3, 4 (rk2, rk3, rk4) and 3, 4 (lsrk3, lsrk4) on a nonlinear flow",
    "[solver]") {
  const bool all_terms = GENERATE(false, true);
  INFO((all_terms ? "with scalars, buoyancy and rotation" : "Navier-Stokes"));
  const double end_time = 0.3;
  struct Case {
    Integrator integrator;
    double order;
    int steps;
  };
  for (const Case& c : {Case{Integrator::rk2, 2, 3}, Case{Integrator::rk3, 3, 3}, Case{Integrator::rk4, 4, 3},
                        Case{Integrator::lsrk3, 3, 3}, Case{Integrator::lsrk4, 4, 3}}) {
    const auto coarse = solve_to(c.integrator, end_time, c.steps, all_terms);
    const auto medium = solve_to(c.integrator, end_time, 2 * c.steps, all_terms);
    const auto fine = solve_to(c.integrator, end_time, 4 * c.steps, all_terms);
    const double coarse_change = testing::max_difference(coarse, medium);
    const double fine_change = testing::max_difference(medium, fine);
    const double observed = std::log2(coarse_change / fine_change);
    INFO("integrator " << to_string(c.integrator) << ": changes " << coarse_change << ", " << fine_change
                       << ", observed order " << observed);
    CHECK(observed == Approx(c.order).margin(0.3));
  }
}

TEST_CASE("stability functions: the Taylor polynomial of exp for s = p, exp to fifth order for lsrk4",
          "[solver]") {
  auto taylor = [](std::complex<double> z, int order) {
    std::complex<double> sum = 1, term = 1;
    for (int j = 1; j <= order; ++j) sum += (term *= z / double(j));
    return sum;
  };
  const std::complex<double> points[] = {{0.3, 0.2}, {-1.1, 0.7}, {0.0, 2.0}};
  for (auto [integrator, order] : {std::pair{Integrator::rk2, 2}, std::pair{Integrator::rk3, 3},
                                   std::pair{Integrator::rk4, 4}, std::pair{Integrator::lsrk3, 3}})
    for (auto z : points) {
      INFO(to_string(integrator) << " at z = " << z);
      CHECK(std::abs(stability_function(integrator, z) - taylor(z, order)) < 1e-14);
    }
  // Five stages of order 4: exp's first five Taylor terms and one more, c z^5, with the same c everywhere.
  std::vector<std::complex<double>> fifth;
  for (auto z : points)
    fifth.push_back((stability_function(Integrator::lsrk4, z) - taylor(z, 4)) / std::pow(z, 5));
  INFO("lsrk4: (R(z) - T4(z)) / z^5 = " << fifth[0] << ", " << fifth[1] << ", " << fifth[2]);
  for (const auto& c : fifth) CHECK(std::abs(c - fifth[0]) < 1e-12);
  CHECK(std::abs(fifth[0]) < 1.0 / 120);  // smaller than exp's own 1/120
}
