// SlabFFT: the construction chooses a route for each kind of transform (fft/Route.hpp) and forward/backward
// walk it. The routes, as steps (phase: what runs, buffers):
//   one rank, full:     planes (in -> P) | x (P -> out)            P = out where x runs faster in place, else
//                                                                   scratch
//   full, by copies:    planes (in -> P) | pack (P -> Q) | own_chunk, exchange (Q -> P) | x (P -> out)
//     backward:         x (in -> scratch) | own_chunk, exchange (scratch -> out) | unpack (out -> scratch) |
//                       planes (scratch -> out)
//   full, host, several ranks, by blocks of planes (PlaneBlocks below): planes and pack (in -> scratch, own
//                       rows -> out) | exchange (scratch -> out) | x (in place on out)
//     backward:         x (in -> scratch) | exchange (scratch -> out) | unpack (own rows from scratch) and
//                       planes (-> out); where no order of the blocks keeps the chunks unread until unpacked:
//                       x (in -> out) | own_chunk, exchange (out -> scratch) | unpack and planes (-> out)
//   dealiased, copies:  planes (in -> scratch) | pack (kept modes, scratch -> out) | own_chunk, exchange (out
//                       -> scratch) | x (compact, in place) | unpack (scatter into out)
//     backward:         pack (gather kept modes, in -> scratch) | x (compact) | own_chunk, exchange
//                       (scratch -> out) | zero (scratch) | unpack (out -> scratch) | planes (scratch -> out)
//   one rank, dealiased by kept rows: planes | x (each run of kept columns); backward: x (runs) | zero
//                       (dropped columns) | planes; by the mask in x: planes | x (masked), and back; by the
//                       pruned columns: planes (kolmo's row and column FFTs, kept modes, in -> scratch) | x
//                       (kept columns, scratch -> out), and back
//   strided (several ranks): planes (in -> out) | own_chunk?, exchange (each peer's rows copied between the
//                       layouts, out -> scratch) | x (scratch -> out); where x runs faster in place (FFTW)
//                       planes -> scratch, exchange -> out, x in place; plane transforms that place the own
//                       rows store them where they arrive instead of own_chunk. Backward: x (in -> out; own
//                       rows placed into scratch) | own_chunk?, exchange (out -> scratch) | zero? | planes
//                       (scratch -> out). Forward in place: planes (in -> receive) | own_chunk?, exchange
//                       (receive -> scratch) | x (scratch -> out); without a receive slab planes (in ->
//                       scratch) | pack (the rows sent, scratch -> out) | own_chunk, exchange (out ->
//                       scratch) | x (scratch -> out)
//   fused (several GPU ranks): planes (cuFFT packs into the send slab) | own_chunk?, exchange (send ->
//                       receive) | x (cuFFT reads what arrived); backward: x | own_chunk?, exchange | planes
//   in pieces (fft/SlabFFTPieces.cpp): exchange (planes, pack and exchange of each piece) | x [| unpack];
//                       backward: [pack |] x | exchange (exchange, unpack and planes of each piece)
#include "fft/SlabFFT.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/BuildIdentity.hpp"
#include "core/Error.hpp"
#include "fft/DroppedColumns.hpp"
#include "fft/Executors.hpp"
#include "fft/PhaseClock.hpp"
#include "fft/Reshapes.hpp"
#include "fft/Route.hpp"
#include "fft/RouteChoices.hpp"
#include "fft/WireFormat.hpp"

namespace kolmo::fft {

namespace {

// Emulated ranks work alone: no communicator of theirs is used.
MPI_Comm comm_for(MPI_Comm comm, const FftOptions& options) {
  // MPI_Comm_dup would abort the program on a null communicator (MPI's default error handler).
  KOLMO_REQUIRE(comm != MPI_COMM_NULL || options.emulated_ranks > 0,
                "SlabFFT needs a communicator, not MPI_COMM_NULL");
  return options.emulated_ranks > 0 ? MPI_COMM_SELF : comm;
}

// The options, as numbers, that decide what a construction builds or times and what its ranks post: the
// ranks' agreement check (below) names the one that differs, and the route choices' key (problem()) holds
// them all. One list, so that the two cannot drift apart. (Not the emulated ranks, which use no communicator,
// nor the cache directories: rank 0's files alone are read and written, and what they hold is broadcast.)
std::vector<std::pair<const char*, long>> option_fields(const FftOptions& o) {
  return {{"exchange", static_cast<long>(o.exchange)},
          {"cuda_aware_mpi", o.cuda_aware_mpi},
          {"single_precision_wire", o.single_precision_wire},
          {"one_rank_dealiasing", static_cast<long>(o.one_rank_dealiasing)},
          {"pack_in_ffts", o.pack_in_ffts},
          {"realigned_planes", static_cast<long>(o.realigned_planes)},
          {"strided_exchange", static_cast<long>(o.strided_exchange)},
          {"own_rows", static_cast<long>(o.own_rows)},
          {"spectral_split", static_cast<long>(o.spectral_split)},
          {"exchange_pieces", o.exchange_pieces},
          {"plane_groups", o.plane_groups},
          {"fftw_planning", static_cast<long>(o.fftw_planning)}};
}

// Every rank must construct the transform alike: a rank whose grid, precision, device kind or options differ
// from the others' would post other messages or collectives, and the transform would hang, abort in MPI or
// compute garbage. Collective: every rank learns of a difference, and all throw the same line, before
// anything else is checked or allocated.
void require_agreement(std::array<long, 3> n, std::size_t real_bytes, const Device* device,
                       const Communicator& comm, const FftOptions& o) {
  if (comm.size() == 1) return;
  std::vector<std::pair<const char*, long>> fields = {
      {"grid size Nx", n[0]},
      {"grid size Ny", n[1]},
      {"grid size Nz", n[2]},
      {"precision (bytes of a real)", static_cast<long>(real_bytes)},
      {"device (none, host or cuda)", device == nullptr ? -1 : static_cast<long>(device->backend())}};
  constexpr std::size_t sizes = 3;  // the fields that say their values
  for (const auto& field : option_fields(o)) fields.push_back(field);
  const int count = static_cast<int>(fields.size());
  std::vector<long> low(count), high(count);
  for (int i = 0; i < count; ++i) low[i] = high[i] = fields[i].second;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, low.data(), count, MPI_LONG, MPI_MIN, comm.get()));
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, high.data(), count, MPI_LONG, MPI_MAX, comm.get()));
  for (int i = 0; i < count; ++i)
    if (low[i] != high[i]) {
      std::string message = "the ranks constructing SlabFFT disagree on ";
      message += fields[i].first;
      if (static_cast<std::size_t>(i) < sizes) {  // a size says itself; an option's number would say nothing
        message += " (from ";
        message += std::to_string(low[i]);
        message += " to ";
        message += std::to_string(high[i]);
        message += ")";
      }
      message += ": every rank must pass the same grid, precision, device kind and FftOptions";
      throw Error(message);
    }
}

SlabLayout layout_for(std::array<long, 3> n, const Communicator& comm, const std::shared_ptr<Device>& device,
                      const FftOptions& options, std::size_t real_bytes) {
  require_agreement(n, real_bytes, device.get(), comm, options);
  KOLMO_REQUIRE(device != nullptr, "SlabFFT needs a device (Device::create), not a null pointer");
  KOLMO_REQUIRE(options.exchange != ExchangeMethod::loopback || options.emulated_ranks > 0,
                "exchange method loopback is for emulated ranks only (FftOptions::emulated_ranks)");
  KOLMO_REQUIRE(options.emulated_ranks >= 0, "emulated ranks must be 0 (none) or a positive count, not " +
                                                 std::to_string(options.emulated_ranks));
  if (options.emulated_ranks > 0)
    return SlabLayout(n, options.emulated_ranks, options.emulated_rank, options.spectral_split);
  return SlabLayout(n, comm.size(), comm.rank(), options.spectral_split);
}

// A null buffer is the caller's error on any rank: every rank holds at least one x plane and one ky plane
// (SlabLayout refuses more ranks than planes), so alloc_complex() >= 1 everywhere and there is no empty slab
// that could legitimately pass nullptr. Checked here, on the calling rank alone (a collective per transform
// would cost a synchronisation of every rank in a hot, asynchronous call), before anything is queued.
void require_buffer(const void* buffer, const char* call, const char* argument) {
  if (buffer != nullptr) return;
  std::string message = "SlabFFT::";
  message += call;
  message += ": `";
  message += argument;
  message += "` is a null pointer";
  throw Error(message);
}

