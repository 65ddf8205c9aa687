// A Poisson (or Helmholtz) run: build or read (and check) the right-hand side, then solve once, write phi
// (and its gradient), and for a manufactured right-hand side report the error against the exact solution.
// Ctrl-C or SIGTERM (app/StopRequest.hpp) stops it, with status 130, before the output directory is touched
// or after the solve (and the gradient), before phi is written: there is no state to checkpoint, and a field
// file is written whole or not at all.
#include <cmath>
#include <cstdio>

#include "app/Inputs.hpp"
#include "app/RunStatus.hpp"
#include "app/Runs.hpp"
#include "app/StopRequest.hpp"
#include "core/BuildIdentity.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "io/Collective.hpp"
#include "io/FieldFile.hpp"
#include "io/OutputDirectory.hpp"
#include "io/TextFile.hpp"
#include "solver/Poisson.hpp"

namespace kolmo::app {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

}  // namespace

template <class Real>
int run_poisson(const io::RunConfig& config, const RunOptions& options, std::shared_ptr<Device> device,
                MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  fft::SlabFFT<Real> fft(config.grid.n, comm, device, fft_options(config, comm));
  const auto& layout = fft.layout();
  const auto& box = config.grid.box;
  solver::Poisson<Real> poisson(fft, solver::Box{box[0], box[1], box[2]});
  const double lambda = config.poisson.shift;

  // The right-hand side is read and checked before anything is written.
  const std::size_t n = layout.real_size();
  std::vector<Real> f, exact;
  double subtracted_mean = 0;
  const auto& rhs = config.poisson.rhs;
  if (rhs.type == io::RhsType::file) {
    f = read_poisson_rhs<Real>(config, layout, comm, subtracted_mean);
  } else {
    // phi = sum over modes of cos(k.x), so f = lap phi - lambda phi = -sum (|k|^2 + lambda) cos(k.x).
    f.assign(n, Real(0));
    exact.assign(n, Real(0));
    const auto& g = config.grid.n;
    const long planes = layout.x_count(), x_offset = layout.x_offset();
    // In parallel over the rows, each cosine once: at 2048 x 2048 x 1024 points (three modes) one core took
    // minutes, silent before the header (found on one H200).
#pragma omp parallel for collapse(2) schedule(static)
    for (long i = 0; i < planes; ++i)
      for (long j = 0; j < g[1]; ++j)
        for (long k = 0; k < g[2]; ++k) {
          const std::size_t m = (i * g[1] + j) * g[2] + k;
          double phi = 0, value = 0;
          for (const auto& mode : rhs.modes) {
            const double kx = kTwoPi * mode[0] / box[0], ky = kTwoPi * mode[1] / box[1],
                         kz = kTwoPi * mode[2] / box[2];
            const double phase =
                kx * (x_offset + i) * box[0] / g[0] + ky * j * box[1] / g[1] + kz * k * box[2] / g[2];
            const double wave = std::cos(phase);
            phi += wave;
            value -= (kx * kx + ky * ky + kz * kz + lambda) * wave;
          }
          exact[m] = Real(phi);
          f[m] = Real(value);
        }
    // A shift near the precision's largest number overflows f itself.
    require_finite(f, "poisson.shift " + number_text(lambda) + ": the manufactured right-hand side", comm);
  }

  if (options.dry_run) return 0;
  if (stop_requested(comm)) {
    if (rank == 0) std::printf("stopped by a signal before anything was written\n");
    return 130;
  }

  const auto paths = io::output_paths(config.output.directory);
  const io::DirectoryLock lock =
      io::prepare_output_directory(paths.root, config.output.overwrite, comm, output_subfolders(config),
                                   io::sources_text(config, {"output.directory"}));
  io::on_root(comm, [&] { io::replace_text_file(paths.config, options.config_text); });
  write_run_status(paths.root, "running: the Poisson problem", comm);
  // A second signal ends the run at once (app/StopRequest.hpp), perhaps while phi is written: not "running".
  second_stop_directory(paths.root);
  describe_second_stop(
      "stopped: interrupted twice during the Poisson problem; run it again with output.overwrite: true");
  try {
    std::vector<Real> phi(n);
    poisson.solve(f, phi, lambda);
    // A shift so small that the mean mode divides by almost nothing (or a sum that overflows the precision)
    // gives no solution: say so rather than write it and report an error computed past its NaNs.
    require_finite(phi, "poisson.shift " + number_text(lambda) + ": the solution phi", comm);
    std::vector<std::vector<Real>> gradient(3);
    if (config.poisson.gradient) poisson.gradient(gradient[0], gradient[1], gradient[2]);
    // After the gradient, which takes longer than the solve: a signal during either stops the run here.
    if (stop_requested(comm)) {
      if (rank == 0) std::printf("stopped by a signal after the solve; phi was not written\n");
      forget_second_stop();
      write_run_status(paths.root, "stopped by a signal: the Poisson problem solved, phi not written", comm);
      return 130;
    }

    std::vector<io::NamedSlab<Real>> slabs{{"phi", std::span<const Real>(phi.data(), n)},
                                           {"f", std::span<const Real>(f.data(), n)}};
    const char* names[3] = {"phi_x", "phi_y", "phi_z"};
    if (config.poisson.gradient)
      for (int d = 0; d < 3; ++d) slabs.push_back({names[d], std::span<const Real>(gradient[d].data(), n)});
    io::FieldInfo info{0.0, 0, box, 0.0, lambda};  // the shift: which equation phi solves
    const auto file = io::write_field_file<Real>(paths.fields, info, layout, slabs, comm);

    if (rank == 0) {
      std::printf("kolmo %s: Poisson problem lap(phi) - %g phi = f on %s, %s backend, %s precision\n",
                  build_identity().c_str(), lambda, layout.describe().c_str(),
                  to_string(device->backend()).c_str(), io::to_string(config.precision).c_str());
      if (layout.ranks() > 1 && !options.split_report.empty())
        std::printf("  split     ky planes: %s\n", options.split_report.c_str());
      std::printf("  memory    estimated: %s\n", options.memory_report.c_str());
      if (config.poisson.subtract_mean)
        std::printf("  rhs       mean %.6g subtracted (poisson.subtract_mean)\n", subtracted_mean);
    }
    if (!exact.empty()) {
      // For lambda = 0 the solution is defined up to a constant: compare after removing the means.
      double local[3] = {0, 0, 0};
      for (std::size_t m = 0; m < n; ++m) local[0] += double(phi[m]) - double(exact[m]);
      double mean = 0;
      MPI_Allreduce(&local[0], &mean, 1, MPI_DOUBLE, MPI_SUM, comm);
      mean /= double(config.grid.n[0]) * config.grid.n[1] * config.grid.n[2];
      double error = 0, size = 0;
      for (std::size_t m = 0; m < n; ++m) {
        error = std::max(error, std::abs(double(phi[m]) - double(exact[m]) - (lambda == 0 ? mean : 0.0)));
        size = std::max(size, std::abs(double(exact[m])));
      }
      double global[2] = {0, 0}, values[2] = {error, size};
      MPI_Allreduce(values, global, 2, MPI_DOUBLE, MPI_MAX, comm);
      if (rank == 0)
        std::printf("  manufactured solution: max |phi - exact| = %.3e (relative %.3e)\n", global[0],
                    global[0] / std::max(global[1], 1e-300));
    }
    if (rank == 0) std::printf("  wrote %s\n", file.c_str());
  } catch (const std::exception& error) {
    forget_second_stop();
    write_run_status(paths.root, std::string("failed: ") + error.what(), comm);
    throw;
  }
  forget_second_stop();
  write_run_status(paths.root, "finished: the Poisson problem solved", comm);
  return 0;
}

template int run_poisson<float>(const io::RunConfig&, const RunOptions&, std::shared_ptr<Device>, MPI_Comm);
template int run_poisson<double>(const io::RunConfig&, const RunOptions&, std::shared_ptr<Device>, MPI_Comm);

}  // namespace kolmo::app
