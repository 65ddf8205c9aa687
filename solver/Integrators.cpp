#include "solver/Integrators.hpp"

#include <cmath>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"

namespace kolmo::solver {

namespace {

// A field's diffusive factors at a mode over a step h: full = exp(-D k^2 h), half = exp(-D k^2 h / 2).
// Computed in double whatever Real is: for float fields the exponent can be large.
template <class Real>
struct Decay {
  Real full = 1, half = 1;
  Decay() = default;
  KOLMO_HD Decay(const Vector3<Real>& k, double diffusivity_h) {
    const double k2 = double(k.x) * k.x + double(k.y) * k.y + double(k.z) * k.z;
    const double e_half = exp(-0.5 * diffusivity_h * k2);
    half = Real(e_half);
    full = Real(e_half * e_half);
  }
};

// Whether a stage's update uses the diffusive factors: the last stages of rk2 and rk4 do not, and then no
// exponential is computed.
enum class Factors { needed, unused };

// One fused pass per stage over every field: at kept modes update(q, a, m, r, e) gets a component's state q,
// accumulator a (null without one), its right-hand side r and its factors e, updates q[m] and a[m] as the
// scheme says and returns the next stage's input; modes outside the 2/3 rule only get the zeros the
// transforms read. kScalars: whether the kernel holds the scalars' code at all.
template <bool kScalars, Factors kFactors, class Real, class Update>
void stage_kernel(Device& device, const StageFields<Real>& f, double h, Update update) {
  using C = Complex<Real>;
  using V = typename StageFields<Real>::Vector;
  const double nu_h = f.viscosity * h;
  parallel_for(
      device, f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        // First captured here: an extended lambda may not first-capture a variable inside `if constexpr`.
        [[maybe_unused]] const double step = h;
        const Mode n = f.wavenumbers.mode(m);
        if (!f.kept(n)) {
          f.clear(m, n);
          if constexpr (kScalars) f.clear_scalars(m, n);
          return;
        }
        const auto k = f.wavenumbers.k(n);
        V r;
        if constexpr (kScalars)
          r = f.velocity_rhs_with_buoyancy(m, n);  // reads the scalars' inputs before they are rewritten
        else
          r = f.velocity_rhs(m, n);
        const Decay<Real> e = kFactors == Factors::needed ? Decay<Real>(k, nu_h) : Decay<Real>();
        V next;
        for (int d = 0; d < 3; ++d) next[d] = update(f.velocity[d], f.accumulator[d], m, r[d], e);
        f.set_input(m, n, next);
        if constexpr (kScalars) {
          for (int j = 0; j < f.scalar_count; ++j) {
            const ScalarSlots<Real>& s = f.scalars[j];
            const C rj = f.scalar_rhs(s, m);
            const Decay<Real> ej =
                kFactors == Factors::needed ? Decay<Real>(k, s.diffusivity * step) : Decay<Real>();
            f.set_scalar_input(s, m, n, update(s.state, s.accumulator, m, rj, ej));
          }
        }
      });
}

template <Factors kFactors, class Real, class Update>
void stage_update(Device& device, const StageFields<Real>& f, double h, Update update) {
  if (f.scalar_count > 0)
    stage_kernel<true, kFactors>(device, f, h, update);
  else
    stage_kernel<false, kFactors>(device, f, h, update);
}

template <class Real>
void rk2_step(double h, const StageFields<Real>& f, Device& device, const RightHandSide& rhs) {
  using C = Complex<Real>;
  const Real hr = Real(h), half_h = Real(0.5) * hr;

  rhs(true);  // k1 = R(q_n)
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C*, long m, C k1, const Decay<Real>& e) {
        const C qn = q[m];
        q[m] = e.full * (qn + half_h * k1);  // E(h) q_n + h/2 E(h) k1
        return e.full * (qn + hr * k1);      // q* = E(h)(q_n + h k1)
      });
  rhs(false);  // k2 = R(q*)
  stage_update<Factors::unused>(
      device, f, h,
      KOLMO_LAMBDA(C * q, C*, long m, C k2, const Decay<Real>&) { return q[m] = q[m] + half_h * k2; });
}

template <class Real>
void rk3_step(double h, const StageFields<Real>& f, Device& device, const RightHandSide& rhs) {
  using C = Complex<Real>;
  const Real hr = Real(h), quarter_h = Real(0.25) * hr, third = Real(1) / Real(3),
             two_thirds = Real(2) / Real(3);

  rhs(true);  // k1
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C * a, long m, C k1, const Decay<Real>& e) {
        const C qn = q[m];
        // 3/4 E(h/2) q_n + 1/4 E(-h/2) q1 = E(h/2)(q_n + h/4 k1): no growing factor on this part.
        a[m] = e.half * (qn + quarter_h * k1);
        return e.full * (qn + hr * k1);  // q1
      });
  rhs(false);  // k2 = R(q1)
  // Only kept modes get here, which also keeps 1 / E(h/2) from overflowing at the dropped ones.
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C * a, long m, C k2, const Decay<Real>& e) {
        const C q2 = a[m] + (quarter_h / e.half) * k2;
        q[m] = third * e.full * q[m] + two_thirds * e.half * q2;
        return q2;
      });
  rhs(false);  // k3 = R(q2)
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C*, long m, C k3, const Decay<Real>& e) {
        return q[m] = q[m] + (two_thirds * hr * e.half) * k3;
      });
}

template <class Real>
void rk4_step(double h, const StageFields<Real>& f, Device& device, const RightHandSide& rhs) {
  using C = Complex<Real>;
  const Real hr = Real(h), sixth = Real(h / 6), third = Real(h / 3), half_h = Real(h / 2);

  rhs(true);  // k1
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C * a, long m, C k1, const Decay<Real>& e) {
        const C qn = q[m];
        a[m] = e.full * (qn + sixth * k1);
        return e.half * (qn + half_h * k1);
      });
  rhs(false);  // k2
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C * a, long m, C k2, const Decay<Real>& e) {
        a[m] += (third * e.half) * k2;
        return e.half * q[m] + half_h * k2;
      });
  rhs(false);  // k3
  stage_update<Factors::needed>(
      device, f, h, KOLMO_LAMBDA(C * q, C * a, long m, C k3, const Decay<Real>& e) {
        a[m] += (third * e.half) * k3;
        return e.full * q[m] + (hr * e.half) * k3;
      });
  rhs(false);  // k4
  stage_update<Factors::unused>(
      device, f, h,
      KOLMO_LAMBDA(C * q, C * a, long m, C k4, const Decay<Real>&) { return q[m] = a[m] + sixth * k4; });
}

}  // namespace

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, const StageFields<Real>& fields,
                             Device& device, const RightHandSide& rhs) {
  if (needs_accumulator(integrator) && fields.accumulator[0] == nullptr)
    throw Error("internal: integrator " + to_string(integrator) + " needs an accumulator field");
  switch (integrator) {
    case Integrator::rk2:
      rk2_step(dt, fields, device, rhs);
      break;
    case Integrator::rk3:
      rk3_step(dt, fields, device, rhs);
      break;
    case Integrator::rk4:
      rk4_step(dt, fields, device, rhs);
      break;
  }
}

template void integrating_factor_step<float>(Integrator, double, const StageFields<float>&, Device&,
                                             const RightHandSide&);
template void integrating_factor_step<double>(Integrator, double, const StageFields<double>&, Device&,
                                              const RightHandSide&);

}  // namespace kolmo::solver
