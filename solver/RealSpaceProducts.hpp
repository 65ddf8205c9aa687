// The pointwise products of the right-hand side in real space: the one place where the solver forms them,
// for the time step, for the nonlinear terms of the spectra and for the pressure.
//
// Contract (a plain value that kernels capture; at each point p of the rank's real slab, with u in
// `velocity`, each scalar's gradient in its gradient slots, real views):
//   scalar j:             gradient[0] <- -u.(grad theta_j + G_j)   (G_j zero when mean_gradients is false)
//   rotational form:      velocity <- u x (omega + two_omega) + a u, omega = curl u in `extra`
//   divergence form:      velocity <- T_xx, T_yy, T_xy and extra[0..1] <- T_xz, T_yz of the traceless
//                         symmetric T = u u - |u|^2/3 I (StageFields.hpp), 5 forward transforms
// so Coriolis, -2 Omega x u = u x 2 Omega, and the mean gradients' -u.G cost no transform (the divergence
// form has neither Coriolis nor the linear forcing: Options.hpp, nonlinear_form_used). The scalars are
// formed first (scalars_at, then rotational_at or stress_at): they read u, which the velocity's products
// overwrite.
// With a magnetic field (MHD), magnetic_at replaces them: u in `velocity`, b in `magnetic`, and MHD's
// traceless stress T = u u - B B - tr/3 I and electric field E = u x B (MagneticTerms.hpp) overwrite them
// and extra[0..1] in the divergence form's slots.
// scalars_at is a member of its own, so that kernels compiled without scalars contain none of its code.
// Each product is one function of values at a point (traceless_stress, rotational_products,
// scalar_advection; MagneticTerms.hpp's magnetic_products) that both passes call: this one over real slabs,
// and ProductsInRows.hpp's between the rows' transforms along z.
#pragma once

#include "core/HostDevice.hpp"
#include "solver/MagneticTerms.hpp"
#include "solver/SpectralField.hpp"
#include "solver/StageFields.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

// T = u u - |u|^2/3 I: T_xx, T_yy, T_xy, T_xz, T_yz into t[0..4].
template <class Real>
KOLMO_HD void traceless_stress(const Real* u, Real* t) {
  const Real third = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (Real(1) / Real(3));
  t[0] = u[0] * u[0] - third;
  t[1] = u[1] * u[1] - third;
  t[2] = u[0] * u[1];
  t[3] = u[0] * u[2];
  t[4] = u[1] * u[2];
}

// u x (omega + two_omega) + a u into r[0..2].
template <class Real>
KOLMO_HD void rotational_products(const Real* u, const Real* omega, const Vector3<Real>& two_omega, Real a,
                                  Real* r) {
  const Real ox = omega[0] + two_omega.x, oy = omega[1] + two_omega.y, oz = omega[2] + two_omega.z;
  r[0] = u[1] * oz - u[2] * oy + a * u[0];
  r[1] = u[2] * ox - u[0] * oz + a * u[1];
  r[2] = u[0] * oy - u[1] * ox + a * u[2];
}

// -u.(grad theta + G).
template <class Real>
KOLMO_HD Real scalar_advection(const Real* u, const Real* gradient, const Vector3<Real>& g) {
  return -(u[0] * (gradient[0] + g.x) + u[1] * (gradient[1] + g.y) + u[2] * (gradient[2] + g.z));
}

template <class Real>
struct RealSpaceProducts {
  Components<Real> velocity, extra;
  Vector3<Real> two_omega{0, 0, 0};
  Real linear_forcing = 0;  // a of f = a u
  const ScalarSlots<Real>* scalars = nullptr;
  int scalar_count = 0;
  bool mean_gradients = true;
  Components<Real> magnetic{{nullptr, nullptr, nullptr}};
  Vector3<Real> background{0, 0, 0};  // B0

  KOLMO_HD void scalars_at(long p) const {
    const Real u[3] = {velocity[0][p], velocity[1][p], velocity[2][p]};
    for (int j = 0; j < scalar_count; ++j) {
      const ScalarSlots<Real>& s = scalars[j];
      Real* gx = reinterpret_cast<Real*>(s.gradient[0]);
      const Real gradient[3] = {gx[p], reinterpret_cast<const Real*>(s.gradient[1])[p],
                                reinterpret_cast<const Real*>(s.gradient[2])[p]};
      gx[p] = scalar_advection(u, gradient, mean_gradients ? s.mean_gradient : Vector3<Real>{0, 0, 0});
    }
  }

  KOLMO_HD void magnetic_at(long p) const {
    magnetic_products_at(magnetic_product_slots(velocity, extra, magnetic), background, p);
  }

  KOLMO_HD void stress_at(long p) const {
    const Real u[3] = {velocity[0][p], velocity[1][p], velocity[2][p]};
    Real t[5];
    traceless_stress(u, t);
    for (int c = 0; c < 3; ++c) velocity[c][p] = t[c];
    extra[0][p] = t[3];
    extra[1][p] = t[4];
  }

  KOLMO_HD void rotational_at(long p) const {
    const Real u[3] = {velocity[0][p], velocity[1][p], velocity[2][p]};
    const Real omega[3] = {extra[0][p], extra[1][p], extra[2][p]};
    Real r[3];
    rotational_products(u, omega, two_omega, linear_forcing, r);
    for (int c = 0; c < 3; ++c) velocity[c][p] = r[c];
  }
};

}  // namespace kolmo::solver
