#include "app/MemoryEstimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "app/FlowFromConfig.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "fft/LocalTransforms.hpp"
#include "fft/SlabLayout.hpp"
#include "fft/TransformLanes.hpp"
#include "io/SlabTransfer.hpp"

namespace kolmo::app {

namespace {

// The program, MPI, HDF5 (with MPI-IO's collective buffers) and FFTW: the resident memory of a run on a tiny
// grid is about 40 MiB here; this leaves room for other builds of the libraries.
constexpr double kProgramAllowance = 96.0 * 1048576;
// NCCL's buffers (some MiB per peer) and cuFFT's smaller plans; cuFFT's shared work area itself is asked of
// cuFFT (fft::cuda_work_bytes): negligible at most sizes (MHD's 21.0 field equivalents held at 990^3), a
// whole slab at others (1080^3 single, where MHD lsrk4 held 16.0 against 15 counted before it was asked:
// docs/results/mhd_terms_largest_h100.log).
constexpr double kGpuLibraryReserve = 512.0 * 1048576;

std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 10.0 * 1073741824)
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / 1073741824);
  else
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576);
  return text;
}

// The exchange-in-pieces buffer: the largest piece's planes of the packed all-to-all, or where the strided
// route runs (p2p) a spectral slab (SlabFFTPieces.cpp).
double pieces_bytes(const io::RunConfig& config, const fft::SlabLayout& layout, double complex_bytes,
                    fft::ExchangeMethod exchange) {
  if (layout.ranks() == 1 || config.fft.exchange_pieces == 1) return 0;
  if (exchange == fft::ExchangeMethod::p2p) return double(layout.alloc_complex()) * complex_bytes;
  // 0: chosen at start among 1, 2, 4 and 8; two pieces need the largest buffer.
  const int pieces = config.fft.exchange_pieces == 0 ? 2 : static_cast<int>(config.fft.exchange_pieces);
  long largest = 0;
  for (int j = 0; j < pieces; ++j) largest = std::max(largest, layout.piece(0, j, pieces).count);
  return double(largest) * double(layout.packed_plane()) * complex_bytes;
}

// At most every wavevector within |k| <= k_max on the grid: a band forcing's list (index and saved modes).
double band_forcing_bytes(const io::RunConfig& config, const io::ForcingConfig& forcing,
                          double complex_bytes) {
  if (config.problem != io::Problem::navier_stokes || forcing.type != solver::ForcingKind::band) return 0;
  double modes = 1;
  for (int d = 0; d < 3; ++d) {
    const double reach = std::min(double(config.grid.n[d] / 2),
                                  std::floor(forcing.k_max * config.grid.box[d] / (2 * std::numbers::pi)));
    modes *= 2 * reach + 1;
  }
  return modes * (sizeof(long) + 3 * complex_bytes);
}

// The buffer through which a field file's x-fastest (z y x) order passes, to a dump or from a read: at most
// io::kTransposeBytes, and no more than the real slab.
double transpose_bytes(double real_slab) {
  return std::min(real_slab, double(io::kTransposeBytes));
}

// The most host memory one read of initial files holds at once (app/Inputs.hpp): initial.file's three
// slabs, every scalar's given by a file (read together), or b's three; each a checkpoint's spectral slabs, or
// a field file's real slabs and the buffer that transposes a kolmo dump's order into them (which of the two a
// file is shows only when it is read). A run from a checkpoint reads none of them.
double initial_files_bytes(const io::RunConfig& config, double real_slab, double spectral_slab) {
  int slabs = config.initial.type == io::InitialType::file ? 3 : 0, scalars = 0;
  for (const auto& scalar : scalar_fields(config))
    scalars += scalar.initial.type == io::ScalarInitialType::file ? 1 : 0;
  const auto& magnetic = config.physics.magnetic;
  const bool magnetic_file =
      magnetic.type == io::MagneticType::mhd && magnetic.initial.type == io::MagneticInitialType::file;
  slabs = std::max({slabs, scalars, magnetic_file ? 3 : 0});
  if (slabs == 0) return 0;
  return std::max(slabs * spectral_slab, slabs * real_slab + transpose_bytes(real_slab));
}

