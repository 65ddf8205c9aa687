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
// StressInRows: the divergence form's pass (stress_at) where the solver forms it between the rows'
// transforms along z (fft/RowProducts.cuh), from the same pointwise function.
#pragma once

#include "core/HostDevice.hpp"
#include "solver/MagneticTerms.hpp"
#include "solver/SpectralField.hpp"
#include "solver/StageFields.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

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
    const Real ux = velocity[0][p], uy = velocity[1][p], uz = velocity[2][p];
    for (int j = 0; j < scalar_count; ++j) {
      const ScalarSlots<Real>& s = scalars[j];
      Real* gx = reinterpret_cast<Real*>(s.gradient[0]);
      const Real* gy = reinterpret_cast<const Real*>(s.gradient[1]);
      const Real* gz = reinterpret_cast<const Real*>(s.gradient[2]);
      const Vector3<Real> g = mean_gradients ? s.mean_gradient : Vector3<Real>{0, 0, 0};
      gx[p] = -(ux * (gx[p] + g.x) + uy * (gy[p] + g.y) + uz * (gz[p] + g.z));
    }
  }

  KOLMO_HD void magnetic_at(long p) const {
    magnetic_products_at(magnetic_product_slots(velocity, extra, magnetic), background, p);
  }

  // T = u u - |u|^2/3 I at a point: T_xx, T_yy, T_xy, T_xz, T_yz (also the products that the divergence form
  // forms between the row FFTs, StressInRows).
  KOLMO_HD static void traceless_stress(const Real (&u)[3], Real (&t)[5]) {
    const Real third = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (Real(1) / Real(3));
    t[0] = u[0] * u[0] - third;
    t[1] = u[1] * u[1] - third;
    t[2] = u[0] * u[1];
    t[3] = u[0] * u[2];
    t[4] = u[1] * u[2];
  }

  KOLMO_HD void stress_at(long p) const {
    const Components<Real> u = velocity;
    const Real point[3] = {u[0][p], u[1][p], u[2][p]};
    Real t[5];
    traceless_stress(point, t);
    u[0][p] = t[0];
    u[1][p] = t[1];
    u[2][p] = t[2];
    extra[0][p] = t[3];
    extra[1][p] = t[4];
  }

  KOLMO_HD void rotational_at(long p) const {
    const Components<Real> u = velocity;
    const Real ux = u[0][p], uy = u[1][p], uz = u[2][p];
    const Real ox = extra[0][p] + two_omega.x, oy = extra[1][p] + two_omega.y, oz = extra[2][p] + two_omega.z;
    const Real a = linear_forcing;
    u[0][p] = uy * oz - uz * oy + a * ux;
    u[1][p] = uz * ox - ux * oz + a * uy;
    u[2][p] = ux * oy - uy * ox + a * uz;
  }
};

// The divergence form's products as the operation of fft/RowProducts.cuh's row_products: u in, T out in the
// slots of stress_at (the stage field's three components, then the extra field's two).
template <class Real>
struct StressInRows {
  static constexpr int inputs = 3, outputs = 5;
  KOLMO_HD void operator()(const Real (&u)[3], Real (&t)[5]) const {
    RealSpaceProducts<Real>::traceless_stress(u, t);
  }
};

}  // namespace kolmo::solver