// The chunk table without the rank's own chunk (which does not go through the exchange).
Chunks without_own(Chunks chunks, int rank) {
  chunks.send_bytes[rank] = chunks.recv_bytes[rank] = 0;
  if (chunks.strided()) {
    chunks.send_blocks[rank].clear();
    chunks.recv_blocks[rank].clear();
  }
  return chunks;
}

// For reports: how a one-rank dealiased transform drops modes.
const char* describe(OneRankDealiasing way) {
  switch (way) {
    case OneRankDealiasing::copies:
      return "copies";
    case OneRankDealiasing::rows:
      return "kept rows";
    case OneRankDealiasing::masked_x:
      return "mask in x";
    case OneRankDealiasing::pruned:
      return "pruned columns";
    default:
      return "automatic";
  }
}

// Whether full transforms go by PlaneBlocks (below): on the host, several ranks, where every plane starts
// aligned (else FFTW would run unmeasured plans for unaligned arrays on blocks) and a complex plane takes at
// most kPlaneBlockMax (a buffer of a plane a thread, which then stays in cache); not in place (forward: the
// own rows would land on input not read yet) nor through a narrow wire (which widens over the own chunk's
// place).
constexpr long kPlaneBlockMax = 1L << 20;
template <class Real>
bool plane_blocks(const Device& device, const SlabLayout& layout, const LocalTransforms<Real>& transforms,
                  bool excluded) {
  const long real_plane_bytes = layout.ny() * layout.nz() * static_cast<long>(sizeof(Real));
  const long plane_bytes = layout.packed_plane() * static_cast<long>(sizeof(Complex<Real>));
  return device.backend() == Backend::host && layout.ranks() > 1 && transforms.x_faster_in_place() &&
         real_plane_bytes % 16 == 0 && plane_bytes <= kPlaneBlockMax && !excluded;
}

// The host's plane transforms on several ranks in blocks of planes, each block copied while it is in cache:
// forward, the plane transforms write a block to a small buffer, from which the route's pack takes it (the
// peers' rows to their chunks, the own rows straight to the spectral slab); backward, the route's unpack
// fills the buffer with a block and its plane transforms read it there. This spares a pass over the slab
// between the transforms and the copies, and the forward's own-chunk copy. (Dealiased forward transforms
// packed so, the kept modes of each block, were slower: 128^3 on 2 ranks, planes and pack 1.67 -> 1.8 ms.)
template <class Real>
class PlaneBlocks {
  using C = Complex<Real>;

 public:
  PlaneBlocks(LocalTransforms<Real>& transforms, const SlabLayout& layout,
              const std::shared_ptr<Device>& device)
      : layout_(layout) {
    // Blocks of about kBlockBytes of complex planes a thread (at least one plane a thread), all of one size
    // but the last: at most two plans.
    const long plane_bytes = layout.ny() * layout.nzc() * static_cast<long>(sizeof(C));
    const long threads = omp_get_max_threads(), total = layout.x_count();
    // At most an eighth of the slab (at least a plane), so that small slabs do not hold a second slab in
    // the buffers of the two directions.
    const long largest = std::max(1L, std::min(std::max(1L, kBlockBytes / plane_bytes) * threads, total / 8));
    const long count = std::max(1L, (total + largest - 1) / largest), size = (total + count - 1) / count;
    for (long first = 0; first < total; first += size) {
      const long planes = std::min(size, total - first);
      if (executors_.count(planes) == 0) executors_[planes] = transforms.planes(planes);
      blocks_.push_back({first, planes});
    }
    buffer_ = Buffer<C>(device, static_cast<std::size_t>(size * layout.packed_plane()));
  }
  // The plane transforms of the real slab `in`, each block then given to copy(block's planes, block).
  template <class Copy>
  void forward(const Real* in, Copy copy) {
    for (const auto& block : blocks_) {
      executors_.at(block.count)->forward(in + block.first * real_plane(), buffer_.data());
      copy(static_cast<const C*>(buffer_.data()), block);
    }
  }
  // The plane transforms into the real slab `out`, each block first filled by copy(block's planes, block); in
  // the order keep_chunks_unread() chose (by default x ascending).
  template <class Copy>
  void backward(Copy copy, Real* out) {
    const long count = static_cast<long>(blocks_.size());
    for (long i = 0; i < count; ++i) {
      const auto& block = blocks_[descending_ ? count - 1 - i : i];
      copy(buffer_.data(), block);
      executors_.at(block.count)->backward(buffer_.data(), out + block.first * real_plane());
    }
  }
  // Whether backward() can unpack the peers' chunks from the buffer it writes the real slab to (the chunks at
  // their packed offsets there): in some order of the blocks (x ascending, else descending, then kept) no
  // block's plane transforms write over a peer's rows of a block still to be unpacked. On 2 ranks one order
  // always does (rank 0: ascending, its peer's chunk lying past half the slab; rank 1: descending); on more
  // ranks, the first and last ranks' may, and any slab of one block.
  std::size_t bytes() const { return buffer_.bytes(); }
  bool keep_chunks_unread() {
    for (bool descending : {false, true})
      if (keeps_chunks_unread(descending)) {
        descending_ = descending;
        return true;
      }
    return false;
  }

 private:
  bool keeps_chunks_unread(bool descending) const {
    const long total = layout_.x_count(), real_bytes = real_plane() * static_cast<long>(sizeof(Real));
    for (const auto& block : blocks_) {
      // What this block's plane transforms write, and the planes [first, end) still to be unpacked then.
      const long written = block.first * real_bytes, written_end = (block.first + block.count) * real_bytes;
      const long first = descending ? 0 : block.first + block.count, end = descending ? block.first : total;
      for (int q = 0; q < layout_.ranks(); ++q) {
        const long row = layout_.y_count(q) * layout_.nzc() * static_cast<long>(sizeof(C));
        const long chunk = static_cast<long>(layout_.packed_offset(q, {0, total}) * sizeof(C));
        const long unread = chunk + first * row, unread_end = chunk + end * row;
        if (q != layout_.rank() && unread < unread_end && unread < written_end && written < unread_end)
          return false;
      }
    }
    return true;
  }
  // Complex bytes of a thread's share of a block: 256 KiB, half of a core's cache of 512 KiB or more.
  static constexpr long kBlockBytes = 256L << 10;
  long real_plane() const { return layout_.ny() * layout_.nz(); }
  SlabLayout layout_;
  std::vector<SlabLayout::Planes> blocks_;
  std::map<long, std::unique_ptr<PlaneTransform<Real>>> executors_;  // by block size
  Buffer<C> buffer_;
  bool descending_ = false;
};

}  // namespace

template <class Real>
SlabFFT<Real>::SlabFFT(std::array<long, 3> n, MPI_Comm comm, std::shared_ptr<Device> device,
                       FftOptions options)
    : comm_(comm_for(comm, options)),
      device_(std::move(device)),
      options_(options),
      layout_(layout_for(n, comm_, device_, options, sizeof(Real))) {
  // The layout has been validated above, identically on every rank; only now is anything allocated.
  KOLMO_REQUIRE(options_.exchange_pieces >= 0,
                "exchange pieces must be 0 (automatic) or a positive count, not " +
                    std::to_string(options_.exchange_pieces));
  KOLMO_REQUIRE(options_.plane_groups >= 0, "plane groups must be 0 (automatic) or a positive count, not " +
                                                std::to_string(options_.plane_groups));
  choices_ = std::make_unique<RouteChoices>(route_choices_file(options_.route_choices_directory), problem(),
                                            comm_.get());
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda)
    transforms_ = make_cuda_transforms<Real>(layout_, device_, options_.plane_groups, choices_.get());
