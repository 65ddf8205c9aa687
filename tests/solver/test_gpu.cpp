// The CUDA backend against the host: the same steps, diagnostics, spectra, real-space outputs and Poisson
// solutions to round-off, with and without scalars, Boussinesq buoyancy and rotation, and MHD, plus the
// Taylor-Green exactness on the GPU. Skipped (on every rank) without a GPU.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>

#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/Poisson.hpp"
#include "solver/Spectrum.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::global_max;
using kolmo::testing::max_relative;

namespace {

double max_relative(const std::vector<double>& a, const std::vector<double>& b, double scale) {
  double difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference = testing::worse(difference, std::fabs(a[i] - b[i]));
  return difference / scale;
}

}  // namespace

// Pure Navier-Stokes and every field (a passive scalar with a mean gradient, a Boussinesq b, rotation) run
// different instantiations of the stage and real-space kernels: both, for every integrator.
TEMPLATE_TEST_CASE("GPU: steps, diagnostics, spectra and outputs equal the host's", "[solver][gpu]", float,
                   double) {
  auto gpu = testing::gpu_or_skip("solver on the GPU");
  if (!gpu) return;
  using Real = TestType;
  const double tolerance = std::is_same_v<Real, double> ? 1e-11 : 2e-4;
  struct Case {
    Integrator integrator;
    ForcingKind forcing;
    bool fields;
  };
  for (const Case& c :
       {Case{Integrator::rk2, ForcingKind::band, false}, Case{Integrator::rk3, ForcingKind::linear, false},
        Case{Integrator::rk4, ForcingKind::band, false}, Case{Integrator::rk2, ForcingKind::linear, true},
        Case{Integrator::rk3, ForcingKind::band, true}, Case{Integrator::rk4, ForcingKind::band, true}}) {
    INFO("integrator " << to_string(c.integrator) << ", forcing " << to_string(c.forcing)
                       << (c.fields ? ", scalar, buoyancy and rotation" : ""));
    FlowParameters parameters;
    parameters.viscosity = 0.02;
    parameters.integrator = c.integrator;
    parameters.forcing.kind = c.forcing;
    parameters.forcing.power = 0.2;
    parameters.forcing.k_min = 1;
    parameters.forcing.k_max = 2.5;
    if (c.fields) {
      parameters.scalars.push_back({"theta", 0.03});
      parameters.terms.push_back(mean_gradient(0, {0, 0.5, 1}));
      parameters.terms.push_back(coriolis({0.2, 0, 1.1}));
      add_boussinesq(parameters, 2.0, 0.7, {0, 0, 1});
    }
    const std::array<long, 3> n{32, 24, 20};
    auto host = testing::make_flow<Real>(n, parameters);
    auto device = testing::make_flow<Real>(n, parameters, MPI_COMM_WORLD, gpu);
    for (auto* flow : {&host, &device}) {
      set_random_isotropic(**flow, 0.5, 3.0, 77);
      for (int j = 0; j < (*flow)->scalar_count(); ++j) set_random_scalar(**flow, j, 0.4, 3.0, 78 + j);
      for (int s = 0; s < 3; ++s) (*flow)->step((*flow)->cfl_dt(0.5, 0.05));
    }
    CHECK(device->time() == Approx(host->time()).epsilon(tolerance));
    const auto host_velocity = testing::host_copy(*host, host->velocity());
    const double scale = testing::max_magnitude(host_velocity);
    CHECK(testing::max_difference(testing::host_copy(*device, device->velocity()), host_velocity) / scale <
          tolerance);

    const auto a = compute_diagnostics(*host), b = compute_diagnostics(*device);
    CHECK(b.energy == Approx(a.energy).epsilon(tolerance));
    CHECK(b.enstrophy == Approx(a.enstrophy).epsilon(tolerance));
    CHECK(b.injection == Approx(a.injection).epsilon(tolerance));
    CHECK(b.injection == Approx(0.2).epsilon(10 * testing::round_off<Real>()));
    CHECK(b.max_divergence < 10 * testing::round_off<Real>() * std::sqrt(2 * a.enstrophy));
    CHECK(b.re_lambda == Approx(a.re_lambda).epsilon(tolerance));

    const auto sa = compute_spectrum(*host), sb = compute_spectrum(*device);
    REQUIRE(sa.energy.size() == sb.energy.size());
    double transfer_scale = 0;
    for (double t : sa.transfer) transfer_scale += std::fabs(t);
    CHECK(max_relative(sb.energy, sa.energy, a.energy) < tolerance);
    CHECK(max_relative(sb.transfer, sa.transfer, transfer_scale) < tolerance);
    CHECK(std::fabs(sb.flux.back()) / transfer_scale < 10 * testing::round_off<Real>());

    std::vector<Real> u0, v0, w0, u1, v1, w1;
    host->vorticity_to_host(u0, v0, w0);
    device->vorticity_to_host(u1, v1, w1);
    CHECK(max_relative(u1, u0) < tolerance);
    CHECK(max_relative(w1, w0) < tolerance);
    host->pressure_to_host(u0);
    device->pressure_to_host(u1);
    CHECK(max_relative(u1, u0) < tolerance);
    host->velocity_to_host(u0, v0, w0);
    device->velocity_to_host(u1, v1, w1);
    CHECK(max_relative(v1, v0) < tolerance);
    device->set_velocity(u0, v0, w0);
    CHECK(testing::max_difference(testing::host_copy(*device, device->velocity()), host_velocity) / scale <
          tolerance);

    // The scalars: states, diagnostics, spectra, real-space slabs.
    CHECK(b.potential_energy == Approx(a.potential_energy).epsilon(tolerance));
    CHECK(b.buoyancy_flux == Approx(a.buoyancy_flux).epsilon(tolerance).margin(tolerance * a.energy));
    for (int j = 0; j < host->scalar_count(); ++j) {
      INFO("scalar " << host->scalar_name(j));
      const auto host_scalar = testing::host_copy(*host, host->scalar(j));
      CHECK(testing::max_difference(testing::host_copy(*device, device->scalar(j)), host_scalar) /
                testing::max_magnitude(host_scalar) <
            tolerance);
      CHECK(b.scalars[j].variance == Approx(a.scalars[j].variance).epsilon(tolerance));
      CHECK(b.scalars[j].dissipation == Approx(a.scalars[j].dissipation).epsilon(tolerance));
      CHECK(b.scalars[j].production == Approx(a.scalars[j].production).epsilon(tolerance).margin(tolerance));
      double scalar_transfer_scale = 0;
      for (double t : sa.scalars[j].transfer) scalar_transfer_scale += std::fabs(t);
      CHECK(max_relative(sb.scalars[j].variance, sa.scalars[j].variance, a.scalars[j].variance) < tolerance);
      CHECK(max_relative(sb.scalars[j].transfer, sa.scalars[j].transfer, scalar_transfer_scale) < tolerance);
      host->scalar_to_host(j, u0);
      device->scalar_to_host(j, u1);
      CHECK(max_relative(u1, u0) < tolerance);
      device->set_scalar(j, u0);
      CHECK(testing::max_difference(testing::host_copy(*device, device->scalar(j)), host_scalar) /
                testing::max_magnitude(host_scalar) <
            tolerance);
    }
  }
}

