// The physical terms of the solver beyond advection and diffusion, as data.
//
// Contract:
// - FlowParameters (NavierStokes.hpp) holds the scalars (ScalarParameters: a name and a diffusivity) and a
//   list of Terms. The solver walks the list once, at construction, and folds every term into the
//   coefficients its kernels read (TermCoefficients, fold_terms); the integrators, the stage kernel and the
//   schedule of transforms do not know the terms by name. Terms of one kind add up (two Coriolis terms
//   rotate at the sum of their Omegas).
// - The kinds (theta_j the j-th scalar, u the velocity, omega = curl u):
//   coriolis(Omega):      du/dt += -2 Omega x u. Formed in the real-space pass as u x (omega + 2 Omega).
//   mean_gradient(j, G):  dtheta_j/dt += -u.G: theta_j is the fluctuation about a uniform mean gradient G
//                         (the total field is G.x + theta_j). Formed in the real-space pass as
//                         -u.(grad theta_j + G).
//   buoyancy(j, c):       du/dt += theta_j c, c the buoyancy acceleration per unit of theta_j (the upward
//   unit
//                         vector for a buoyancy b; g alpha times it for a temperature). Added in spectral
//                         space by the stage update, before the projection, from theta_j's stage input, which
//                         the solver then keeps in spectral space: no transform.
//   Neither of the real-space folds nor the spectral coupling costs a transform.
// - The Boussinesq buoyancy is a scalar b with buoyancy(b, up) and mean_gradient(b, N2 up)
//   (add_boussinesq in FlowParameters.hpp).
// - Energy: when a buoyant scalar's mean gradient is parallel to its buoyancy vector, G = lambda c with
//   lambda != 0, the inviscid, unforced equations conserve E + <theta^2> / (2 lambda) (E the kinetic energy);
//   potential_energy_factor(j) is 1 / (2 lambda) then (1 / (2 N2) for Boussinesq), NaN otherwise.
// - wave_frequency_bound: an upper bound of the frequencies of the linear terms, 2 |Omega| + sum over
//   buoyant scalars of sqrt(|G_j| |c_j|); these terms are explicit, so a stable step must resolve them.
// - Errors (kolmo::Error, one line naming the term or scalar): a term naming a scalar that does not exist,
//   a zero buoyancy vector, a non-finite vector, scalars with an empty or duplicate name, a negative or
//   non-finite diffusivity.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace kolmo::solver {

struct ScalarParameters {
  std::string name;
  double diffusivity = 0;
};

enum class TermKind { coriolis, mean_gradient, buoyancy };

std::string to_string(TermKind kind);

struct Term {
  TermKind kind = TermKind::coriolis;
  int scalar = -1;                 // mean_gradient, buoyancy: index into FlowParameters::scalars
  std::array<double, 3> vector{};  // coriolis: Omega; mean_gradient: G; buoyancy: c
};

inline Term coriolis(std::array<double, 3> omega) {
  return {TermKind::coriolis, -1, omega};
}
inline Term mean_gradient(int scalar, std::array<double, 3> gradient) {
  return {TermKind::mean_gradient, scalar, gradient};
}
inline Term buoyancy(int scalar, std::array<double, 3> acceleration) {
  return {TermKind::buoyancy, scalar, acceleration};
}

// What the kernels read, per scalar j: its mean gradient and its buoyancy vector (zero: none).
struct TermCoefficients {
  std::array<double, 3> two_omega{};
  std::vector<std::array<double, 3>> mean_gradient, buoyancy;
  double wave_frequency_bound = 0;

  bool buoyant(int scalar) const;
  double potential_energy_factor(int scalar) const;
};

// Checks the scalars and terms and folds the terms; throws kolmo::Error naming what is wrong.
TermCoefficients fold_terms(const std::vector<ScalarParameters>& scalars, const std::vector<Term>& terms);

}  // namespace kolmo::solver
