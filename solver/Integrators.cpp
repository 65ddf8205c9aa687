#include "solver/Integrators.hpp"

#include <algorithm>
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
// transforms read. kScalars: whether the kernel holds the scalars' code at all; kMagnetic: the magnetic
// field's (MHD: the velocity's R from the stress, b's update and input).
template <bool kScalars, bool kMagnetic, Factors kFactors, class Real, class Update>
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
          if constexpr (kMagnetic)
            f.clear_magnetic(m, n);
          else
            f.clear(m, n);
          if constexpr (kScalars) f.clear_scalars(m, n);
          return;
        }
        const auto k = f.wavenumbers.k(n);
        V r, r_magnetic;
        // Each reads the stage's inputs (scalars', MHD's copy of u) before they are rewritten below.
        if constexpr (kMagnetic)
          r = f.template magnetic_velocity_rhs<kScalars>(m, n);  // MHD: -i k.(u u - B B) + ...
        else if constexpr (kScalars)
          r = f.velocity_rhs_with_buoyancy(m, n);
        else
          r = f.velocity_rhs(m, n);
        if constexpr (kMagnetic) r_magnetic = f.magnetic_rhs(m, n);
        const Decay<Real> e = kFactors == Factors::needed ? Decay<Real>(k, nu_h) : Decay<Real>();
        V next;
        for (int d = 0; d < 3; ++d) next[d] = update(f.velocity[d], f.accumulator[d], m, r[d], e);
        if constexpr (kMagnetic) {
          const Decay<Real> eb =
              kFactors == Factors::needed ? Decay<Real>(k, f.resistivity * step) : Decay<Real>();
          V next_magnetic;
          for (int d = 0; d < 3; ++d)
            next_magnetic[d] = update(f.magnetic_state[d], f.magnetic_accumulator[d], m, r_magnetic[d], eb);
          f.set_magnetic_input(m, next, next_magnetic);
        } else {
          f.set_input(m, n, next);
        }
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

// rate: what the stage's right-hand side returned, the a of the linear forcing that the update applies
// from the spectral copy of the input (StageFields::add_input_terms; MHD only, 0 otherwise).
template <Factors kFactors, class Real, class Update>
void stage_update(Device& device, const StageFields<Real>& fields, double rate, double h, Update update) {
  StageFields<Real> f = fields;
  f.linear_forcing = Real(rate);
  if (f.magnetic && f.scalar_count > 0)
    stage_kernel<true, true, kFactors>(device, f, h, update);
  else if (f.magnetic)
    stage_kernel<false, true, kFactors>(device, f, h, update);
  else if (f.scalar_count > 0)
    stage_kernel<true, false, kFactors>(device, f, h, update);
  else
    stage_kernel<false, false, kFactors>(device, f, h, update);
}

// A two-register scheme (Integrators.hpp): the subdiagonal a_i+1,i and the weights b_i of its Butcher
// tableau.
struct TwoRegisterScheme {
  int stages;
  double a[5];  // a[i] = a_i+2,i+1 (zero-based stages i, i + 1); the last is unused
  double b[5];
  // Nodes: c_1 = 0, c_i+1 = b_1 + ... + b_i-1 + a_i+1,i, and 1 after the last stage.
  double c(int i) const {
    if (i == 0) return 0;
    if (i == stages) return 1;
    double sum = a[i - 1];
    for (int j = 0; j + 1 < i; ++j) sum += b[j];
    return sum;
  }
};

TwoRegisterScheme two_register_scheme(Integrator integrator) {
  switch (integrator) {
    case Integrator::rk2:
      return {2, {1, 0}, {0.5, 0.5}};
    case Integrator::lsrk3:
      return {3, {8.0 / 15, 5.0 / 12, 0}, {0.25, 0, 0.75}};
    case Integrator::lsrk4:
      return {5,
              {970286171893.0 / 4311952581923.0, 6584761158862.0 / 12103376702013.0,
               2251764453980.0 / 15575788980749.0, 26877169314380.0 / 34165994151039.0, 0},
              {1153189308089.0 / 22510343858157.0, 1772645290293.0 / 4653164025191.0,
               -1672844663538.0 / 4480602732383.0, 2114624349019.0 / 3568978502595.0,
               5198255086312.0 / 14908931495163.0}};
    default:
      throw Error("internal: " + to_string(integrator) + " is not a two-register scheme");
  }
}

template <class Real>
void two_register_step(const TwoRegisterScheme& scheme, double h, const StageFields<Real>& f, Device& device,
                       const RightHandSide& rhs) {
  using C = Complex<Real>;
  for (int i = 0; i < scheme.stages; ++i) {
    const double rate = rhs(i == 0);  // k_i = R(input_i)
    const Real bh = Real(scheme.b[i] * h), ah = Real(scheme.a[i] * h);
    // The state register S lives at the next stage's time: one factor for both registers.
    const double advance = (scheme.c(i + 1) - scheme.c(i)) * h;
    if (i + 1 == scheme.stages) {
      auto last = KOLMO_LAMBDA(C * q, C*, long m, C k, const Decay<Real>& e) {
        return q[m] = e.full * (q[m] + bh * k);
      };
      if (advance == 0)
        stage_update<Factors::unused>(device, f, rate, advance, last);
      else
        stage_update<Factors::needed>(device, f, rate, advance, last);
    } else {
      stage_update<Factors::needed>(
          device, f, rate, advance, KOLMO_LAMBDA(C * q, C*, long m, C k, const Decay<Real>& e) {
            const C s = q[m];
            q[m] = e.full * (s + bh * k);
            return e.full * (s + ah * k);
          });
    }
  }
}

