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
//   kolmo_solver_bench --n 512 --emulate-ranks 2 4 8 --lanes 1 3
//                                                          one rank's step of a run over P ranks against the
//                                                          one device's step / P (emulate below)
//   ncu --profile-from-start off --metrics gpu__time_duration.sum kolmo_solver_bench ... --profile-step
//                                                          the kernels of one step: the last timed one (with
//                                                          --emulate-ranks, each rank's), between
//                                                          cudaProfilerStart and cudaProfilerStop
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "solver/InitialConditions.hpp"
#include "solver/NavierStokes.hpp"
#include "tools/BenchSupport.hpp"

#ifdef KOLMO_HAVE_CUDA
#include <cuda_profiler_api.h>
#endif

using namespace kolmo;

using kolmo::tools::at_least_one;
using kolmo::tools::emulated_ranks_of;
using kolmo::tools::median;

namespace {

struct Settings {
  long n = 64;
  std::string precision = "single", backend = "auto", integrator = "rk4", one_rank_way = "automatic",
              form = "divergence", row_products = "on";
  int warmup = 2, steps = 10, pieces = 1, scalars = 0;
  std::string split = "auto", strided = "auto";
  std::vector<int> lanes{0}, emulate;
  bool boussinesq = false, rotation = false, mhd = false, cfl = false, profile_step = false;
};

// --profile-step: a profiler's range around the work (where built with CUDA; nothing otherwise).
void profiled(bool on, const std::function<void()>& work) {
#ifdef KOLMO_HAVE_CUDA
  if (on) cudaProfilerStart();
  work();
  if (on) cudaProfilerStop();
#else
  (void)on;
  work();
#endif
}

solver::FlowParameters flow_parameters(const Settings& s, int lanes) {
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
  parameters.transform_lanes = lanes;
  return parameters;
}

// --spectral-split on `ranks` ranks: auto as the kolmo command takes it for Navier-Stokes (its rule, not its
// fallback where memory is short: fft::automatic_spectral_split), or as given.
fft::SpectralSplit spectral_split(const Settings& s, int ranks) {
  return s.split == "auto" ? fft::automatic_spectral_split(ranks, true) : fft::parse_spectral_split(s.split);
}

fft::FftOptions fft_options(const Settings& s, int ranks) {
  fft::FftOptions options;
  options.one_rank_dealiasing = fft::parse_one_rank_dealiasing(s.one_rank_way);
  options.exchange_pieces = s.pieces;
  options.spectral_split = spectral_split(s, ranks);
  // never: emulated ranks take the route of exchanges that move contiguous chunks (NCCL, MPI), the fused one.
  if (s.strided == "never") options.strided_exchange = fft::StridedExchange::never;
  return options;
}

// An emulated rank's scalars stay zero: a random scalar's variance is checked over the rank's modes alone,
// and a middle rank of the kept-row split has none below k0 (the step's work does not depend on the values).
template <class Real>
void set_initial_fields(solver::NavierStokes<Real>& flow, const Settings& s, bool emulated = false) {
  if (s.mhd) {
    solver::set_orszag_tang(flow, 1.0, solver::VectorField::velocity);
    solver::set_orszag_tang(flow, 0.8, solver::VectorField::magnetic);
  } else {
    solver::set_taylor_green(flow, 1.0);
  }
  if (!emulated)
    for (int j = 0; j < flow.scalar_count(); ++j) solver::set_random_scalar(flow, j, 1.0, 4.0, 7);
}

// The wall time of work between synchronisations of the device and the ranks.
double wall_ms_of(const std::function<void()>& work, Device& device, MPI_Comm comm) {
  auto clock = [&] {
    device.synchronize();
    MPI_Barrier(comm);
    return MPI_Wtime();
  };
  const double start = clock();
  work();
  return (clock() - start) * 1e3;
}

// The median wall time of work(last) over --steps runs after --warmup, each timed alone; last is true for
// the last run.
double median_wall_ms(const Settings& s, Device& device, MPI_Comm comm,
                      const std::function<void(bool)>& work) {
  std::vector<double> ms;
  for (int i = 0; i < s.warmup + s.steps; ++i) {
    const double t = wall_ms_of([&] { work(i + 1 == s.warmup + s.steps); }, device, comm);
    if (i >= s.warmup) ms.push_back(t);
  }
  return median(ms);
}

// The median wall time of a step; the last in a profiler's range where profile.
template <class Real>
double median_step_ms(solver::NavierStokes<Real>& flow, const Settings& s,
                      const std::shared_ptr<Device>& device, MPI_Comm comm, bool profile) {
  const double dt = 1e-3;
  return median_wall_ms(s, *device, comm, [&](bool last) {
    profiled(profile && last, [&] {
      if (s.cfl) flow.cfl_dt(0.5, dt);  // the step stays dt: the same work whatever the flow does
      flow.step(dt);
    });
  });
}

// The median wall time of a step's transforms alone (stages x, per stage, `backward.first` backward and
// `forward.first` forward transforms in their modes), one after another on the FFT's stream, in place (as
// the step's) or out of place.
template <class Real>
double median_transforms_ms(fft::SlabFFT<Real>& fft, const Settings& s, MPI_Comm comm, int stages,
                            std::pair<int, fft::Modes> backward, std::pair<int, fft::Modes> forward,
                            bool in_place) {
  auto a = fft.make_spectral();
  auto b = fft.make_real();
  a.fill_zero();
  Real* real = in_place ? reinterpret_cast<Real*>(a.data()) : b.data();
  return median_wall_ms(s, fft.device(), comm, [&](bool) {
    for (int stage = 0; stage < stages; ++stage) {
      for (int k = 0; k < backward.first; ++k) fft.backward(a.data(), real, backward.second);
      for (int k = 0; k < forward.first; ++k) fft.forward(real, a.data(), forward.second);
    }
  });
}

// --emulate-ranks P...: one rank's step of a run over P ranks (the FFT's emulated ranks: rank 0, the widest,
// and the one with the most kept ky planes; exchanges moving nothing, so the time is the rank's computation
// alone), in each of --lanes, against the one device's step / P measured in the same run (in one lane; and
// in as many as the rank), and the step's transforms alone (one lane) against the one device's / P. The one
// device and the ranks form their products between the row FFTs where they can (rows=1; --row-products
// off: in real slabs, both). The fields are garbage after the first step (nothing is exchanged); the work is
// not.
template <class Real>
void emulate(const Settings& s, const std::shared_ptr<Device>& device) {
  const std::array<long, 3> n{s.n, s.n, s.n};
  struct Timed {
    double step_ms = 0, transforms_ms = 0, out_of_place_ms = 0;
    int lanes = 1;
    bool rows = false;
  };
  auto timed = [&](const fft::FftOptions& options, int lanes) {
    fft::SlabFFT<Real> fft(n, MPI_COMM_SELF, device, options);
    const solver::FlowParameters parameters = flow_parameters(s, lanes);
    solver::NavierStokes<Real> flow(fft, parameters);
    set_initial_fields(flow, s, options.emulated_ranks > 1);
    Timed t;
    t.lanes = flow.transform_lanes();
    t.rows = flow.products_between_rows();
    t.step_ms = median_step_ms(flow, s, device, MPI_COMM_SELF, s.profile_step && options.emulated_ranks > 1);
    const int stages = solver::stages(parameters.integrator);
    const std::pair<int, fft::Modes> backward{flow.backward_transforms_per_stage(), flow.backward_modes()},
        forward{flow.forward_transforms_per_stage(), flow.forward_modes()};
    t.transforms_ms = median_transforms_ms(fft, s, MPI_COMM_SELF, stages, backward, forward, true);
    t.out_of_place_ms = median_transforms_ms(fft, s, MPI_COMM_SELF, stages, backward, forward, false);
    return t;
  };
  std::printf(
      "%s step %ld^3 %s %s on %s: one rank's step of P (its FFTs' exchanges moving nothing) against the one "
      "device's step / P; medians of %d steps after %d\n",
      s.mhd ? "MHD" : "Navier-Stokes", s.n, s.precision.c_str(), s.integrator.c_str(), device->name().c_str(),
      s.steps, s.warmup);
  std::map<int, Timed> one_device;  // by lanes
  auto add_one_device = [&](int lanes) {
    const Timed t = timed(fft_options(s, 1), lanes);
    one_device[t.lanes] = t;
    std::printf(
        "  RANKSTEP n=%ld precision=%s ranks=1 rank=0 lanes=%d rows=%d step_ms=%.3f transforms_ms=%.3f "
        "out_of_place_ms=%.3f\n",
        s.n, s.precision.c_str(), t.lanes, int(t.rows), t.step_ms, t.transforms_ms, t.out_of_place_ms);
  };
  for (int lanes : s.lanes) add_one_device(lanes);
  if (one_device.count(1) == 0) add_one_device(1);
  const Timed& one = one_device[1];
  for (int ranks : s.emulate)
    for (int rank : emulated_ranks_of(n, ranks, spectral_split(s, ranks), fft::Modes::dealiased))
      for (int lanes : s.lanes) {
        fft::FftOptions options = fft_options(s, ranks);
        options.emulated_ranks = ranks;
        options.emulated_rank = rank;
        options.emulated_exchange_moves = false;
        const Timed t = timed(options, lanes);
        const auto same = one_device.find(t.lanes);
        std::printf(
            "  RANKSTEP n=%ld precision=%s ranks=%d rank=%d split=%s lanes=%d rows=%d step_ms=%.3f "
            "transforms_ms=%.3f out_of_place_ms=%.3f one_device_ms=%.3f ratio=%.3f ratio_same_lanes=%.3f "
            "transforms_ratio=%.3f out_of_place_ratio=%.3f\n",
            s.n, s.precision.c_str(), ranks, rank, fft::to_string(spectral_split(s, ranks)).c_str(), t.lanes,
            int(t.rows), t.step_ms, t.transforms_ms, t.out_of_place_ms, one.step_ms,
            t.step_ms / (one.step_ms / ranks),
            same == one_device.end() ? 0.0 : t.step_ms / (same->second.step_ms / ranks),
            t.transforms_ms / (one.transforms_ms / ranks), t.out_of_place_ms / (one.out_of_place_ms / ranks));
        std::fflush(nullptr);
      }
}

template <class Real>
void run(const Settings& s, const std::shared_ptr<Device>& device, int rank, int ranks) {
  fft::SlabFFT<Real> fft({s.n, s.n, s.n}, MPI_COMM_WORLD, device, fft_options(s, ranks));
  const solver::FlowParameters parameters = flow_parameters(s, s.lanes.front());
  solver::NavierStokes<Real> flow(fft, parameters);
  set_initial_fields(flow, s);
  const double step = median_step_ms(flow, s, device, MPI_COMM_WORLD, s.profile_step);
  // The FFTs of one step on their own, in the step's mode (NavierStokes::..._transforms_per_stage).
  const int transforms_per_stage = flow.transforms_per_stage(),
            stage_count = solver::stages(parameters.integrator);
  auto time_ffts = [&](fft::Modes backward_modes, fft::Modes forward_modes, int backward_per_stage,
                       int forward_per_stage) {
    return median_transforms_ms(fft, s, MPI_COMM_WORLD, stage_count, {backward_per_stage, backward_modes},
                                {forward_per_stage, forward_modes}, false);
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
        step, s.steps, transforms_per_stage * stage_count, mode.c_str(), its_ffts, step / its_ffts, full_ffts,
        step / full_ffts, (plain_backward + plain_forward) * stage_count, plain_ffts, step / plain_ffts);
    std::printf(
        "  RESULT step n=%ld %s %s ranks=%d step %.3f ms ffts(%s) %.3f ms ratio %.3f full_ffts %.3f ms "
        "ratio_full %.3f plain_ffts %.3f ms ratio_plain %.3f form=%s scalars=%d boussinesq=%d rotation=%d "
        "mhd=%d rows=%d cfl=%d memory_fields %.2f\n",
        s.n, s.precision.c_str(), s.integrator.c_str(), ranks, step, mode.c_str(), its_ffts, step / its_ffts,
        full_ffts, step / full_ffts, plain_ffts, step / plain_ffts,
        solver::to_string(flow.nonlinear_form()).c_str(), flow.scalar_count(), int(s.boussinesq),
        int(s.rotation), int(s.mhd), int(flow.products_between_rows()), int(s.cfl),
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
  app.add_option("--strided", s.strided,
                 "several ranks: never takes the fused route, as exchanges of contiguous chunks (NCCL, MPI) "
                 "do, not the strided one of p2p and emulated ranks (auto)")
      ->check(CLI::IsMember({"auto", "never"}));
  app.add_option("--scalars", s.scalars, "passive scalars, each with a mean gradient along z")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--boussinesq", s.boussinesq, "a Boussinesq buoyancy b (N^2 = 1, Pr = 1, up = z)");
  app.add_flag("--rotation", s.rotation, "Coriolis force, Omega = (0, 0, 1)");
  app.add_flag("--mhd", s.mhd, "incompressible MHD, eta = nu, from the 3D Orszag-Tang fields");
  app.add_option("--row-products", s.row_products, "on: products between the row FFTs where the FFT allows")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--cfl", s.cfl, "time cfl_dt with each step (its scan), as runs call it");
  app.add_option("--spectral-split", s.split,
                 "how the ranks share the ky planes: auto (as kolmo's fft.spectral_split for Navier-Stokes), "
                 "even or kept_rows")
      ->check(CLI::IsMember({"auto", "even", "kept_rows"}));
  app.add_option("--lanes", s.lanes,
                 "transform lanes (0: automatic); several with --emulate-ranks, each timed in turn")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--emulate-ranks", s.emulate,
                 "one rank: instead, one rank's step of these rank counts, the exchanges moving nothing")
      ->check(at_least_one<int>());
  app.add_flag("--profile-step", s.profile_step,
               "the last timed step (with --emulate-ranks: each rank's) in a profiler's range (ncu "
               "--profile-from-start off)");
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
  if (s.lanes.size() > 1 && s.emulate.empty()) {
    if (rank == 0) std::fprintf(stderr, "kolmo_solver_bench: --lanes: several only with --emulate-ranks\n");
    return 1;
  }
  if (!s.emulate.empty() && ranks > 1) {
    if (rank == 0)
      std::fprintf(stderr, "kolmo_solver_bench: --emulate-ranks runs on one rank, not %d\n", ranks);
    return 1;
  }
  try {
    share_node_cores(MPI_COMM_WORLD);
    Backend backend = s.backend == "auto" ? Device::automatic() : parse_backend(s.backend);
    auto device = Device::create(backend, node_rank(MPI_COMM_WORLD));
    if (!s.emulate.empty())
      s.precision == "double" ? emulate<double>(s, device) : emulate<float>(s, device);
    else if (s.precision == "double")
      run<double>(s, device, rank, ranks);
    else
      run<float>(s, device, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kolmo_solver_bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 0;
}
