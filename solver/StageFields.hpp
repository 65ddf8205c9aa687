// The per-mode meeting point of the Runge-Kutta update kernel and the right-hand sides of every field, so
// that a single pass over spectral memory per stage projects the velocity's tendency, updates every field and
// prepares the next stage's input (instead of separate projection, update and derivative passes).
//
// Contract (plain values that kernels capture; each scalar's ScalarSlots are an entry of a small device
// table):
// - Fields: the velocity u (its state and accumulator here, its viscosity) and the scalars theta_j (state,
//   accumulator and diffusivity in their slots). Accumulators are null where the integrator needs none.
// - Stage input: the velocity's in `stage`; in the rotational form its curl omega = i k x u in `extra`. A
//   scalar's gradient i k theta in its gradient[0..2], and theta itself in its `input` when a buoyancy term
//   reads it (null otherwise, and never transformed). set_input and set_scalar_input write them; the
//   backward transforms then take u (and omega) and the gradients to real space for the real-space pass
//   (RealSpaceProducts.hpp).
// - Tendencies: on entry to an update kernel each scalar's gradient[0] holds the forward transform of its
//   real-space tendency, and the velocity's is, unnormalised and not yet dealiased: in the rotational form
//   the transform of u x (omega + 2 Omega) + a u in `stage`; in the divergence form the transforms of the
//   traceless symmetric tensor T = u u - |u|^2/3 I, T_xx, T_yy, T_xy in stage[0..2] and T_xz, T_yz in
//   extra[0..1] (T_zz = -T_xx - T_yy), whose tendency is -i k.T. tendency(m, k) is that tendency times
//   scale; velocity_rhs(m, n) returns the velocity's R at a kept mode, P [tendency] with
//   P = I - k k^T / |k|^2, zero at k = 0; velocity_rhs_with_buoyancy adds sum_j theta_j c_j inside the
//   projection, theta_j from each buoyant scalar's input. For a divergence-free u, u x omega = -div(u u) +
//   grad |u|^2/2 and -div T = -div(u u) + grad |u|^2/3: the forms differ by grad |u|^2/6, which P removes
//   (with the 2/3 rule exactly on the kept modes, so the two agree to round-off).
//   scalar_rhs(s, m) = scale gradient[0] (the mean included: k = 0 holds -<u>.G).
// - clear(m, n) and clear_scalars(m, n) at a mode outside the 2/3 rule write zeros where the backward
//   transforms will read: every such mode when they run with fft::Modes::all; only modes whose (ky, kz) is
//   kept (|kx| too large) with fft::Modes::dealiased, which never reads the others.
// - So an update kernel reads states, accumulators and stage fields only at kept modes, 8/27 of the slab,
//   and writes dropped modes only where a transform needs a zero. Anything else that reads a stage field
//   (the forcing's energies) must skip the dropped modes too: they may hold anything.
// - MHD (magnetic true, always with divergence_form; MagneticTerms.hpp): the magnetic field b has its state,
//   accumulator and stage field and its resistivity. Its stage input is b in `magnetic_stage`, the
//   velocity's is u in `stage` (set_magnetic_input); on entry to an update kernel stage, extra and
//   magnetic_stage hold the 8 products' transforms: T = u u - B B less its trace in the divergence form's
//   slots, so velocity_rhs (..._with_buoyancy) returns P [-i k.T (+ buoyancy)], and magnetic_rhs i k x E.
//   The terms linear in u that the rotational form folds into its real-space pass, Coriolis u x 2 Omega and
//   the linear forcing a u, have no real-space slot here (u there is overwritten by T): when a run has
//   either, `velocity_input` holds a spectral copy of the stage's u (3 slabs; null otherwise), which
//   set_magnetic_input writes beside `stage`, and add_input_terms adds u x two_omega + linear_forcing u to
//   the tendency before the projection. linear_forcing is the stage's a (Forcing.hpp), which the integrator
//   sets per stage from what the right-hand side returns (Integrators.hpp).
// - The scalars' code sits in members of its own (..._with_buoyancy, ..._scalars), so that kernels
//   compiled without scalars (pure Navier-Stokes) contain none of it.
#pragma once

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "solver/MagneticTerms.hpp"
#include "solver/ModeVector.hpp"
#include "solver/SpectralField.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

