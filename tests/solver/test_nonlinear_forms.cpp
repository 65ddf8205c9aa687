// The two forms of the advective term (NavierStokes.hpp): the divergence of the traceless symmetric tensor
// T = u u - |u|^2/3 I and the rotational u x omega differ by a gradient, which the projection removes; with
// the 2/3 rule both are exact on the kept modes, so the projected terms, the pressures and whole runs agree
// to round-off. An independent check of the divergence form's 5 transforms and its -i k.T (a wrong sign,
// component or trace is of the size of the term itself), of its band forcing as a stress and of the pressure
// it gives; run on 1 to 4 ranks.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

template <class Real>
double relative_difference(const testing::HostField<Real>& a, const testing::HostField<Real>& b) {
  return testing::max_difference(a, b) / testing::max_magnitude(a);
}

}  // namespace

TEMPLATE_TEST_CASE("divergence and rotational forms: the same projected nonlinear term and pressure",
                   "[solver]", float, double) {
  FlowParameters parameters;
  parameters.box = {2.0, 3.0, 2.5};
  parameters.nonlinear_form = NonlinearForm::divergence;
  auto divergence = testing::make_flow<TestType>({16, 12, 18}, parameters);
  parameters.nonlinear_form = NonlinearForm::rotational;
  auto rotational = testing::make_flow<TestType>({16, 12, 18}, parameters);
  REQUIRE(divergence->nonlinear_form() == NonlinearForm::divergence);
  REQUIRE(rotational->nonlinear_form() == NonlinearForm::rotational);
  CHECK(divergence->transforms_per_stage() == 8);
  CHECK(rotational->transforms_per_stage() == 9);
  for (auto* flow : {&divergence, &rotational}) set_random_isotropic(**flow, 1.0, 3.0, 11);

  const auto n_divergence = testing::host_copy(*divergence, divergence->nonlinear_term());
  const auto n_rotational = testing::host_copy(*rotational, rotational->nonlinear_term());
  const double size = testing::max_magnitude(n_rotational);
  INFO("max |P (u x omega)^| = " << size);
  CHECK(size > 0.1);
  CHECK(relative_difference(n_rotational, n_divergence) < 10 * testing::round_off<TestType>());

  std::vector<TestType> p_divergence, p_rotational;
  divergence->pressure_to_host(p_divergence);
  rotational->pressure_to_host(p_rotational);
  CHECK(testing::max_relative(p_divergence, p_rotational) < 10 * testing::round_off<TestType>());
}

TEST_CASE("divergence and rotational forms: runs with band forcing, a scalar and a buoyancy agree",
          "[solver]") {
  FlowParameters parameters;
  parameters.viscosity = 0.02;
  parameters.integrator = Integrator::lsrk4;
  parameters.forcing.kind = ForcingKind::band;
  parameters.forcing.power = 0.5;
  parameters.forcing.k_min = 1;
  parameters.forcing.k_max = 2.5;
  parameters.scalars.push_back({"theta", 0.03});
  parameters.terms.push_back(mean_gradient(0, {0.5, 0, 1}));
  add_boussinesq(parameters, 2.0, 0.7, {0, 0, 1});
  std::vector<testing::HostField<double>> fields[2];
  for (auto form : {NonlinearForm::divergence, NonlinearForm::rotational}) {
    parameters.nonlinear_form = form;
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
    REQUIRE(flow->nonlinear_form() == form);
    set_random_isotropic(*flow, 0.5, 3.0, 5);
    for (int j = 0; j < flow->scalar_count(); ++j) set_random_scalar(*flow, j, 0.5, 3.0, 6 + j);
    for (int s = 0; s < 6; ++s) flow->step(0.02);
    auto& out = fields[static_cast<int>(form)];
    out.push_back(testing::host_copy(*flow, flow->velocity()));
    for (int j = 0; j < flow->scalar_count(); ++j) out.push_back(testing::host_copy(*flow, flow->scalar(j)));
  }
  for (std::size_t f = 0; f < fields[0].size(); ++f) {
    INFO("field " << f << " (0: velocity)");
    CHECK(relative_difference(fields[1][f], fields[0][f]) < 1e-12);
  }
}

TEST_CASE("Coriolis and the linear forcing keep the rotational form", "[solver]") {
  FlowParameters parameters;
  parameters.terms.push_back(coriolis({0, 0, 1}));
  CHECK(testing::make_flow<double>({8, 8, 8}, parameters)->nonlinear_form() == NonlinearForm::rotational);
  parameters.terms.clear();
  parameters.forcing.kind = ForcingKind::linear;
  parameters.forcing.linear_rate = 0.1;
  CHECK(testing::make_flow<double>({8, 8, 8}, parameters)->nonlinear_form() == NonlinearForm::rotational);
  parameters.forcing.kind = ForcingKind::band;
  parameters.forcing.power = 0.1;
  parameters.forcing.k_min = 1;
  parameters.forcing.k_max = 2;
  CHECK(testing::make_flow<double>({8, 8, 8}, parameters)->nonlinear_form() == NonlinearForm::divergence);
}
