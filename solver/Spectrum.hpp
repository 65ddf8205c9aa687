// Shell-summed energy spectrum, energy transfer and flux of a NavierStokes state.
//
// Contract:
// - Shells of width dk = 2 pi / L_min (L_min the shortest box side) around integer multiples of dk: mode k
//   belongs to shell s = round(|k| / dk), s = 0 .. shells-1, the last shell holding the corner of the kept
//   cube. k[s] = s dk.
// - energy[s] = sum over the shell of 1/2 |u^(k)|^2 (so sum_s energy[s] = E, Parseval weights included).
// - transfer[s] = T(k) = sum over the shell of Re(u^* . N^), N^ the projected, dealiased nonlinear term
//   (NavierStokes::nonlinear_term); sum_s T = 0 because the rotational form conserves energy.
// - flux[s] = Pi(k) = -sum_{s' <= s} T(k_s'): the energy flowing from shells <= s to larger wavenumbers.
// - Shell sums run on the device (a per-shell reduction, not a copy of the field) and are reduced over ranks.
// - with_transfer = false skips the nonlinear term (no transforms): transfer and flux are then empty.
#pragma once

#include <vector>

#include "solver/NavierStokes.hpp"

namespace kolmo::solver {

struct Spectrum {
  double shell_width = 0;
  std::vector<double> k, energy, transfer, flux;
};

template <class Real>
Spectrum compute_spectrum(NavierStokes<Real>& flow, bool with_transfer = true);

}  // namespace kolmo::solver