#endif
  if (!transforms_)
    transforms_ =
        make_host_transforms<Real>(layout_, device_, options_.fftw_planning, options_.fftw_wisdom_directory);
  make_chunks();
  const std::size_t max_bytes = layout_.alloc_complex() * sizeof(C);
  exchange_ = options_.emulated_ranks > 0 ? make_loopback_exchange(device_, options_.emulated_exchange_moves)
                                          : make_exchange(options_.exchange, comm_.get(), device_,
                                                          options_.cuda_aware_mpi, max_bytes);
  scratch_ = Buffer<C>(device_, layout_.alloc_complex());
  exchange_->keep_receive_buffer(scratch_.data(), scratch_.bytes());
  if (strided())
    for (int d = 0; d < 2; ++d) {
      forward_blocks_[d] = strided_chunks(d == 1);
      backward_blocks_[d] = forward_blocks_[d].reversed();
    }
  if (options_.pack_in_ffts && layout_.ranks() > 1 && !narrow_wire()) {
    receive_ = Buffer<C>(device_, layout_.alloc_complex());
    if (transforms_->enable_fused(scratch_.data(), receive_.data()))
      exchange_->keep_receive_buffer(receive_.data(), receive_.bytes());
    else
      receive_ = Buffer<C>();
  }
  if (options_.profile) clock_ = std::make_unique<PhaseClock>(device_, options_.profile_held);
  if (narrow_wire()) {
    wire_send_ = Buffer<Complex<float>>(device_, layout_.alloc_complex());
    wire_receive_ = Buffer<Complex<float>>(device_, layout_.alloc_complex());
    exchange_->keep_receive_buffer(wire_receive_.data(), wire_receive_.bytes());
  }
  make_executors();
  if (layout_.ranks() > 1) {
    dealias_.backward_saves = dealias_.forward_saves = true;
    dealias_.report = "dealiased transforms exchange only the kept modes";
  } else {
    choose_one_rank_dealiasing();
  }
  choose_strided();
  choose_pieces();
  assemble_routes();
  transforms_->settle_plans(comm_.get());
  choices_->settle();
}

template <class Real>
const std::string& SlabFFT<Real>::route_choices_report() const {
  return choices_->report();
}

// kolmo's build (new code may time otherwise, or choose among other candidates under the same names), the
// grid and its split, the ranks (emulated: which), precision, the device's model (its name without its index:
// GPUs of one model time alike; the host's with its thread count) and its FFT library's version (and the
// driver's) and the options (option_fields). A version of the line's form, raised where it changes.
template <class Real>
std::string SlabFFT<Real>::problem() const {
  const FftOptions& o = options_;
  std::string library = fftw_library_version();
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) library = cuda_library_versions();
#endif
  std::string text = "v2 kolmo " + build_identity() + " " + to_string(device_->backend()) + " " +
                     device_->model() + " (" + library + ") " +
                     (std::is_same_v<Real, float> ? "float" : "double") + " " + layout_.describe() +
                     " emulated " + std::to_string(o.emulated_ranks) + "/" + std::to_string(o.emulated_rank) +
                     (o.emulated_exchange_moves ? "" : " idle");
  for (const auto& field : option_fields(o)) {
    text += ' ';
    text += std::to_string(field.second);
  }
  return text;
}

// The compact slab's x transforms serve the dealiased routes by copies (several ranks, or one by name); the
// kept runs', the strided route's (where it has no pruned executors) and one rank's dealiasing; the masked
// ones, one rank's (made only where a way may use them: FFTW plans all runs with the backend, cuFFT on
// request).
template <class Real>
void SlabFFT<Real>::make_executors() {
  planes_ = transforms_->planes(layout_.x_count());
  x_ = transforms_->x_slab();
  kept_x_ = transforms_->x_kept();
  const OneRankDealiasing way = options_.one_rank_dealiasing;
  // The pruned executors: the strided route's dealiased transforms use them wherever they exist (on an
  // H100 faster than cuFFT's plane transforms and kept-row x transforms at every size measured,
  // docs/results/pruned_columns_h100.log), and then need no kept runs; one rank times them with the other
  // ways.
  auto make_pruned = [this](bool forward_runs) {
    pruned_planes_ = transforms_->pruned_planes(layout_.x_count(), forward_runs);
    pruned_x_ = transforms_->pruned_x();
  };
  if (layout_.ranks() > 1 && strided()) {
    // Where the chunks arrive in the scratch slab (x transforms out of place), the plane transforms may
    // place the own rows there themselves.
    if (options_.own_rows != OwnRows::copied && !transforms_->x_faster_in_place()) {
      for (int d = 0; d < 2; ++d) placing_planes_[d] = transforms_->placing_planes(d == 1, scratch_.data());
      // Dealiased backward, the x transforms place them where the plane transforms read: those are then the
      // pruned ones, in groups (a placing plane transform's backward reads the own rows from the memory that
      // it overwrites, and runs in one group).
      if (placing_planes_[1]) placing_x_ = transforms_->placing_x(scratch_.data());
    }
    // Dealiased forward transforms that place the own rows run the placing planes; the pruned ones only in
    // place without a receive slab (forward_strided).
    make_pruned(!placing_planes_[1] || receive_.size() == 0);
    if (pruned_x_) row_split_ = transforms_->row_split(row_exchange());
  } else if (layout_.ranks() > 1 && receive_.size() > 0) {
    // The fused route's chunks (NCCL, MPI), where its dealiased transforms are kolmo's kernels.
    row_split_ = transforms_->row_split(row_exchange());
  }
  const bool runs = layout_.ranks() > 1
                        ? strided() && !pruned_x_
                        : way == OneRankDealiasing::automatic || way == OneRankDealiasing::rows;
  if (runs)
    for (const auto& run : layout_.kept_column_runs())
      if (run.count > 0) run_x_.push_back(transforms_->x_run(run.start, run.count));
  if (layout_.ranks() > 1) return;
  const bool gpu_automatic = way == OneRankDealiasing::automatic && device_->backend() != Backend::host;
  if (gpu_automatic || way == OneRankDealiasing::masked_x) masked_x_ = transforms_->x_masked();
  KOLMO_REQUIRE(masked_x_ || way != OneRankDealiasing::masked_x,
                "masked dealiasing requested, but these transforms have no cuFFT mask");
  if (gpu_automatic || way == OneRankDealiasing::pruned) make_pruned(true);
  if (pruned_x_) row_split_ = transforms_->row_split({});
  KOLMO_REQUIRE(
      pruned_x_ || way != OneRankDealiasing::pruned,
      "pruned dealiasing requested, but it runs only on a GPU with Nx and Ny powers of two from 8 to "
      "2048 (grid " +
          layout_.describe() + ")");
}

template <class Real>
Complex<Real>* SlabFFT<Real>::at(Slot slot, void* out) {
  switch (slot) {
    case Slot::scratch:
      return scratch_.data();
    case Slot::receive:
      return receive_.data();
    default:
      return static_cast<C*>(out);
  }
}

template <class Real>
void SlabFFT<Real>::assemble_routes() {
  for (int d = 0; d < 2; ++d) {
    for (int in_place = 0; in_place < 2; ++in_place)
      forward_routes_[d][in_place] = std::make_unique<ForwardRoute>(forward_route(d == 1, in_place == 1));
    backward_routes_[d] = std::make_unique<BackwardRoute>(backward_route(d == 1));
  }
}

template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_route(bool dealiased, bool in_place) {
  // In place, piece j is packed into [a_j, b_j) x (a packed plane) of the buffer while the input of later
  // pieces starts at b_j x (a real plane): safe where a packed plane is no larger than a real one, which
  // holds for dealiased transforms (about 4/9) but not for full ones (Nz + 2 > Nz values a row).
  const Modes modes = dealiased ? Modes::dealiased : Modes::all;
  const bool packed_fits = packed_plane(dealiased) * sizeof(C) <= layout_.ny() * layout_.nz() * sizeof(Real);
  if (in_pieces(modes) && strided_routes_[dealiased] && !in_place)
    return forward_strided_in_pieces(dealiased);
  if (in_pieces(modes) && (!in_place || packed_fits)) return forward_in_pieces(dealiased);
  if (layout_.ranks() == 1 && dealiased) return forward_one_rank(dealias_.forward, in_place);
  if (strided_routes_[dealiased]) return forward_strided(dealiased, in_place);
  const FusedRoute route = fused_route(dealiased);
  if (layout_.ranks() > 1 && !in_pieces(modes) &&
      fused_executors(route, true, route == FusedRoute::full_realigned || !in_place))
    return forward_fused(dealiased, in_place);
  if (dealiased) return forward_dealiased();
  return forward_full(in_place);
}

