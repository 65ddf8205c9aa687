// The parameters of a flow: viscosity, box, integrator, forcing of the velocity, the scalars, the physical
// terms beyond advection and diffusion (Terms.hpp) and the magnetic field (MHD).
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

// Incompressible MHD (MagneticTerms.hpp): a magnetic field b in Alfven units with resistivity eta and a
// uniform background field B0; absent unless enabled. forcing: band forcing of b, f_b = a_b b on its band,
// with a_b = eps_b / (2 E_b,band) (Forcing.hpp with b for u; none or band).
struct MagneticParameters {
  bool enabled = false;
  double resistivity = 0;
  std::array<double, 3> background{};  // B0
  ForcingParameters forcing{};
};

struct FlowParameters {
  double viscosity = 0;
  Box box;
  Integrator integrator = Integrator::rk4;
  NonlinearForm nonlinear_form = NonlinearForm::divergence;  // as requested: see nonlinear_form_used
  ForcingParameters forcing;
  std::vector<ScalarParameters> scalars;
  std::vector<Term> terms;
  MagneticParameters magnetic;
  // Form the divergence form's products between the row FFTs where the FFT splits its transforms there
  // (NavierStokes.hpp, "Products between the rows"); false: always in real slabs (for comparisons).
  bool row_products = true;
  // The transform lanes the fields of a stage go through together (fft/TransformLanes.hpp): 0 for
  // TransformLanes::automatic_lanes (3 on several GPU ranks that exchange by copy engines, 1 elsewhere).
  int transform_lanes = 0;
};

// The Boussinesq buoyancy: appends a scalar "b" with diffusivity viscosity / prandtl and the terms
// buoyancy(b, up) and mean_gradient(b, n2 up) (Terms.hpp), so that du/dt = ... + b up and
// db/dt + u.grad b = -n2 u.up + (nu / Pr) lap b; up is normalised. Returns b's index. Throws kolmo::Error
// for a Prandtl number that is not positive or an up vector of zero length.
int add_boussinesq(FlowParameters& parameters, double n2, double prandtl, std::array<double, 3> up);

}  // namespace kolmo::solver