// cuFFT's work area for the slab's transforms (asked of cuFFT; needs the GPU, so only on the cuda backend).
double cufft_work_bytes(const io::RunConfig& config, const fft::SlabLayout& layout) {
#if defined(KOLMO_HAVE_CUDA)
  return double(config.precision == io::Precision::float32 ? fft::cuda_work_bytes<float>(layout)
                                                           : fft::cuda_work_bytes<double>(layout));
#else
  (void)config, (void)layout;
  return 0;
#endif
}

// The estimate for the rank that layout describes.
MemoryEstimate estimate_for(const io::RunConfig& config, const fft::SlabLayout& layout, Backend backend,
                            fft::ExchangeMethod exchange, io::StartFrom start) {
  const int ranks = layout.ranks();
  const double real_bytes = config.precision == io::Precision::float32 ? 4 : 8,
               complex_bytes = 2 * real_bytes;
  const double slab = double(layout.alloc_complex()) * complex_bytes;
  const double real_slab = double(layout.real_size()) * real_bytes;
  const double spectral_slab = slab;  // host copies of a spectral component are whole buffers

  double fields = 0, host_slabs = 0;
  if (config.problem == io::Problem::navier_stokes) {
    // The velocity 3, its stage input 3, the extra field 2 (divergence form) or 3 (rotational) and the
    // accumulator 3 of rk3 and rk4 (solver/NavierStokes.hpp).
    const bool accumulate = solver::needs_accumulator(config.time.integrator);
    const auto& physics = config.physics;
    const bool rotation = physics.rotation != std::array<double, 3>{0, 0, 0};
    const bool mhd = physics.magnetic.type == io::MagneticType::mhd;
    const solver::NonlinearForm form = solver::nonlinear_form_used(
        physics.nonlinear_form, rotation, physics.forcing.type == solver::ForcingKind::linear, mhd);
    const int velocity_slabs = 6 + (form == solver::NonlinearForm::divergence ? 2 : 3) + (accumulate ? 3 : 0);
    // Per scalar (solver/NavierStokes.hpp): state, gradient 3, accumulator; b also its spectral stage input.
    const int scalars = static_cast<int>(config.physics.scalars.size()),
              buoyant = config.physics.buoyancy.type == io::BuoyancyType::boussinesq ? 1 : 0;
    const int scalar_slabs = (scalars + buoyant) * (4 + (accumulate ? 1 : 0)) + buoyant;
    // MHD: b's state, stage field and accumulator (rk3, rk4); with rotation or linear forcing the spectral
    // copy of the stage's u (solver/StageFields.hpp).
    const bool input_copy = mhd && (rotation || physics.forcing.type == solver::ForcingKind::linear);
    const int magnetic_slabs = mhd ? 3 * (accumulate ? 3 : 2) + (input_copy ? 3 : 0) : 0;
    fields = (velocity_slabs + scalar_slabs + magnetic_slabs) * slab +
             band_forcing_bytes(config, physics.forcing, complex_bytes) +
             (mhd ? band_forcing_bytes(config, physics.magnetic.forcing, complex_bytes) : 0);
    int dumped = 0;  // real slabs of one field dump
    if (config.output.fields_every > 0)
      for (io::OutputField field : config.output.fields)
        dumped += field == io::OutputField::pressure  ? 1
                  : field == io::OutputField::scalars ? scalars + buoyant
                                                      : 3;
    const double transpose = dumped > 0 ? transpose_bytes(real_slab) : 0;
    // A checkpoint written holds every field's spectral slabs on the host at once, and so does the read of
    // the one a run from a checkpoint continues (read straight into them: io/Checkpoint.hpp); a new run
    // reads its initial files instead.
    const double initial_files =
        start == io::StartFrom::initial_condition ? initial_files_bytes(config, real_slab, spectral_slab) : 0;
    host_slabs = std::max({dumped * real_slab + transpose,
                           (3 + scalars + buoyant + (mhd ? 3 : 0)) * spectral_slab, initial_files});
  } else {
    fields = 2 * slab;
    const bool manufactured = config.poisson.rhs.type == io::RhsType::manufactured;
    host_slabs = (2 + (manufactured ? 1 : 0) + (config.poisson.gradient ? 3 : 0)) * real_slab +
                 transpose_bytes(real_slab);  // the dump's
  }
  MemoryEstimate estimate;
  // + the FFT's scratch slab; on several GPU ranks the slab chunks arrive in when cuFFT's kernels pack
  // (FftOptions::pack_in_ffts, on by default); and p2p's landing slab (fft/P2pExchange.cu) when the exchange
  // receives into memory its peers cannot write (a backward transform's output).
  // Navier-Stokes holds all of that once a transform lane (fft.lanes; fft/TransformLanes.hpp).
  const double receive = backend == Backend::cuda && ranks > 1 ? slab : 0;
  const double landing = exchange == fft::ExchangeMethod::p2p ? slab : 0;
  const int lanes = config.problem != io::Problem::navier_stokes ? 1
                    : config.fft.lanes > 0                       ? static_cast<int>(config.fft.lanes)
                                           : fft::automatic_lanes(backend, ranks, exchange);
  estimate.solver =
      fields + lanes * (slab + receive + landing + pieces_bytes(config, layout, complex_bytes, exchange));
  const bool mpi = exchange == fft::ExchangeMethod::isend_irecv || exchange == fft::ExchangeMethod::alltoallv;
  const bool staged = backend == Backend::cuda && mpi && !config.fft.cuda_aware_mpi;
  estimate.host = host_slabs + (staged ? 2 * slab : 0) + kProgramAllowance;
  if (backend == Backend::cuda)
    estimate.device = estimate.solver + kGpuLibraryReserve + lanes * cufft_work_bytes(config, layout);
  else
    estimate.host += estimate.solver;
  return estimate;
}

}  // namespace