template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_route(bool dealiased) {
  const Modes modes = dealiased ? Modes::dealiased : Modes::all;
  if (in_pieces(modes) && strided_routes_[dealiased]) return backward_strided_in_pieces(dealiased);
  if (in_pieces(modes)) return backward_in_pieces(dealiased);
  if (layout_.ranks() == 1 && dealiased) return backward_one_rank(dealias_.backward);
  if (strided_routes_[dealiased]) return backward_strided(dealiased);
  if (layout_.ranks() > 1 && fused_executors(fused_route(dealiased), false, false))
    return backward_fused(dealiased);
  if (dealiased) return backward_dealiased();
  return backward_full();
}

template <class Real>
template <class In, class Out>
void SlabFFT<Real>::walk(const Route<In, Out>& route, const In* in, Out* out) {
  for (const auto& step : route.steps) {
    step.run(in, out);
    if (profiling_ >= 0) clock_->lap(profiling_ * kPhaseCount + static_cast<int>(step.phase));
  }
}

template <class Real>
void SlabFFT<Real>::forward(const Real* in, C* out, Modes modes) {
  require_buffer(in, "forward", "in");
  require_buffer(out, "forward", "out");
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  begin_profile(0);
  walk(*forward_routes_[modes == Modes::dealiased][in_place], in, out);
  end_profile();
}

template <class Real>
void SlabFFT<Real>::backward(const C* in, Real* out, Modes modes) {
  require_buffer(in, "backward", "in");
  require_buffer(out, "backward", "out");
  begin_profile(1);
  walk(*backward_routes_[modes == Modes::dealiased], in, out);
  end_profile();
}

// Buffers alternate between scratch and out, so in == out (in place) needs nothing special: in is read only
// by the first step. Where x transforms run faster in place (FFTW) and out differs from in, the planes go to
// out and the exchange brings the chunks back there, so that the x transforms run in place on out.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_full(bool in_place) {
  if (plane_blocks(*device_, layout_, *transforms_, in_place || narrow_wire())) {
    // Host, several ranks, out of place: planes and pack by blocks (in -> scratch, own chunk -> out) |
    // exchange (scratch -> out) | x (in place on out).
    auto blocks = std::make_shared<PlaneBlocks<Real>>(*transforms_, layout_, device_);
    block_bytes_ += blocks->bytes();
    ForwardRoute route;
    route.add(Phase::planes, [this, blocks](const Real* in, C* out) {
      blocks->forward(in, [this, out](const C* planes, SlabLayout::Planes block) {
        pack_block<Real>(*device_, layout_, planes, block, scratch_.data(), out);
      });
    });
    add_exchange(route, Slot::scratch, Slot::out, forward_chunks_, true);
    route.add(Phase::x, [this](const Real*, C* out) { x_->forward(out, out); });
    return route;
  }
  const bool in_out = transforms_->x_faster_in_place() && !in_place;
  const Slot planes = in_out ? Slot::out : Slot::scratch;  // the planes, and where the x transforms read
  const Slot packed = in_out ? Slot::scratch : Slot::out;
  ForwardRoute route;
  route.add(Phase::planes, [this, planes](const Real* in, C* out) { planes_->forward(in, at(planes, out)); });
  if (layout_.ranks() > 1) {
    route.add(Phase::pack, [this, planes, packed](const Real*, C* out) {
      pack<Real>(*device_, layout_, at(planes, out), at(packed, out), layout_.x_count());
    });
    add_exchange(route, packed, planes, forward_chunks_, false);
  }
  route.add(Phase::x, [this, planes](const Real*, C* out) { x_->forward(at(planes, out), out); });
  return route;
}

template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_full() {
  if (plane_blocks(*device_, layout_, *transforms_, narrow_wire())) {
    auto blocks = std::make_shared<PlaneBlocks<Real>>(*transforms_, layout_, device_);
    block_bytes_ += blocks->bytes();
    BackwardRoute route;
    if (blocks->keep_chunks_unread()) {
      // Host, several ranks, where the blocks' order allows: x (in -> scratch) | exchange (scratch -> out,
      // the own chunk staying in scratch) | unpack (the peers' rows from out, the own ones from scratch) and
      // planes by blocks (-> out). No copy of the own chunk.
      route.add(Phase::x, [this](const C* in, Real*) { x_->backward(in, scratch_.data()); });
      add_exchange(route, Slot::scratch, Slot::out, backward_chunks_, true);
      route.add(Phase::planes, [this, blocks](const C*, Real* out) {
        blocks->backward(
            [this, out](C* planes, SlabLayout::Planes block) {
              unpack_block<Real>(*device_, layout_, reinterpret_cast<const C*>(out), scratch_.data(), block,
                                 planes);
            },
            out);
      });
      return route;
    }
    // Host, several ranks, otherwise: x (in -> out) | own_chunk, exchange (out -> scratch) | unpack and
    // planes by blocks (scratch -> out).
    route.add(Phase::x, [this](const C* in, Real* out) { x_->backward(in, reinterpret_cast<C*>(out)); });
    add_exchange(route, Slot::out, Slot::scratch, backward_chunks_, false);
    route.add(Phase::planes, [this, blocks](const C*, Real* out) {
      blocks->backward(
          [this](C* planes, SlabLayout::Planes block) {
            unpack_block<Real>(*device_, layout_, scratch_.data(), nullptr, block, planes);
          },
          out);
    });
    return route;
  }
  BackwardRoute route;
  C* scratch = scratch_.data();
  route.add(Phase::x, [this, scratch](const C* in, Real*) { x_->backward(in, scratch); });
  if (layout_.ranks() > 1) {
    add_exchange(route, Slot::scratch, Slot::out, backward_chunks_, false);
    route.add(Phase::unpack, [this, scratch](const C*, Real* out) {
      unpack<Real>(*device_, layout_, reinterpret_cast<C*>(out), scratch, layout_.x_count());
    });
  }
  route.add(Phase::planes, [this, scratch](const C*, Real* out) { planes_->backward(scratch, out); });
  return route;
}

// Several ranks, strided: the exchange copies each peer's rows between the plane transforms' layout and the
// spectral slab's, both ways (fft/Exchange.hpp's blocks); nothing is packed. A p2p exchange writes straight
// into the scratch slab, which it keeps mapped; where x transforms run faster in place (FFTW), the chunks
// arrive in out instead and the x transforms run there. Dealiased: the kept ky rows arrive at their places in
// the full slab, and the x transforms run over them alone (the runs' first columns may belong to a dropped
// row, holding what the slab held; the forward transform leaves the dropped modes unspecified).
//
// Where the x transforms run out of place (GPUs) the chunks arrive in the scratch slab, and the planes wait
// elsewhere to be sent: in out (its input is read by then) out of place; in place in the receive slab
// (FftOptions::pack_in_ffts holds it for the fused route, which forward transforms in place took before: a
// solver's step's transforms then took 1.5-1.6 x their time out of place on a rank of 2 and of 8 at 512^3
// on one H200, docs/results/rank_step_h200.log), since the plane transforms cannot write over their input
// (its rows, Nz reals apart, are narrower than theirs, Nzc complex apart: each plane's rows would land on
// rows not yet read). Without a receive slab, in place, the planes go to the scratch slab and a copy brings
// back to out the ky rows that the exchange sends (dealiased: the kept ones, whole), the own rows copied, not
// placed. Where the x transforms run in place (FFTW) the route works in place as it is.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_strided(bool dealiased, bool in_place) {
  const bool in_out = transforms_->x_faster_in_place();
  const bool copied_back = in_place && !in_out && receive_.size() == 0;
  const Slot planes = in_out || copied_back ? Slot::scratch : in_place ? Slot::receive : Slot::out;
  const Slot arrived = in_out ? Slot::out : Slot::scratch, sent = copied_back ? Slot::out : planes;
  // Dealiased, kolmo's column FFTs where they exist: the plane transforms write only the kept ky of the kept
  // kz columns, the x transforms only the kept columns.
  const bool placed = own_rows_placed_[dealiased] && !copied_back;
  PlaneTransform<Real>* plane_transform = strided_planes(dealiased, placed);
  ForwardRoute route;
  route.add(Phase::planes, [plane_transform, this, planes](const Real* in, C* out) {
    plane_transform->forward(in, at(planes, out));
  });
  if (copied_back) {
    // The ky rows sent, in each x plane [x][y][kz]: all of them, or dealiased the kept [0, a) and [b, Ny).
    const long ny = layout_.ny();
    const SlabLayout::KeptBounds sent_rows =
        dealiased ? SlabLayout::kept_bounds(ny) : SlabLayout::KeptBounds{ny, ny};
    route.add(Phase::pack, [this, sent_rows, ny](const Real*, C* out) {
      const long nzc = layout_.nzc();
      const std::size_t plane = ny * nzc * sizeof(C), row = nzc * sizeof(C), planes = layout_.x_count();
      for (auto [first, count] :
           {std::pair{0L, sent_rows.below}, std::pair{sent_rows.from, ny - sent_rows.from}})
        if (count > 0 && planes > 0)
          device_->copy_2d(out + first * nzc, plane, scratch_.data() + first * nzc, plane, count * row,
                           planes);
    });
  }
  add_exchange(route, sent, arrived, forward_blocks_[dealiased], placed);
  route.add(Phase::x, [this, arrived, x = strided_x(dealiased, true)](const Real*, C* out) {
    x(at(arrived, out), out);
  });
  return route;
}