// The products between the row FFTs (solver/ProductsInRows.hpp, fft/RowProducts.cuh) against the host's
// real-space pass, an independent route (FFTW, real slabs): steps with cfl_dt's scan from the rows, the scan
// itself, the nonlinear term and the pressure, for every kind of flow the rows serve (the divergence form
// alone, with a passive scalar and its mean gradient, with a Boussinesq buoyancy; the rotational form by
// rotation and by the linear forcing; MHD with a background field; two scalars; rotating Boussinesq; MHD
// with a scalar), on grids whose rows take every row kernel length class (Nz 16 to 4096: one pass, radix 8
// only, radix 8 and 2, 8 and 4; the long rows of double precision spill), and on flows the rows do not serve
// (Nz = 24; three scalars), which the flag must report. On several ranks (sharing the GPU) the device's
// transforms exchange by p2p, so that they take the strided route, whose split runs the exchange between
// the x and y transforms, in the three lanes that p2p gets (the host's by MPI, in real slabs), the rank's own
// rows placed by the column FFTs and copied by the exchange in turn, and every third case by MPI, whose
// split moves the fused route's chunks (one lane); with 3 ranks the slabs are uneven and with 4 the Nx = 8
// grids leave each rank 2 x planes.
TEMPLATE_TEST_CASE("GPU: the products between the row FFTs equal the host's real-space pass", "[solver][gpu]",
                   float, double) {
  auto gpu = testing::gpu_or_skip("products between row FFTs");
  if (!gpu) return;
  using Real = TestType;
  fft::FftOptions options;
  // Less timed at construction (each lane's would be): one group; the cases take their exchange in turn.
  if (testing::world_size() > 1) options.plane_groups = 1;
  int case_index = 0;
  const double tolerance = std::is_same_v<Real, double> ? 1e-11 : 3e-4;
  enum class Physics {
    none,
    scalar,
    boussinesq,
    rotation,
    linear,
    mhd,
    two_scalars,
    rotating_boussinesq,
    mhd_scalar,
    three_scalars
  };
  const char* names[] = {
      "Navier-Stokes", "a passive scalar", "Boussinesq",          "rotation",         "linear forcing",
      "MHD",           "two scalars",      "rotating Boussinesq", "MHD and a scalar", "three scalars"};
  struct Case {
    std::array<long, 3> n;
    Integrator integrator;
    Physics physics;
    bool split;
  };
  for (const Case& c : {Case{{16, 8, 16}, Integrator::rk4, Physics::none, true},
                        Case{{8, 16, 32}, Integrator::rk2, Physics::scalar, true},
                        Case{{32, 16, 64}, Integrator::lsrk4, Physics::mhd, true},
                        Case{{16, 32, 128}, Integrator::rk3, Physics::rotation, true},
                        Case{{8, 8, 1024}, Integrator::rk4, Physics::boussinesq, true},
                        Case{{8, 8, 4096}, Integrator::rk2, Physics::none, true},
                        Case{{8, 16, 512}, Integrator::rk4, Physics::mhd, true},
                        Case{{16, 8, 256}, Integrator::rk4, Physics::linear, true},
                        Case{{16, 16, 32}, Integrator::rk4, Physics::two_scalars, true},
                        Case{{16, 8, 64}, Integrator::rk2, Physics::rotating_boussinesq, true},
                        Case{{8, 16, 128}, Integrator::rk4, Physics::mhd_scalar, true},
                        Case{{16, 16, 24}, Integrator::rk4, Physics::none, false},
                        Case{{16, 16, 32}, Integrator::rk4, Physics::three_scalars, false}}) {
    std::string route;
    if (testing::world_size() > 1) {
      // In turn: p2p with the own rows placed, p2p with them copied, MPI (the fused route's chunks).
      const int way = case_index++ % 3;
      options.exchange = way < 2 ? fft::ExchangeMethod::p2p : fft::ExchangeMethod::isend_irecv;
      options.strided_exchange = way < 2 ? fft::StridedExchange::always : fft::StridedExchange::never;
      options.own_rows = way == 0 ? fft::OwnRows::placed : fft::OwnRows::copied;
      route = way == 0   ? ", p2p, own rows placed"
              : way == 1 ? ", p2p, own rows copied"
                         : ", MPI, fused route";
    }
    INFO("grid " << c.n[0] << " x " << c.n[1] << " x " << c.n[2] << ", " << to_string(c.integrator) << ", "
                 << names[static_cast<int>(c.physics)] << route);
    FlowParameters parameters;
    parameters.viscosity = 0.02;
    parameters.integrator = c.integrator;
    parameters.forcing.kind = c.physics == Physics::linear ? ForcingKind::linear : ForcingKind::band;
    parameters.forcing.power = 0.2;
    parameters.forcing.k_min = 1;
    parameters.forcing.k_max = 2.5;
    const auto is = [&](std::initializer_list<Physics> any) {
      return std::find(any.begin(), any.end(), c.physics) != any.end();
    };
    if (is({Physics::scalar, Physics::two_scalars, Physics::mhd_scalar, Physics::three_scalars})) {
      parameters.scalars.push_back({"theta", 0.03});
      parameters.terms.push_back(mean_gradient(0, {0.3, 0.5, 1}));
    }
    if (is({Physics::two_scalars, Physics::three_scalars})) {
      parameters.scalars.push_back({"c", 0.01});
      parameters.terms.push_back(mean_gradient(1, {-0.7, 0.2, 0.1}));
    }
    if (c.physics == Physics::three_scalars) parameters.scalars.push_back({"d", 0.02});
    if (is({Physics::boussinesq, Physics::rotating_boussinesq}))
      add_boussinesq(parameters, 2.0, 0.7, {0, 0.6, 0.8});
    if (is({Physics::rotation, Physics::rotating_boussinesq}))
      parameters.terms.push_back(coriolis({0.2, 0, 1.1}));
    if (is({Physics::mhd, Physics::mhd_scalar})) parameters.magnetic = {true, 0.03, {0.2, -0.1, 0.4}};
    fft::FftOptions host_options;  // FFTW's estimated plans: the same transforms, no time measuring them
    host_options.fftw_planning = fft::FftwPlanning::estimate;
    auto host = testing::make_flow<Real>(c.n, parameters, MPI_COMM_WORLD, nullptr, host_options);
    auto device = testing::make_flow<Real>(c.n, parameters, MPI_COMM_WORLD, gpu, options);
    // Double precision keeps the real slabs for the rotational form and MHD with a scalar
    // (ProductsInRows.hpp).
    const bool nine_inputs = is({Physics::rotating_boussinesq, Physics::mhd_scalar});
    REQUIRE(device->products_between_rows() == (c.split && (std::is_same_v<Real, float> || !nine_inputs)));
    REQUIRE(!host->products_between_rows());
    for (auto* flow : {&host, &device}) {
      set_random_isotropic(**flow, 0.5, 3.0, 91);
      if (is({Physics::mhd, Physics::mhd_scalar}))
        set_random_isotropic(**flow, 0.3, 2.5, 92, SpectrumShape::k4_exp, VectorField::magnetic);
      for (int j = 0; j < (*flow)->scalar_count(); ++j) set_random_scalar(**flow, j, 0.4, 3.0, 93 + j);
      for (int s = 0; s < 3; ++s) (*flow)->step((*flow)->cfl_dt(0.5, 0.05));
    }
    const double host_dt = host->cfl_dt(0.5, 1e9), device_dt = device->cfl_dt(0.5, 1e9);
    CHECK(device_dt == Approx(host_dt).epsilon(tolerance));
    CHECK(device->velocity_scan().energy == Approx(host->velocity_scan().energy).epsilon(tolerance));
    CHECK(device->time() == Approx(host->time()).epsilon(tolerance));
    const auto host_velocity = testing::host_copy(*host, host->velocity());
    const double scale = testing::max_magnitude(host_velocity);
    CHECK(testing::max_difference(testing::host_copy(*device, device->velocity()), host_velocity) / scale <
          tolerance);
    for (int j = 0; j < host->scalar_count(); ++j) {
      const auto host_scalar = testing::host_copy(*host, host->scalar(j));
      CHECK(testing::max_difference(testing::host_copy(*device, device->scalar(j)), host_scalar) /
                testing::max_magnitude(host_scalar) <
            tolerance);
    }
    if (is({Physics::mhd, Physics::mhd_scalar})) {
      const auto host_b = testing::host_copy(*host, host->magnetic_field());
      CHECK(testing::max_difference(testing::host_copy(*device, device->magnetic_field()), host_b) /
                testing::max_magnitude(host_b) <
            tolerance);
    }
    const auto host_term = testing::host_copy(*host, host->nonlinear_term());
    CHECK(testing::max_difference(testing::host_copy(*device, device->nonlinear_term()), host_term) /
              testing::max_magnitude(host_term) <
          tolerance);
    std::vector<Real> p0, p1;
    host->pressure_to_host(p0);
    device->pressure_to_host(p1);
    CHECK(max_relative(p1, p0) < tolerance);
  }
}