MemoryEstimate estimate_memory(const io::RunConfig& config, int ranks, Backend backend,
                               fft::ExchangeMethod exchange, io::StartFrom start) {
  // Rank 0 holds the most x planes, and with the even split the most ky planes too; with the kept-row split
  // a middle rank may hold more ky planes (fft/SpectralSplit.hpp): the larger need of the two.
  const fft::SpectralSplit split = spectral_split(config, ranks);
  const fft::SlabLayout first(config.grid.n, ranks, 0, split);
  const int widest = first.widest_spectral_rank();
  MemoryEstimate estimate = estimate_for(config, first, backend, exchange, start);
  if (widest != 0) {
    const MemoryEstimate other =
        estimate_for(config, fft::SlabLayout(config.grid.n, ranks, widest, split), backend, exchange, start);
    estimate.solver = std::max(estimate.solver, other.solver);
    estimate.device = std::max(estimate.device, other.device);
    estimate.host = std::max(estimate.host, other.host);
  }
  return estimate;
}

MemoryAvailable check_memory(const io::RunConfig& config, const MemoryEstimate& estimate, Device& device,
                             MPI_Comm comm) {
  constexpr double unknown = std::numeric_limits<double>::infinity();
  const int node_ranks = node_size(comm);
  const auto host_bytes = Device::create(Backend::host)->available_bytes();
  double shares[2] = {host_bytes > 0 ? double(host_bytes) / node_ranks : unknown, unknown};
  int sharing_gpu = 1;
  if (device.backend() == Backend::cuda) {
    const int gpus = std::max(1, cuda_device_count()), mine = node_rank(comm) % gpus;
    sharing_gpu = node_ranks / gpus + (mine < node_ranks % gpus ? 1 : 0);
    shares[1] = double(device.available_bytes()) / sharing_gpu;
  }
  MemoryAvailable available;
  double smallest[2];
  KOLMO_CHECK_MPI(MPI_Allreduce(shares, smallest, 2, MPI_DOUBLE, MPI_MIN, comm));
  available.host = smallest[0];
  available.device = smallest[1];
  const std::string grid = "grid.n = [" + std::to_string(config.grid.n[0]) + ", " +
                           std::to_string(config.grid.n[1]) + ", " + std::to_string(config.grid.n[2]) + "]";
  // Where grid.n and precision came from ends the message, as the loader's do (found by fuzzing the
  // configuration: a --set grid.n=4096 was not named).
  const std::string advice =
      "; use a smaller grid.n, more nodes" +
      std::string(config.precision == io::Precision::float64 ? ", or precision: single" : "") +
      io::sources_text(config, {"grid.n", "precision"});
  if (estimate.host > available.host)
    throw Error(grid + ": the run needs about " + bytes_text(estimate.host) + " of host memory per rank (" +
                bytes_text(estimate.solver) + " for the solver's fields), but " + bytes_text(available.host) +
                " are available per rank (MemAvailable shared by the " + std::to_string(node_ranks) +
                " rank(s) on a node)" + advice);
  if (estimate.device > available.device)
    throw Error(grid + ": the run needs about " + bytes_text(estimate.device) +
                " of GPU memory per rank, but " + bytes_text(available.device) +
                " are free per rank (the GPU's free memory shared by " + std::to_string(sharing_gpu) +
                " rank(s))" + advice);
  return available;
}