// The reverse; the input stays intact (the x transforms write to out). Dealiased, the kept ky rows arrive
// whole, their dropped kz carrying what the input held there (anything, NaN included): those and the
// dropped rows are zeroed before the plane transforms read them (the planes as a one-rank layout of
// x_count planes, whose dropped columns are those of the planes).
template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_strided(bool dealiased) {
  BackwardRoute route;
  C* scratch = scratch_.data();
  const bool placed = own_rows_placed_[dealiased];
  // Dealiased, own rows placed: by the x transforms into the planes the pruned plane transforms read.
  const bool placed_by_x = placed && dealiased && placing_x_;
  PlaneTransform<Real>* plane_transform =
      placed_by_x ? pruned_planes_.get() : strided_planes(dealiased, placed);
  std::function<void(const C*, C*)> x = strided_x(dealiased, false);
  if (placed_by_x) x = [placing = placing_x_.get()](const C* in, C* out) { placing->backward(in, out); };
  route.add(Phase::x, [x](const C* in, Real* out) { x(in, reinterpret_cast<C*>(out)); });
  add_exchange(route, Slot::out, Slot::scratch, backward_blocks_[dealiased], placed);
  // kolmo's column FFTs (dealiased, where they exist): the plane transforms read only the kept ky and kz
  // (fft/LocalTransforms.hpp), nothing to zero.
  if (dealiased && !pruned_x_) {
    const SlabLayout planes({layout_.x_count(), layout_.ny(), layout_.nz()}, 1, 0);
    route.add(Phase::zero,
              [this, planes, scratch](const C*, Real*) { zero_dropped_columns(*device_, planes, scratch); });
  }
  route.add(Phase::planes,
            [plane_transform, scratch](const C*, Real* out) { plane_transform->backward(scratch, out); });
  return route;
}

// The exchange of a split at the rows across ranks (fft/RowSplit.hpp): the dealiased strided route's, whole,
// between the slab (send) and the scratch slab (receive), the own rows left to the column FFTs where the x
// transforms can place them (placing_x_; the y transforms then place them forward). Where the exchange
// moves contiguous chunks, the fused route's (routed), between the send and receive slabs.
template <class Real>
RowExchange<Real> SlabFFT<Real>::row_exchange() {
  RowExchange<Real> exchange;
  exchange.routed = !strided();
  exchange.arrived = exchange.routed ? nullptr : scratch_.data();
  exchange.places_own_rows = placing_x_ != nullptr;
  auto steps = [this](const Chunks& chunks, Slot send, Slot receive, bool own_placed) {
    auto route = std::make_shared<Route<C, C>>();
    add_exchange(*route, send, receive, chunks, own_placed);
    return [this, route](C* slab) { walk(*route, slab, slab); };
  };
  if (exchange.routed) {
    // The fused route's: from the send slab (scratch) to the receive slab, the own rows stored where they
    // arrive by the column FFTs.
    exchange.to_planes = steps(backward_kept_chunks_, Slot::scratch, Slot::receive, true);
    exchange.to_slab = steps(forward_kept_chunks_, Slot::scratch, Slot::receive, true);
  } else {
    exchange.to_planes = steps(backward_blocks_[1], Slot::out, Slot::scratch, exchange.places_own_rows);
    exchange.to_slab = steps(forward_blocks_[1], Slot::out, Slot::scratch, exchange.places_own_rows);
  }
  return exchange;
}

// The strided route's plane transforms: those that place the own rows where they do (placed), else the
// pruned ones (dealiased, where they exist) or cuFFT's (FFTW's).
template <class Real>
PlaneTransform<Real>* SlabFFT<Real>::strided_planes(bool dealiased, bool placed) const {
  if (placed) return placing_planes_[dealiased].get();
  if (dealiased && pruned_x_) return pruned_planes_.get();
  return planes_.get();
}

template <class Real>
std::function<void(const Complex<Real>*, Complex<Real>*)> SlabFFT<Real>::strided_x(bool dealiased,
                                                                                   bool forward) const {
  auto one = [forward](XTransform<Real>* x) -> std::function<void(const C*, C*)> {
    if (forward) return [x](const C* in, C* out) { x->forward(in, out); };
    return [x](const C* in, C* out) { x->backward(in, out); };
  };
  if (!dealiased) return one(x_.get());
  if (pruned_x_) return one(pruned_x_.get());
  return [this, forward](const C* in, C* out) {
    for (const auto& run : run_x_) forward ? run->forward(in, out) : run->backward(in, out);
  };
}

template <class Real>
bool SlabFFT<Real>::strided() const {
  if (layout_.ranks() == 1 || narrow_wire() || !exchange_->moves_blocks()) return false;
  switch (options_.strided_exchange) {
    case StridedExchange::always:
      return true;
    case StridedExchange::never:
      return false;
    default:
      return exchange_->method() == ExchangeMethod::p2p || exchange_->method() == ExchangeMethod::loopback;
  }
}

// Full transforms take the strided route wherever it runs: it moves the bytes of the other routes with no
// pass of packing, and the own chunk's copy runs while the peers' chunks are in flight. Dealiased ones by a
// timing of a pair each way (the slower rank's time counting), since their strided chunks are larger.
template <class Real>
void SlabFFT<Real>::choose_strided() {
  strided_routes_[0] = strided_routes_[1] = strided();
  if (!strided()) {
    strided_report_ = "no strided route";
    return;
  }
  for (int d = 0; d < 2; ++d) own_rows_placed_[d] = placing_planes_[d] != nullptr;
  // Whether any rank has full plane transforms that place its own rows (every rank decides alike today:
  // the lengths decide): the timings below are collective.
  int placing = placing_planes_[0] != nullptr;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &placing, 1, MPI_INT, MPI_MAX, comm_.get()));
  const bool timed = options_.strided_exchange != StridedExchange::always,
             time_placing = placing && options_.own_rows == OwnRows::automatic;
  if (!timed && !time_placing) {
    strided_report_ = std::string("strided route for all transforms") + own_rows_report();
    return;
  }
  // Slabs to time on, made only for a choice that is timed (not one kept by an earlier run).
  Buffer<Real> real;
  Buffer<C> spectral;
  // A pair with `flag` set (where `settable`) and with it cleared, taking turns: the flag changes the routes
  // that forward_route and backward_route build. The slowest rank's times; the flag is left cleared.
  ForwardRoute forward;
  BackwardRoute backward;
  const std::function<void()> pair = [&] {
    walk(forward, real.data(), spectral.data());
    walk(backward, spectral.data(), real.data());
  };
  auto set_and_cleared_ms = [&](bool dealiased, bool& flag, bool settable) {
    if (spectral.size() == 0) {
      real = Buffer<Real>(device_, 2 * layout_.alloc_complex());
      spectral = Buffer<C>(device_, layout_.alloc_complex());
      real.fill_zero();
    }
    const std::vector<double> ms = slowest_rank_medians_ms({pair, pair}, [&](std::size_t k) {
      flag = k == 0 && settable;
      forward = forward_route(dealiased, false);
      backward = backward_route(dealiased);
    });
    flag = false;
    return ms;
  };
  std::string times;
  // Each choice as an earlier run of this problem kept it (fft/RouteChoices.hpp; the same on every rank),
  // or by a timing, recorded for later runs.
  if (time_placing) {
    // Full transforms: cuFFT's transforms along z and kolmo's column FFTs along y, placing the own rows, or
    // cuFFT's 2D plane transforms and the own chunk's copy.
    const bool here = placing_planes_[0] != nullptr;
    if (const auto kept = choices_->kept("own rows placed", 2)) {
      own_rows_placed_[0] = here && *kept == 1;
      times += "; full, the own rows " + std::string(*kept == 1 ? "placed" : "copied") + " (kept)";
    } else {
      const std::vector<double> ms = set_and_cleared_ms(false, own_rows_placed_[0], here);
      const bool placed = ms[0] < 0.97 * ms[1];  // a clear margin, so that near ties do not flip
      choices_->record("own rows placed", 2, placed ? 1 : 0);
      own_rows_placed_[0] = here && placed;
      times += "; full, a pair with the own rows placed " + format_ms(ms[0]) + ", copied " + format_ms(ms[1]);
    }
    if (!own_rows_placed_[0]) placing_planes_[0].reset();  // no route uses them
  }
  if (timed) {
    if (const auto kept = choices_->kept("dealiased strided", 2)) {
      strided_routes_[1] = *kept == 1;
      times += "; dealiased strided or not: kept";
    } else {
      const std::vector<double> ms = set_and_cleared_ms(true, strided_routes_[1], true);
      strided_routes_[1] = ms[0] < 0.97 * ms[1];
      choices_->record("dealiased strided", 2, strided_routes_[1] ? 1 : 0);
      times += "; dealiased, a pair strided " + format_ms(ms[0]) + ", otherwise " + format_ms(ms[1]);
    }
  }
  strided_report_ = std::string("strided route for full transforms; dealiased ") +
                    (strided_routes_[1] ? "strided" : "by the other route") + own_rows_report() + times;
}

