// Conservation laws of the truncated inviscid system and invariants of the implementation:
// - the nonlinear term transfers energy between modes but creates none: sum_k Re(u^* . N^) = 0 to round-off;
// - with nu = 0 and no forcing the energy drift of each integrator falls with dt at least at its order, and
// is
//   tiny for rk4 at a small step;
// - the velocity stays divergence-free to round-off over many steps;
// - two runs of the same steps give bit-for-bit the same state.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

TEMPLATE_TEST_CASE("the nonlinear term conserves energy: sum over modes of u^* . N^ vanishes", "[solver]",
                   float, double) {
  FlowParameters parameters;
  auto flow = testing::make_flow<TestType>({16, 12, 18}, parameters);
  set_random_isotropic(*flow, 1.0, 3.0, 7);
  const auto& nonlinear = flow->nonlinear_term();
  const double transfer = inner_product(*flow, flow->velocity(), nonlinear);
  const double scale = std::sqrt(2 * kinetic_energy(*flow) * 2 * mean_square_half(*flow, nonlinear));
  INFO("sum u^* . N^ = " << transfer << ", |u| |N| = " << scale);
  CHECK(scale > 0.1);
  CHECK(std::fabs(transfer) / scale < 10 * testing::round_off<TestType>());
}

TEST_CASE("inviscid energy drift falls with dt at the integrator's order", "[solver]") {
  const double end_time = 0.4;
  auto drift = [&](Integrator integrator, int steps) {
    FlowParameters parameters;
    parameters.viscosity = 0;
    parameters.integrator = integrator;
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
    set_random_isotropic(*flow, 0.5, 3.0, 99);
    const double energy0 = kinetic_energy(*flow);
    for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
    return std::fabs(kinetic_energy(*flow) - energy0) / energy0;
  };
  testing::check_drift_falls_at_order(drift, 1e-6);
}

TEST_CASE("the velocity stays divergence-free, and repeated runs are bit-for-bit identical", "[solver]") {
  auto run = [](int steps) {
    FlowParameters parameters;
    parameters.viscosity = 0.01;
    parameters.integrator = Integrator::rk3;
    parameters.forcing.kind = ForcingKind::band;
    parameters.forcing.power = 0.1;
    parameters.forcing.k_min = 1;
    parameters.forcing.k_max = 2.5;
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
    set_random_isotropic(*flow, 0.5, 3.0, 5);
    const double velocity_gradient_scale = std::sqrt(2 * compute_diagnostics(*flow).enstrophy);
    double worst = 0;
    for (int s = 0; s < steps; ++s) {
      flow->step(flow->cfl_dt(0.5, 0.1));
      worst = testing::worse(worst, compute_diagnostics(*flow).max_divergence / velocity_gradient_scale);
    }
    return std::make_pair(worst, testing::host_copy(*flow, flow->velocity()));
  };
  const auto [divergence, first] = run(8);
  CHECK(divergence < 1e-14);
  const auto second = run(8).second;
  bool identical = true;
  for (int d = 0; d < 3; ++d)
    identical = identical &&
                std::memcmp(first[d].data(), second[d].data(), first[d].size() * sizeof(first[d][0])) == 0;
  CHECK(testing::global_max(identical ? 0.0 : 1.0) == 0.0);
}

TEST_CASE("steps with the all-to-all in pieces equal steps with one all-to-all, to round-off", "[solver]") {
  auto run = [](int pieces) {
    FlowParameters parameters;
    parameters.viscosity = 0.01;
    parameters.integrator = Integrator::rk4;
    fft::FftOptions options;
    options.exchange_pieces = pieces;
    // 18 x planes: on 4 ranks 5, 5, 4, 4, so 3 pieces are uneven.
    auto flow = testing::make_flow<double>({18, 16, 12}, parameters, MPI_COMM_WORLD, nullptr, options);
    set_random_isotropic(*flow, 0.5, 3.0, 11);
    for (int s = 0; s < 4; ++s) flow->step(flow->cfl_dt(0.5, 0.1));
    return testing::host_copy(*flow, flow->velocity());
  };
  const auto one = run(1), three = run(3);
  CHECK(testing::max_difference(one, three) <=
        10 * testing::round_off<double>() * testing::max_magnitude(one));
}
