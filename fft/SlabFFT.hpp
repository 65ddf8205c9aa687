// kolmo's distributed 3D real-to-complex FFT, slab-decomposed along x.
//
// Contract:
// - SlabFFT<Real> (Real = float or double) is built from the global grid {Nx, Ny, Nz} (any positive sizes up
//   to 2^31 - 1, not necessarily equal or even), an MPI communicator (duplicated inside), a Device (host or
//   one GPU) and options. All ranks of the communicator construct it, with the same grid, precision, device
//   kind and options (ranks that differ are refused, below), and call forward/backward together, with the
//   same modes and all in place or all out of place (the ranks' exchanges must match).
// - layout() says which real-space x planes and which spectral ky planes this rank holds and how data are
//   ordered (see SlabLayout.hpp). Buffers passed in must hold layout().alloc_complex() complex values and
//   live in the Device's memory (device pointers on the CUDA backend). alloc_complex() >= 1 on every rank
//   (each holds at least one x plane and one ky plane), so no rank may pass a null pointer. A spectral
//   array, and a real array transformed in place, must be aligned as Complex<Real> is (2 sizeof(Real)
//   bytes; every allocation is); arrays need not be aligned as FFTW's SIMD code wants
//   (fft/HostTransforms.cpp plans for them apart).
// - forward(in, out): real slab -> spectral slab, F(k) = sum_x f(x) exp(-i k.x), unnormalised.
//   backward(in, out): spectral slab -> real slab, f(x) = sum_k F(k) exp(+i k.x), unnormalised as well, so
//   backward(forward(f)) = Nx Ny Nz f. (The solver folds 1/(Nx Ny Nz) into its pointwise kernels, which saves
//   a pass over memory.) in == out (in place) is allowed for both; otherwise in and out must not overlap.
//   Out of place, forward leaves its input intact and backward leaves its input intact too. Both are
//   asynchronous on the Device's stream.
// - Algorithm: forward = 2D R2C on each yz plane, pack each peer's chunk contiguously, all-to-all (own chunk
//   by a local copy), 1D C2C along x; the received chunks land directly in the kx-major spectral layout, so
//   no transpose follows the exchange. backward = the reverse. With FftOptions::exchange_pieces the
//   all-to-all goes in pieces that overlap the plane FFTs and packing (fft/SlabFFTPieces.cpp); the results
//   are the same. On several GPU ranks the transforms' own kernels do the packing and unpacking
//   (FftOptions::pack_in_ffts: kolmo's column FFTs, loading and storing the chunks themselves where they take
//   Ny, dealiased also Nx, fft/ColumnExecutors.cuh; cuFFT's callbacks otherwise), or, where the exchange
//   copies strided blocks (p2p, emulated ranks), nothing is packed: the exchange copies each peer's rows
//   between the two layouts (FftOptions::strided_exchange), whole or in pieces (in place and whole, forward
//   transforms on GPUs keep their planes in the receive slab of FftOptions::pack_in_ffts, or without it copy
//   them once more; fft/SlabFFT.cpp).
// - Emulated ranks (FftOptions::emulated_ranks): one object does one rank's work of a transform over P ranks
//   alone, for benchmarks and tests; the communicator is not used then. Emulated objects on some ranks only
//   are fine (each works alone), but not in place of real ones: where some ranks of a communicator construct
//   a real transform on it and others an emulated one, the real ones hang in the collectives of their
//   construction (duplicating the communicator, the agreement check under Errors), which the emulated ones
//   never join. This is not detected: it would take a collective that emulated ranks join, and they must not
//   need their communicator.
// - Dealiased transforms (Modes::dealiased), for pseudo-spectral solvers that apply the 2/3 rule anyway:
//   forward returns the spectrum at every mode of 3|n_y| < Ny and 3 n_z < Nz (the kept columns); what it
//   leaves in the other modes is unspecified (zero, or anything: it may skip them). backward treats those
//   modes of its input as zero, whatever their values (NaN included). Across ranks only the kept modes go
//   through the all-to-all and the x FFTs, about 4/9 of the data. On one rank the x FFTs run on the kept ky
//   rows alone (2/3 of the columns), or on a GPU the mask may run inside cuFFT's kernels (LTO callbacks,
//   fft/DealiasCallbacks.cu), or kolmo's own column FFTs transform only the kept columns along y and x
//   (pruned, where Nx and Ny are powers of two from 8 to 2048), whichever a short timing finds fastest.
//   (kx is not truncated: the x FFT needs the whole line; the solver zeroes |n_x| > Nx/3.)
// - Errors: an impossible grid or rank count (fft/SlabLayout.hpp), ranks that disagree on the grid,
//   precision, device kind or options, a null device, or MPI_COMM_NULL (but for emulated ranks) throw
//   kolmo::Error on every rank before any allocation. The agreement is checked by a collective among the
//   ranks that construct real transforms: a rank constructing an emulated one instead is no party to it,
//   and the real ones hang rather than throw (Emulated ranks, above). A null `in` or `out` of forward
//   or backward throws kolmo::Error naming it, checked on the calling rank only, before anything is queued:
//   transforms are hot and asynchronous and take no collective to agree, so ranks that passed valid
//   buffers are not told and wait in the exchange for the rank that threw (a caller that catches it on
//   some ranks must abort the others).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../core/Buffer.hpp"
#include "../core/Communicator.hpp"
#include "../core/Complex.hpp"
#include "../core/Device.hpp"
#include "Exchange.hpp"
#include "LocalTransforms.hpp"
#include "SlabLayout.hpp"