template <class Real>
std::string SlabFFT<Real>::own_rows_report() const {
  auto how = [this](int d) {
    if (!own_rows_placed_[d]) return std::string("copied");
    if (d == 1 && placing_x_)
      return std::string("placed by the plane transforms forward, the x transforms backward");
    return std::string("placed by the plane transforms");
  };
  return "; own rows: full " + how(0) + ", dealiased " + how(1);
}

// Forward: to peer q, q's ky rows of every x plane here [x][y][kz] (dealiased: only its kept ky rows, whole,
// the dropped kz with them: rows of many kz go through copy engines at full speed, rows of only the kept kz
// at a tenth of it on an H100); from q, its x planes' rows of this rank's ky planes, to their place in the
// spectral slab [kx][ky][kz]. Block k to q is block k that q receives from here: the same extents. In
// pieces, the x planes of piece j of each rank (SlabLayout::piece), no block for an empty piece.
template <class Real>
Chunks SlabFFT<Real>::strided_chunks(bool dealiased, int piece, int pieces) const {
  const SlabLayout& l = layout_;
  const int me = l.rank();
  const std::size_t row = l.nzc() * sizeof(C);
  auto rows_of = [&](int q) {
    return dealiased ? l.kept_runs(q) : std::vector<SlabLayout::Run>{{l.y_offset(q), l.y_count(q)}};
  };
  const SlabLayout::Planes mine = l.piece(me, piece, pieces);
  const auto sent = static_cast<std::size_t>(mine.count);
  Chunks c;
  c.send_blocks.resize(l.ranks());
  c.recv_blocks.resize(l.ranks());
  for (int q = 0; q < l.ranks(); ++q) {
    const SlabLayout::Planes theirs = l.piece(q, piece, pieces);
    const auto received = static_cast<std::size_t>(theirs.count);
    for (const auto& run : rows_of(q))
      if (run.count > 0 && sent > 0)
        c.send_blocks[q].push_back(
            {(mine.first * l.ny() + run.start) * row, run.count * row, sent, 1, l.ny() * row, sent});
    for (const auto& run : rows_of(me))
      if (run.count > 0 && received > 0)
        c.recv_blocks[q].push_back(
            {((l.x_offset(q) + theirs.first) * l.y_count(me) + run.start - l.y_offset(me)) * row,
             run.count * row, received, 1, l.y_count(me) * row, received});
  }
  // Each chunk's first byte and total bytes, from its blocks.
  auto totals = [&](const std::vector<std::vector<Block>>& blocks, std::vector<std::size_t>& offsets,
                    std::vector<std::size_t>& bytes) {
    offsets.assign(l.ranks(), 0);
    bytes.assign(l.ranks(), 0);
    for (int q = 0; q < l.ranks(); ++q)
      for (const Block& b : blocks[q]) {
        if (bytes[q] == 0) offsets[q] = b.offset;
        bytes[q] += b.bytes();
      }
  };
  totals(c.send_blocks, c.send_offset, c.send_bytes);
  totals(c.recv_blocks, c.recv_offset, c.recv_bytes);
  return c;
}

// The kept modes of the planes go packed compactly to the exchange (one rank: the own chunk's copy alone),
// arrive as the compact slab [kx][kept ky][kept kz], whose x transforms run in place, and are scattered
// into the spectral slab.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_dealiased() {
  ForwardRoute route;
  C* scratch = scratch_.data();
  route.add(Phase::planes, [this, scratch](const Real* in, C*) { planes_->forward(in, scratch); });
  route.add(Phase::pack, [this, scratch](const Real*, C* out) {
    pack_kept<Real>(*device_, layout_, scratch, out, layout_.x_count());
  });
  add_exchange(route, Slot::out, Slot::scratch, forward_kept_chunks_, false);
  route.add(Phase::x, [this, scratch](const Real*, C*) { kept_x_->forward(scratch, scratch); });
  route.add(Phase::unpack, [this, scratch](const Real*, C* out) {
    scatter_kept_spectral<Real>(*device_, layout_, scratch, out);
  });
  return route;
}

template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_dealiased() {
  BackwardRoute route;
  C* scratch = scratch_.data();
  route.add(Phase::pack, [this, scratch](const C* in, Real*) {
    gather_kept_spectral<Real>(*device_, layout_, in, scratch);
  });
  route.add(Phase::x, [this, scratch](const C*, Real*) { kept_x_->backward(scratch, scratch); });
  add_exchange(route, Slot::scratch, Slot::out, backward_kept_chunks_, false);
  route.add(Phase::zero, [this, scratch](const C*, Real*) {
    zero_planes<Real>(*device_, layout_, scratch, layout_.x_count());
  });
  route.add(Phase::unpack, [this, scratch](const C*, Real* out) {
    expand_kept_planes<Real>(*device_, layout_, reinterpret_cast<C*>(out), scratch, layout_.x_count());
  });
  route.add(Phase::planes, [this, scratch](const C*, Real* out) { planes_->backward(scratch, out); });
  return route;
}

// The x transforms of the kept rows or the masked ones write only kept columns (or zeros), and nothing of
// the dropped modes is promised (SlabFFT.hpp), so neither zeroes the rest. Where x transforms run faster in
// place, the kept rows' run on the planes in out (as in forward_full()).
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_one_rank(OneRankDealiasing way, bool in_place) {
  if (way == OneRankDealiasing::copies) return forward_dealiased();
  if (way == OneRankDealiasing::pruned) {
    ForwardRoute route;
    route.add(Phase::planes, [this](const Real* in, C*) { pruned_planes_->forward(in, scratch_.data()); });
    route.add(Phase::x, [this](const Real*, C* out) { pruned_x_->forward(scratch_.data(), out); });
    return route;
  }
  const bool rows = way == OneRankDealiasing::rows;
  const Slot planes = rows && transforms_->x_faster_in_place() && !in_place ? Slot::out : Slot::scratch;
  ForwardRoute route;
  route.add(Phase::planes, [this, planes](const Real* in, C* out) { planes_->forward(in, at(planes, out)); });
  if (rows)
    route.add(Phase::x, [this, planes](const Real*, C* out) {
      for (const auto& run : run_x_) run->forward(at(planes, out), out);
    });
  else
    route.add(Phase::x, [this](const Real*, C* out) { masked_x_->forward(scratch_.data(), out); });
  return route;
}