template <class Real>
struct ScalarSlots {
  Complex<Real>* state;
  Complex<Real>* accumulator;
  Complex<Real>* gradient[3];
  Complex<Real>* input;
  double diffusivity;
  Vector3<Real> mean_gradient;  // G (Terms.hpp)
  Vector3<Real> buoyancy;       // c: the velocity's tendency gets theta c
};

template <class Real>
struct StageFields {
  using C = Complex<Real>;
  using Vector = ModeVector<Real>;

  Wavenumbers<Real> wavenumbers;
  Components<C> velocity, accumulator;
  Components<C> stage, extra;  // extra: omega (rotational form) or T_xz, T_yz (divergence form)
  bool divergence_form = false;
  double viscosity = 0;
  const ScalarSlots<Real>* scalars = nullptr;
  int scalar_count = 0;
  bool magnetic = false;  // MHD: the magnetic members below are set
  Components<C> magnetic_state{}, magnetic_accumulator{}, magnetic_stage{};
  double resistivity = 0;
  Components<C> velocity_input{};  // MHD with Coriolis or linear forcing: the stage's u, spectral
  Vector3<Real> two_omega{0, 0, 0};
  Real linear_forcing = 0;          // a of f = a u, this stage's
  Real scale = 1;                   // 1 / (Nx Ny Nz)
  bool transforms_read_all = true;  // the backward transforms run with fft::Modes::all

  KOLMO_HD bool kept(const Mode& n) const { return wavenumbers.kept(n); }

  // P applied to a tendency at mode n; zero at k = 0, where the mean flow stays as it is.
  KOLMO_HD Vector project_tendency(const Mode& n, const Vector& tendency) const {
    const auto k = wavenumbers.k(n);
    const Real k2 = k.norm2();
    if (k2 == Real(0)) return {{C(0, 0), C(0, 0), C(0, 0)}};
    return project(k, k2, tendency);
  }

  // The velocity's tendency before projection, normalised, at mode m of wavevector k.
  KOLMO_HD Vector tendency(long m, const Vector3<Real>& k) const {
    if (!divergence_form) return {{scale * stage[0][m], scale * stage[1][m], scale * stage[2][m]}};
    const C xx = stage[0][m], yy = stage[1][m], xy = stage[2][m], xz = extra[0][m], yz = extra[1][m];
    const C zz = -(xx + yy);
    const Real s = -scale;  // -i k.T
    return {{times_i(s * (k.x * xx + k.y * xy + k.z * xz)), times_i(s * (k.x * xy + k.y * yy + k.z * yz)),
             times_i(s * (k.x * xz + k.y * yz + k.z * zz))}};
  }

  KOLMO_HD Vector velocity_rhs(long m, const Mode& n) const {
    return project_tendency(n, tendency(m, wavenumbers.k(n)));
  }

  // tendency += sum_j theta_j c_j over the buoyant scalars, theta_j their stage inputs or (from_state)
  // states.
  KOLMO_HD void add_buoyancy(Vector& tendency, long m, bool from_state) const {
    for (int j = 0; j < scalar_count; ++j) {
      const ScalarSlots<Real>& s = scalars[j];
      if (s.input == nullptr) continue;  // not buoyant
      const C theta = from_state ? s.state[m] : s.input[m];
      tendency[0] += s.buoyancy.x * theta;
      tendency[1] += s.buoyancy.y * theta;
      tendency[2] += s.buoyancy.z * theta;
    }
  }

  KOLMO_HD Vector velocity_rhs_with_buoyancy(long m, const Mode& n) const {
    Vector r = tendency(m, wavenumbers.k(n));
    add_buoyancy(r, m, false);
    return project_tendency(n, r);
  }