io::RunConfig least_demanding(const io::RunConfig& config) {
  io::RunConfig least = config;
  if (least.fft.spectral_split == io::SpectralSplitChoice::automatic)
    least.fft.spectral_split = io::SpectralSplitChoice::even;
  if (least.fft.lanes == 0) least.fft.lanes = 1;
  return least;
}

fft::SpectralSplit spectral_split(const io::RunConfig& config, int ranks) {
  switch (config.fft.spectral_split) {
    case io::SpectralSplitChoice::even:
      return fft::SpectralSplit::even;
    case io::SpectralSplitChoice::kept_rows:
      return fft::SpectralSplit::kept_rows;
    case io::SpectralSplitChoice::automatic:
      break;
  }
  return fft::automatic_spectral_split(ranks, config.problem == io::Problem::navier_stokes);
}

namespace {

bool fits(const MemoryEstimate& estimate, const MemoryAvailable& available) {
  return estimate.host <= available.host && estimate.device <= available.device;
}

}  // namespace

SplitChoice choose_spectral_split(const io::RunConfig& config, int ranks, Backend backend,
                                  fft::ExchangeMethod exchange, io::StartFrom start,
                                  const MemoryAvailable& available) {
  const fft::SpectralSplit split = spectral_split(config, ranks);
  const std::string name = fft::to_string(split);
  if (config.fft.spectral_split != io::SpectralSplitChoice::automatic)
    return {config.fft.spectral_split, name + " (fft.spectral_split)"};
  const std::string why = "fft.spectral_split auto: ";
  if (split == fft::SpectralSplit::even)
    return {io::SpectralSplitChoice::even,
            name + " (" + why +
                (config.problem != io::Problem::navier_stokes ? "full transforms"
                                                              : std::to_string(ranks) + " rank(s)") +
                ")"};
  io::RunConfig trial = least_demanding(config);
  trial.fft.spectral_split = io::SpectralSplitChoice::kept_rows;
  const MemoryEstimate kept = estimate_memory(trial, ranks, backend, exchange, start);
  if (fits(kept, available))
    return {io::SpectralSplitChoice::kept_rows,
            name + " (" + why + "dealiased transforms on " + std::to_string(ranks) + " ranks)"};
  return {io::SpectralSplitChoice::even, "even (" + why + "kept_rows would need " +
                                             describe(kept, available, backend) +
                                             ", more than is available)"};
}

long choose_lanes(const io::RunConfig& config, int ranks, Backend backend, fft::ExchangeMethod exchange,
                  io::StartFrom start, const MemoryAvailable& available) {
  if (config.fft.lanes > 0 || config.problem != io::Problem::navier_stokes) return config.fft.lanes;
  io::RunConfig trial = config;
  for (long lanes = fft::automatic_lanes(backend, ranks, exchange); lanes > 1; --lanes) {
    trial.fft.lanes = lanes;
    if (fits(estimate_memory(trial, ranks, backend, exchange, start), available)) return lanes;
  }
  return 1;
}

std::string describe(const MemoryEstimate& estimate, const MemoryAvailable& available, Backend backend) {
  auto share = [](double bytes) {
    return std::isfinite(bytes) ? " (available " + bytes_text(bytes) + ")"
                                : std::string(" (available: unknown)");
  };
  std::string text;
  if (backend == Backend::cuda) text = "GPU " + bytes_text(estimate.device) + share(available.device) + ", ";
  return text + "host " + bytes_text(estimate.host) + share(available.host) + " per rank";
}

}  // namespace kolmo::app