TEMPLATE_TEST_CASE("GPU: the Taylor-Green mode decays exactly for every integrator", "[solver][gpu]", float,
                   double) {
  auto gpu = testing::gpu_or_skip("Taylor-Green on the GPU");
  if (!gpu) return;
  for (auto integrator : {Integrator::rk2, Integrator::rk3, Integrator::rk4}) {
    INFO("integrator " << to_string(integrator));
    FlowParameters parameters;
    parameters.viscosity = 0.1;
    parameters.integrator = integrator;
    auto flow = testing::make_flow<TestType>({16, 16, 8}, parameters, MPI_COMM_WORLD, gpu);
    set_taylor_green_2d(*flow, 1.0);
    const auto initial = testing::host_copy(*flow, flow->velocity());
    for (int s = 0; s < 3; ++s) flow->step(0.2);
    auto expected = initial;
    const double decay = std::exp(-2 * 0.1 * flow->time());
    for (auto& component : expected)
      for (auto& value : component) value = TestType(decay) * value;
    CHECK(testing::max_difference(testing::host_copy(*flow, flow->velocity()), expected) /
              testing::max_magnitude(initial) <
          10 * testing::round_off<TestType>());
  }
}

TEMPLATE_TEST_CASE("GPU: Poisson solutions and gradients equal the host's", "[solver][gpu]", float, double) {
  auto gpu = testing::gpu_or_skip("Poisson on the GPU");
  if (!gpu) return;
  const std::array<long, 3> n{24, 20, 18};
  fft::SlabFFT<TestType> host_fft(n, MPI_COMM_WORLD, Device::create(Backend::host));
  fft::SlabFFT<TestType> gpu_fft(n, MPI_COMM_WORLD, gpu);
  const Box box{kTwoPi, 2 * kTwoPi, kTwoPi};
  Poisson<TestType> host(host_fft, box), device(gpu_fft, box);
  const auto points = SlabPoints::make(host_fft.layout(), box);
  std::vector<TestType> f(points.size());
  for (long p = 0; p < points.size(); ++p) {
    const Mode g = points.index(p);
    f[p] = TestType(std::sin(0.3 * g.x * g.y + g.z) - std::cos(kTwoPi * g.x / n[0]));
  }
  double mean = 0;
  for (auto value : f) mean += value;
  mean = testing::global_sum(mean) / double(n[0] * n[1] * n[2]);
  for (auto& value : f) value = TestType(value - mean);
  const double tolerance = std::is_same_v<TestType, double> ? 1e-12 : 1e-4;
  for (double lambda : {0.0, 3.0}) {
    std::vector<TestType> a, b, ax, ay, az, bx, by, bz;
    host.solve(f, a, lambda);
    device.solve(f, b, lambda);
    host.gradient(ax, ay, az);
    device.gradient(bx, by, bz);
    CHECK(max_relative(b, a) < tolerance);
    CHECK(max_relative(bx, ax) < tolerance);
    CHECK(max_relative(by, ay) < tolerance);
    CHECK(max_relative(bz, az) < tolerance);
  }
}

