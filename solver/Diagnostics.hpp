// Scalar diagnostics of a NavierStokes state, reduced in double over all ranks of its FFT's communicator.
//
// Contract (<.> is the volume average; sums over modes use the Parseval weights of Wavenumbers.hpp):
// - energy E = 1/2 <|u|^2>, enstrophy Omega = 1/2 <|omega|^2>, dissipation eps = 2 nu Omega.
// - injection <f.u> of the current velocity under the configured forcing (exactly the power for band forcing
//   and for linear forcing with a power).
// - max_divergence: max over modes of |k.u^(k)|, the largest Fourier amplitude of div u (spectral; the
//   real-space maximum is bounded by the sum over modes). Round-off for the solver's fields.
// - u_rms u' = sqrt(2E/3); taylor_microscale lambda = sqrt(15 nu u'^2 / eps); re_lambda = u' lambda / nu;
//   kolmogorov_eta eta = (nu^3/eps)^(1/4); kmax_eta = k_max eta, k_max the largest kept wavenumber (the
//   smallest over the three directions). These need nu > 0 and eps > 0 and are NaN otherwise.
#pragma once

#include "solver/NavierStokes.hpp"

namespace kolmo::solver {

struct Diagnostics {
  double time = 0;
  long step = 0;
  double energy = 0, enstrophy = 0, dissipation = 0, injection = 0, max_divergence = 0;
  double u_rms = 0, taylor_microscale = 0, re_lambda = 0, kolmogorov_eta = 0, kmax_eta = 0;
};

template <class Real>
Diagnostics compute_diagnostics(const NavierStokes<Real>& flow);

// E = 1/2 <|u|^2> alone (one reduction).
template <class Real>
double kinetic_energy(const NavierStokes<Real>& flow);

// 1/2 <|a|^2> of any spectral vector field on the flow's slab (normalised coefficients).
template <class Real>
double mean_square_half(const NavierStokes<Real>& flow, const SpectralVector<Real>& field);

// sum over all modes of Re(a^* . b) = <a.b> for two spectral vector fields (normalised coefficients).
template <class Real>
double inner_product(const NavierStokes<Real>& flow, const SpectralVector<Real>& a,
                     const SpectralVector<Real>& b);

}  // namespace kolmo::solver
