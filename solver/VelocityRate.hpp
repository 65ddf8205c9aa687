// The pointwise formula of cfl_dt's scan (NavierStokes.hpp), in one place for both ways the solver reads the
// velocity: from real slabs (NavierStokes::velocity_rate_of_stage) or from the rows of a split dealiased
// transform, between its transforms along z (ProductsInRows::scan).
//
// Contract: rate_and_energy(u, b, inverse) at a point returns {(|u_x| + b_x) / dx + (|u_y| + b_y) / dy +
// (|u_z| + b_z) / dz, 1/2 |u|^2}, b the magnitudes of the Alfven speed's components (zero without a magnetic
// field) and `inverse` 1/dx, 1/dy, 1/dz.
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

}  // namespace kolmo::solver