// MHD runs its own instantiations of the stage and real-space kernels (with and without a scalar) and the
// forcing's stress: both, for every integrator; and the terms its update applies from the copy of u
// (rotation, linear forcing), b's band forcing and the pressure.
TEMPLATE_TEST_CASE("GPU: MHD steps, diagnostics, spectra and b equal the host's", "[solver][gpu]", float,
                   double) {
  auto gpu = testing::gpu_or_skip("MHD on the GPU");
  if (!gpu) return;
  using Real = TestType;
  const double tolerance = std::is_same_v<Real, double> ? 1e-11 : 2e-4;
  for (auto integrator : {Integrator::rk2, Integrator::rk3, Integrator::rk4}) {
    for (const int variant : {0, 1, 2}) {
      const bool scalar = variant == 1, terms = variant == 2;
      INFO("integrator " << to_string(integrator) << (scalar ? ", with a buoyancy" : "")
                         << (terms ? ", rotation, linear forcing, forcing of b" : ""));
      FlowParameters parameters;
      parameters.viscosity = 0.02;
      parameters.integrator = integrator;
      parameters.forcing = {ForcingKind::band, 0.2, 1, 2.5, 0};
      parameters.magnetic = {true, 0.03, {0, 0.4, 0.7}, {}};
      if (scalar) add_boussinesq(parameters, 2.0, 0.7, {0, 0, 1});
      if (terms) {
        parameters.forcing = {ForcingKind::linear, 0.2, 0, 0, 0};
        parameters.terms.push_back(coriolis({0.2, 0, 1}));
        parameters.magnetic.forcing = {ForcingKind::band, 0.1, 1, 2.5, 0};
      }
      const std::array<long, 3> n{32, 24, 20};
      auto host = testing::make_flow<Real>(n, parameters);
      auto device = testing::make_flow<Real>(n, parameters, MPI_COMM_WORLD, gpu);
      for (auto* flow : {&host, &device}) {
        set_random_isotropic(**flow, 0.5, 3.0, 77);
        set_random_isotropic(**flow, 0.4, 3.0, 79, SpectrumShape::k4_exp, VectorField::magnetic);
        for (int j = 0; j < (*flow)->scalar_count(); ++j) set_random_scalar(**flow, j, 0.4, 3.0, 78 + j);
        for (int s = 0; s < 3; ++s) (*flow)->step((*flow)->cfl_dt(0.5, 0.05));
      }
      CHECK(device->time() == Approx(host->time()).epsilon(tolerance));
      for (auto field : {0, 1}) {
        const auto& h = field == 0 ? std::as_const(*host).velocity() : std::as_const(*host).magnetic_field();
        const auto& d =
            field == 0 ? std::as_const(*device).velocity() : std::as_const(*device).magnetic_field();
        const auto expected = testing::host_copy(*host, h);
        CHECK(testing::max_difference(testing::host_copy(*device, d), expected) /
                  testing::max_magnitude(expected) <
              tolerance);
      }
      const auto a = compute_diagnostics(*host), b = compute_diagnostics(*device);
      CHECK(b.magnetic.energy == Approx(a.magnetic.energy).epsilon(tolerance));
      CHECK(b.magnetic.dissipation == Approx(a.magnetic.dissipation).epsilon(tolerance));
      CHECK(b.magnetic.enstrophy == Approx(a.magnetic.enstrophy).epsilon(tolerance));
      CHECK(b.magnetic.cross_helicity ==
            Approx(a.magnetic.cross_helicity).epsilon(tolerance).margin(tolerance * a.energy));
      CHECK(b.magnetic.magnetic_helicity ==
            Approx(a.magnetic.magnetic_helicity).epsilon(tolerance).margin(tolerance * a.energy));
      CHECK(b.injection == Approx(0.2).epsilon(10 * testing::round_off<Real>()));
      if (terms) CHECK(b.magnetic.injection == Approx(0.1).epsilon(10 * testing::round_off<Real>()));
      std::vector<Real> p0, p1;
      host->pressure_to_host(p0);
      device->pressure_to_host(p1);
      CHECK(max_relative(p1, p0) < tolerance);
      CHECK(max_current(*device) == Approx(max_current(*host)).epsilon(tolerance));
      const auto sa = compute_spectrum(*host), sb = compute_spectrum(*device);
      CHECK(max_relative(sb.magnetic, sa.magnetic, a.magnetic.energy) < tolerance);
      double transfer_scale = 0, total = 0;
      for (std::size_t s = 0; s < sa.transfer.size(); ++s) {
        transfer_scale += std::fabs(sa.transfer[s]) + std::fabs(sa.magnetic_transfer[s]);
        total += sb.transfer[s] + sb.magnetic_transfer[s];
      }
      CHECK(max_relative(sb.magnetic_transfer, sa.magnetic_transfer, transfer_scale) < tolerance);
      CHECK(std::fabs(total) / transfer_scale < 10 * testing::round_off<Real>());
      std::vector<Real> x0, y0, z0, x1, y1, z1;
      host->current_to_host(x0, y0, z0);
      device->current_to_host(x1, y1, z1);
      CHECK(max_relative(z1, z0) < tolerance);
      host->magnetic_to_host(x0, y0, z0);
      device->magnetic_to_host(x1, y1, z1);
      CHECK(max_relative(y1, y0) < tolerance);
    }
  }
}

