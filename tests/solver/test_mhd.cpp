// Incompressible MHD: single-mode Alfven waves against their exact solutions, exact resistive decay, the
// ideal invariants (energy, cross helicity, magnetic helicity), the energy budget with dissipation, band or
// linear forcing of u and band forcing of b, the diagnostics' closed forms, the conducting Taylor-Green b
// and the errors.
//
// Why single modes are exact: with wavevector k (and -k) and u, b normal to k, every nonlinear term vanishes
// or is a gradient (u.grad = b.grad = 0 on such fields, and u x b is along k, whose curl is zero), so the
// fields stay in the mode. Within it B0 couples u and b linearly, du/dt = i (k.B0) b - nu k^2 u and
// db/dt = i (k.B0) u - eta k^2 b, which the integrators treat explicitly: the computed wave is the
// Runge-Kutta solution of that 2 x 2 system, whose error against the exact exp(M t) falls as dt^p. With
// nu = eta the Elsasser fields z+- = u +- b are its eigenvectors: z+- = z+-(0) exp(+-i (k.B0) t - nu k^2 t),
// which travel along -+B0 at the Alfven speed |B0| (k^.B0^) and decay as exp(-nu k^2 t). Without B0 the
// integrating factor is exact: u and b decay as exp(-nu k^2 t) and exp(-eta k^2 t) to round-off.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::cross;
using kolmo::testing::dot;
using kolmo::testing::global_max;
using kolmo::testing::kOrderCases;
using kolmo::testing::OrderCase;
using kolmo::testing::scaled;
using kolmo::testing::unit;
using kolmo::testing::Vec;

namespace {

// An oblique mode on an uneven grid ({10, 8, 8}: uneven slabs on 3 and 4 ranks).
const std::array<long, 3> kGrid{10, 8, 8};
const Vec kWave{1, 1, 2};

FlowParameters mhd(double nu, double eta, Vec background = {0, 0, 0},
                   Integrator integrator = Integrator::rk4) {
  return testing::mhd_parameters(nu, eta, background, integrator);
}

struct WaveError {
  double field_error;    // max over points of |q - exact| / amplitude, q = (u, b)
  double outside_error;  // largest coefficient outside the mode / amplitude
};

// u = U e cos(k.x), b = B e2 cos(k.x) at t = 0 (e, e2 normal to k); steps to end_time and compares with
// exact(t, phase) -> the 6 components of (u, b) at a point of phase k.x.
template <class Exact>
WaveError run_wave(const FlowParameters& parameters, const Vec& u0, const Vec& b0, int steps, double end_time,
                   Exact exact, MPI_Comm comm = MPI_COMM_SELF) {
  auto flow = testing::make_flow<double>(kGrid, parameters, comm);
  auto slab = [&](const Vec& a, int d) {
    return testing::slab_of(*flow, [&](double x, double y, double z) {
      return a[d] * std::cos(kWave[0] * x + kWave[1] * y + kWave[2] * z);
    });
  };
  flow->set_velocity(slab(u0, 0), slab(u0, 1), slab(u0, 2));
  flow->set_magnetic(slab(b0, 0), slab(b0, 1), slab(b0, 2));
  const double amplitude = std::sqrt(dot(u0, u0) + dot(b0, b0));
  for (int s = 0; s < steps; ++s) flow->step(end_time / steps);

  std::vector<double> q[6];
  flow->velocity_to_host(q[0], q[1], q[2]);
  flow->magnetic_to_host(q[3], q[4], q[5]);
  const auto& points = flow->points();
  double error = 0;
  for (long p = 0; p < points.size(); ++p) {
    const Mode g = points.index(p);
    const double phase = kWave[0] * g.x * points.dx + kWave[1] * g.y * points.dy + kWave[2] * g.z * points.dz;
    const auto expected = exact(flow->time(), phase);
    for (int d = 0; d < 6; ++d) error = testing::worse(error, std::fabs(q[d][p] - expected[d]));
  }
  const double outside = testing::worse(
      testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->velocity()), kWave, comm),
      testing::outside_the_mode(*flow, testing::host_copy(*flow, flow->magnetic_field()), kWave, comm));
  return {global_max(error, comm) / amplitude, outside / amplitude};
}

}  // namespace

