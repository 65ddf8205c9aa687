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

// The viscous factors of mode m over a step h: full = exp(-nu k^2 h), half = exp(-nu k^2 h / 2). Computed in
// double whatever Real is: for float fields the exponent can be large.
template <class Real>
struct ViscousDecay {
  Real full, half;
  KOLMO_HD ViscousDecay(const Wavenumbers<Real>& w, long m, double nu_h) {
    const auto k = w.k(w.mode(m));
    const double k2 = double(k.x) * k.x + double(k.y) * k.y + double(k.z) * k.z;
    const double e_half = exp(-0.5 * nu_h * k2);
    half = Real(e_half);
    full = Real(e_half * e_half);
  }
};

template <class Real>
void rk2_step(double h, double nu, const Wavenumbers<Real>& w, Device& device, SpectralVector<Real>& state,
              SpectralVector<Real>& stage_field, const RightHandSide& rhs) {
  using C = Complex<Real>;
  auto u = state.spectral();
  auto s = stage_field.spectral();
  const double nu_h = nu * h;
  const Real hr = Real(h);

  rhs(true);  // s = k1 = R(u_n)
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C un = u[d][m], k1 = s[d][m];
          s[d][m] = e.full * (un + hr * k1);              // u* = E(h)(u_n + h k1)
          u[d][m] = e.full * (un + Real(0.5) * hr * k1);  // E(h) u_n + h/2 E(h) k1
        }
      });
  rhs(false);  // s = k2 = R(u*)
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        for (int d = 0; d < 3; ++d) u[d][m] += Real(0.5) * hr * s[d][m];
      });
}

template <class Real>
void rk3_step(double h, double nu, const Wavenumbers<Real>& w, Device& device, SpectralVector<Real>& state,
              SpectralVector<Real>& stage_field, SpectralVector<Real>& accumulator,
              const RightHandSide& rhs) {
  using C = Complex<Real>;
  auto u = state.spectral();
  auto s = stage_field.spectral();
  auto a = accumulator.spectral();
  const double nu_h = nu * h;
  const Real hr = Real(h);

  rhs(true);  // s = k1
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C un = u[d][m], k1 = s[d][m];
          s[d][m] = e.full * (un + hr * k1);  // u1
          // 3/4 E(h/2) u_n + 1/4 E(-h/2) u1 = E(h/2)(u_n + h/4 k1): no growing factor on this part.
          a[d][m] = e.half * (un + Real(0.25) * hr * k1);
        }
      });
  rhs(false);  // s = k2 = R(u1)
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        // Modes outside the 2/3 rule stay zero; skipping them also keeps 1 / E(h/2) from overflowing there.
        if (!w.kept(w.mode(m))) return;
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C u2 = a[d][m] + (Real(0.25) * hr / e.half) * s[d][m];
          s[d][m] = u2;
          u[d][m] = Real(1) / Real(3) * e.full * u[d][m] + Real(2) / Real(3) * e.half * u2;
        }
      });
  rhs(false);  // s = k3 = R(u2)
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) u[d][m] += (Real(2) / Real(3) * hr * e.half) * s[d][m];
      });
}

template <class Real>
void rk4_step(double h, double nu, const Wavenumbers<Real>& w, Device& device, SpectralVector<Real>& state,
              SpectralVector<Real>& stage_field, SpectralVector<Real>& accumulator,
              const RightHandSide& rhs) {
  using C = Complex<Real>;
  auto u = state.spectral();
  auto s = stage_field.spectral();
  auto a = accumulator.spectral();
  const double nu_h = nu * h;
  const Real hr = Real(h), sixth = Real(h / 6), third = Real(h / 3), half_h = Real(h / 2);

  rhs(true);  // s = k1
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C un = u[d][m], k1 = s[d][m];
          a[d][m] = e.full * (un + sixth * k1);
          s[d][m] = e.half * (un + half_h * k1);
        }
      });
  rhs(false);  // s = k2
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C k2 = s[d][m];
          a[d][m] += (third * e.half) * k2;
          s[d][m] = e.half * u[d][m] + half_h * k2;
        }
      });
  rhs(false);  // s = k3
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        const ViscousDecay<Real> e(w, m, nu_h);
        for (int d = 0; d < 3; ++d) {
          const C k3 = s[d][m];
          a[d][m] += (third * e.half) * k3;
          s[d][m] = e.full * u[d][m] + (hr * e.half) * k3;
        }
      });
  rhs(false);  // s = k4
  parallel_for(
      device, w.size(), KOLMO_LAMBDA(long m) {
        for (int d = 0; d < 3; ++d) u[d][m] = a[d][m] + sixth * s[d][m];
      });
}

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, double viscosity,
                             const Wavenumbers<Real>& wavenumbers, Device& device, SpectralVector<Real>& u,
                             SpectralVector<Real>& stage, SpectralVector<Real>* accumulator,
                             const RightHandSide& rhs) {
  if (needs_accumulator(integrator) && accumulator == nullptr)
    throw Error("internal: integrator " + to_string(integrator) + " needs an accumulator field");
  switch (integrator) {
    case Integrator::rk2:
      rk2_step(dt, viscosity, wavenumbers, device, u, stage, rhs);
      break;
    case Integrator::rk3:
      rk3_step(dt, viscosity, wavenumbers, device, u, stage, *accumulator, rhs);
      break;
    case Integrator::rk4:
      rk4_step(dt, viscosity, wavenumbers, device, u, stage, *accumulator, rhs);
      break;
  }
}

template void integrating_factor_step<float>(Integrator, double, double, const Wavenumbers<float>&, Device&,
                                             SpectralVector<float>&, SpectralVector<float>&,
                                             SpectralVector<float>*, const RightHandSide&);
template void integrating_factor_step<double>(Integrator, double, double, const Wavenumbers<double>&, Device&,
                                              SpectralVector<double>&, SpectralVector<double>&,
                                              SpectralVector<double>*, const RightHandSide&);

}  // namespace kolmo::solver