namespace kolmo::fft {

enum class Modes { all, dealiased };

// How one-rank dealiased transforms leave out the dropped (ky, kz) modes: copying the kept modes to a compact
// slab and back (the route of several ranks, never faster on one: for tests and comparison); x transforms of
// the kept ky rows only (backward then zeroes the dropped columns); the mask inside cuFFT's x transforms
// (CUDA with callbacks); or pruned columns (CUDA, Nx and Ny powers of two from 8 to 2048): the transforms
// along z (kolmo's row FFTs, fft/RowFft.hpp, of the kept kz only where Nz is a power of two from 16 to 4096;
// cuFFT's otherwise), then kolmo's own column FFTs (fft/ColumnFft.hpp) along y of the kept kz columns and
// along x of the kept (ky, kz) columns only. automatic: rows on the host; on a GPU, per direction, the
// fastest of rows, the mask and pruned columns by a short timing, used only if faster than the full
// transform. A way asked for by name is always
// used, in both directions (for tests and benchmarks). (The mask in the backward plane transforms was
// dropped: on an H100 it was never the fastest way, docs/results/fft_one_rank_ways_h100.log and the solver
// logs.)
enum class OneRankDealiasing { automatic, copies, rows, masked_x, pruned };
// The names, in the enum's order: "automatic", "copies", "rows", "masked_x", "pruned".
const std::vector<std::string>& one_rank_dealiasing_names();
// One of those names; throws Error naming them all otherwise.
OneRankDealiasing parse_one_rank_dealiasing(const std::string& name);

// Whether the all-to-all moves strided blocks straight between the layouts of the local transforms (no
// packing, unpacking or compaction passes; fft/Exchange.hpp): automatic where copy engines do it (p2p, and
// the loopback of emulated ranks); always where the exchange can (also isend_irecv on the host, through MPI
// datatypes); never.
enum class StridedExchange { automatic, always, never };

// On the strided route, how the rank's own rows go from the plane transforms' layout to the spectral slab:
// placed there by the plane transforms themselves (kolmo's column FFTs along y: GPUs, Ny a power of two from
// 8 to 2048; dealiased, Nx too; dealiased backward transforms place them by their x transforms, kolmo's
// column FFTs along x, into the planes their plane transforms read), or copied as a chunk of the exchange.
// automatic: dealiased placed wherever they can be (the same column FFTs as the pruned planes, the copy
// saved); full by timing a pair each way at construction (cuFFT's 2D plane transforms and the copy against
// cuFFT's transforms along z and the column FFTs along y: on one GPU the copy counts in full, on a node it
// runs beside the exchange).
enum class OwnRows { automatic, placed, copied };

// With FftOptions::pack_in_ffts, how full (not dealiased) transforms lay out the exchange's chunks. never:
// the plane transforms store them packed ([q][x][y of q][kz], each peer's chunk contiguous) and the x
// transforms read what arrived as it lies: kolmo's column FFTs along y store the chunks where they take Ny
// (the planes in groups, by timing), cuFFT's callbacks otherwise, which cost more in cuFFT's kernels. always
// (the realigned route): the plane transforms write [ky][x][kz] through cuFFT's advanced layout, each
// peer's chunk [y of q][x][kz] contiguous without callbacks, and the x transforms load and store the
// chunks: kolmo's column FFTs where they take Nx (forward in single precision only), cuFFT's callbacks
// otherwise. automatic: never where kolmo's column FFTs take Ny, always otherwise. One rank's work of 2, 4
// and 8 on one H200 at 512^3 and 1024^3 took 1.02-1.16 x its share by the column FFTs' stores, 1.15-1.25 x
// realigned, 1.60-1.81 x by the callbacks in the plane transforms (docs/results/fused_full_columns_h200.log);
// on an H100 the realigned route had been as fast as the plane callbacks or faster
// (docs/results/fft_emulated_ranks_h100.log).
enum class RealignedPlanes { automatic, always, never };

struct FftOptions {
  ExchangeMethod exchange = ExchangeMethod::automatic;
  // The MPI library accepts device pointers (only matters for MPI exchange methods on the CUDA backend).
  bool cuda_aware_mpi = false;
  // Time each phase of every transform (PhaseTimes): marks between phases on the device's queue (CUDA events
  // on a GPU), the device synchronised once at the end of each transform. For benchmarks.
  bool profile = false;
  // Profiles on a GPU: the device starts each transform once the host has queued it (fft/PhaseClock.hpp), as
  // when the host runs ahead, so that the phases are the device's work; false: the host's launching counts
  // wherever the device waits for it (with small transforms, mostly in the first phase).
  bool profile_held = true;
  // Double precision only: compute in double, send single precision through the all-to-all (half the bytes;
  // the spectrum then carries single-precision rounding, about 1e-7 relative). Costs two half-size buffers.
  // Ignored for float and on one rank.
  bool single_precision_wire = false;
  // One rank only (OneRankDealiasing above); ignored on several ranks, where only the kept modes are sent.
  OneRankDealiasing one_rank_dealiasing = OneRankDealiasing::automatic;
  // Several ranks on GPUs: the transforms' own kernels write the chunks the exchange sends and read what it
  // received (kolmo's column FFTs, loading and storing the chunks element by element where they take the
  // lengths, cuFFT's callbacks otherwise: fft/ExchangeCallbacks.cu), the rank's own chunk going straight to
  // where it is used, instead of passes of packing, unpacking and copying; dealiased transforms read and
  // write their kept modes in place. Used for transforms in one piece (not with single_precision_wire); in
  // place, forward transforms whose plane transforms store the chunks copy the own chunk (their intermediate
  // planes need the receive slab). Costs one more slab of memory, where the strided route's forward
  // transforms in place also keep their planes. false: always the copies (for comparison), or the strided
  // route (which then copies in-place forward transforms' planes once more).
  bool pack_in_ffts = true;
  // With pack_in_ffts, full transforms' chunks (RealignedPlanes above).
  RealignedPlanes realigned_planes = RealignedPlanes::automatic;
  // Several ranks, transforms out of place (forward) or any (backward) in one piece, full precision on the
  // wire: the strided route, where chosen (StridedExchange above), takes precedence over pack_in_ffts. The
  // plane transforms write their natural layout [x][y][kz] and the exchange copies each peer's rows from it
  // into that peer's spectral slab [kx][ky][kz] (dealiased: only the kept modes, into their places in the
  // full slab, whose x transforms then run over the kept ky rows alone), and back.
  StridedExchange strided_exchange = StridedExchange::automatic;
  OwnRows own_rows = OwnRows::automatic;
  // Emulated ranks (benchmarks and tests of one rank's work on one device): when > 0, this object does the
  // complete local work of rank emulated_rank of a transform over emulated_ranks ranks (the same layout,
  // plans, packing and chunk sizes), on its own: the communicator is not used, and the all-to-all is
  // replaced by local copies of the same bytes (fft/Exchange.hpp, loopback). Its results are those of the
  // real rank only where they do not depend on the other ranks' data.
  int emulated_ranks = 0;
  int emulated_rank = 0;
  // Emulated ranks: false makes the all-to-all move nothing, so that the computation alone can be timed where
  // phases overlap and cannot be timed apart (several transforms in flight on several streams, in
  // tools/fft_bench.cpp); the results are then garbage. For benchmarks only.
  bool emulated_exchange_moves = true;
  // How the spectral slab's ky planes are shared among the ranks (fft/SpectralSplit.hpp; layout() says
  // which this rank holds): even, or balanced by the kept rows of dealiased transforms (their exchange and
  // x FFTs then even across ranks; the middle ranks' slabs wider, 1.33 x the even one on 4 ranks, 2 x on 8,
  // and with them their memory and any pointwise work on the spectral slab). even by default: full
  // transforms want it, and for dealiased ones the memory and a solver's spectral work weigh against the
  // FFT's gain until a measurement of the whole step says otherwise. Emulated ranks use it too.
  SpectralSplit spectral_split = SpectralSplit::even;
  // Several ranks: split each all-to-all into this many pieces along the local x planes, so that the plane
  // FFTs and packing of one piece run while earlier pieces are in flight (forward), and the unpacking and
  // plane FFTs of arrived pieces while later ones are (backward). 1: one exchange, no overlap. 0: chosen at
  // construction by timing 1, 2, 4 and 8 pieces (full and dealiased transforms separately). Costs a buffer
  // of one piece's planes, or where the strided route runs a spectral slab (its backward x transforms write
  // there what the pieces send while arrived pieces' plane transforms write the output). Ignored on one
  // rank, with single_precision_wire, and for full (not dealiased) forward transforms in place (the packing
  // of early pieces would overwrite the input of later ones; the strided route's forward transforms in place
  // go by the copies).
  int exchange_pieces = 1;
  // GPU, plane transforms by kolmo's row and column FFTs (dealiased: the pruned and the strided routes, where
  // Nz is a length the row FFTs take; full: where Nz and Ny are, wherever a timing at construction finds
  // them faster than cuFFT's kernels, per direction, and always where a count is given here): the planes go
  // in this many groups, which the device's stream and a second one take in turn, so that one group's passes
  // fill the ramps and tails of the other's and a group's intermediate planes are still in L2 when its
  // column FFTs read them (fft/ColumnExecutors.cuh); groups after the first two may start on their stream as
  // the group before them there ends ("following early", as a count given here does). 1: one group. 0:
  // chosen at construction, each direction by a timing, one transform a round as a transform runs them, of
  // one group against 2 and 4 groups and groups of about a quarter and an eighth of L2, of those that make
  // from 2 to 64 groups and no more than the planes, with and without following early. Plane transforms
  // that place the rank's own rows (FftOptions::own_rows) backward would stay in one group, their column FFTs
  // reading memory that their row FFTs then overwrite; dealiased backward transforms place them by their x
  // transforms instead. Groups give the results of one group, bit for bit (kolmo's kernels and cuFFT's agree
  // to rounding). Ignored on the host.
  int plane_groups = 0;
  // Host backend: FFTW times its algorithms for each transform at construction and keeps the fastest
  // (measure; seconds for large grids unless the wisdom below holds them already), or picks by its heuristics
  // (estimate; instant, up to 2 x slower above 64^3); automatic measures grids of kMeasuredPoints points or
  // more (fft/LocalTransforms.hpp). Ignored on GPUs.
  FftwPlanning fftw_planning = FftwPlanning::automatic;
  // Where measured plans are kept between runs and read from (FFTW wisdom, one file per precision); "" for
  // nowhere, each run measuring anew. Runs repeat bit for bit when their plans are the same: with measure,
  // when they share the wisdom. default_cache_directory() is the user's cache. Ignored with estimate.
  std::string fftw_wisdom_directory = "";
  // Where the choices made by timing at construction (one GPU's dealiasing way, the strided route and the
  // own rows, pieces where exchange_pieces is 0, plane groups and kernels) are kept between runs and adopted
  // from, as FFTW's wisdom is (fft/RouteChoices.hpp): later constructions of the same problem on the same
  // kind of device, with the same options, take them without timing, so that runs and restarts repeat bit
  // for bit. "" for nowhere: each construction times anew (benchmarks). default_cache_directory() is the
  // user's cache.
  std::string route_choices_directory = "";
};

// $XDG_CACHE_HOME/kolmo, or ~/.cache/kolmo without XDG_CACHE_HOME; "" when neither variable is set.
std::string default_cache_directory();

// The phases of one rank's share of a transform, for profiles. planes: the 2D FFTs of the yz planes (with
// the packing or unpacking when cuFFT does it, or the host block by block); pack: copies into the send layout
// (dealiased: also the compaction of the spectral slab); own_chunk: the copy of the rank's own chunk;
// exchange: the all-to-all with the other ranks (in pieces: with the work overlapping it); x: the 1D FFTs
// along x; unpack: copies out of the receive layout (dealiased: also the spreading of the compact spectral
// slab); zero: zeroing of modes the plane transforms read.
enum class Phase { planes, pack, own_chunk, exchange, x, unpack, zero };
constexpr int kPhaseCount = 7;
// "planes", "pack", "own_chunk", "exchange", "x", "unpack", "zero"
const char* to_string(Phase phase);

// Accumulated times of all transforms since the last reset (profile mode only), in seconds, measured on the
// device's queue between phases (CUDA events on GPUs).
struct PhaseTimes {
  double compute = 0;                                            // every phase but the exchange
  double communication = 0;                                      // the exchange
  double forward[kPhaseCount] = {}, backward[kPhaseCount] = {};  // per phase, indexed by Phase
  double queued = 0;  // the host's time to queue the transforms (fft/PhaseClock.hpp)
  long transforms = 0;
};

class PhaseClock;
class RouteChoices;
template <class Real>
class PlaneTransform;
template <class Real>
class XTransform;
template <class In, class Out>
struct Route;

template <class Real>
class SlabFFT {
 public:
  using C = Complex<Real>;