TEMPLATE_TEST_CASE("GPU: the conducting Taylor-Green b equals the host's", "[solver][gpu]", float, double) {
  auto gpu = testing::gpu_or_skip("the conducting Taylor-Green b on the GPU");
  if (!gpu) return;
  using Real = TestType;
  const double tolerance = 10 * testing::round_off<Real>();
  FlowParameters parameters;
  parameters.viscosity = 0.001;
  parameters.magnetic = {true, 0.001, {0, 0, 0}, {}};
  const std::array<long, 3> n{16, 12, 10};
  auto host = testing::make_flow<Real>(n, parameters);
  auto device = testing::make_flow<Real>(n, parameters, MPI_COMM_WORLD, gpu);
  for (auto* flow : {&host, &device}) set_taylor_green_conducting(**flow, 1 / std::sqrt(3.0));
  std::vector<Real> x0, y0, z0, x1, y1, z1;
  host->magnetic_to_host(x0, y0, z0);
  device->magnetic_to_host(x1, y1, z1);
  CHECK(max_relative(x1, x0) < tolerance);
  CHECK(max_relative(z1, z0) < tolerance);
  const auto a = compute_diagnostics(*host), b = compute_diagnostics(*device);
  CHECK(b.magnetic.energy == Approx(a.magnetic.energy).epsilon(tolerance));
  CHECK(b.magnetic.enstrophy == Approx(a.magnetic.enstrophy).epsilon(tolerance));
}

