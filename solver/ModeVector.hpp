// A vector field's three complex coefficients at one Fourier mode, and the two operators the solver applies
// mode by mode: the curl and the projection onto divergence-free fields. Written once for every kernel that
// needs them (the fused stage, the curl for output, the projection of the velocity and of the nonlinear
// term).
//
// Contract: curl(k, v) = i k x v. project(k, k2, v) = v - k (k . v) / k2 for k2 = |k|^2 > 0 (callers handle
// k = 0, where the mean flow stays as it is or is zeroed).
#pragma once

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "solver/SpectralField.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

template <class Real>
struct ModeVector {
  Complex<Real> c[3];
  KOLMO_HD Complex<Real>& operator[](int d) { return c[d]; }
  KOLMO_HD const Complex<Real>& operator[](int d) const { return c[d]; }

  template <class T>
  KOLMO_HD static ModeVector load(const Components<T>& field, long m) {
    return {{field[0][m], field[1][m], field[2][m]}};
  }
  KOLMO_HD void store(const Components<Complex<Real>>& field, long m) const {
    for (int d = 0; d < 3; ++d) field[d][m] = c[d];
  }
};

template <class Real>
KOLMO_HD inline ModeVector<Real> curl(const Vector3<Real>& k, const ModeVector<Real>& v) {
  return {
      {times_i(k.y * v[2] - k.z * v[1]), times_i(k.z * v[0] - k.x * v[2]), times_i(k.x * v[1] - k.y * v[0])}};
}

template <class Real>
KOLMO_HD inline ModeVector<Real> project(const Vector3<Real>& k, Real k2, const ModeVector<Real>& v) {
  const Complex<Real> k_dot_v_over_k2 = (k.x * v[0] + k.y * v[1] + k.z * v[2]) * (Real(1) / k2);
  return {{v[0] - k.x * k_dot_v_over_k2, v[1] - k.y * k_dot_v_over_k2, v[2] - k.z * k_dot_v_over_k2}};
}

}  // namespace kolmo::solver
