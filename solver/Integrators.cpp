#include "solver/Integrators.hpp"

#include <cmath>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"

namespace kolmo::solver {

std::string to_string(Integrator integrator) {
  switch (integrator) {
    case Integrator::rk2:
      return "rk2";
    case Integrator::rk3:
      return "rk3";
    default:
      return "rk4";
  }
}

Integrator parse_integrator(const std::string& name) {
  if (name == "rk2" || name == "heun") return Integrator::rk2;
  if (name == "rk3" || name == "ssprk3") return Integrator::rk3;
  if (name == "rk4") return Integrator::rk4;
  throw Error("unknown integrator '" + name + "' (expected rk2, rk3 or rk4)");
}

int stages(Integrator integrator) {
  return integrator == Integrator::rk2 ? 2 : integrator == Integrator::rk3 ? 3 : 4;
}

bool needs_accumulator(Integrator integrator) {
  return integrator != Integrator::rk2;
}

// The viscous factors of a mode over a step h: full = exp(-nu k^2 h), half = exp(-nu k^2 h / 2). Computed in
// double whatever Real is: for float fields the exponent can be large.
template <class Real>
struct ViscousDecay {
  Real full, half;
  KOLMO_HD ViscousDecay(const Wavenumbers<Real>& w, const Mode& n, double nu_h) {
    const auto k = w.k(n);
    const double k2 = double(k.x) * k.x + double(k.y) * k.y + double(k.z) * k.z;
    const double e_half = exp(-0.5 * nu_h * k2);
    half = Real(e_half);
    full = Real(e_half * e_half);
  }
};

// One fused pass per stage: at kept modes update(m, n, r) gets the right-hand side r and returns the next
// stage's input; modes outside the 2/3 rule only get the zeros the transforms read.
template <class Real, class Update>
void stage_update(Device& device, const StageFields<Real>& f, Update update) {
  parallel_for(
      device, f.w.size(), KOLMO_LAMBDA(long m) {
        const Mode n = f.w.mode(m);
        if (!f.kept(n)) return f.clear(m, n);
        f.set_input(m, n, update(m, n, f.rhs(m, n)));
      });
}

template <class Real>
void rk2_step(double h, double nu, const StageFields<Real>& f, Device& device, SpectralVector<Real>& state,
              const RightHandSide& rhs) {
  using V = typename StageFields<Real>::Vector;
  auto u = state.spectral();
  const auto w = f.w;
  const double nu_h = nu * h;
  const Real hr = Real(h);

  rhs(true);  // k1 = R(u_n)
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k1) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V next;
        for (int d = 0; d < 3; ++d) {
          const auto un = u[d][m];
          next[d] = e.full * (un + hr * k1[d]);              // u* = E(h)(u_n + h k1)
          u[d][m] = e.full * (un + Real(0.5) * hr * k1[d]);  // E(h) u_n + h/2 E(h) k1
        }
        return next;
      });
  rhs(false);  // k2 = R(u*)
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode&, const V& k2) {
        V next;
        for (int d = 0; d < 3; ++d) next[d] = u[d][m] = u[d][m] + Real(0.5) * hr * k2[d];
        return next;
      });
}

template <class Real>
void rk3_step(double h, double nu, const StageFields<Real>& f, Device& device, SpectralVector<Real>& state,
              SpectralVector<Real>& accumulator, const RightHandSide& rhs) {
  using V = typename StageFields<Real>::Vector;
  auto u = state.spectral();
  auto a = accumulator.spectral();
  const auto w = f.w;
  const double nu_h = nu * h;
  const Real hr = Real(h);

  rhs(true);  // k1
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k1) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V u1;
        for (int d = 0; d < 3; ++d) {
          const auto un = u[d][m];
          u1[d] = e.full * (un + hr * k1[d]);
          // 3/4 E(h/2) u_n + 1/4 E(-h/2) u1 = E(h/2)(u_n + h/4 k1): no growing factor on this part.
          a[d][m] = e.half * (un + Real(0.25) * hr * k1[d]);
        }
        return u1;
      });
  rhs(false);  // k2 = R(u1)
  // Only kept modes get here, which also keeps 1 / E(h/2) from overflowing at the dropped ones.
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k2) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V u2;
        for (int d = 0; d < 3; ++d) {
          u2[d] = a[d][m] + (Real(0.25) * hr / e.half) * k2[d];
          u[d][m] = Real(1) / Real(3) * e.full * u[d][m] + Real(2) / Real(3) * e.half * u2[d];
        }
        return u2;
      });
  rhs(false);  // k3 = R(u2)
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k3) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V next;
        for (int d = 0; d < 3; ++d) next[d] = u[d][m] = u[d][m] + (Real(2) / Real(3) * hr * e.half) * k3[d];
        return next;
      });
}

template <class Real>
void rk4_step(double h, double nu, const StageFields<Real>& f, Device& device, SpectralVector<Real>& state,
              SpectralVector<Real>& accumulator, const RightHandSide& rhs) {
  using V = typename StageFields<Real>::Vector;
  auto u = state.spectral();
  auto a = accumulator.spectral();
  const auto w = f.w;
  const double nu_h = nu * h;
  const Real hr = Real(h), sixth = Real(h / 6), third = Real(h / 3), half_h = Real(h / 2);

  rhs(true);  // k1
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k1) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V next;
        for (int d = 0; d < 3; ++d) {
          const auto un = u[d][m];
          a[d][m] = e.full * (un + sixth * k1[d]);
          next[d] = e.half * (un + half_h * k1[d]);
        }
        return next;
      });
  rhs(false);  // k2
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k2) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V next;
        for (int d = 0; d < 3; ++d) {
          a[d][m] += (third * e.half) * k2[d];
          next[d] = e.half * u[d][m] + half_h * k2[d];
        }
        return next;
      });
  rhs(false);  // k3
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode& n, const V& k3) {
        const ViscousDecay<Real> e(w, n, nu_h);
        V next;
        for (int d = 0; d < 3; ++d) {
          a[d][m] += (third * e.half) * k3[d];
          next[d] = e.full * u[d][m] + (hr * e.half) * k3[d];
        }
        return next;
      });
  rhs(false);  // k4
  stage_update(
      device, f, KOLMO_LAMBDA(long m, const Mode&, const V& k4) {
        V next;
        for (int d = 0; d < 3; ++d) next[d] = u[d][m] = a[d][m] + sixth * k4[d];
        return next;
      });
}

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, double viscosity,
                             const StageFields<Real>& fields, Device& device, SpectralVector<Real>& u,
                             SpectralVector<Real>* accumulator, const RightHandSide& rhs) {
  if (needs_accumulator(integrator) && accumulator == nullptr)
    throw Error("internal: integrator " + to_string(integrator) + " needs an accumulator field");
  switch (integrator) {
    case Integrator::rk2:
      rk2_step(dt, viscosity, fields, device, u, rhs);
      break;
    case Integrator::rk3:
      rk3_step(dt, viscosity, fields, device, u, *accumulator, rhs);
      break;
    case Integrator::rk4:
      rk4_step(dt, viscosity, fields, device, u, *accumulator, rhs);
      break;
  }
}

template void integrating_factor_step<float>(Integrator, double, double, const StageFields<float>&, Device&,
                                             SpectralVector<float>&, SpectralVector<float>*,
                                             const RightHandSide&);
template void integrating_factor_step<double>(Integrator, double, double, const StageFields<double>&, Device&,
                                              SpectralVector<double>&, SpectralVector<double>*,
                                              const RightHandSide&);

}  // namespace kolmo::solver
