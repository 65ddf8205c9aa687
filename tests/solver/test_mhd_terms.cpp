// MHD with the terms its divergence form applies from a spectral copy of u (Coriolis, linear forcing) or in
// its stage update (buoyancy), with band forcing of b, and its pressure: agreement with the Navier-Stokes
// solver when b = 0, the pressure of magnetostatic fields in closed form, memory and errors. (The budgets
// with these forcings, whose injections are known exactly, are test_mhd.cpp's.)
//
// Why b = 0 is a comparison with an independent code path: with b = B0 = 0 the induction equation keeps b = 0
// exactly (E = u x B = 0), and MHD's stress is the divergence form's u u, so an MHD run is the Navier-Stokes
// run, but computed by other kernels: Coriolis and the linear forcing in the MHD stage update from the copy
// of u, against the rotational form's real-space pass (u x (omega + 2 Omega) + a u). Both are exact on the
// kept modes, so the runs agree to round-off.
#include <catch2/catch.hpp>
#include <cmath>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::global_max;

namespace {

FlowParameters mhd(double nu, double eta, std::array<double, 3> background = {0, 0, 0},
                   Integrator integrator = Integrator::rk4) {
  return testing::mhd_parameters(nu, eta, background, integrator);
}

double relative_difference(const testing::HostField<double>& a, const testing::HostField<double>& b) {
  return testing::max_difference(a, b) / testing::max_magnitude(b);
}

// max over points and ranks of |p - expected(x, y, z)|.
template <class Expected>
double pressure_error(NavierStokes<double>& flow, Expected expected) {
  std::vector<double> p;
  flow.pressure_to_host(p);
  const auto& points = flow.points();
  double error = 0;
  for (long i = 0; i < points.size(); ++i) {
    const Mode g = points.index(i);
    error =
        testing::worse(error, std::fabs(p[i] - expected(g.x * points.dx, g.y * points.dy, g.z * points.dz)));
  }
  return global_max(error);
}

}  // namespace

TEST_CASE("with b = 0, MHD with rotation and linear forcing runs as the Navier-Stokes solver to round-off",
          "[solver]") {
  const std::array<double, 3> omega{0.3, -0.2, 1.1};
  for (const Integrator integrator : {Integrator::rk3, Integrator::rk4, Integrator::lsrk4}) {
    INFO(to_string(integrator));
    auto run = [&](bool magnetic, bool rotation) {
      FlowParameters parameters = magnetic ? mhd(0.02, 0.03, {0, 0, 0}, integrator) : FlowParameters{};
      parameters.viscosity = 0.02;
      parameters.integrator = integrator;
      parameters.forcing = {ForcingKind::linear, 0.4, 0, 0, 0};
      if (rotation) parameters.terms.push_back(coriolis(omega));
      auto flow = testing::make_flow<double>({16, 12, 16}, parameters);
      set_random_isotropic(*flow, 0.5, 3.0, 21);
      for (int s = 0; s < 6; ++s) flow->step(0.02);
      if (magnetic) CHECK(testing::max_magnitude(testing::host_copy(*flow, flow->magnetic_field())) == 0);
      return testing::host_copy(*flow, flow->velocity());
    };
    const auto navier_stokes = run(false, true);
    CHECK(relative_difference(run(true, true), navier_stokes) < 1e-12);
    // The rotation matters at this size: without it the runs differ by far more than round-off.
    CHECK(relative_difference(run(true, false), navier_stokes) > 1e-3);
  }
}

TEST_CASE("with b = 0, MHD with a Boussinesq buoyancy and a passive scalar runs as the Navier-Stokes solver",
          "[solver]") {
  // The scalars' advection and mean gradients join MHD's real-space pass and the buoyancy its own stage
  // update (magnetic_velocity_rhs), not the Navier-Stokes divergence form's: with b = 0 both must give the
  // same u, theta and buoyancy to round-off. Oblique up and G, so that no component is left out.
  const Integrator integrator = Integrator::rk4;
  auto run = [&](bool magnetic, double buoyancy_variance) {
    FlowParameters parameters = magnetic ? mhd(0.02, 0.03, {0, 0, 0}, integrator) : FlowParameters{};
    parameters.viscosity = 0.02;
    parameters.integrator = integrator;
    parameters.scalars.push_back({"theta", 0.03});
    parameters.terms.push_back(mean_gradient(0, {0.4, -0.2, 1}));
    add_boussinesq(parameters, 2.0, 0.7, {0.3, -0.5, 1});
    auto flow = testing::make_flow<double>({16, 12, 16}, parameters);
    set_random_isotropic(*flow, 0.5, 3.0, 21);
    set_random_scalar(*flow, 0, 0.3, 3.0, 22);
    set_random_scalar(*flow, 1, buoyancy_variance, 2.0, 23);
    for (int s = 0; s < 6; ++s) flow->step(0.02);
    if (magnetic) CHECK(testing::max_magnitude(testing::host_copy(*flow, flow->magnetic_field())) == 0);
    return std::array<testing::HostField<double>, 3>{testing::host_copy(*flow, flow->velocity()),
                                                     testing::host_copy(*flow, flow->scalar(0)),
                                                     testing::host_copy(*flow, flow->scalar(1))};
  };
  const auto navier_stokes = run(false, 0.5);
  const auto magnetic = run(true, 0.5);
  for (int f = 0; f < 3; ++f) {
    INFO("field " << f << " (u, theta, b)");
    CHECK(relative_difference(magnetic[f], navier_stokes[f]) < 1e-12);
  }
  // The buoyancy matters at this size: started without b, u differs by far more than round-off.
  CHECK(relative_difference(run(true, 1e-12)[0], navier_stokes[0]) > 1e-3);
}

