// The pointwise formula of cfl_dt's scan (NavierStokes.hpp), in one place for both ways the solver reads the
// velocity: from real slabs (NavierStokes::velocity_rate_of_stage) or from the rows of a split dealiased
// transform, between its transforms along z (VelocityRateInRows, fft/RowProducts.cuh's row_scan).
//
// Contract: rate_and_energy(u, b, inverse) at a point returns {(|u_x| + b_x) / dx + (|u_y| + b_y) / dy +
// (|u_z| + b_z) / dz, 1/2 |u|^2}, b the magnitudes of the Alfven speed's components (zero without a magnetic
// field) and `inverse` 1/dx, 1/dy, 1/dz. VelocityRateInRows is row_scan's operation for u alone; its combine
// is max_and_sum's (Reductions.hpp: a NaN rate counts as +infinity).
#pragma once

#include <cmath>

#include "core/HostDevice.hpp"
#include "solver/Reductions.hpp"

namespace kolmo::solver {

struct InverseSpacing {
  double x, y, z;
};

KOLMO_HD inline MaxAndSum rate_and_energy(double ux, double uy, double uz, double bx, double by, double bz,
                                          const InverseSpacing& inverse) {
  return MaxAndSum{(fabs(ux) + bx) * inverse.x + (fabs(uy) + by) * inverse.y + (fabs(uz) + bz) * inverse.z,
                   0.5 * (ux * ux + uy * uy + uz * uz)};
}

template <class Real>
struct VelocityRateInRows {
  static constexpr int inputs = 3;
  using Result = MaxAndSum;
  InverseSpacing inverse;
  KOLMO_HD MaxAndSum operator()(const Real (&u)[3]) const {
    return rate_and_energy(u[0], u[1], u[2], 0.0, 0.0, 0.0, inverse);
  }
  KOLMO_HD static MaxAndSum combine(MaxAndSum a, MaxAndSum b) {
    return MaxAndSum{detail::larger(a.max, b.max), a.sum + b.sum};
  }
};

}  // namespace kolmo::solver
