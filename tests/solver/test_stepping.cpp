// Time-step control and bookkeeping: cfl_dt against the velocity's own maximum, its cached real-space
// velocity changing nothing in the next step, the memory held within budget, refused parameters, and steps
// with the ky planes split by kept rows equal to one rank's.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "core/Error.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;
using kolmo::testing::global_max;

TEST_CASE("cfl_dt is cfl / max(|u|/dx + |v|/dy + |w|/dz), capped by max_dt", "[solver]") {
  FlowParameters parameters;
  parameters.box = Box{kTwoPi, 2 * kTwoPi, 0.5 * kTwoPi};
  auto flow = testing::make_flow<double>({16, 12, 10}, parameters);
  set_random_isotropic(*flow, 0.6, 2.0, 31);
  std::vector<double> u, v, w;
  flow->velocity_to_host(u, v, w);
  const double dx = kTwoPi / 16, dy = 2 * kTwoPi / 12, dz = 0.5 * kTwoPi / 10;
  double rate = 0;
  for (std::size_t p = 0; p < u.size(); ++p)
    rate = std::fmax(rate, std::fabs(u[p]) / dx + std::fabs(v[p]) / dy + std::fabs(w[p]) / dz);
  rate = global_max(rate);
  CHECK(flow->cfl_dt(0.7, 10.0) == Approx(0.7 / rate).epsilon(1e-14));
  CHECK(flow->cfl_dt(0.7, 1e-4) == 1e-4);
  // The same pass measures the energy: by Parseval, the grid mean of |u|^2/2 is the sum over modes.
  CHECK(flow->velocity_scan().rate == Approx(rate).epsilon(1e-14));
  CHECK(flow->velocity_scan().energy == Approx(0.6).epsilon(1e-13));
}

TEST_CASE("a velocity holding NaN gives an infinite CFL rate and a zero step on every rank", "[solver]") {
  FlowParameters parameters;
  auto flow = testing::make_flow<double>({12, 10, 8}, parameters);
  set_random_isotropic(*flow, 0.5, 2.0, 5);
  std::vector<double> u, v, w;
  flow->velocity_to_host(u, v, w);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) u[3] = std::nan("");  // one value on one rank; the transforms spread it
  flow->set_velocity(u, v, w);
  const double dt = flow->cfl_dt(0.5, 1.0);
  // A plain maximum skips NaN and would report a calm field (and the largest step, 1.0).
  const bool infinite = std::isinf(flow->velocity_scan().rate) && flow->velocity_scan().rate > 0;
  CHECK(global_max(infinite ? 0.0 : 1.0) == 0.0);
  CHECK(global_max(dt == 0.0 ? 0.0 : 1.0) == 0.0);
  CHECK(std::isnan(flow->velocity_scan().energy));
}

TEST_CASE("a step after cfl_dt equals a step without it, bit for bit", "[solver]") {
  auto run = [](bool ask_cfl) {
    FlowParameters parameters;
    parameters.viscosity = 0.01;
    parameters.integrator = Integrator::rk2;
    auto flow = testing::make_flow<double>({12, 12, 12}, parameters);
    set_random_isotropic(*flow, 0.5, 2.5, 4);
    for (int s = 0; s < 2; ++s) {
      if (ask_cfl) flow->cfl_dt(0.5, 1.0);
      flow->step(0.05);
    }
    CHECK(flow->last_dt() == 0.05);
    return testing::host_copy(*flow, flow->velocity());
  };
  const auto with = run(true), without = run(false);
  bool identical = true;
  for (int d = 0; d < 3; ++d)
    identical =
        identical && std::memcmp(with[d].data(), without[d].data(), with[d].size() * sizeof(with[d][0])) == 0;
  CHECK(global_max(identical ? 0.0 : 1.0) == 0.0);
}

TEST_CASE("memory held: 8 (rk2, lsrk3, lsrk4) or 11 (rk3, rk4) slabs, 9 or 12 rotational, + FFT workspace",
          "[solver]") {
  const std::array<long, 3> n{32, 32, 32};
  for (auto form : {NonlinearForm::divergence, NonlinearForm::rotational}) {
    for (auto integrator :
         {Integrator::rk2, Integrator::rk3, Integrator::rk4, Integrator::lsrk3, Integrator::lsrk4}) {
      FlowParameters parameters;
      parameters.integrator = integrator;
      parameters.nonlinear_form = form;
      auto flow = testing::make_flow<double>(n, parameters);
      const std::size_t slab = flow.fft->layout().alloc_complex() * sizeof(Complex<double>);
      // velocity 3, stage input 3, T_xz and T_yz 2 (or omega 3), accumulator 3 (rk3, rk4)
      const std::size_t fields = 3 + 3 + (form == NonlinearForm::divergence ? 2 : 3) +
                                 (integrator == Integrator::rk3 || integrator == Integrator::rk4 ? 3 : 0);
      INFO(to_string(form) << " form, " << to_string(integrator));
      CHECK(flow->bytes_held() == fields * slab + flow.fft->workspace_bytes());
      // In real-field equivalents (N^3/P reals): at most 16 for rk4, the budget of a 1024^3 run.
      const double equivalents = double(flow->bytes_held()) / double(flow->real_size() * sizeof(double));
      INFO(equivalents << " real-field equivalents");
      CHECK(equivalents < 16);
    }
  }
}

