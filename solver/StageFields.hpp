// The per-mode meeting point of the Runge-Kutta update kernels and the Navier-Stokes right-hand side, so that
// a single pass over spectral memory per stage projects the nonlinear term, updates the state and prepares
// the next stage's input with its curl (instead of separate projection, update and curl passes).
//
// Contract (a plain value that kernels capture):
// - On entry to an update kernel, stage holds the forward transform of the real-space nonlinear term
//   (u x omega, plus linear forcing; band forcing added times Nx Ny Nz), unnormalised and not yet dealiased.
//   rhs(m, n) returns R at a kept mode: P [that] / (Nx Ny Nz), P = I - k k^T / |k|^2, zero at k = 0.
// - set_input(m, n, v) writes the next stage's input v into stage and omega = i k x v into curl, ready for
// the
//   backward transforms.
// - clear(m, n) at a mode outside the 2/3 rule writes zeros where the backward transforms will read: every
//   such mode when they run with fft::Modes::all; only modes whose (ky, kz) is kept (|kx| too large) with
//   fft::Modes::dealiased, which never reads the others.
// - So an update kernel reads the state, the accumulator and stage only at kept modes, 8/27 of the slab,
//   and writes the dropped modes only where a transform needs a zero. Anything else that reads a stage
//   field (the forcing's energies) must skip the dropped modes too: they may hold anything.
#pragma once

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "solver/ModeVector.hpp"
#include "solver/SpectralVector.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

template <class Real>
struct StageFields {
  using C = Complex<Real>;

  Wavenumbers<Real> w;
  Components<C> stage;
  Components<C> curl;
  Real scale = 1;                   // 1 / (Nx Ny Nz)
  bool transforms_read_all = true;  // the backward transforms run with fft::Modes::all

  KOLMO_HD bool kept(const Mode& n) const { return w.kept(n); }

  using Vector = ModeVector<Real>;

  KOLMO_HD Vector rhs(long m, const Mode& n) const {
    const auto k = w.k(n);
    const Real k2 = k.norm2();
    if (k2 == Real(0)) return {{C(0, 0), C(0, 0), C(0, 0)}};
    return project(k, k2, {{scale * stage[0][m], scale * stage[1][m], scale * stage[2][m]}});
  }

  KOLMO_HD void set_input(long m, const Mode& n, const Vector& v) const {
    v.store(stage, m);
    solver::curl(w.k(n), v).store(curl, m);
  }

  // The input of the first stage from the state: one pass when nothing prepared it.
  KOLMO_HD void set_input_from(Components<const C> u, long m) const {
    const Mode n = w.mode(m);
    if (!kept(n)) return clear(m, n);
    set_input(m, n, Vector::load(u, m));
  }

  KOLMO_HD void clear(long m, const Mode& n) const {
    if (!transforms_read_all &&
        !(Wavenumbers<Real>::kept_1d(n.y, w.ny) && Wavenumbers<Real>::kept_1d(n.z, w.nz)))
      return;
    for (int d = 0; d < 3; ++d) stage[d][m] = curl[d][m] = C(0, 0);
  }
};

}  // namespace kolmo::solver
