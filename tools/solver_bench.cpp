// Benchmark of a Navier-Stokes time step: the median time per RK step at a grid and precision, and that time
// divided by the time of the FFTs the step performs (per stage, divergence form: u to real space, the 5
// components of T back, 8; rotational form: u and omega to real space, u x omega back, 9; 4 more per scalar:
// its gradient to real space, its tendency back; in the step's mode, dealiased where that saves work), by as
// many full transforms, and by the full transforms of the rotational form's count (the step's work done the
// plain way: 9 + 4 s per stage; MHD 18 + 4 s: MagneticTerms.hpp), measured in the same run on the same
// buffers. MHD (--mhd) always runs in its divergence form (6 + 8 transforms per stage, + 4 per scalar);
// --form rotational with it is refused.
//
//   kolmo_solver_bench --n 512 --precision single --integrator rk4 --steps 10
//   kolmo_solver_bench --n 512 --integrator lsrk4 --form rotational
//   kolmo_solver_bench --n 512 --scalars 1                 Navier-Stokes + a passive scalar (mean gradient)
//   kolmo_solver_bench --n 512 --boussinesq --rotation     Boussinesq buoyancy and Coriolis
//   kolmo_solver_bench --n 512 --mhd                       incompressible MHD (14 FFTs per stage: u and b to
//                                                          real space, the stress and u x B back)
//   kolmo_solver_bench --n 512 --row-products off          the divergence form's products in real slabs even
//                                                          where the FFT splits at its rows
//                                                          (NavierStokes.hpp)
//   kolmo_solver_bench --n 512 --cfl                       each timed step with cfl_dt before it, as runs do
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <vector>

#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/NavierStokes.hpp"
#include "tools/BenchSupport.hpp"

using namespace kolmo;

using kolmo::tools::at_least_one;
using kolmo::tools::median;