  SlabFFT(std::array<long, 3> n, MPI_Comm comm, std::shared_ptr<Device> device, FftOptions options = {});
  ~SlabFFT();
  SlabFFT(const SlabFFT&) = delete;
  SlabFFT& operator=(const SlabFFT&) = delete;

  const SlabLayout& layout() const { return layout_; }
  Device& device() const { return *device_; }
  const std::shared_ptr<Device>& device_handle() const { return device_; }
  MPI_Comm comm() const { return comm_.get(); }
  const FftOptions& options() const { return options_; }
  ExchangeMethod exchange_method() const { return exchange_->method(); }
  // Bytes this object holds on the device: the scratch slab (two with FftOptions::pack_in_ffts on several
  // GPU ranks), the FFT library's work area, the piece buffer, the host's buffers of a block of planes.
  std::size_t workspace_bytes() const;

  void forward(const Real* in, C* out, Modes modes = Modes::all);
  void backward(const C* in, Real* out, Modes modes = Modes::all);
  // Whether Modes::dealiased is faster than Modes::all here, per direction: always across ranks (less to
  // exchange) and on one host rank (x transforms of 2/3 of the columns). On one GPU the construction times
  // the kept rows, the cuFFT masks and the pruned columns against the full transform, in turns and by the
  // device's time, each queued before the device starts it as in a solver whose host runs ahead (cuFFT's
  // callback kernels are not always as fast as its plain ones, and the zeroing of dropped columns costs a
  // pass over part of the slab); a backward is compared with a full one plus the zeroing of the dropped
  // modes that a caller of the full transform must do first. dealiasing_report() says what was chosen, with
  // the times.
  bool dealiased_backward_saves_work() const { return dealias_.backward_saves; }
  bool dealiased_forward_saves_work() const { return dealias_.forward_saves; }
  const std::string& dealiasing_report() const { return dealias_.report; }
  // Pieces each all-to-all is split into, for full (Modes::all) and dealiased transforms; what the choice
  // was based on (the timings, when FftOptions::exchange_pieces = 0).
  int exchange_pieces(Modes modes) const { return pieces_[modes == Modes::dealiased ? 1 : 0]; }
  const std::string& exchange_pieces_report() const { return pieces_report_; }
  // Whether transforms of these modes go by the strided route (FftOptions::strided_exchange; forward ones
  // out of place), and how that was chosen: full transforms wherever the route can run; dealiased ones, which
  // it sends as whole kept ky rows (1.5 x the bytes of the compact chunks of the other routes), by timing a
  // pair each way at construction unless asked for by name. The report also says how the own rows go
  // (FftOptions::own_rows).
  bool strided(Modes modes) const { return strided_routes_[modes == Modes::dealiased ? 1 : 0]; }
  const std::string& strided_report() const { return strided_report_; }
  // How the local FFTs were planned (host: measured or estimated, the wisdom file; "" on GPUs).
  std::string planning_report() const { return transforms_->planning_report(); }
  // Whether the choices made by timing were adopted from an earlier run or timed, and where they are kept
  // (FftOptions::route_choices_directory); "" where nothing was timed.
  const std::string& route_choices_report() const;