TEST_CASE("a finite-amplitude Alfven wave travels at the Alfven speed and decays at the exact rate",
          "[solver]") {
  const Vec background{0.3, -0.2, 1.1};
  const double k2 = dot(kWave, kWave), omega = dot(kWave, background);  // omega_A = k.B0
  const Vec e = unit(cross(kWave, {0, 0, 1}));
  // u and b along the same direction e (a polarised wave), of different amplitudes: both Elsasser fields.
  const double u_amplitude = 0.7, b_amplitude = -0.4;
  const Vec u0{u_amplitude * e[0], u_amplitude * e[1], u_amplitude * e[2]};
  const Vec b0{b_amplitude * e[0], b_amplitude * e[1], b_amplitude * e[2]};
  for (const double eta : {0.02, 0.05}) {
    const double nu = 0.02;
    // [U, B]' = M [U, B], M = [[a, i w], [i w, d]], a = -nu k^2, d = -eta k^2 (complex amplitudes of
    // exp(i k.x)); exp(M t) = exp(s t) (cosh(q t) I + sinh(q t) / q (M - s I)), q^2 = ((a - d)/2)^2 - w^2.
    using Z = std::complex<double>;
    const double a = -nu * k2, d = -eta * k2, s = (a + d) / 2;
    const Z q = std::sqrt(Z((a - d) * (a - d) / 4 - omega * omega, 0));
    const Z iw(0, omega);
    auto exact = [&](double t, double phase) {
      const Z ch = std::cosh(q * t), sh = std::sinh(q * t) / q, growth = std::exp(s * t);
      const Z u = growth * ((ch + sh * (a - s)) * u_amplitude + sh * iw * b_amplitude);
      const Z b = growth * (sh * iw * u_amplitude + (ch + sh * (d - s)) * b_amplitude);
      const Z wave = std::exp(Z(0, phase));
      std::array<double, 6> out{};
      for (int i = 0; i < 3; ++i) {
        out[i] = (u * wave).real() * e[i];
        out[3 + i] = (b * wave).real() * e[i];
      }
      return out;
    };
    if (eta == nu) {
      // The Elsasser form of the same solution: z+- = z+-(0) cos(k.x +- w t) exp(-nu k^2 t), i.e. z+ travels
      // along -B0 and z- along +B0 at the Alfven speed.
      const double t = 0.37, phase = 0.8;
      const auto q = exact(t, phase);
      const double decay = std::exp(-nu * k2 * t);
      const double z_plus = (u_amplitude + b_amplitude) * std::cos(phase + omega * t) * decay;
      const double z_minus = (u_amplitude - b_amplitude) * std::cos(phase - omega * t) * decay;
      CHECK(q[0] + q[3] == Approx(z_plus * e[0]).margin(1e-14));
      CHECK(q[0] - q[3] == Approx(z_minus * e[0]).margin(1e-14));
    }
    const double periods = 3.3, end_time = periods * kTwoPi / omega;
    for (const OrderCase& c : kOrderCases) {
      const auto parameters = mhd(nu, eta, background, c.integrator);
      const int steps = static_cast<int>(std::ceil(omega * end_time / c.coarse_step));
      const auto coarse = run_wave(parameters, u0, b0, steps, end_time, exact);
      const auto fine = run_wave(parameters, u0, b0, 2 * steps, end_time, exact);
      const double observed = std::log2(coarse.field_error / fine.field_error);
      INFO("eta " << eta << ", integrator " << to_string(c.integrator) << ": " << steps << " and "
                  << 2 * steps << " steps: errors " << coarse.field_error << ", " << fine.field_error
                  << ", observed order " << observed << "; outside the mode " << fine.outside_error);
      CHECK(observed == Approx(c.order).margin(0.3));
      CHECK(fine.field_error < 0.05);
      CHECK(fine.outside_error < 1e-13);
      if (c.integrator != Integrator::rk4) continue;
      // Over all ranks, a few steps: the same error as alone.
      const double span = 4 * end_time / steps;
      const auto alone = run_wave(parameters, u0, b0, 4, span, exact);
      const auto distributed = run_wave(parameters, u0, b0, 4, span, exact, MPI_COMM_WORLD);
      CHECK(std::fabs(distributed.field_error - alone.field_error) < 1e-13);
      CHECK(distributed.outside_error < 1e-13);
    }
  }
}

