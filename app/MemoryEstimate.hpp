// How much memory a run needs per rank, estimated from the configuration before anything is allocated, and
// the refusal of a run that cannot fit.
//
// Contract:
// - estimate_memory(config, ranks, backend, exchange, start) gives bytes per rank for the rank with the
//   largest share of the grid (the first; with fft.spectral_split kept_rows, each amount the larger of the
//   first rank's and the widest spectral slab's), with `exchange` the resolved fft.exchange and `start` what
//   the run starts from (a run from a checkpoint reads no initial file):
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
// - choose_lanes (below) settles fft.lanes 0 before the estimate that check_memory holds the run to.
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

// fft.lanes for the run: as given, or for 0 (Navier-Stokes) the automatic count (fft::automatic_lanes)
// lowered while its estimate exceeds what is available, down to 1, so that a run that fits with one lane is
// not refused for the lanes it was not asked for. Collective over comm, as check_memory (which it calls for
// one lane, and which throws where even that does not fit).
long choose_lanes(const io::RunConfig& config, int ranks, Device& device, fft::ExchangeMethod exchange,
                  io::StartFrom start, MPI_Comm comm);

// "1.2 GiB host per rank (available 20.3 GiB)", with the GPU's share first on the cuda backend.
std::string describe(const MemoryEstimate& estimate, const MemoryAvailable& available, Backend backend);

}  // namespace kolmo::app