  // The dealiased transforms split at their rows along z (fft/RowSplit.hpp), for a solver that forms its
  // real-space products between the rows' transforms (fft/RowProducts.cuh) instead of in real slabs: on a
  // GPU where the pruned executors have kolmo's row FFTs (Nx and Ny powers of two from 8 to 2048, Nz from 16
  // to 4096), on one rank where the options leave the pruned route to be used (one_rank_dealiasing
  // automatic or pruned), on several where the exchange moves strided blocks (the strided route: p2p, the
  // loopback of emulated ranks) or, with pack_in_ffts at full precision on the wire, contiguous chunks (the
  // fused route's: NCCL, MPI); its exchange whole, whatever exchange_pieces says; null elsewhere.
  RowSplit<Real>* row_split() const { return row_split_.get(); }

  // Allocation helpers: a buffer of alloc_complex() complex values, or the same bytes as Reals.
  Buffer<C> make_spectral() const { return Buffer<C>(device_, layout_.alloc_complex()); }
  Buffer<Real> make_real() const { return Buffer<Real>(device_, 2 * layout_.alloc_complex()); }

  // Where each peer's chunk sits in the forward transform's (full) all-to-all, in bytes.
  const Chunks& forward_chunks() const { return forward_chunks_; }

  const PhaseTimes& times() const { return times_; }
  void reset_times() { times_ = PhaseTimes{}; }
  // Whether transforms of these modes, out of place, go by the fused route (cuFFT's kernels do the packing;
  // FftOptions::pack_in_ffts), making its plans if needed.
  bool packs_in_ffts(Modes modes);
  // The route transforms of these modes take out of place across ranks, in kolmo_fft_bench's names (its
  // --routes): "placed" (strided, the own rows placed), "strided", "realigned" or "fused" (packing in cuFFT's
  // kernels), "copies" (packing by copies, whole or in pieces); "one rank" on one rank. For logs that a model
  // of the route reads (tools/fft_model.py).
  std::string route_name(Modes modes);
  // Why not, where cuFFT refused the callbacks of the fused route; empty otherwise.
  std::string packing_refusal() const { return transforms_->fused_refusal(); }

