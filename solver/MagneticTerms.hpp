// The nonlinear terms of incompressible MHD in the divergence form, the one place where the solver forms
// them: at a point in real space (the products) and at a mode in spectral space (their derivatives).
//
// Contract (u the velocity, b the magnetic field in Alfven units, B = B0 + b with B0 uniform):
//   du/dt = -div(u u - B B) - grad P + nu lap u + f,   db/dt = curl(u x B) + eta lap b,
// which is u x omega + j x B - grad(|u|^2/2) and the induction equation, with j = curl b and P the total
// (kinetic + magnetic) pressure. The form needs u and b in real space (6 backward transforms) and the
// traceless symmetric stress T = u u - B B - tr(u u - B B)/3 I (5 values, as the pure Navier-Stokes
// divergence form's T with B B subtracted: the removed trace is a gradient, which the projection removes)
// and the electric field E = u x B (3 values): 8 forward transforms, 14 per stage. The rotational form
// (u x omega + j x B and u x B) needs u, omega, b, j: 12 backward and 6 forward, 18. The Elsasser form,
// d z+- / dt = -div(z-+ z+-), needs the same 6 + 8 (its product tensor z- z+ is T plus the antisymmetric
// part of E). So MHD always uses the divergence form (Options.hpp, nonlinear_form_used).
// - B0 enters the products only (B = B0 + b): its linear terms (B0.grad) b and (B0.grad) u cost nothing.
// - Slots: the 8 products overwrite the 8 real slots of the stage input: u's three (the velocity's stage
//   field) get T_xx, T_yy, T_xy; the divergence form's extra field T_xz, T_yz; b's three get E. So the
//   velocity's tendency -i k.T and band forcing as a stress are the divergence form's (StageFields.hpp,
//   Forcing.hpp); here only induction(k, E) = i k x E (already divergence-free).
#pragma once

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "solver/ModeVector.hpp"
#include "solver/SpectralField.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

// The 8 product slots: stress[0..4] = T_xx, T_yy, T_xy, T_xz, T_yz; electric[0..2] = E.
template <class T>
struct MagneticProductSlots {
  T* stress[5];
  T* electric[3];
};

// Where the products of one stage live: the velocity's stage field, the extra field's two slots (T_xz,
// T_yz) and b's stage field.
template <class T>
KOLMO_HD MagneticProductSlots<T> magnetic_product_slots(const Components<T>& stage,
                                                        const Components<T>& extra,
                                                        const Components<T>& magnetic_stage) {
  return {{stage[0], stage[1], stage[2], extra[0], extra[1]},
          {magnetic_stage[0], magnetic_stage[1], magnetic_stage[2]}};
}

// The 8 products from u and B = B0 + b at a point: T into stress[0..4], E into electric[0..2].
template <class Real>
KOLMO_HD void magnetic_products(const Real* u, const Real* b, Real* stress, Real* electric) {
  const Real third = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] - b[0] * b[0] - b[1] * b[1] - b[2] * b[2]) *
                     (Real(1) / Real(3));
  stress[0] = u[0] * u[0] - b[0] * b[0] - third;
  stress[1] = u[1] * u[1] - b[1] * b[1] - third;
  stress[2] = u[0] * u[1] - b[0] * b[1];
  stress[3] = u[0] * u[2] - b[0] * b[2];
  stress[4] = u[1] * u[2] - b[1] * b[2];
  electric[0] = u[1] * b[2] - u[2] * b[1];
  electric[1] = u[2] * b[0] - u[0] * b[2];
  electric[2] = u[0] * b[1] - u[1] * b[0];
}

// The products at real point p: reads u and b from the slots they share with the products and overwrites
// them.
template <class Real>
KOLMO_HD void magnetic_products_at(const MagneticProductSlots<Real>& s, const Vector3<Real>& background,
                                   long p) {
  // Before any write: u is in stress[0..2] (the velocity's stage), b in electric[0..2].
  const Real u[3] = {s.stress[0][p], s.stress[1][p], s.stress[2][p]};
  const Real b[3] = {s.electric[0][p] + background.x, s.electric[1][p] + background.y,
                     s.electric[2][p] + background.z};
  Real stress[5], electric[3];
  magnetic_products(u, b, stress, electric);
  for (int c = 0; c < 5; ++c) s.stress[c][p] = stress[c];
  for (int c = 0; c < 3; ++c) s.electric[c][p] = electric[c];
}

// i k x E from the transforms of the electric slots at mode m, times scale.
template <class Real>
KOLMO_HD ModeVector<Real> induction(const Vector3<Real>& k, const MagneticProductSlots<Complex<Real>>& s,
                                    long m, Real scale) {
  const ModeVector<Real> e{{scale * s.electric[0][m], scale * s.electric[1][m], scale * s.electric[2][m]}};
  return curl(k, e);
}

}  // namespace kolmo::solver
