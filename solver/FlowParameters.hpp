// The parameters of a flow: viscosity, box, integrator, forcing of the velocity, the scalars and the physical
// terms beyond advection and diffusion (Terms.hpp).
//
// Contract: plain values; NavierStokes checks them at construction (kolmo::Error naming the parameter).
// ForcingParameters are described with the forcing (Forcing.hpp).
#pragma once

#include <array>
#include <vector>

#include "solver/Options.hpp"
#include "solver/Terms.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

struct ForcingParameters {
  ForcingKind kind = ForcingKind::none;
  double power = 0;             // eps, the injection rate held (band; linear when > 0)
  double k_min = 0, k_max = 0;  // band: the forced shell
  double linear_rate = 0;       // linear with power = 0: the fixed a of f = a u
};

struct FlowParameters {
  double viscosity = 0;
  Box box;
  Integrator integrator = Integrator::rk4;
  NonlinearForm nonlinear_form = NonlinearForm::divergence;  // as requested: see nonlinear_form_used
  ForcingParameters forcing;
  std::vector<ScalarParameters> scalars;
  std::vector<Term> terms;
};

// The Boussinesq buoyancy: appends a scalar "b" with diffusivity viscosity / prandtl and the terms
// buoyancy(b, up) and mean_gradient(b, n2 up) (Terms.hpp), so that du/dt = ... + b up and
// db/dt + u.grad b = -n2 u.up + (nu / Pr) lap b; up is normalised. Returns b's index. Throws kolmo::Error
// for a Prandtl number that is not positive or an up vector of zero length.
int add_boussinesq(FlowParameters& parameters, double n2, double prandtl, std::array<double, 3> up);

}  // namespace kolmo::solver
