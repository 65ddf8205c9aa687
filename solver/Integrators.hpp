// Explicit Runge-Kutta steps with an exact integrating factor for the viscous term.
//
// Contract:
// - Solves du/dt = -nu k^2 u + R(u) mode by mode, R the right-hand side the caller evaluates (the projected
//   nonlinear term plus forcing). With E(s) = exp(-nu k^2 s) and h = dt, the schemes are classical RK methods
//   applied to v = exp(nu k^2 t) u, written back in u:
//   rk2 (Heun):      k1 = R(u_n), u* = E(h)(u_n + h k1), k2 = R(u*),
//                    u_n+1 = E(h) u_n + h/2 (E(h) k1 + k2).
//   rk3 (SSP, Shu-Osher): u1 = E(h)(u_n + h k1), k2 = R(u1),
//                    u2 = 3/4 E(h/2) u_n + 1/4 E(-h/2)(u1 + h k2), k3 = R(u2),
//                    u_n+1 = 1/3 E(h) u_n + 2/3 E(h/2)(u2 + h k3).
//                    Its stages sit at t, t+h, t+h/2, so u2 carries E(-h/2) = exp(+nu k^2 h/2) on k2: keep
//                    nu k_max^2 dt of order one or less with rk3.
//   rk4 (classical): k1 = R(u_n), k2 = R(E(h/2)(u_n + h/2 k1)), k3 = R(E(h/2) u_n + h/2 k2),
//                    k4 = R(E(h) u_n + h E(h/2) k3),
//                    u_n+1 = E(h) u_n + h/6 (E(h) k1 + 2 E(h/2) (k2 + k3) + k4).
//   A field with R = 0 decays exactly as E(t); the orders are 2, 3, 4.
// - Storage: the state u, the stage fields (StageFields.hpp: stage and curl slabs) and (rk3, rk4) one
//   accumulator, all spectral. On entry stage and curl hold u_n and its curl (StageFields::set_input); the
//   callback rhs(first) must leave in stage the raw transform of the nonlinear term of the current input
//   (first: u_n). One kernel per stage then projects it, updates u and the accumulator and writes the next
//   input with its curl; on return stage and curl hold u_n+1 and its curl, the next step's first input.
// - Modes outside the 2/3 rule of u and of the accumulator are never read or written: they stay zero.
#pragma once

#include <functional>
#include <string>

#include "solver/SpectralVector.hpp"
#include "solver/StageFields.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

enum class Integrator { rk2, rk3, rk4 };

std::string to_string(Integrator integrator);
// "rk2", "rk3", "rk4" (also "heun", "ssprk3"); throws kolmo::Error naming the text otherwise.
Integrator parse_integrator(const std::string& name);
int stages(Integrator integrator);
bool needs_accumulator(Integrator integrator);

using RightHandSide = std::function<void(bool first_stage)>;

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, double viscosity,
                             const StageFields<Real>& fields, Device& device, SpectralVector<Real>& u,
                             SpectralVector<Real>* accumulator, const RightHandSide& rhs);

extern template void integrating_factor_step<float>(Integrator, double, double, const StageFields<float>&,
                                                    Device&, SpectralVector<float>&, SpectralVector<float>*,
                                                    const RightHandSide&);
extern template void integrating_factor_step<double>(Integrator, double, double, const StageFields<double>&,
                                                     Device&, SpectralVector<double>&,
                                                     SpectralVector<double>*, const RightHandSide&);

}  // namespace kolmo::solver
