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
//   lsrk3, lsrk4: two-register schemes (Kennedy, Carpenter and Lewis, Appl. Numer. Math. 35 (2000) 177,
//                    "2R"): a Butcher tableau with a_ij = b_j for j < i - 1, so that only the state's
//                    partial sum S and the stage input need storage. With S_1 = q_n and, at stage i
//                    (node c_i, c_{s+1} = 1), k_i = R(input_i):
//                    S_i+1 = E((c_i+1 - c_i) h)(S_i + h b_i k_i), input_i+1 = E((c_i+1 - c_i) h)(S_i + h
//                    a_i+1,i k_i), q_n+1 = S_s+1. lsrk3 is Wray's third-order scheme (a21 = 8/15, a32 =
//                    5/12, b = 1/4, 0, 3/4; c = 0, 8/15, 2/3), the classic of spectral DNS (Spalart, Moser
//                    and Rogers, J. Comput. Phys. 96 (1991) 297); lsrk4 is RK4(3)5[2R+]C of Kennedy et al.,
//                    five stages of fourth order, whose c_4 < c_3 puts E(+0.0185 h) on one stage (as rk3's
//                    E(-h/2)). rk2 is the same form with a21 = 1, b = 1/2, 1/2.
//   A field with R = 0 decays exactly as E(t); the orders are 2, 3, 4, 3, 4. Linear terms that couple fields
//   or components (Coriolis, buoyancy) are part of R, hence explicit: the schemes integrate them at their
//   order, not exactly.
// - Storage (StageFields.hpp): the states, the stage fields and (rk3, rk4) one accumulator per field; the
//   two-register schemes (and rk2) hold no accumulator: lsrk4 is a fourth-order step in rk2's memory. On
//   entry the stage fields hold the first input, q_n's (StageFields::set_input...); the callback
//   rhs(first) must leave in them the raw transforms of the tendencies of the current input (first: q_n)
//   and returns the stage's linear forcing rate a, which the update applies from the spectral copy of the
//   input where there is one (MHD: StageFields::add_input_terms; 0 otherwise).
//   One kernel per stage then, for every field, projects (velocity), updates the state and the accumulator
//   and writes the next input; on return the stage fields hold q_n+1's input, the next step's first.
// - Modes outside the 2/3 rule of the states and accumulators are never read or written: they stay zero.
// - Without scalars the stage kernels are compiled without the scalars' code (the pure Navier-Stokes step).
#pragma once

#include <complex>
#include <functional>

#include "core/Device.hpp"
#include "solver/Options.hpp"
#include "solver/StageFields.hpp"

namespace kolmo::solver {

using RightHandSide = std::function<double(bool first_stage)>;

// The scheme's stability function: one step of dq/dt = lambda q (no diffusion) multiplies q by
// stability_function(integrator, lambda dt).
std::complex<double> stability_function(Integrator integrator, std::complex<double> z);

// The largest fraction s of a step h by which one of the scheme's stages runs its integrating factor
// backward, E(-s h) = exp(+D k^2 s h): 1/2 for rk3, c_3 - c_4 = 0.0185 for lsrk4, 0 for rk2, rk4 and lsrk3.
// Such a stage multiplies the fastest-decaying modes by exp(D k_max^2 s h): the step must keep that small.
double backward_factor_fraction(Integrator integrator);

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, const StageFields<Real>& fields,
                             Device& device, const RightHandSide& rhs);

extern template void integrating_factor_step<float>(Integrator, double, const StageFields<float>&, Device&,
                                                    const RightHandSide&);
extern template void integrating_factor_step<double>(Integrator, double, const StageFields<double>&, Device&,
                                                     const RightHandSide&);

}  // namespace kolmo::solver