TEST_CASE(
    "a nonlinear Alfven wave of many modes, u = +-b, travels along -+B0 unchanged; the error falls at the "
    "integrator's order",
    "[solver]") {
  // With u = b (z- = u - b = 0) the nonlinear terms vanish whatever the shape of the field: with B = B0 + b,
  // u u - B B = -(B0 b + b B0 + B0 B0) and u x B = u x B0 are linear, so z+ = u + b obeys
  // dz+/dt = (B0.grad) z+ + nu lap z+ (nu = eta): it travels along -B0 unchanged, z+^(k, t) = z+^(k, 0)
  // exp(i k.B0 t - nu k^2 t), and u = -b travels along +B0 (the Elsasser solutions of any amplitude). Unlike
  // the single mode above, a field on every kept mode has (u.grad) u and (b.grad) b of order one, which must
  // cancel: a wrong factor or sign in either part of the stress or in E = u x B makes the field leave the
  // solution at once. Each mode's linear coupling i (k.B0) is explicit: the error falls as dt^p.
  const Vec background{0.3, -0.2, 1.1};
  const double nu = 0.01;
  // The fastest mode's k.B0 over the kept modes of {10, 8, 8} (|n| <= 3, 2, 2): 3 0.3 + 2 0.2 + 2 1.1.
  const double fastest = 3.5, end_time = 1.3 * kTwoPi / fastest;
  struct Result {
    double error;      // max over modes of |q - exact| / max |u(0)|, q = u, b
    double other;      // max |u -+ b| / max |u(0)|: the other Elsasser field, zero exactly
    double nonlinear;  // max |P [-(u.grad) u]| at t = 0 over max |u(0)|: what has to cancel
  };
  auto run = [&](Integrator integrator, double sign, int steps, double span, MPI_Comm comm) {
    auto flow = testing::make_flow<double>(kGrid, mhd(nu, nu, background, integrator), comm);
    set_random_isotropic(*flow, 0.5, 20.0, 91);
    std::vector<double> u, v, w;
    flow->velocity_to_host(u, v, w);
    for (auto* slab : {&u, &v, &w})
      for (double& value : *slab) value *= sign;
    flow->set_magnetic(u, v, w);
    const auto u0 = testing::host_copy(*flow, flow->velocity()),
               b0 = testing::host_copy(*flow, flow->magnetic_field());
    const double scale = testing::max_magnitude(u0, comm);
    // The advection alone, without the magnetic terms that cancel it: a flow of the same u without b.
    FlowParameters plain;
    auto alone = testing::make_flow<double>(kGrid, plain, comm);
    set_random_isotropic(*alone, 0.5, 20.0, 91);
    const double nonlinear =
        testing::max_magnitude(testing::host_copy(*alone, alone->nonlinear_term()), comm);
    for (int s = 0; s < steps; ++s) flow->step(span / steps);
    const auto u1 = testing::host_copy(*flow, flow->velocity()),
               b1 = testing::host_copy(*flow, flow->magnetic_field());
    const auto& wavenumbers = flow->wavenumbers();
    const double t = flow->time();
    double error = 0, other = 0;
    for (long m = 0; m < wavenumbers.size(); ++m) {
      const auto k = wavenumbers.k(wavenumbers.mode(m));
      const double along = k.x * background[0] + k.y * background[1] + k.z * background[2];
      const std::complex<double> factor =
          std::exp(std::complex<double>(-nu * k.norm2() * t, sign * along * t));
      for (int d = 0; d < 3; ++d) {
        const std::complex<double> ui(u1[d][m].re, u1[d][m].im), bi(b1[d][m].re, b1[d][m].im);
        const std::complex<double> u_exact = factor * std::complex<double>(u0[d][m].re, u0[d][m].im);
        const std::complex<double> b_exact = factor * std::complex<double>(b0[d][m].re, b0[d][m].im);
        error = testing::worse(error, std::max(std::abs(ui - u_exact), std::abs(bi - b_exact)));
        other = testing::worse(other, std::abs(ui - sign * bi));
      }
    }
    return Result{testing::global_max(error, comm) / scale, testing::global_max(other, comm) / scale,
                  nonlinear / scale};
  };
  for (const double sign : {1.0, -1.0}) {
    for (const OrderCase& c : kOrderCases) {
      const int steps = static_cast<int>(std::ceil(fastest * end_time / c.coarse_step));
      const Result coarse = run(c.integrator, sign, steps, end_time, MPI_COMM_SELF);
      const Result fine = run(c.integrator, sign, 2 * steps, end_time, MPI_COMM_SELF);
      const double observed = std::log2(coarse.error / fine.error);
      INFO((sign > 0 ? "u = b" : "u = -b")
           << ", integrator " << to_string(c.integrator) << ": " << steps << " and " << 2 * steps
           << " steps: errors " << coarse.error << ", " << fine.error << ", observed order " << observed
           << "; other field " << fine.other << "; advection alone " << fine.nonlinear);
      CHECK(fine.nonlinear > 0.5);
      CHECK(observed == Approx(c.order).margin(0.3));
      CHECK(fine.error < 0.05);
      CHECK(fine.other < 1e-13);
      if (c.integrator != Integrator::rk4) continue;
      // Over all ranks, a few steps: the same error as alone.
      const double span = 4 * end_time / steps;
      const Result alone = run(c.integrator, sign, 4, span, MPI_COMM_SELF);
      const Result distributed = run(c.integrator, sign, 4, span, MPI_COMM_WORLD);
      CHECK(std::fabs(distributed.error - alone.error) < 1e-13);
      CHECK(distributed.other < 1e-13);
    }
  }
}