 private:
  using ForwardRoute = Route<Real, C>;
  using BackwardRoute = Route<C, Real>;
  // A buffer a step uses that the transform's arguments do not fix at construction: its output, or one of
  // this object's slabs.
  enum class Slot { out, scratch, receive };
  C* at(Slot slot, void* out);
  bool narrow_wire() const;

  // The executors (fft/Executors.hpp) every route uses, made once by the backend, which outlives them.
  void make_executors();
  // The routes (fft/Route.hpp), chosen and assembled once; each transform walks one (fft/SlabFFT.cpp has the
  // diagram of each kind). The table: forward by [dealiased][in place], backward by [dealiased].
  void assemble_routes();
  ForwardRoute forward_route(bool dealiased, bool in_place);
  BackwardRoute backward_route(bool dealiased);
  template <class In, class Out>
  void walk(const Route<In, Out>& route, const In* in, Out* out);
  // Profiles: marks around each transform, and after each step of its route (walk).
  void begin_profile(int direction);
  void end_profile();
  ForwardRoute forward_full(bool in_place);
  BackwardRoute backward_full();
  // The strided route (FftOptions::strided_exchange): whether it can run here, the choice, its chunk tables,
  // its routes.
  bool strided() const;
  void choose_strided();
  // Piece j of `pieces` (one piece: the whole exchange).
  Chunks strided_chunks(bool dealiased, int piece = 0, int pieces = 1) const;
  ForwardRoute forward_strided(bool dealiased, bool in_place);
  BackwardRoute backward_strided(bool dealiased);
  PlaneTransform<Real>* strided_planes(bool dealiased, bool placed) const;
  // Its x transforms of one direction, from the first argument to the second.
  std::function<void(const C*, C*)> strided_x(bool dealiased, bool forward) const;
  std::string own_rows_report() const;
  // Dealiased by copies: the kept modes packed compactly (several ranks; one rank where asked for by name).
  ForwardRoute forward_dealiased();
  BackwardRoute backward_dealiased();
  // One rank: dealiased by kept rows or by the mask in cuFFT's kernels (or by copies); the choice among them.
  ForwardRoute forward_one_rank(OneRankDealiasing way, bool in_place);
  BackwardRoute backward_one_rank(OneRankDealiasing way);
  struct DealiasChoice {
    OneRankDealiasing backward = OneRankDealiasing::copies, forward = OneRankDealiasing::copies;
    bool backward_saves = false, forward_saves = false;
    std::string report;
  };
  void choose_one_rank_dealiasing();
  // The fused route (FftOptions::pack_in_ffts): its kind, its executors of one direction (made once;
  // false where cuFFT refused them), and the routes.
  FusedRoute fused_route(bool dealiased) const;
  bool fused_executors(FusedRoute route, bool forward, bool own_direct);
  ForwardRoute forward_fused(bool dealiased, bool in_place);
  BackwardRoute backward_fused(bool dealiased);
  // The all-to-all's steps: the rank's own chunk by a local copy unless the executors put it in place
  // already (own_in_place), the other ranks' chunks through the exchange, in single precision when the
  // options ask for it.
  template <class In, class Out>
  void add_exchange(Route<In, Out>& route, Slot send, Slot receive, const Chunks& chunks, bool own_in_place);
  // The exchange of row_split() across ranks (fft/RowSplit.hpp).
  RowExchange<Real> row_exchange();
  // The exchange in pieces (fft/SlabFFTPieces.cpp): chunk tables per piece, the routes, the choice.
  // piece_chunks(j, pieces, dealiased): piece j of the forward all-to-all; one piece is the whole exchange.
  Chunks piece_chunks(int piece, int pieces, bool dealiased) const;
  long packed_plane(bool dealiased) const;  // values of one x plane in the packed buffer
  // Where, in values from the output buffer's start, a backward in pieces receives: packed data at the top.
  std::size_t backward_receive_start(bool dealiased) const;
  void make_chunks();
  bool in_pieces(Modes modes) const;
  void make_piece_chunks();
  void choose_pieces();
  void use_pieces(int full, int dealiased);
  ForwardRoute forward_in_pieces(bool dealiased);
  BackwardRoute backward_in_pieces(bool dealiased);
  // The strided route in pieces: its plane transforms of a piece's planes, its routes.
  PlaneTransform<Real>* strided_piece_planes(bool dealiased, long count) const;
  ForwardRoute forward_strided_in_pieces(bool dealiased);
  BackwardRoute backward_strided_in_pieces(bool dealiased);
  // Milliseconds each of runs takes on the slowest rank (collective), synchronised before and after:
  // medians of 5 rounds after 2 untimed ones, the runs taking turns (medians_taking_turns,
  // fft/PhaseClock.hpp), prepare(k) (if given) before run k each time, untimed: what switches the object to
  // candidate k. What a choice among routes or pieces goes by: wall time, as the exchange may need the host.
  std::vector<double> slowest_rank_medians_ms(const std::vector<std::function<void()>>& runs,
                                              const std::function<void(std::size_t)>& prepare = nullptr);
  // What the timed choices depend on, for RouteChoices: the same on every rank of one problem.
  std::string problem() const;

