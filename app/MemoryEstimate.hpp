// How much memory a run needs per rank, estimated from the configuration before anything is allocated, and
// the refusal of a run that cannot fit.
//
// Contract:
// - estimate_memory(config, ranks, backend, exchange, start) gives bytes per rank for the rank with the
//   largest share of the grid (the first; with the kept_rows split (spectral_split()), each amount the larger
//   of the first rank's and the widest spectral slab's), with `exchange` the resolved fft.exchange and
//   `start` what the run starts from (a run from a checkpoint reads no initial file):
//     solver  what the solver allocates on its device: the fields (Navier-Stokes: 3 vector fields of three
//             slabs for rk2, 4 for rk3 and rk4, and per scalar 4 slabs for rk2, 5 for rk3 and rk4, one more
//             for the buoyancy b; MHD's b 6 slabs for rk2, 9 for rk3 and rk4; Poisson: 2 slabs), each slab
//             SlabLayout::alloc_complex()
//             complex values, the FFT's scratch slab, the exchange-in-pieces buffer (with p2p a slab),
//             p2p's landing slab (these once a transform lane: fft.lanes),
//             the band forcing's modes;
//     device  on a GPU, solver plus a reserve for cuFFT's and NCCL's work areas; 0 on the host backend;
//     host    on the host backend solver, plus on either backend the most host slabs the run holds at once
//             (a field dump's output fields and its transposition buffer, a checkpoint's or a restart's
//             spectral slabs of every field, a new run's initial files as read: initial.file's three slabs,
//             the scalars' or b's, with a field file's transposition buffer; the Poisson run's right-hand
//             side, solution and gradient), the pinned staging buffers of an MPI exchange of GPU data, and a
//             fixed allowance for the program and its libraries (MPI, HDF5, FFTW).
//   The host estimate is held to the measured peak resident memory of runs (tests/app/test_runs.py).
// - choose_spectral_split and choose_lanes (below) settle fft.spectral_split auto and fft.lanes 0 before the
//   estimate that check_memory holds the run to.
// - check_memory(estimate, device, comm) is collective over comm and throws kolmo::Error on every rank (one
//   line naming grid.n, the estimate and what is available) when some rank's need exceeds its share: the
//   node's MemAvailable divided by comm's ranks on that node (host), the GPU's free memory divided by the
//   ranks on the node that share that GPU (device). It returns the smallest shares found, for reports.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "core/Device.hpp"
#include "fft/Exchange.hpp"
#include "io/Config.hpp"

namespace kolmo::app {

struct MemoryEstimate {
  double solver = 0, device = 0, host = 0;  // bytes per rank
};

struct MemoryAvailable {
  double device = 0, host = 0;  // bytes per rank, the smallest share over the ranks
};

MemoryEstimate estimate_memory(const io::RunConfig& config, int ranks, Backend backend,
                               fft::ExchangeMethod exchange, io::StartFrom start);

MemoryAvailable check_memory(const io::RunConfig& config, const MemoryEstimate& estimate, Device& device,
                             MPI_Comm comm);

// The run's automatic choices (fft.spectral_split auto, fft.lanes 0) settle within what is available. main
// holds the run to least_demanding(config) first (check_memory: the automatic choices at their least, the
// even split and one lane, so that a run that fits so is never refused for what it did not ask for), then
// settles the split and the lanes within the shares that check found, then checks the estimate of the run as
// settled.
io::RunConfig least_demanding(const io::RunConfig& config);

// The split fft.spectral_split gives on `ranks` ranks: as given, or for auto fft::automatic_spectral_split
// (dealiased: Navier-Stokes), whatever the memory.
fft::SpectralSplit spectral_split(const io::RunConfig& config, int ranks);

// fft.spectral_split for the run: as given; for auto the split spectral_split() picks, or even where that
// is kept_rows and its estimate (with fft.lanes as given, 0 as one lane) exceeds `available` while even's
// does not. report: the header's line, the split and why ("kept_rows (fft.spectral_split auto: dealiased
// transforms on 4 ranks)").
struct SplitChoice {
  io::SpectralSplitChoice split;
  std::string report;
};
SplitChoice choose_spectral_split(const io::RunConfig& config, int ranks, Backend backend,
                                  fft::ExchangeMethod exchange, io::StartFrom start,
                                  const MemoryAvailable& available);

// fft.lanes for the run: as given, or for 0 (Navier-Stokes) the automatic count (fft::automatic_lanes)
// lowered while its estimate exceeds `available`, down to 1, so that a run that fits with one lane is not
// refused for the lanes it was not asked for. config's split is settled (choose_spectral_split).
long choose_lanes(const io::RunConfig& config, int ranks, Backend backend, fft::ExchangeMethod exchange,
                  io::StartFrom start, const MemoryAvailable& available);

// "1.2 GiB host per rank (available 20.3 GiB)", with the GPU's share first on the cuda backend.
std::string describe(const MemoryEstimate& estimate, const MemoryAvailable& available, Backend backend);

}  // namespace kolmo::app