TEST_CASE("without B0 a single mode of u and b decays exactly as exp(-nu k^2 t) and exp(-eta k^2 t)",
          "[solver]") {
  // u and b along different directions normal to k: u x b is along k, and still nothing leaves the mode.
  const double nu = 0.03, eta = 0.07, k2 = dot(kWave, kWave);
  const Vec e1 = unit(cross(kWave, {0, 0, 1})), e2 = unit(cross(kWave, e1));
  const Vec u0{0.9 * e1[0], 0.9 * e1[1], 0.9 * e1[2]};
  const Vec b0{0.6 * e2[0] + 0.2 * e1[0], 0.6 * e2[1] + 0.2 * e1[1], 0.6 * e2[2] + 0.2 * e1[2]};
  auto exact = [&](double t, double phase) {
    std::array<double, 6> out{};
    for (int i = 0; i < 3; ++i) {
      out[i] = u0[i] * std::cos(phase) * std::exp(-nu * k2 * t);
      out[3 + i] = b0[i] * std::cos(phase) * std::exp(-eta * k2 * t);
    }
    return out;
  };
  for (const OrderCase& c : kOrderCases) {
    INFO("integrator " << to_string(c.integrator));
    const auto error = run_wave(mhd(nu, eta, {0, 0, 0}, c.integrator), u0, b0, 7, 1.3, exact, MPI_COMM_WORLD);
    CHECK(error.field_error < 1e-13);
    CHECK(error.outside_error < 1e-13);
  }
}

TEST_CASE("ideal MHD: energy, cross helicity and magnetic helicity drift falls at the integrator's order",
          "[solver]") {
  // Random u and b on 16^3, nu = eta = 0. Without B0 all three are invariants of the truncated equations;
  // with B0 energy and cross helicity stay invariants (B0 does no work and conserves <u.b>).
  for (const Vec background : {Vec{0, 0, 0}, Vec{0.4, 0, 0.7}}) {
    const bool with_b0 = background[0] != 0;
    INFO((with_b0 ? "with B0" : "without B0"));
    const double end_time = 0.3;
    auto run = [&](Integrator integrator, int steps) {
      auto flow = testing::make_flow<double>({16, 16, 16}, mhd(0, 0, background, integrator), MPI_COMM_SELF);
      set_random_isotropic(*flow, 0.5, 3.0, 51);
      set_random_isotropic(*flow, 0.4, 3.0, 52, SpectrumShape::k4_exp, VectorField::magnetic);
      const auto start = compute_diagnostics(*flow);
      for (int s = 0; s < steps; ++s) flow->step(end_time / steps);
      const auto end = compute_diagnostics(*flow);
      // Energy did move between u and b: the invariants are not each field's.
      CHECK(std::fabs(end.magnetic.energy - start.magnetic.energy) > 1e-3 * start.magnetic.energy);
      return std::array<double, 4>{start.energy + start.magnetic.energy, end.energy + end.magnetic.energy,
                                   start.magnetic.cross_helicity - end.magnetic.cross_helicity,
                                   start.magnetic.magnetic_helicity - end.magnetic.magnetic_helicity};
    };
    SECTION("energy") {
      testing::check_drift_falls_at_order(
          [&](Integrator i, int steps) {
            const auto r = run(i, steps);
            return std::fabs(r[1] - r[0]) / r[0];
          },
          1e-5);
    }
    SECTION("cross helicity") {
      // Relative to the energy: <u.b> of independent random fields is small.
      testing::check_drift_falls_at_order(
          [&](Integrator i, int steps) {
            const auto r = run(i, steps);
            return std::fabs(r[2]) / r[0];
          },
          1e-5);
    }
    if (!with_b0) {
      SECTION("magnetic helicity") {
        testing::check_drift_falls_at_order(
            [&](Integrator i, int steps) {
              const auto r = run(i, steps);
              return std::fabs(r[3]) / r[0];
            },
            1e-5);
      }
    }
  }
}