template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_one_rank(OneRankDealiasing way) {
  if (way == OneRankDealiasing::copies) return backward_dealiased();
  BackwardRoute route;
  C* scratch = scratch_.data();
  if (way == OneRankDealiasing::pruned) {
    route.add(Phase::x, [this, scratch](const C* in, Real*) { pruned_x_->backward(in, scratch); });
    route.add(Phase::planes,
              [this, scratch](const C*, Real* out) { pruned_planes_->backward(scratch, out); });
    return route;
  }
  if (way == OneRankDealiasing::rows) {
    route.add(Phase::x, [this, scratch](const C* in, Real*) {
      for (const auto& run : run_x_) run->backward(in, scratch);
    });
    // After the x transforms: the column runs' alignment may have put values into dropped rows.
    route.add(Phase::zero,
              [this, scratch](const C*, Real*) { zero_dropped_columns(*device_, layout_, scratch); });
  } else {
    route.add(Phase::x, [this, scratch](const C* in, Real*) { masked_x_->backward(in, scratch); });
  }
  route.add(Phase::planes, [this, scratch](const C*, Real* out) { planes_->backward(scratch, out); });
  return route;
}

template <class Real>
std::vector<double> SlabFFT<Real>::slowest_rank_medians_ms(const std::vector<std::function<void()>>& runs,
                                                           const std::function<void(std::size_t)>& prepare) {
  std::vector<double> ms = medians_taking_turns(runs.size(), 2, 5, [&](std::size_t k) {
    if (prepare) prepare(k);
    device_->synchronize();
    const double start = MPI_Wtime();
    runs[k]();
    device_->synchronize();
    return (MPI_Wtime() - start) * 1e3;
  });
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, ms.data(), int(ms.size()), MPI_DOUBLE, MPI_MAX, comm_.get()));
  return ms;
}

// One rank. The requested way, or on the host the kept rows (no timing, so that runs repeat bit for bit), or
// on a GPU per direction the fastest of the kept rows, the cuFFT mask and the pruned columns by a short
// timing of the routes in place on a temporary slab, used only where clearly faster than the full transform
// (backward: with the zeroing it spares the caller). The routes take turns, and each is timed held
// (held_medians_ms): the device's time, as a solver whose host runs ahead sees it, unmoved by how fast this
// host launches the pruned forward's ~100 small kernels. Timed one after the other, the pruned columns once
// came out slower than the kept rows (a one-GPU dealiased pair of 2.42 ms at 512^3 in single precision on
// an H100 instead of 1.56); in turns but on the host's clock, once again (1.93 ms). Held, their times
// spread 1-2 % over 12 constructions against 15 % (docs/results/one_rank_choice_held_h100.log).
template <class Real>
void SlabFFT<Real>::choose_one_rank_dealiasing() {
  OneRankDealiasing requested = options_.one_rank_dealiasing;
  if (requested == OneRankDealiasing::automatic && device_->backend() == Backend::host)
    requested = OneRankDealiasing::rows;
  if (requested != OneRankDealiasing::automatic) {
    // Asked for by name: used wherever dealiased transforms are asked for, whatever it costs.
    dealias_.backward = dealias_.forward = requested;
    dealias_.backward_saves = dealias_.forward_saves = true;
    dealias_.report = std::string("one rank: dealiased backward by ") + describe(dealias_.backward) +
                      ", forward by " + describe(dealias_.forward);
    return;
  }
  std::vector<OneRankDealiasing> ways{OneRankDealiasing::rows};
  if (masked_x_) ways.push_back(OneRankDealiasing::masked_x);
  if (pruned_x_) ways.push_back(OneRankDealiasing::pruned);
  // Per direction, choice k: the way ways[k / 2], which saves work against the full transform where k is odd.
  // As an earlier run of this problem kept them (fft/RouteChoices.hpp), or timed below.
  const int candidates = 2 * int(ways.size());
  auto take = [&](int k, OneRankDealiasing& way, bool& saves) {
    saves = k % 2 == 1;
    way = ways[k / 2];
  };
  const auto kept_backward = choices_->kept("one rank dealiasing backward", candidates),
             kept_forward = choices_->kept("one rank dealiasing forward", candidates);
  if (kept_backward && kept_forward) {
    take(*kept_backward, dealias_.backward, dealias_.backward_saves);
    take(*kept_forward, dealias_.forward, dealias_.forward_saves);
    auto said = [](bool saves, OneRankDealiasing way) {
      return std::string("by ") + describe(way) + (saves ? "" : " (no faster than the full transform)");
    };
    dealias_.report = "one GPU: backward " + said(dealias_.backward_saves, dealias_.backward) + ", forward " +
                      said(dealias_.forward_saves, dealias_.forward) + " (kept)";
    return;
  }
  Buffer<C> slab(device_, layout_.alloc_complex());
  slab.fill_zero();
  C* spectral = slab.data();
  Real* real = reinterpret_cast<Real*>(slab.data());
  // Per direction, the full transform's time and each way's. Backward, the full transform is preceded by
  // what its caller must then do, zero the dropped modes (a dealiased backward ignores them).
  std::vector<BackwardRoute> backward_routes{backward_full()};
  std::vector<ForwardRoute> forward_routes{forward_full(true)};
  for (auto way : ways) {
    backward_routes.push_back(backward_one_rank(way));
    forward_routes.push_back(forward_one_rank(way, true));
  }
  std::vector<std::function<void()>> backward_runs, forward_runs;
  for (const auto& route : backward_routes) backward_runs.push_back([&] { walk(route, spectral, real); });
  backward_runs.push_back([&] { zero_dropped_columns(*device_, layout_, spectral); });
  for (const auto& route : forward_routes) forward_runs.push_back([&] { walk(route, real, spectral); });
  // Each direction's times: the full transform's, then the ways' (backward, then the zeroing's).
  const std::vector<double> backward_ms = held_medians_ms(device_, backward_runs, 1, 2),
                            forward_ms = held_medians_ms(device_, forward_runs, 1, 2);
  // The fastest way (its index in ways) and its time, each time added to the report.
  std::string text = "one GPU: backward full " + format_ms(backward_ms[0]);
  auto fastest = [&](const std::vector<double>& ms) {
    std::pair<int, double> best{0, ms[1]};
    for (std::size_t k = 0; k < ways.size(); ++k) {
      text += std::string(", ") + describe(ways[k]) + " " + format_ms(ms[k + 1]);
      if (ms[k + 1] < best.second) best = {int(k), ms[k + 1]};
    }
    return best;
  };
  // Taken where it beats the full transform by a clear margin, so that a near tie does not flip between
  // runs; recorded for later runs.
  auto choose = [&](const char* name, std::pair<int, double> best, double full, OneRankDealiasing& way,
                    bool& saves) {
    const int k = 2 * best.first + (best.second < 0.97 * full ? 1 : 0);
    choices_->record(name, candidates, k);
    take(k, way, saves);
  };
  const double zeroing = backward_ms.back();
  const auto best_backward = fastest(backward_ms);
  choose("one rank dealiasing backward", best_backward, backward_ms[0] + zeroing, dealias_.backward,
         dealias_.backward_saves);
  text += "; zeroing the dropped modes " + format_ms(zeroing);
  text += "; forward full " + format_ms(forward_ms[0]);
  choose("one rank dealiasing forward", fastest(forward_ms), forward_ms[0], dealias_.forward,
         dealias_.forward_saves);
  text += std::string("; dealiased backward ") + (dealias_.backward_saves ? "faster" : "slower") +
          ", forward " + (dealias_.forward_saves ? "faster" : "slower");
  dealias_.report = text;
}

template <class Real>
bool SlabFFT<Real>::narrow_wire() const {
  return std::is_same_v<Real, double> && options_.single_precision_wire && layout_.ranks() > 1;
}

