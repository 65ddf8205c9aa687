// Scalar diagnostics of a NavierStokes state, reduced in double over all ranks of its FFT's communicator.
//
// Contract (<.> is the volume average; sums over modes use the Parseval weights of Wavenumbers.hpp; no
// transform is made):
// - energy E = 1/2 <|u|^2>, enstrophy Omega = 1/2 <|omega|^2>, dissipation eps = 2 nu Omega.
// - injection <f.u> of the current velocity under the configured forcing (exactly the power for band forcing
//   and for linear forcing with a power).
// - max_divergence: max over modes of |k.u^(k)|, the largest Fourier amplitude of div u (spectral; the
//   real-space maximum is bounded by the sum over modes). Round-off for the solver's fields.
// - u_rms u' = sqrt(2E/3); taylor_microscale lambda = sqrt(15 nu u'^2 / eps); re_lambda = u' lambda / nu;
//   kolmogorov_eta eta = (nu^3/eps)^(1/4); kmax_eta = k_max eta, k_max the largest kept wavenumber (the
//   smallest over the directions that keep a mode other than 0: not the plane's of a two-dimensional run).
//   These need nu > 0 and eps > 0 and are NaN otherwise.
// - Per scalar theta (in the flow's order): variance <theta^2>, dissipation chi = 2 kappa <|grad theta|^2>
//   (the rate at which diffusion destroys the variance), flux <u theta> (three components), and production
//   -2 G.<u theta> (G its mean gradient): d<theta^2>/dt = production - chi.
// - Buoyancy (Terms.hpp): buoyancy_flux = sum over buoyant scalars of <theta u>.c, the rate at which
//   buoyancy gives kinetic energy (dE/dt = injection - dissipation + buoyancy_flux);
//   potential_energy = sum over them of <theta^2> / (2 lambda) (<b^2> / (2 N2) for Boussinesq), NaN when a
//   buoyant scalar's mean gradient is not parallel to its buoyancy vector (TermCoefficients). Both 0 without
//   buoyancy. With zero diffusivities and no forcing, E + potential_energy is conserved.
// - MHD (flow.magnetic()): magnetic energy E_b = 1/2 <|b|^2>, magnetic enstrophy Omega_b = 1/2 <|j|^2>
//   (j = curl b), its dissipation eta <|j|^2> = 2 eta Omega_b (as eps = 2 nu Omega), cross helicity <u.b>,
//   magnetic helicity <a.b> with a the vector potential in the Coulomb gauge (a^ = i k x b^ / k^2, k != 0),
//   and the injection <f_b.b> of b's band forcing (exactly its power; 0 without). The total energy
//   E + E_b and <u.b> are ideal invariants (nu = eta = 0, no forcing), and <a.b> too without B0.
//   max_current = max over points of |j|, which needs 3 transforms (the flow's scratch field), hence a
//   non-const flow and a function of its own.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "solver/NavierStokes.hpp"

namespace kolmo::solver {

struct ScalarDiagnostics {
  std::string name;
  double variance = 0, dissipation = 0, production = 0;
  std::array<double, 3> flux{};
};

struct MagneticDiagnostics {
  double energy = 0, enstrophy = 0, dissipation = 0, cross_helicity = 0, magnetic_helicity = 0, injection = 0;
};

struct Diagnostics {
  double time = 0;
  long step = 0;
  double energy = 0, enstrophy = 0, dissipation = 0, injection = 0, max_divergence = 0;
  double u_rms = 0, taylor_microscale = 0, re_lambda = 0, kolmogorov_eta = 0, kmax_eta = 0;
  double potential_energy = 0, buoyancy_flux = 0;
  std::vector<ScalarDiagnostics> scalars;
  MagneticDiagnostics magnetic;  // zeros without a magnetic field
};

template <class Real>
Diagnostics compute_diagnostics(const NavierStokes<Real>& flow);

// The scalars' part of compute_diagnostics.
template <class Real>
std::vector<ScalarDiagnostics> compute_scalar_diagnostics(const NavierStokes<Real>& flow);

// The magnetic part of compute_diagnostics (zeros without a magnetic field).
template <class Real>
MagneticDiagnostics compute_magnetic_diagnostics(const NavierStokes<Real>& flow);

// max over points of |j| (0 without a magnetic field); uses the flow's scratch field.
template <class Real>
double max_current(NavierStokes<Real>& flow);

// <theta^2> of scalar j alone (one reduction).
template <class Real>
double scalar_variance(const NavierStokes<Real>& flow, int scalar);

// E = 1/2 <|u|^2> alone (one reduction).
template <class Real>
double kinetic_energy(const NavierStokes<Real>& flow);

// 1/2 <|a|^2> of any spectral field on the flow's slab (normalised coefficients, any number of components).
template <class Real>
double mean_square_half(const NavierStokes<Real>& flow, const SpectralField<Real>& field);

// sum over all modes of Re(a^* . b) = <a.b> for two spectral fields of as many components (normalised
// coefficients).
template <class Real>
double inner_product(const NavierStokes<Real>& flow, const SpectralField<Real>& a,
                     const SpectralField<Real>& b);

}  // namespace kolmo::solver