TEST_CASE("the MHD energy budget closes: dE/dt = injections - nu <|omega|^2> - eta <|j|^2>", "[solver]") {
  // Band forcing of u joins the stress T (Forcing.hpp, add_captured_as_stress), linear forcing the stage
  // update from the copy of u (StageFields.hpp), band forcing of b the electric field as a curl
  // (add_captured_as_curl): each injection must come out exactly, its power, from every stage's input.
  struct Case {
    const char* name;
    ForcingParameters u, b;
  };
  const ForcingParameters linear{ForcingKind::linear, 0.3, 0, 0, 0}, band{ForcingKind::band, 0.3, 1, 2.5, 0},
      band_b{ForcingKind::band, 0.2, 1, 2.5, 0};
  for (const Case& c : {Case{"decaying", {}, {}}, Case{"band u", band, {}}, Case{"linear u", linear, {}},
                        Case{"band u, band b", band, band_b}, Case{"linear u, band b", linear, band_b}}) {
    for (const Integrator integrator : {Integrator::rk4, Integrator::lsrk3}) {
      INFO(c.name << ", " << to_string(integrator));
      auto parameters = mhd(0.03, 0.05, {0, 0.5, 0}, integrator);
      parameters.forcing = c.u;
      parameters.magnetic.forcing = c.b;
      testing::Flow<double> kept;  // the last of the budget's flows, for the checks below
      testing::check_budget_closes(
          [&](double h) {
            auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
            set_random_isotropic(*flow, 0.5, 3.0, 61);
            set_random_isotropic(*flow, 0.5, 2.0, 62, SpectrumShape::k4_exp, VectorField::magnetic);
            auto total = [&] {
              const auto d = compute_diagnostics(*flow);
              return d.energy + d.magnetic.energy;
            };
            const double before = total();
            flow->step(h);
            const auto middle = compute_diagnostics(*flow);
            flow->step(h);
            CHECK(middle.magnetic.dissipation > 0.3 * middle.dissipation);
            CHECK(middle.injection == Approx(c.u.kind == ForcingKind::none ? 0.0 : 0.3).epsilon(1e-12));
            CHECK(middle.magnetic.injection ==
                  Approx(c.b.kind == ForcingKind::none ? 0.0 : 0.2).epsilon(1e-12));
            const double residual =
                (total() - before) / (2 * h) - (middle.injection + middle.magnetic.injection -
                                                middle.dissipation - middle.magnetic.dissipation);
            kept = std::move(flow);
            return residual;
          },
          0.004);
      auto& flow = kept;
      // b stays divergence-free: the projection of each stage keeps it so.
      double divergence = 0;
      const auto b = testing::host_copy(*flow, flow->magnetic_field());
      const auto& w = flow->wavenumbers();
      for (long m = 0; m < w.size(); ++m) {
        const auto k = w.k(w.mode(m));
        divergence =
            testing::worse(divergence, std::sqrt(norm2(k.x * b[0][m] + k.y * b[1][m] + k.z * b[2][m])));
      }
      CHECK(global_max(divergence) < 1e-13);
    }
  }
}