// Not part of the test runs (hidden tag): device memory and step time of a large grid, for reports.
// KOLMO_BENCH_N sets the cube size (default 256).
TEMPLATE_TEST_CASE("GPU bench: memory held and time per step", "[.][solver-gpu-bench]", float, double) {
  auto gpu = testing::gpu_or_skip("solver GPU bench");
  if (!gpu) return;
  const char* size = std::getenv("KOLMO_BENCH_N");
  const long n = size ? std::atol(size) : 256;
  for (auto integrator : {Integrator::rk2, Integrator::rk4}) {
    FlowParameters parameters;
    parameters.viscosity = 1e-3;
    parameters.integrator = integrator;
    auto flow = testing::make_flow<TestType>({n, n, n}, parameters, MPI_COMM_WORLD, gpu);
    set_random_isotropic(*flow, 0.5, 4.0, 1);
    flow->step(flow->cfl_dt(0.5, 0.01));
    gpu->synchronize();
    MPI_Barrier(MPI_COMM_WORLD);
    const int steps = 5;
    const double start = MPI_Wtime();
    for (int s = 0; s < steps; ++s) flow->step(flow->cfl_dt(0.5, 0.01));
    gpu->synchronize();
    const double seconds = (MPI_Wtime() - start) / steps;
    const double equivalents = double(flow->bytes_held()) / double(flow->real_size() * sizeof(TestType));
    if (testing::world_rank() == 0)
      std::printf(
          "BENCH %ld^3 %s %s ranks=%d: %.2f ms per step (with cfl_dt), %.1f bytes per point, %.2f real-field "
          "equivalents (FFT work area %.2f)\n",
          n, sizeof(TestType) == 8 ? "double" : "float", to_string(integrator).c_str(), testing::world_size(),
          1e3 * seconds, double(flow->bytes_held()) / double(flow->real_size()), equivalents,
          double(flow.fft->workspace_bytes()) / double(flow->real_size() * sizeof(TestType)));
  }
}