template <class Real>
void rk3_step(double h, const StageFields<Real>& f, Device& device, const RightHandSide& rhs) {
  using C = Complex<Real>;
  const Real hr = Real(h), quarter_h = Real(0.25) * hr, third = Real(1) / Real(3),
             two_thirds = Real(2) / Real(3);

  double rate = rhs(true);  // k1
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C * a, long m, C k1, const Decay<Real>& e) {
        const C qn = q[m];
        // 3/4 E(h/2) q_n + 1/4 E(-h/2) q1 = E(h/2)(q_n + h/4 k1): no growing factor on this part.
        a[m] = e.half * (qn + quarter_h * k1);
        return e.full * (qn + hr * k1);  // q1
      });
  rate = rhs(false);  // k2 = R(q1)
  // Only kept modes get here, which also keeps 1 / E(h/2) from overflowing at the dropped ones.
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C * a, long m, C k2, const Decay<Real>& e) {
        const C q2 = a[m] + (quarter_h / e.half) * k2;
        q[m] = third * e.full * q[m] + two_thirds * e.half * q2;
        return q2;
      });
  rate = rhs(false);  // k3 = R(q2)
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C*, long m, C k3, const Decay<Real>& e) {
        return q[m] = q[m] + (two_thirds * hr * e.half) * k3;
      });
}

template <class Real>
void rk4_step(double h, const StageFields<Real>& f, Device& device, const RightHandSide& rhs) {
  using C = Complex<Real>;
  const Real hr = Real(h), sixth = Real(h / 6), third = Real(h / 3), half_h = Real(h / 2);

  double rate = rhs(true);  // k1
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C * a, long m, C k1, const Decay<Real>& e) {
        const C qn = q[m];
        a[m] = e.full * (qn + sixth * k1);
        return e.half * (qn + half_h * k1);
      });
  rate = rhs(false);  // k2
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C * a, long m, C k2, const Decay<Real>& e) {
        a[m] += (third * e.half) * k2;
        return e.half * q[m] + half_h * k2;
      });
  rate = rhs(false);  // k3
  stage_update<Factors::needed>(
      device, f, rate, h, KOLMO_LAMBDA(C * q, C * a, long m, C k3, const Decay<Real>& e) {
        a[m] += (third * e.half) * k3;
        return e.full * q[m] + (hr * e.half) * k3;
      });
  rate = rhs(false);  // k4
  stage_update<Factors::unused>(
      device, f, rate, h,
      KOLMO_LAMBDA(C * q, C * a, long m, C k4, const Decay<Real>&) { return q[m] = a[m] + sixth * k4; });
}

}  // namespace

std::complex<double> stability_function(Integrator integrator, std::complex<double> z) {
  if (integrator == Integrator::rk3 || integrator == Integrator::rk4) {  // s = p: the Taylor polynomial
    std::complex<double> r = 1, term = 1;
    for (int j = 1; j <= stages(integrator); ++j) r += (term *= z / double(j));
    return r;
  }
  // Explicit stages y_i = 1 + z sum_j<i a_ij y_j, and 1 + z sum_i b_i y_i, with a_ij = b_j for j < i - 1.
  const TwoRegisterScheme scheme = two_register_scheme(integrator);
  std::complex<double> y[5], r = 1;
  for (int i = 0; i < scheme.stages; ++i) {
    y[i] = 1;
    for (int j = 0; j < i; ++j) y[i] += z * (j + 1 == i ? scheme.a[j] : scheme.b[j]) * y[j];
    r += z * scheme.b[i] * y[i];
  }
  return r;
}

double backward_factor_fraction(Integrator integrator) {
  if (integrator == Integrator::rk4) return 0;    // nodes 0, 1/2, 1/2, 1
  if (integrator == Integrator::rk3) return 0.5;  // nodes 0, 1, 1/2: q2 carries E(-h/2)
  const TwoRegisterScheme scheme = two_register_scheme(integrator);
  double fraction = 0;
  for (int i = 0; i < scheme.stages; ++i) fraction = std::max(fraction, scheme.c(i) - scheme.c(i + 1));
  return fraction;
}

template <class Real>
void integrating_factor_step(Integrator integrator, double dt, const StageFields<Real>& fields,
                             Device& device, const RightHandSide& rhs) {
  if (needs_accumulator(integrator) && fields.accumulator[0] == nullptr)
    throw Error("internal: integrator " + to_string(integrator) + " needs an accumulator field");
  switch (integrator) {
    case Integrator::rk3:
      rk3_step(dt, fields, device, rhs);
      break;
    case Integrator::rk4:
      rk4_step(dt, fields, device, rhs);
      break;
    default:
      two_register_step(two_register_scheme(integrator), dt, fields, device, rhs);
  }
}

template void integrating_factor_step<float>(Integrator, double, const StageFields<float>&, Device&,
                                             const RightHandSide&);
template void integrating_factor_step<double>(Integrator, double, const StageFields<double>&, Device&,
                                              const RightHandSide&);

}  // namespace kolmo::solver