  KOLMO_HD MagneticProductSlots<C> magnetic_products() const {
    return magnetic_product_slots(stage, extra, magnetic_stage);
  }
  KOLMO_HD Vector magnetic_rhs(long m, const Mode& n) const {
    return induction(wavenumbers.k(n), magnetic_products(), m, scale);
  }
  KOLMO_HD void set_magnetic_input(long m, const Vector& u, const Vector& b) const {
    u.store(stage, m);
    b.store(magnetic_stage, m);
    if (velocity_input[0] != nullptr) u.store(velocity_input, m);
  }
  // tendency += u x 2 Omega + a u from the spectral copy of the stage's u (MHD), when there is one.
  KOLMO_HD void add_input_terms(Vector& tendency, long m) const {
    if (velocity_input[0] == nullptr) return;
    const Vector u = Vector::load(velocity_input, m);
    const Real a = linear_forcing;
    tendency[0] += u[1] * two_omega.z - u[2] * two_omega.y + a * u[0];
    tendency[1] += u[2] * two_omega.x - u[0] * two_omega.z + a * u[1];
    tendency[2] += u[0] * two_omega.y - u[1] * two_omega.x + a * u[2];
  }
  // MHD's velocity R at a kept mode: P [-i k.T + u x 2 Omega + a u (+ buoyancy)].
  template <bool kScalars>
  KOLMO_HD Vector magnetic_velocity_rhs(long m, const Mode& n) const {
    Vector r = tendency(m, wavenumbers.k(n));
    if constexpr (kScalars) add_buoyancy(r, m, false);
    add_input_terms(r, m);
    return project_tendency(n, r);
  }
  KOLMO_HD void set_magnetic_input_from_state(long m) const {
    const Mode n = wavenumbers.mode(m);
    if (!kept(n)) return clear_magnetic(m, n);
    set_magnetic_input(m, Vector::load(velocity, m), Vector::load(magnetic_state, m));
  }

  KOLMO_HD C scalar_rhs(const ScalarSlots<Real>& s, long m) const { return scale * s.gradient[0][m]; }

  KOLMO_HD void set_input(long m, const Mode& n, const Vector& v) const {
    v.store(stage, m);
    if (!divergence_form) solver::curl(wavenumbers.k(n), v).store(extra, m);
  }

  KOLMO_HD void set_scalar_input(const ScalarSlots<Real>& s, long m, const Mode& n, const C& theta) const {
    const auto k = wavenumbers.k(n);
    s.gradient[0][m] = times_i(k.x * theta);
    s.gradient[1][m] = times_i(k.y * theta);
    s.gradient[2][m] = times_i(k.z * theta);
    if (s.input != nullptr) s.input[m] = theta;
  }

  // The inputs of the first stage from the states: one pass when nothing prepared them.
  KOLMO_HD void set_input_from_state(long m) const {
    const Mode n = wavenumbers.mode(m);
    if (!kept(n)) return clear(m, n);
    set_input(m, n, Vector::load(velocity, m));
  }
  KOLMO_HD void set_scalar_inputs_from_state(long m) const {
    const Mode n = wavenumbers.mode(m);
    if (!kept(n)) return clear_scalars(m, n);
    for (int j = 0; j < scalar_count; ++j) set_scalar_input(scalars[j], m, n, scalars[j].state[m]);
  }

  KOLMO_HD bool transforms_read(const Mode& n) const {
    return transforms_read_all || (Wavenumbers<Real>::kept_1d(n.y, wavenumbers.ny) &&
                                   Wavenumbers<Real>::kept_1d(n.z, wavenumbers.nz));
  }
  KOLMO_HD void clear(long m, const Mode& n) const {
    if (!transforms_read(n)) return;
    for (int d = 0; d < 3; ++d) stage[d][m] = C(0, 0);
    if (!divergence_form)
      for (int d = 0; d < 3; ++d) extra[d][m] = C(0, 0);
  }
  KOLMO_HD void clear_magnetic(long m, const Mode& n) const {
    if (!transforms_read(n)) return;
    for (int d = 0; d < 3; ++d) stage[d][m] = magnetic_stage[d][m] = C(0, 0);
  }
  KOLMO_HD void clear_scalars(long m, const Mode& n) const {
    if (!transforms_read(n)) return;
    for (int j = 0; j < scalar_count; ++j)
      for (int d = 0; d < 3; ++d) scalars[j].gradient[d][m] = C(0, 0);
  }
};

}  // namespace kolmo::solver
