// The solver's description of a Navier-Stokes run from its configuration: parameters, physical terms and the
// scalars in the solver's order.
//
// Contract:
// - flow_parameters(config): viscosity, box, integrator and forcing as configured; the scalars of
//   physics.scalars in their order, each with its diffusivity (or nu / Schmidt) and, when its mean gradient
//   is not zero, a mean_gradient term; then, with physics.buoyancy.type boussinesq, the buoyancy b
//   (solver::add_boussinesq with up = -gravity); a Coriolis term when physics.rotation is not zero.
// - scalar_fields(config): the same scalars in the same order (the solver's indices), each with its name, its
//   initial field's configuration and the key prefix that configures it ("physics.scalars[0]",
//   "physics.buoyancy"), for messages.
#pragma once

#include <string>
#include <vector>

#include "io/Config.hpp"
#include "solver/FlowParameters.hpp"

namespace kolmo::app {

solver::FlowParameters flow_parameters(const io::RunConfig& config);

struct ScalarField {
  std::string name;
  std::string key;  // the configuration's prefix for this field
  io::ScalarInitialConfig initial;
};

std::vector<ScalarField> scalar_fields(const io::RunConfig& config);

}  // namespace kolmo::app
