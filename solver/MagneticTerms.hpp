// The nonlinear terms of incompressible MHD in the divergence form, the one place where the solver forms
// them: at a point in real space (the products) and at a mode in spectral space (their derivatives).
//
// Contract (u the velocity, b the magnetic field in Alfven units, B = B0 + b with B0 uniform):
//   du/dt = -div(u u - B B) - grad P + nu lap u + f,   db/dt = curl(u x B) + eta lap b,
// which is u x omega + j x B - grad(|u|^2/2) and the induction equation, with j = curl b and P the total
// (kinetic + magnetic) pressure. The form needs u and b in real space (6 backward transforms) and the
// symmetric stress S = u u - B B less its zz component times the identity (5 values: the removed part is
// a gradient, which the projection removes) and the electric field E = u x B (3 values): 8 forward
// transforms, 14 per stage. The rotational form (u x omega + j x B and u x B) needs u, omega, b, j: 12
// backward and 6 forward, 18. The Elsasser form, d z+- / dt = -div(z-+ z+-), needs the same 6 + 8 (its
// product tensor z- z+ is S plus the antisymmetric part of E).
// - B0 enters the products only (B = B0 + b): its linear terms (B0.grad) b and (B0.grad) u cost nothing.
// - Slots: the 8 products overwrite the 9 real slots of the stage input: u's three (the velocity's stage
//   field) get S_xx - S_zz, S_yy - S_zz, S_xy; two of the curl field's get S_xz, S_yz; b's three get E.
// - Spectral: stress_divergence(k, S) = -i k_j S_ij (before projection), induction(k, E) = i k x E (already
//   divergence-free); band forcing f (divergence-free, at mode k) joins S as i (k f + f k) / k^2 less its
//   zz part (forcing_as_stress), whose divergence is f.
#pragma once

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "solver/ModeVector.hpp"
#include "solver/SpectralField.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

// The 8 product slots: stress[0..4] = S_xx - S_zz, S_yy - S_zz, S_xy, S_xz, S_yz; electric[0..2] = E.
template <class T>
struct MagneticProductSlots {
  T* stress[5];
  T* electric[3];
};

// Where the products of one stage live: the velocity's stage field, the first two curl slots and b's stage
// field (the curl's third slot is not used).
template <class T>
KOLMO_HD MagneticProductSlots<T> magnetic_product_slots(const Components<T>& stage, const Components<T>& curl,
                                                        const Components<T>& magnetic_stage) {
  return {{stage[0], stage[1], stage[2], curl[0], curl[1]},
          {magnetic_stage[0], magnetic_stage[1], magnetic_stage[2]}};
}

// The products at real point p: reads u and b from the slots they share with the products and overwrites
// them.
template <class Real>
KOLMO_HD void magnetic_products_at(const MagneticProductSlots<Real>& s, const Vector3<Real>& background,
                                   long p) {
  // Before any write: u is in stress[0..2] (the velocity's stage), b in electric[0..2].
  const Real ux = s.stress[0][p], uy = s.stress[1][p], uz = s.stress[2][p];
  const Real bx = s.electric[0][p] + background.x, by = s.electric[1][p] + background.y,
             bz = s.electric[2][p] + background.z;
  const Real szz = uz * uz - bz * bz;
  s.stress[0][p] = ux * ux - bx * bx - szz;
  s.stress[1][p] = uy * uy - by * by - szz;
  s.stress[2][p] = ux * uy - bx * by;
  s.stress[3][p] = ux * uz - bx * bz;
  s.stress[4][p] = uy * uz - by * bz;
  s.electric[0][p] = uy * bz - uz * by;
  s.electric[1][p] = uz * bx - ux * bz;
  s.electric[2][p] = ux * by - uy * bx;
}

// -i k_j S_ij from the transforms of the 5 stress slots at mode m, times scale.
template <class Real>
KOLMO_HD ModeVector<Real> stress_divergence(const Vector3<Real>& k,
                                            const MagneticProductSlots<Complex<Real>>& s, long m,
                                            Real scale) {
  using C = Complex<Real>;
  const C sxx = scale * s.stress[0][m], syy = scale * s.stress[1][m], sxy = scale * s.stress[2][m],
          sxz = scale * s.stress[3][m], syz = scale * s.stress[4][m];
  return {{-times_i(k.x * sxx + k.y * sxy + k.z * sxz), -times_i(k.x * sxy + k.y * syy + k.z * syz),
           -times_i(k.x * sxz + k.y * syz)}};
}

// i k x E from the transforms of the electric slots at mode m, times scale.
template <class Real>
KOLMO_HD ModeVector<Real> induction(const Vector3<Real>& k, const MagneticProductSlots<Complex<Real>>& s,
                                    long m, Real scale) {
  const ModeVector<Real> e{{scale * s.electric[0][m], scale * s.electric[1][m], scale * s.electric[2][m]}};
  return curl(k, e);
}

// Adds the stress whose divergence -i k_j F_ij is the divergence-free force f at mode m (k != 0):
// F = i (k f + f k) / k^2 less F_zz times the identity.
template <class Real>
KOLMO_HD void add_forcing_as_stress(const MagneticProductSlots<Complex<Real>>& s, const Vector3<Real>& k,
                                    long m, const ModeVector<Real>& f) {
  using C = Complex<Real>;
  const Real inverse_k2 = Real(1) / k.norm2();
  const Real kv[3] = {k.x, k.y, k.z};
  C F[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F[i][j] = times_i(inverse_k2 * (kv[i] * f[j] + kv[j] * f[i]));
  s.stress[0][m] += F[0][0] - F[2][2];
  s.stress[1][m] += F[1][1] - F[2][2];
  s.stress[2][m] += F[0][1];
  s.stress[3][m] += F[0][2];
  s.stress[4][m] += F[1][2];
}

}  // namespace kolmo::solver
