// Explicit Runge-Kutta steps with an exact integrating factor for the diffusive term of every field.
//
// Contract:
// - Solves dq/dt = -D k^2 q + R(q) mode by mode for every field q (the velocity with D = nu, each scalar with
//   its own diffusivity), R the right-hand side the caller evaluates (the projected nonlinear term, the
//   linear terms of Terms.hpp and forcing). With E(s) = exp(-D k^2 s), each field's own, and h = dt, the
//   schemes are classical RK methods applied to v = exp(D k^2 t) q, written back in q:
//   rk2 (Heun):      k1 = R(q_n), q* = E(h)(q_n + h k1), k2 = R(q*),
//                    q_n+1 = E(h) q_n + h/2 (E(h) k1 + k2).
//   rk3 (SSP, Shu-Osher): q1 = E(h)(q_n + h k1), k2 = R(q1),
//                    q2 = 3/4 E(h/2) q_n + 1/4 E(-h/2)(q1 + h k2), k3 = R(q2),
//                    q_n+1 = 1/3 E(h) q_n + 2/3 E(h/2)(q2 + h k3).
//                    Its stages sit at t, t+h, t+h/2, so q2 carries E(-h/2) = exp(+D k^2 h/2) on k2: keep
//                    D k_max^2 dt of order one or less with rk3.
//   rk4 (classical): k1 = R(q_n), k2 = R(E(h/2)(q_n + h/2 k1)), k3 = R(E(h/2) q_n + h/2 k2),
//                    k4 = R(E(h) q_n + h E(h/2) k3),
//                    q_n+1 = E(h) q_n + h/6 (E(h) k1 + 2 E(h/2) (k2 + k3) + k4).
//   A field with R = 0 decays exactly as E(t); the orders are 2, 3, 4. Linear terms that couple fields or
//   components (Coriolis, buoyancy) are part of R, hence explicit: the schemes integrate them at their order,
//   not exactly.
// - Storage (StageFields.hpp): the states, the stage fields and (rk3, rk4) one accumulator per field. On
//   entry the stage fields hold the first input, q_n's (StageFields::set_input...); the callback
//   rhs(first) must leave in them the raw transforms of the tendencies of the current input (first: q_n).
//   One kernel per stage then, for every field, projects (velocity), updates the state and the accumulator
//   and writes the next input; on return the stage fields hold q_n+1's input, the next step's first.
// - Modes outside the 2/3 rule of the states and accumulators are never read or written: they stay zero.
// - Without scalars the stage kernels are compiled without the scalars' code (the pure Navier-Stokes step).
#pragma once

#include <functional>

#include "core/Device.hpp"
#include "solver/Options.hpp"
#include "solver/StageFields.hpp"

namespace kolmo::solver {

using RightHandSide = std::function<void(bool first_stage)>;

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, const StageFields<Real>& fields,
                             Device& device, const RightHandSide& rhs);

extern template void integrating_factor_step<float>(Integrator, double, const StageFields<float>&, Device&,
                                                    const RightHandSide&);
extern template void integrating_factor_step<double>(Integrator, double, const StageFields<double>&, Device&,
                                                     const RightHandSide&);

}  // namespace kolmo::solver