TEST_CASE("MHD diagnostics: closed forms of Beltrami, single-mode and Orszag-Tang fields", "[solver]") {
  auto flow = testing::make_flow<double>({16, 12, 10}, mhd(0.01, 0.02));
  SECTION("ABC b of wavenumber n: curl b = n b, so a = b / n and <a.b> = 2 E_b / n; u = b: <u.b> = 2 E") {
    const int n = 2;
    set_abc(*flow, 1.0, 0.7, 0.4, n);
    set_abc(*flow, 1.0, 0.7, 0.4, n, VectorField::magnetic);
    const auto d = compute_diagnostics(*flow);
    const double e_b = 0.5 * (1.0 + 0.49 + 0.16);  // 1/2 <|b|^2> = (A^2 + B^2 + C^2) / 2
    CHECK(d.magnetic.energy == Approx(e_b).epsilon(1e-13));
    CHECK(d.magnetic.magnetic_helicity == Approx(2 * e_b / n).epsilon(1e-13));
    CHECK(d.magnetic.cross_helicity == Approx(2 * e_b).epsilon(1e-13));
    CHECK(d.magnetic.dissipation == Approx(0.02 * n * n * 2 * e_b).epsilon(1e-13));
    // |j| = n |b| pointwise: the magnetic enstrophy 1/2 <|j|^2> is n^2 E_b.
    CHECK(d.magnetic.enstrophy == Approx(n * n * e_b).epsilon(1e-13));
  }
  SECTION("b = B e cos(k.x): max |j| = B |k|") {
    const Vec k{1, 2, 1}, e = unit(cross(k, {0, 0, 1}));
    auto slab = [&](int d) {
      return testing::slab_of(*flow, [&](double x, double y, double z) {
        return 0.8 * e[d] * std::cos(k[0] * x + k[1] * y + k[2] * z);
      });
    };
    flow->set_magnetic(slab(0), slab(1), slab(2));
    // The grid reaches the crest of sin(k.x) exactly (k.x = pi/2 at a grid point).
    CHECK(max_current(*flow) == Approx(0.8 * std::sqrt(dot(k, k))).epsilon(1e-12));
  }
  SECTION("Orszag-Tang: E_u = 2 A^2, E_b = 3 B^2, <u.b> = 2 A B at t = 0") {
    set_orszag_tang(*flow, 1.0, VectorField::velocity);
    set_orszag_tang(*flow, 0.8, VectorField::magnetic);
    const auto d = compute_diagnostics(*flow);
    CHECK(d.energy == Approx(2.0).epsilon(1e-13));
    CHECK(d.magnetic.energy == Approx(1.92).epsilon(1e-13));
    // <u.b> = 0.8 <-2 sin y (-2 sin 2y + sin z) + 2 sin x (2 sin x + sin z)> = 0.8 * 2 = 1.6.
    CHECK(d.magnetic.cross_helicity == Approx(1.6).epsilon(1e-13));
  }
}