TEST_CASE("refused parameters: negative viscosity, bad time step, unknown names", "[solver]") {
  FlowParameters parameters;
  parameters.viscosity = -1;
  const auto message_of = testing::error_message;
  CHECK(message_of([&] {
          testing::make_flow<double>({8, 8, 8}, parameters);
        }).find("viscosity") != std::string::npos);
  parameters.viscosity = 0.1;
  auto flow = testing::make_flow<double>({8, 8, 8}, parameters);
  CHECK(message_of([&] { flow->step(-0.1); }).find("dt = -0.1") != std::string::npos);
  CHECK(message_of([] { parse_integrator("euler"); }).find("'euler'") != std::string::npos);
  CHECK(message_of([] { parse_forcing("random"); }).find("'random'") != std::string::npos);
  CHECK(parse_integrator("rk3") == Integrator::rk3);
  CHECK(parse_integrator("lsrk4") == Integrator::lsrk4);
  CHECK(parse_nonlinear_form("rotational") == NonlinearForm::rotational);
  CHECK(message_of([] { parse_nonlinear_form("skew"); }).find("'skew'") != std::string::npos);
  CHECK(parse_forcing("linear") == ForcingKind::linear);
  std::vector<double> short_slab(3);
  CHECK(message_of([&] {
          flow->set_velocity(short_slab, short_slab, short_slab);
        }).find("velocity slab u has 3") != std::string::npos);
}

TEMPLATE_TEST_CASE("steps with the ky planes split by kept rows equal the steps of one rank", "[solver]",
                   float, double) {
  // 20 ky planes keep 13 (0-6, 14-19): on 3 and 4 ranks the kept-row split (fft/SpectralSplit.hpp) differs
  // from the even one, and gives the middle ranks the 7 dropped planes.
  const std::array<long, 3> n{16, 20, 12};
  FlowParameters parameters;
  parameters.viscosity = 0.02;
  parameters.integrator = Integrator::rk3;
  parameters.scalars = {{"c", 0.05}};
  fft::FftOptions options;
  options.spectral_split = fft::SpectralSplit::kept_rows;
  auto distributed = testing::make_flow<TestType>(n, parameters, MPI_COMM_WORLD, nullptr, options);
  auto alone = testing::make_flow<TestType>(n, parameters, MPI_COMM_SELF);
  REQUIRE(distributed.fft->layout().spectral_split() == fft::SpectralSplit::kept_rows);
  for (auto* flow : {&distributed, &alone}) {
    set_random_isotropic(**flow, 0.8, 2.5, 17);
    set_random_scalar(**flow, 0, 0.4, 2.0, 23);
    for (int s = 0; s < 3; ++s) (*flow)->step(0.02);
  }
  // This rank's ky planes against the same planes of the whole field, velocity and scalar.
  const auto whole = testing::host_copy(*alone, alone->velocity()),
             whole_c = testing::host_copy(*alone, alone->scalar(0));
  const double scale =
      std::max(testing::max_magnitude(whole, MPI_COMM_SELF), testing::max_magnitude(whole_c, MPI_COMM_SELF));
  const double difference =
      std::max(testing::max_difference(testing::host_copy(*distributed, distributed->velocity()),
                                       testing::rank_part_of(*distributed, whole)),
               testing::max_difference(testing::host_copy(*distributed, distributed->scalar(0)),
                                       testing::rank_part_of(*distributed, whole_c)));
  CHECK(scale > 0);
  CHECK(difference / scale < 10 * testing::round_off<TestType>());
  // The reductions over uneven spectral slabs: the energy of the whole field.
  CHECK(compute_diagnostics(*distributed).energy ==
        Approx(compute_diagnostics(*alone).energy).epsilon(10 * testing::round_off<TestType>()));
}

// A stage's fields through three transform lanes (FlowParameters::transform_lanes; on the host they run one
// after another, on several GPU ranks at once) give the steps of one lane: the divergence form with a
// scalar, and MHD (the rotational form, b's fields joining u's), on every rank count; and the lanes'
// workspace counts in the memory held.
TEST_CASE("steps through three transform lanes equal the steps of one", "[solver]") {
  const std::array<long, 3> n{16, 12, 10};
  FlowParameters fluid;
  fluid.viscosity = 0.02;
  fluid.scalars = {{"c", 0.05}};
  const FlowParameters conducting = testing::mhd_parameters(0.02, 0.03, {0.1, 0, 0.2});
  for (const FlowParameters& base : {fluid, conducting}) {
    const bool mhd = base.magnetic.enabled;
    std::vector<testing::HostField<double>> fields[2];
    for (int lanes : {1, 3}) {
      FlowParameters parameters = base;
      parameters.transform_lanes = lanes;
      auto flow = testing::make_flow<double>(n, parameters);
      set_random_isotropic(*flow, 0.8, 2.5, 17);
      if (mhd) set_random_isotropic(*flow, 0.3, 2.0, 19, SpectrumShape::k4_exp, VectorField::magnetic);
      if (!mhd) set_random_scalar(*flow, 0, 0.4, 2.0, 23);
      for (int s = 0; s < 3; ++s) flow->step(flow->cfl_dt(0.5, 0.02));
      auto& out = fields[lanes == 3];
      out.push_back(testing::host_copy(*flow, flow->velocity()));
      out.push_back(mhd ? testing::host_copy(*flow, flow->magnetic_field())
                        : testing::host_copy(*flow, flow->scalar(0)));
      if (lanes == 3) {
        auto one = testing::make_flow<double>(n, base);
        CHECK(flow->bytes_held() == one->bytes_held() + 2 * flow.fft->workspace_bytes());
      }
    }
    for (std::size_t f = 0; f < 2; ++f) {
      INFO((mhd ? "MHD" : "a scalar") << ", field " << f << " (0: velocity)");
      const double scale = testing::max_magnitude(fields[0][f]);
      CHECK(scale > 0);
      CHECK(testing::max_difference(fields[1][f], fields[0][f]) / scale < 1e-13);
    }
  }
}
