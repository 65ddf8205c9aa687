// Shell-summed spectra of a NavierStokes state: energy, energy transfer and flux, and for each scalar its
// variance spectrum, transfer and flux.
//
// Contract:
// - Shells of width dk = 2 pi / L_min (L_min the shortest box side among the directions that keep a mode
//   other than n_d = 0: a direction of N_d <= 3 points, as the plane of a two-dimensional run, has none)
//   around integer multiples of dk: mode k belongs to shell s = round(|k| / dk), s = 0 .. shells-1, the last
//   shell holding the corner of the kept cube. k[s] = s dk.
// - energy[s] = sum over the shell of 1/2 |u^(k)|^2 (so sum_s energy[s] = E, Parseval weights included).
// - transfer[s] = T(k) = sum over the shell of Re(u^* . N^), N^ the projected, dealiased nonlinear term
//   (NavierStokes::nonlinear_term: advection alone, without forcing, Coriolis or buoyancy); sum_s T = 0
//   because the rotational form conserves energy (u.(u x omega) = 0, exact on the kept modes), and the
//   divergence form's projected term is the same to round-off.
// - flux[s] = Pi(k) = -sum_{s' <= s} T(k_s'): the energy flowing from shells <= s to larger wavenumbers.
// - Per scalar theta (in the flow's order): variance[s] = E_theta(k), the sum over the shell of
//   1/2 |theta^|^2 (sum_s = <theta^2>/2); transfer[s] = T_theta(k), the sum of Re(theta^* N_theta^) with
//   N_theta^ = -[u.grad theta]^ dealiased (sum_s = 0: advection conserves the variance); flux[s] the scalar
//   flux -sum_{s' <= s} T_theta.
// - MHD: magnetic[s] = E_b(k), the sum over the shell of 1/2 |b^|^2; magnetic_transfer[s] the sum of
//   Re(b^* . N_b^), N_b^ = [curl(u x b)]^ dealiased. transfer[s] then holds the Lorentz force's work too
//   (N^ = P [-div(u u - b b)]^), and sum_s (transfer + magnetic_transfer) = 0: the nonlinear terms conserve
//   the total energy.
// - Shell sums run on the device (a per-shell reduction, not a copy of the field) and are reduced over ranks.
// - with_transfer = false skips the nonlinear terms (no transforms): transfers and fluxes are then empty.
#pragma once

#include <string>
#include <vector>

#include "solver/NavierStokes.hpp"

namespace kolmo::solver {

struct ScalarSpectrum {
  std::string name;
  std::vector<double> variance, transfer, flux;
};

struct Spectrum {
  double shell_width = 0;
  std::vector<double> k, energy, transfer, flux;
  std::vector<ScalarSpectrum> scalars;
  std::vector<double> magnetic, magnetic_transfer;  // MHD; empty otherwise
};

template <class Real>
Spectrum compute_spectrum(NavierStokes<Real>& flow, bool with_transfer = true);

}  // namespace kolmo::solver