TEST_CASE("MHD pressure: the fluid pressure of magnetostatic fields in closed form", "[solver]") {
  SECTION("ABC b, u = 0: j x b = 0, so p = 0 without B0 and p = -B0.b with it") {
    // j = n b for an ABC field of wavenumber n: j x B = n b x B0, whose divergence n B0.curl b = n^2 B0.b
    // is lap p; lap b = -n^2 b, so p = -B0.b. The tension div(b b) balances the magnetic pressure grad
    // |b|^2/2, neither of which is zero.
    const double a = 0.9, b = 0.6, c = 0.4;
    const int n = 2;
    for (const std::array<double, 3> b0 : {std::array<double, 3>{0, 0, 0}, {0.3, -0.5, 0.4}}) {
      INFO("B0 = " << b0[0] << ", " << b0[1] << ", " << b0[2]);
      auto flow = testing::make_flow<double>({16, 12, 10}, mhd(0.01, 0.02, b0));
      set_abc(*flow, a, b, c, n, VectorField::magnetic);
      // The ABC field of InitialConditions.hpp: (A sin nz + C cos ny, B sin nx + A cos nz, C sin ny + B cos
      // nx).
      const double error = pressure_error(*flow, [&](double x, double y, double z) {
        const double bx = a * std::sin(n * z) + c * std::cos(n * y),
                     by = b * std::sin(n * x) + a * std::cos(n * z),
                     bz = c * std::sin(n * y) + b * std::cos(n * x);
        return -(b0[0] * bx + b0[1] * by + b0[2] * bz);
      });
      CHECK(error < 1e-13);
    }
  }
  SECTION("b = beta cos y x^ with B0 = B0x x^, 2D Taylor-Green u and rotation: the parts add up") {
    // B = (B0x + beta cos y) x^ has no tension (B.grad B = 0), so -grad p + j x B = -grad(p + |B|^2/2) is a
    // gradient: p_b = -|B|^2/2 + const = -B0x beta cos y - beta^2 cos(2y)/4 with zero mean. The velocity's
    // part is test_waves' geostrophic one: a^2/4 (cos 2x + cos 2y) - 2 Omega a sin x sin y.
    const double beta = 0.7, b0x = 0.45, a = 1.3, omega = 0.6;
    auto parameters = mhd(0.01, 0.02, {b0x, 0, 0});
    parameters.terms.push_back(coriolis({0, 0, omega}));
    auto flow = testing::make_flow<double>({16, 12, 10}, parameters);
    set_taylor_green_2d(*flow, a);
    const auto bx = testing::slab_of(*flow, [&](double, double y, double) { return beta * std::cos(y); });
    const std::vector<double> zero(bx.size(), 0.0);
    flow->set_magnetic(bx, zero, zero);
    const double error = pressure_error(*flow, [&](double x, double y, double) {
      return a * a / 4 * (std::cos(2 * x) + std::cos(2 * y)) - 2 * omega * a * std::sin(x) * std::sin(y) -
             b0x * beta * std::cos(y) - beta * beta / 4 * std::cos(2 * y);
    });
    CHECK(error < 1e-13);
  }
}

TEST_CASE("MHD memory: the copy of u with rotation or linear forcing, b's band list with its forcing",
          "[solver]") {
  for (const Integrator integrator : {Integrator::rk4, Integrator::lsrk4}) {
    const bool accumulate = integrator == Integrator::rk4;
    auto parameters = mhd(0.01, 0.02, {0, 0, 0}, integrator);
    parameters.terms.push_back(coriolis({0, 0, 1}));
    parameters.magnetic.forcing = {ForcingKind::band, 0.1, 1, 2, 0};
    auto flow = testing::make_flow<double>({16, 16, 16}, parameters);
    const std::size_t slab = flow.fft->layout().alloc_complex() * sizeof(Complex<double>);
    CHECK(flow->bytes_held() ==
          (accumulate ? 23 : 17) * slab + flow.fft->workspace_bytes() + flow->magnetic_forcing().bytes());
  }
}

TEST_CASE("MHD forcing of b: bad parameters give one line naming them", "[solver]") {
  auto message = [](const FlowParameters& p) {
    return testing::error_message([&] { testing::make_flow<double>({8, 8, 8}, p); });
  };
  auto linear = mhd(0.01, 0.01);
  linear.magnetic.forcing = {ForcingKind::linear, 0.1, 0, 0, 0};
  CHECK(message(linear).find("magnetic forcing: only band") != std::string::npos);
  auto empty = mhd(0.01, 0.01);
  empty.magnetic.forcing = {ForcingKind::band, 0.1, 1.2, 1.3, 0};
  CHECK(message(empty).find("magnetic forcing band k_min = 1.2") != std::string::npos);
  FlowParameters plain;
  plain.magnetic.forcing = {ForcingKind::band, 0.1, 1, 2, 0};
  CHECK(message(plain).find("magnetic forcing without a magnetic field") != std::string::npos);
}