namespace {

struct Settings {
  long n = 64;
  std::string precision = "single", backend = "auto", integrator = "rk4", one_rank_way = "automatic",
              form = "divergence", row_products = "on";
  int warmup = 2, steps = 10, pieces = 1, scalars = 0;
  bool boussinesq = false, rotation = false, mhd = false, cfl = false;
};

template <class Real>
void run(const Settings& s, const std::shared_ptr<Device>& device, int rank, int ranks) {
  fft::FftOptions options;
  options.one_rank_dealiasing = fft::parse_one_rank_dealiasing(s.one_rank_way);
  options.exchange_pieces = s.pieces;
  fft::SlabFFT<Real> fft({s.n, s.n, s.n}, MPI_COMM_WORLD, device, options);
  solver::FlowParameters parameters;
  parameters.viscosity = 1.0 / 1600;
  parameters.integrator = solver::parse_integrator(s.integrator);
  parameters.nonlinear_form = solver::parse_nonlinear_form(s.form);
  for (int j = 0; j < s.scalars; ++j) {
    parameters.scalars.push_back({"theta" + std::to_string(j), parameters.viscosity});
    parameters.terms.push_back(solver::mean_gradient(j, {0, 0, 1}));
  }
  if (s.boussinesq) solver::add_boussinesq(parameters, 1.0, 1.0, {0, 0, 1});
  if (s.rotation) parameters.terms.push_back(solver::coriolis({0, 0, 1}));
  if (s.mhd) parameters.magnetic = {true, parameters.viscosity, {0, 0, 0}};
  parameters.row_products = s.row_products == "on";
  solver::NavierStokes<Real> flow(fft, parameters);
  if (s.mhd) {
    solver::set_orszag_tang(flow, 1.0, solver::VectorField::velocity);
    solver::set_orszag_tang(flow, 0.8, solver::VectorField::magnetic);
  } else {
    solver::set_taylor_green(flow, 1.0);
  }
  for (int j = 0; j < flow.scalar_count(); ++j) solver::set_random_scalar(flow, j, 1.0, 4.0, 7);
  auto clock = [&] {
    device->synchronize();
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
  };
  const double dt = 1e-3;
  std::vector<double> step_ms;
  for (int i = 0; i < s.warmup + s.steps; ++i) {
    const double start = clock();
    if (s.cfl) flow.cfl_dt(0.5, dt);  // the step stays dt: the same work whatever the flow does
    flow.step(dt);
    const double ms = (clock() - start) * 1e3;
    if (i >= s.warmup) step_ms.push_back(ms);
  }
  // The FFTs of one step on their own, in the step's mode (NavierStokes::..._transforms_per_stage).
  const int transforms_per_stage = flow.transforms_per_stage(),
            stage_count = solver::stages(parameters.integrator);
  auto a = fft.make_spectral();
  auto b = fft.make_real();
  a.fill_zero();
  auto time_ffts = [&](fft::Modes backward_modes, fft::Modes forward_modes, int backward_per_stage,
                       int forward_per_stage) {
    std::vector<double> fft_ms;
    for (int i = 0; i < s.warmup + s.steps; ++i) {
      const double start = clock();
      for (int stage = 0; stage < stage_count; ++stage) {
        for (int t = 0; t < backward_per_stage; ++t) fft.backward(a.data(), b.data(), backward_modes);
        for (int t = 0; t < forward_per_stage; ++t) fft.forward(b.data(), a.data(), forward_modes);
      }
      const double ms = (clock() - start) * 1e3;
      if (i >= s.warmup) fft_ms.push_back(ms);
    }
    return median(fft_ms);
  };
  const int backward = flow.backward_transforms_per_stage(), forward = flow.forward_transforms_per_stage();
  const double its_ffts = time_ffts(flow.backward_modes(), flow.forward_modes(), backward, forward);
  // The same number of full (not dealiased) transforms: the cost of a step's FFTs done the plain way.
  const double full_ffts = time_ffts(fft::Modes::all, fft::Modes::all, backward, forward);
  // The full transforms of the rotational form (6 + 3 s backward, 3 + s forward; MHD: u, omega, b, j back
  // and u x omega + j x B, u x B forward, 12 + 3 s and 6 + s): the step the plain way.
  const int s_count = flow.scalar_count();
  const int plain_backward = (s.mhd ? 12 : 6) + 3 * s_count, plain_forward = (s.mhd ? 6 : 3) + s_count;
  const double plain_ffts = time_ffts(fft::Modes::all, fft::Modes::all, plain_backward, plain_forward);
  if (rank == 0) {
    const double field = double(s.n) * s.n * s.n * sizeof(Real) / ranks;
    std::printf("%s step %ld^3 %s %s, %s form, %d scalar(s)%s%s, %d rank(s), %s\n",
                s.mhd ? "MHD" : "Navier-Stokes", s.n, s.precision.c_str(), s.integrator.c_str(),
                solver::to_string(flow.nonlinear_form()).c_str(), flow.scalar_count(),
                s.boussinesq ? " (Boussinesq b)" : "", s.rotation ? ", rotation" : "", ranks,
                device->name().c_str());
    std::printf("  FFT dealiasing: %s\n", fft.dealiasing_report().c_str());
    std::printf("  products %s%s\n", flow.products_between_rows() ? "between the row FFTs" : "in real slabs",
                s.cfl ? "; each step after cfl_dt" : "");
    if (ranks > 1) std::printf("  FFT %s\n", fft.exchange_pieces_report().c_str());
    std::printf("  memory %.2f GiB per rank = %.1f real-field equivalents\n",
                flow.bytes_held() / 1073741824.0, flow.bytes_held() / field);
    auto name = [](fft::Modes m) { return m == fft::Modes::dealiased ? "dealiased" : "full"; };
    const std::string mode = std::string(name(flow.backward_modes())) + "/" + name(flow.forward_modes());
    std::printf(
        "  step %.3f ms (median of %d); its %d FFTs (%s) alone %.3f ms, ratio %.3f; as many full FFTs "
        "%.3f ms, ratio %.3f; the rotational form's %d full FFTs %.3f ms, ratio %.3f\n",
        median(step_ms), s.steps, transforms_per_stage * stage_count, mode.c_str(), its_ffts,
        median(step_ms) / its_ffts, full_ffts, median(step_ms) / full_ffts,
        (plain_backward + plain_forward) * stage_count, plain_ffts, median(step_ms) / plain_ffts);
    std::printf(
        "  RESULT step n=%ld %s %s ranks=%d step %.3f ms ffts(%s) %.3f ms ratio %.3f full_ffts %.3f ms "
        "ratio_full %.3f plain_ffts %.3f ms ratio_plain %.3f form=%s scalars=%d boussinesq=%d rotation=%d "
        "mhd=%d rows=%d cfl=%d memory_fields %.2f\n",
        s.n, s.precision.c_str(), s.integrator.c_str(), ranks, median(step_ms), mode.c_str(), its_ffts,
        median(step_ms) / its_ffts, full_ffts, median(step_ms) / full_ffts, plain_ffts,
        median(step_ms) / plain_ffts, solver::to_string(flow.nonlinear_form()).c_str(), flow.scalar_count(),
        int(s.boussinesq), int(s.rotation), int(s.mhd), int(flow.products_between_rows()), int(s.cfl),
        flow.bytes_held() / field);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const MpiRuntime mpi(argc, argv);
  const int rank = mpi.rank(), ranks = mpi.size();
  Settings s;
  CLI::App app{"kolmo_solver_bench: time a Navier-Stokes step against the FFTs it performs"};
  app.add_option("--n", s.n, "grid points per direction")->check(at_least_one<long>());
  app.add_option("--precision", s.precision, "single or double")->check(CLI::IsMember({"single", "double"}));
  app.add_option("--backend", s.backend, "auto, host or cuda")
      ->check(CLI::IsMember({"auto", "host", "cuda"}));
  app.add_option("--integrator", s.integrator, "rk2, rk3, rk4, lsrk3 or lsrk4")
      ->check(CLI::IsMember(solver::integrator_names()));
  app.add_option("--form", s.form, "the advective term: divergence or rotational")
      ->check(CLI::IsMember(solver::nonlinear_form_names()));
  app.add_option("--one-rank-way", s.one_rank_way, "one rank: how dealiased transforms drop modes")
      ->check(CLI::IsMember(fft::one_rank_dealiasing_names()));
  app.add_option("--pieces", s.pieces, "several ranks: all-to-all in this many pieces (0: chosen by timing)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--scalars", s.scalars, "passive scalars, each with a mean gradient along z")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--boussinesq", s.boussinesq, "a Boussinesq buoyancy b (N^2 = 1, Pr = 1, up = z)");
  app.add_flag("--rotation", s.rotation, "Coriolis force, Omega = (0, 0, 1)");
  app.add_flag("--mhd", s.mhd, "incompressible MHD, eta = nu, from the 3D Orszag-Tang fields");
  app.add_option("--row-products", s.row_products, "on: products between the row FFTs where the FFT allows")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--cfl", s.cfl, "time cfl_dt with each step (its scan), as runs call it");
  app.add_option("--warmup", s.warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--steps", s.steps, "timed steps")->check(at_least_one<int>());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : 1;
  }
  // As physics.nonlinear_form refuses it: MHD has its own divergence form, and a step timed in it would be
  // reported for a form that was asked and not run.
  if (s.mhd && s.form == "rotational") {
    if (rank == 0)
      std::fprintf(stderr,
                   "kolmo_solver_bench: --form rotational: MHD (--mhd) runs in its divergence form only\n");
    return 1;
  }
  try {
    share_node_cores(MPI_COMM_WORLD);
    Backend backend = s.backend == "auto" ? Device::automatic() : parse_backend(s.backend);
    auto device = Device::create(backend, node_rank(MPI_COMM_WORLD));
    if (s.precision == "double")
      run<double>(s, device, rank, ranks);
    else
      run<float>(s, device, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kolmo_solver_bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 0;
}