TEST_CASE("the conducting Taylor-Green b (Pouquet et al. 2010, run C2) is the formula, in any box",
          "[solver]") {
  // b = B (sin 2X cos 2Y cos 2Z, cos 2X sin 2Y cos 2Z, C cos 2X cos 2Y sin 2Z), X = 2 pi x / Lx etc., with
  // C = -(Lz/Lx + Lz/Ly) B: divergence-free, so the projection must leave the grid values equal to the
  // formula (a wrong C fails here). Every mode has |k|^2 = 4 (kx^2 + ky^2 + kz^2) (kx = 2 pi / Lx ...), so
  // 1/2 <|j|^2> = |k|^2 E_b, E_b = (2 B^2 + C^2) / 16, and <u.b> = 0 against the Taylor-Green u (other
  // modes). In the 2 pi cube with B = 1/sqrt 3 and the unit u these are C2's E_u = E_b = 1/8,
  // Omega_u = 3/8 and Omega_b = 3/2 at t = 0.
  const double amplitude = 1 / std::sqrt(3.0);
  for (const Box& box : {Box{}, Box{2 * kTwoPi, kTwoPi, 0.5 * kTwoPi}}) {
    INFO("box " << box.lx << " x " << box.ly << " x " << box.lz);
    auto parameters = mhd(0.001, 0.001);
    parameters.box = box;
    auto flow = testing::make_flow<double>({16, 12, 10}, parameters);
    set_taylor_green(*flow, 1.0);
    set_taylor_green_conducting(*flow, amplitude);
    const double c = -amplitude * (box.lz / box.lx + box.lz / box.ly);
    std::vector<double> x, y, z;
    flow->magnetic_to_host(x, y, z);
    const auto& points = flow->points();
    double error = 0;
    for (long p = 0; p < points.size(); ++p) {
      const Mode g = points.index(p);
      const double a = 2 * kTwoPi * g.x / points.nx, b = 2 * kTwoPi * g.y / points.ny,
                   d = 2 * kTwoPi * g.z / points.nz;
      error = testing::worse(error, std::fabs(x[p] - amplitude * std::sin(a) * std::cos(b) * std::cos(d)));
      error = testing::worse(error, std::fabs(y[p] - amplitude * std::cos(a) * std::sin(b) * std::cos(d)));
      error = testing::worse(error, std::fabs(z[p] - c * std::cos(a) * std::cos(b) * std::sin(d)));
    }
    CHECK(global_max(error) < 1e-14);
    const auto diagnostics = compute_diagnostics(*flow);
    const double kx = kTwoPi / box.lx, ky = kTwoPi / box.ly, kz = kTwoPi / box.lz;
    const double e_b = (2 * amplitude * amplitude + c * c) / 16;
    CHECK(diagnostics.magnetic.energy == Approx(e_b).epsilon(1e-14));
    CHECK(diagnostics.magnetic.enstrophy == Approx(4 * (kx * kx + ky * ky + kz * kz) * e_b).epsilon(1e-14));
    CHECK(diagnostics.magnetic.dissipation ==
          Approx(2 * 0.001 * diagnostics.magnetic.enstrophy).epsilon(1e-14));
    CHECK(std::fabs(diagnostics.magnetic.cross_helicity) < 1e-15);
    if (box.lx == kTwoPi && box.ly == kTwoPi && box.lz == kTwoPi) {
      CHECK(diagnostics.energy == Approx(0.125).epsilon(1e-14));
      CHECK(diagnostics.magnetic.energy == Approx(0.125).epsilon(1e-14));
      CHECK(diagnostics.enstrophy == Approx(0.375).epsilon(1e-14));
      CHECK(diagnostics.magnetic.enstrophy == Approx(1.5).epsilon(1e-14));
    }
  }
  auto plain = testing::make_flow<double>({8, 8, 8}, FlowParameters{});
  CHECK(testing::error_message([&] { set_taylor_green_conducting(*plain, 1.0); }).find("no magnetic field") !=
        std::string::npos);
}

TEST_CASE("MHD: bad parameters give one line naming them", "[solver]") {
  auto message = [](const FlowParameters& p) {
    return testing::error_message([&] { testing::make_flow<double>({8, 8, 8}, p); });
  };
  CHECK(message(mhd(0.01, -1)).find("resistivity") != std::string::npos);
  CHECK(message(mhd(0.01, 0.01, {0, NAN, 0})).find("B0") != std::string::npos);
  auto plain = testing::make_flow<double>({8, 8, 8}, FlowParameters{});
  CHECK(testing::error_message([&] {
          set_orszag_tang(*plain, 0.8, VectorField::magnetic);
        }).find("no magnetic field") != std::string::npos);
}

TEST_CASE("MHD runs in its divergence form with every integrator: 14 transforms a stage, 14 or 20 slabs",
          "[solver]") {
  // Whatever form is asked for (solver::nonlinear_form_used): u and b to real space, T and E back.
  const std::array<long, 3> n{16, 16, 16};
  for (auto form : {NonlinearForm::divergence, NonlinearForm::rotational}) {
    for (auto integrator :
         {Integrator::rk2, Integrator::rk3, Integrator::rk4, Integrator::lsrk3, Integrator::lsrk4}) {
      auto parameters = mhd(0.01, 0.02, {0, 0, 0.5}, integrator);
      parameters.nonlinear_form = form;
      auto flow = testing::make_flow<double>(n, parameters);
      INFO(to_string(form) << " form asked, " << to_string(integrator));
      CHECK(flow->nonlinear_form() == NonlinearForm::divergence);
      CHECK(flow->backward_transforms_per_stage() == 6);
      CHECK(flow->forward_transforms_per_stage() == 8);
      // velocity 3, stage input 3, T_xz and T_yz 2, b 3, b's stage 3; accumulators 3 + 3 (rk3, rk4)
      const bool accumulate = integrator == Integrator::rk3 || integrator == Integrator::rk4;
      const std::size_t slab = flow.fft->layout().alloc_complex() * sizeof(Complex<double>);
      CHECK(flow->bytes_held() == (accumulate ? 20 : 14) * slab + flow.fft->workspace_bytes());
    }
  }
}