  Communicator comm_;
  std::shared_ptr<Device> device_;
  FftOptions options_;
  SlabLayout layout_;
  // The timed choices, kept between runs; the backend's construction uses it too.
  std::unique_ptr<RouteChoices> choices_;
  std::unique_ptr<LocalTransforms<Real>> transforms_;
  std::unique_ptr<Exchange> exchange_;
  Chunks forward_chunks_, backward_chunks_, forward_kept_chunks_, backward_kept_chunks_;
  Chunks forward_blocks_[2], backward_blocks_[2];  // strided chunks, by [full, dealiased]
  bool strided_routes_[2] = {false, false};        // by [full, dealiased]
  bool own_rows_placed_[2] = {false, false};       // by [full, dealiased] (OwnRows)
  std::string strided_report_;
  Buffer<C> scratch_;
  Buffer<C> receive_;                                // only for the fused route: where chunks arrive
  Buffer<Complex<float>> wire_send_, wire_receive_;  // only with single_precision_wire
  PhaseTimes times_;
  std::unique_ptr<PhaseClock> clock_;  // profiles only
  int profiling_ = -1;                 // the direction under way in a profile (0 forward, 1 backward), or -1
  DealiasChoice dealias_;
  // Exchange in pieces: the count for [full, dealiased] transforms, each piece's chunks for [full,
  // dealiased] in each direction (packed, and strided: blocks), and a buffer
  // of one piece's planes [x][y][kz] (the strided route: a spectral slab, where its backward x transforms
  // write what the pieces send while the plane transforms of arrived pieces write the output).
  int pieces_[2] = {1, 1};
  std::string pieces_report_;
  std::vector<Chunks> forward_piece_chunks_[2], backward_piece_chunks_[2];
  std::vector<Chunks> forward_piece_blocks_[2], backward_piece_blocks_[2];  // the strided route's
  Buffer<C> piece_;
  // Executors: the slab's plane transforms, the spectral and compact slabs' x transforms; one rank: the kept
  // column runs' and the masked x transforms, the pruned route's; the plane transforms of pieces, by plane
  // count (cuFFT's or FFTW's, and the pruned ones of the strided route's dealiased pieces); the fused ones by
  // [FusedRoute][forward][own_direct], once tried (a forward x without own_direct may be none).
  std::unique_ptr<PlaneTransform<Real>> planes_;
  std::unique_ptr<XTransform<Real>> x_, kept_x_, masked_x_, pruned_x_;
  std::unique_ptr<PlaneTransform<Real>> pruned_planes_;
  std::unique_ptr<PlaneTransform<Real>> placing_planes_[2];  // the strided route's, by [full, dealiased]
  std::unique_ptr<XTransform<Real>> placing_x_;              // its dealiased backward x transforms
  std::unique_ptr<RowSplit<Real>> row_split_;
  std::size_t block_bytes_ = 0;  // the host routes' buffers of a block of planes (SlabFFT.cpp, PlaneBlocks)
  std::vector<std::unique_ptr<XTransform<Real>>> run_x_;
  std::map<long, std::unique_ptr<PlaneTransform<Real>>> piece_planes_, pruned_piece_planes_;
  std::unique_ptr<PlaneTransform<Real>> fused_planes_[3][2][2];
  std::unique_ptr<XTransform<Real>> fused_x_[3][2][2];
  bool fused_tried_[3][2][2] = {};
  bool fused_own_placed_[3] = {true, true, true};
  // The routes.
  std::unique_ptr<ForwardRoute> forward_routes_[2][2];
  std::unique_ptr<BackwardRoute> backward_routes_[2];
};

extern template class SlabFFT<float>;
extern template class SlabFFT<double>;

}  // namespace kolmo::fft