template <class Real>
template <class In, class Out>
void SlabFFT<Real>::add_exchange(Route<In, Out>& route, Slot send, Slot receive, const Chunks& chunks,
                                 bool own_in_place) {
  const int self = layout_.rank();
  auto copy_own = [this, send, receive, self, chunks](const In*, Out* out) {
    copy_own_chunk(*device_, reinterpret_cast<char*>(at(receive, out)),
                   reinterpret_cast<const char*>(at(send, out)), chunks, self);
  };
  const Chunks others = without_own(chunks, self);
  if (chunks.strided()) {
    // The own chunk is copied by a kernel while the peers' chunks are under way (copy engines or MPI).
    route.add(Phase::exchange, [this, send, receive, others](const In*, Out* out) {
      exchange_->start(at(send, out), at(receive, out), others, 0);
    });
    if (!own_in_place) route.add(Phase::own_chunk, copy_own);
    route.add(Phase::exchange, [this](const In*, Out*) { exchange_->finish(0); });
    return;
  }
  if (narrow_wire()) {
    // Chunks are contiguous from offset 0, so whole ranges convert; offsets and sizes halve on the wire.
    Chunks wire = others;
    for (auto* v : {&wire.send_offset, &wire.send_bytes, &wire.recv_offset, &wire.recv_bytes})
      for (auto& bytes : *v) bytes /= 2;
    const long sent = static_cast<long>(chunks.total_send() / sizeof(C));
    const long received = static_cast<long>(chunks.total_recv() / sizeof(C));
    route.add(Phase::exchange, [this, send, receive, wire, sent, received](const In*, Out* out) {
      if constexpr (std::is_same_v<Real, double>) {
        narrow(*device_, at(send, out), wire_send_.data(), sent);
        exchange_->run(wire_send_.data(), wire_receive_.data(), wire);
        widen(*device_, wire_receive_.data(), at(receive, out), received);
      }
    });
    // The own chunk never left the device: exact, copied after the widening wrote over its place.
    if (!own_in_place) route.add(Phase::own_chunk, copy_own);
    return;
  }
  if (!own_in_place) route.add(Phase::own_chunk, copy_own);
  if (layout_.ranks() > 1)
    route.add(Phase::exchange, [this, send, receive, others](const In*, Out* out) {
      exchange_->run(at(send, out), at(receive, out), others);
    });
}

// The exchange goes before the buffers it was told to keep (a p2p exchange's peers write into them).
template <class Real>
SlabFFT<Real>::~SlabFFT() {
  exchange_.reset();
}

template <class Real>
std::size_t SlabFFT<Real>::workspace_bytes() const {
  return scratch_.bytes() + receive_.bytes() + transforms_->work_bytes() + wire_send_.bytes() +
         wire_receive_.bytes() + piece_.bytes() + block_bytes_;
}

template <class Real>
FusedRoute SlabFFT<Real>::fused_route(bool dealiased) const {
  if (dealiased) return FusedRoute::dealiased;
  const bool realigned = options_.realigned_planes == RealignedPlanes::automatic
                             ? !transforms_->full_chunks_by_columns()
                             : options_.realigned_planes == RealignedPlanes::always;
  return realigned ? FusedRoute::full_realigned : FusedRoute::full;
}

template <class Real>
bool SlabFFT<Real>::fused_executors(FusedRoute route, bool forward, bool own_direct) {
  if (receive_.size() == 0) return false;
  const int r = static_cast<int>(route);
  const bool direct = forward && own_direct;  // own_direct matters to the forward executors alone
  auto& planes = fused_planes_[r][forward][direct];
  auto& x = fused_x_[r][forward][direct];
  if (!fused_tried_[r][forward][direct]) {
    fused_tried_[r][forward][direct] = true;
    if (!planes) planes = transforms_->fused_planes(route, forward, own_direct);
    bool own_placed = true;
    if (!x) x = transforms_->fused_x(route, forward, own_direct, &own_placed);
    if (!forward && x) fused_own_placed_[r] = own_placed;
  }
  // Forward with the own chunk packed, where no x executor reads it there: it is copied to the receive
  // slab for the one that reads it with the other chunks.
  if (forward && !own_direct && !x) return planes && fused_executors(route, true, true);
  return planes && x;
}

// Several ranks, the fused route: the send buffer is scratch, chunks arrive in receive_. Forward, the plane
// transforms put the rank's own chunk where the x transforms read it unless in == out, where they need
// receive_ for their intermediate planes (the input is out, and still being read): then the own chunk is
// packed with the others, and the x transforms read it there (kolmo's dealiased ones) or it is copied.
// Realigned planes leave it in the send buffer, and the x transforms read it there.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_fused(bool dealiased, bool in_place) {
  const FusedRoute kind = fused_route(dealiased);
  const bool realigned = kind == FusedRoute::full_realigned;
  const bool own_direct = realigned || !in_place;
  const Slot work = realigned ? Slot::scratch : own_direct ? Slot::out : Slot::receive;
  PlaneTransform<Real>* planes = fused_planes_[static_cast<int>(kind)][1][own_direct].get();
  XTransform<Real>* x = fused_x_[static_cast<int>(kind)][1][own_direct].get();
  const bool own_copied = x == nullptr;  // to the receive slab, for the x transforms that read it there
  if (own_copied) x = fused_x_[static_cast<int>(kind)][1][1].get();
  ForwardRoute route;
  route.fused = true;
  route.add(Phase::planes,
            [this, planes, work](const Real* in, C* out) { planes->forward(in, at(work, out)); });
  add_exchange(route, Slot::scratch, Slot::receive, dealiased ? forward_kept_chunks_ : forward_chunks_,
               !own_copied);
  route.add(Phase::x, [this, x](const Real*, C* out) { x->forward(receive_.data(), out); });
  return route;
}

template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_fused(bool dealiased) {
  const FusedRoute kind = fused_route(dealiased);
  const Slot planes_in = kind == FusedRoute::full_realigned ? Slot::receive : Slot::scratch;
  PlaneTransform<Real>* planes = fused_planes_[static_cast<int>(kind)][0][0].get();
  XTransform<Real>* x = fused_x_[static_cast<int>(kind)][0][0].get();
  BackwardRoute route;
  route.fused = true;
  route.add(Phase::x, [this, x](const C* in, Real*) { x->backward(in, scratch_.data()); });
  add_exchange(route, Slot::scratch, Slot::receive, dealiased ? backward_kept_chunks_ : backward_chunks_,
               fused_own_placed_[static_cast<int>(kind)]);
  route.add(Phase::planes,
            [this, planes, planes_in](const C*, Real* out) { planes->backward(at(planes_in, out), out); });
  return route;
}

template <class Real>
bool SlabFFT<Real>::packs_in_ffts(Modes modes) {
  const int d = modes == Modes::dealiased ? 1 : 0;
  return forward_routes_[d][0]->fused && backward_routes_[d]->fused;
}

template <class Real>
std::string SlabFFT<Real>::route_name(Modes modes) {
  const int d = modes == Modes::dealiased ? 1 : 0;
  if (layout_.ranks() == 1) return "one rank";
  if (strided_routes_[d]) return own_rows_placed_[d] ? "placed" : "strided";
  if (packs_in_ffts(modes)) return fused_route(d == 1) == FusedRoute::full_realigned ? "realigned" : "fused";
  return "copies";
}

template <class Real>
void SlabFFT<Real>::begin_profile(int direction) {
  if (!clock_) return;
  profiling_ = direction;
  clock_->start();
}

template <class Real>
void SlabFFT<Real>::end_profile() {
  ++times_.transforms;
  if (!clock_) return;
  double seconds[2 * kPhaseCount] = {};
  clock_->add_to(seconds);
  times_.queued += clock_->queued_seconds();
  double* phases = profiling_ == 0 ? times_.forward : times_.backward;
  for (int p = 0; p < kPhaseCount; ++p) {
    const double t = seconds[profiling_ * kPhaseCount + p];
    phases[p] += t;
    (p == static_cast<int>(Phase::exchange) ? times_.communication : times_.compute) += t;
  }
  profiling_ = -1;
}

const char* to_string(Phase phase) {
  static const char* names[kPhaseCount] = {"planes", "pack", "own_chunk", "exchange", "x", "unpack", "zero"};
  return names[static_cast<int>(phase)];
}

std::string default_cache_directory() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != 0)
    return (std::filesystem::path(cache) / "kolmo").string();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != 0)
    return (std::filesystem::path(home) / ".cache" / "kolmo").string();
  return "";
}

const std::vector<std::string>& one_rank_dealiasing_names() {
  static const std::vector<std::string> names{"automatic", "copies", "rows", "masked_x", "pruned"};
  return names;
}

OneRankDealiasing parse_one_rank_dealiasing(const std::string& name) {
  const auto& names = one_rank_dealiasing_names();
  std::string all;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<OneRankDealiasing>(i);
    all += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  throw Error("unknown one-rank dealiasing way '" + name + "' (expected " + all + ")");
}

template class SlabFFT<float>;
template class SlabFFT<double>;

}  // namespace kolmo::fft
