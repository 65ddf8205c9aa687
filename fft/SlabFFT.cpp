#include "fft/SlabFFT.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/Error.hpp"
#include "fft/DroppedColumns.hpp"
#include "fft/PhaseClock.hpp"
#include "fft/WireFormat.hpp"

namespace kolmo::fft {

namespace {

// Emulated ranks work alone: no communicator of theirs is used.
MPI_Comm comm_for(MPI_Comm comm, const FftOptions& options) {
  return options.emulated_ranks > 0 ? MPI_COMM_SELF : comm;
}

SlabLayout layout_for(std::array<long, 3> n, const Communicator& comm, const FftOptions& options) {
  KOLMO_REQUIRE(options.emulated_ranks >= 0, "emulated ranks must be 0 (none) or a positive count, not " +
                                                 std::to_string(options.emulated_ranks));
  if (options.emulated_ranks > 0) return SlabLayout(n, options.emulated_ranks, options.emulated_rank);
  return SlabLayout(n, comm.size(), comm.rank());
}

// The chunk table without the rank's own chunk (which does not go through the exchange).
Chunks without_own(Chunks chunks, int rank) {
  chunks.send_bytes[rank] = chunks.recv_bytes[rank] = 0;
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
    case OneRankDealiasing::masked_planes:
      return "mask in planes";
    default:
      return "automatic";
  }
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", ms);
  return text;
}

}  // namespace

template <class Real>
SlabFFT<Real>::SlabFFT(std::array<long, 3> n, MPI_Comm comm, std::shared_ptr<Device> device,
                       FftOptions options)
    : comm_(comm_for(comm, options)),
      device_(std::move(device)),
      options_(options),
      layout_(layout_for(n, comm_, options)) {
  // The layout has been validated above, identically on every rank; only now is anything allocated.
  KOLMO_REQUIRE(options_.exchange_pieces >= 0,
                "exchange pieces must be 0 (automatic) or a positive count, not " +
                    std::to_string(options_.exchange_pieces));
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) transforms_ = make_cuda_transforms<Real>(layout_, device_);
#endif
  if (!transforms_)
    transforms_ =
        make_host_transforms<Real>(layout_, device_, options_.fftw_planning, options_.fftw_wisdom_directory);
  make_chunks();
  const std::size_t max_bytes = layout_.alloc_complex() * sizeof(C);
  exchange_ = options_.emulated_ranks > 0 ? make_loopback_exchange(device_)
                                          : make_exchange(options_.exchange, comm_.get(), device_,
                                                          options_.cuda_aware_mpi, max_bytes);
  scratch_ = Buffer<C>(device_, layout_.alloc_complex());
  exchange_->keep_receive_buffer(scratch_.data(), scratch_.bytes());
  if (options_.pack_in_ffts && layout_.ranks() > 1 && !narrow_wire()) {
    receive_ = Buffer<C>(device_, layout_.alloc_complex());
    if (transforms_->enable_fused(scratch_.data(), receive_.data()))
      exchange_->keep_receive_buffer(receive_.data(), receive_.bytes());
    else
      receive_ = Buffer<C>();
  }
  if (options_.profile) clock_ = std::make_unique<PhaseClock>(device_);
  if (narrow_wire()) {
    wire_send_ = Buffer<Complex<float>>(device_, layout_.alloc_complex());
    wire_receive_ = Buffer<Complex<float>>(device_, layout_.alloc_complex());
    exchange_->keep_receive_buffer(wire_receive_.data(), wire_receive_.bytes());
  }
  if (layout_.ranks() > 1) {
    dealias_.backward_saves = dealias_.forward_saves = true;
    dealias_.report = "dealiased transforms exchange only the kept modes";
  } else {
    choose_one_rank_dealiasing();
  }
  choose_pieces();
  transforms_->settle_plans(comm_.get());
}

// One rank. The requested way, or on the host the kept rows (no timing, so that runs repeat bit for bit), or
// on a GPU per direction the fastest of kept rows and the cuFFT masks by a short timing on a temporary slab,
// used only where clearly faster than the full transform (backward: with the zeroing it spares the caller).
template <class Real>
void SlabFFT<Real>::choose_one_rank_dealiasing() {
  const bool masked = transforms_->has_masked();
  OneRankDealiasing requested = options_.one_rank_dealiasing;
  const bool needs_mask =
      requested == OneRankDealiasing::masked_x || requested == OneRankDealiasing::masked_planes;
  KOLMO_REQUIRE(masked || !needs_mask,
                "masked dealiasing requested, but these transforms have no cuFFT mask");
  if (requested == OneRankDealiasing::automatic && device_->backend() == Backend::host)
    requested = OneRankDealiasing::rows;
  if (requested != OneRankDealiasing::automatic) {
    // Asked for by name: used wherever dealiased transforms are asked for, whatever it costs. The forward
    // transform has one mask (in x), which both masked ways use.
    dealias_.backward = requested;
    dealias_.forward = needs_mask ? OneRankDealiasing::masked_x : requested;
    dealias_.backward_saves = dealias_.forward_saves = true;
    dealias_.report = std::string("one rank: dealiased backward by ") + describe(dealias_.backward) +
                      ", forward by " + describe(dealias_.forward);
    return;
  }
  Buffer<C> slab(device_, layout_.alloc_complex());
  slab.fill_zero();
  C* spectral = slab.data();
  Real* real = reinterpret_cast<Real*>(slab.data());
  const double full_backward = median_ms([&] {
    transforms_->backward_x(spectral, scratch_.data());
    transforms_->backward_planes(scratch_.data(), real);
  });
  const double full_forward = median_ms([&] {
    transforms_->forward_planes(real, scratch_.data());
    transforms_->forward_x(scratch_.data(), spectral);
  });
  std::vector<OneRankDealiasing> backward_ways{OneRankDealiasing::rows},
      forward_ways{OneRankDealiasing::rows};
  if (masked) {
    backward_ways.insert(backward_ways.end(),
                         {OneRankDealiasing::masked_x, OneRankDealiasing::masked_planes});
    forward_ways.push_back(OneRankDealiasing::masked_x);
  }
  std::string text = "one GPU: backward full " + format_ms(full_backward);
  // The fastest of `ways` by time_of(way), each time added to the report.
  auto fastest = [&](const std::vector<OneRankDealiasing>& ways, auto time_of) {
    std::pair<OneRankDealiasing, double> best{ways.front(), 0};
    for (auto way : ways) {
      const double ms = median_ms([&] { time_of(way); });
      text += std::string(", ") + describe(way) + " " + format_ms(ms);
      if (best.second == 0 || ms < best.second) best = {way, ms};
    }
    return best;
  };
  double best = 0;
  std::tie(dealias_.backward, best) =
      fastest(backward_ways, [&](OneRankDealiasing way) { backward_one_rank(spectral, real, way); });
  // Against a full backward preceded by what its caller must then do, zero the dropped modes (a dealiased
  // backward ignores them); with a clear margin, so that a near tie does not flip between runs.
  const double zeroing = median_ms([&] { zero_dropped_columns(*device_, layout_, spectral); });
  text += "; zeroing the dropped modes " + format_ms(zeroing);
  dealias_.backward_saves = best < 0.97 * (full_backward + zeroing);
  text += "; forward full " + format_ms(full_forward);
  std::tie(dealias_.forward, best) =
      fastest(forward_ways, [&](OneRankDealiasing way) { forward_one_rank(real, spectral, way); });
  dealias_.forward_saves = best < 0.97 * full_forward;
  text += std::string("; dealiased backward ") + (dealias_.backward_saves ? "faster" : "slower") +
          ", forward " + (dealias_.forward_saves ? "faster" : "slower");
  dealias_.report = text;
}

template <class Real>
void SlabFFT<Real>::backward_one_rank(const C* in, Real* out, OneRankDealiasing way) {
  C* scratch = scratch_.data();
  switch (way) {
    case OneRankDealiasing::rows:
      step(Phase::x, [&] {
        for (const auto& run : layout_.kept_column_runs())
          transforms_->backward_x_columns(in, scratch, run.start, run.count);
      });
      // After the x transforms: the column runs' alignment may have put values into dropped rows.
      step(Phase::zero, [&] { zero_dropped_columns(*device_, layout_, scratch); });
      step(Phase::planes, [&] { transforms_->backward_planes(scratch, out); });
      break;
    case OneRankDealiasing::masked_x:
      step(Phase::x, [&] { transforms_->backward_x_masked(in, scratch); });
      step(Phase::planes, [&] { transforms_->backward_planes(scratch, out); });
      break;
    case OneRankDealiasing::masked_planes:
      step(Phase::x, [&] { transforms_->backward_x(in, scratch); });
      step(Phase::planes, [&] { transforms_->backward_planes_masked(scratch, out); });
      break;
    default:  // copies: the compact slab
      C* compact = reinterpret_cast<C*>(out);
      step(Phase::pack, [&] { gather_kept_spectral(in, scratch); });
      step(Phase::x, [&] { transforms_->backward_x_kept(scratch, compact); });
      step(Phase::zero, [&] { zero_planes(scratch, layout_.x_count()); });
      step(Phase::unpack, [&] { expand_kept_planes(compact, scratch, layout_.x_count()); });
      step(Phase::planes, [&] { transforms_->backward_planes(scratch, out); });
  }
}

// The x transforms of the kept rows or the masked ones write only kept columns (or zeros), and nothing of
// the dropped modes is promised (SlabFFT.hpp), so neither zeroes the rest.
template <class Real>
void SlabFFT<Real>::forward_one_rank(const Real* in, C* out, OneRankDealiasing way) {
  C* scratch = scratch_.data();
  // Where x transforms run faster in place, the kept rows' run on the planes in out (see forward_full()).
  const bool in_out = way == OneRankDealiasing::rows && x_in_place_on_out(in, out);
  C* planes = in_out ? out : scratch;
  step(Phase::planes, [&] { transforms_->forward_planes(in, planes); });
  switch (way) {
    case OneRankDealiasing::rows:
      step(Phase::x, [&] {
        for (const auto& run : layout_.kept_column_runs())
          transforms_->forward_x_columns(planes, out, run.start, run.count);
      });
      break;
    case OneRankDealiasing::masked_x:
    case OneRankDealiasing::masked_planes:
      step(Phase::x, [&] { transforms_->forward_x_masked(scratch, out); });
      break;
    default:  // copies: the compact packed buffer is already the compact spectral slab
      step(Phase::pack, [&] { pack_kept(scratch, out, layout_.x_count()); });
      step(Phase::x, [&] { transforms_->forward_x_kept(out, scratch); });
      step(Phase::unpack, [&] { scatter_kept_spectral(scratch, out); });
  }
}

template <class Real>
bool SlabFFT<Real>::narrow_wire() const {
  return std::is_same_v<Real, double> && options_.single_precision_wire && layout_.ranks() > 1;
}

template <class Real>
void SlabFFT<Real>::exchange(const C* send, C* recv, const Chunks& chunks, bool own_in_place) {
  const int self = layout_.rank();
  auto copy_own = [&] {
    if (own_in_place) return;
    step(Phase::own_chunk, [&] {
      device_->copy(reinterpret_cast<char*>(recv) + chunks.recv_offset[self],
                    reinterpret_cast<const char*>(send) + chunks.send_offset[self], chunks.send_bytes[self]);
    });
  };
  const Chunks others = without_own(chunks, self);
  if constexpr (std::is_same_v<Real, double>) {
    if (narrow_wire()) {
      // Chunks are contiguous from offset 0, so whole ranges convert; offsets and sizes halve on the wire.
      Chunks wire = others;
      for (auto* v : {&wire.send_offset, &wire.send_bytes, &wire.recv_offset, &wire.recv_bytes})
        for (auto& bytes : *v) bytes /= 2;
      step(Phase::exchange, [&] {
        narrow(*device_, send, wire_send_.data(), static_cast<long>(chunks.total_send() / sizeof(C)));
        exchange_->run(wire_send_.data(), wire_receive_.data(), wire);
        widen(*device_, wire_receive_.data(), recv, static_cast<long>(chunks.total_recv() / sizeof(C)));
      });
      // The own chunk never left the device: exact, copied after the widening wrote over its place.
      copy_own();
      return;
    }
  }
  copy_own();
  step(Phase::exchange, [&] { exchange_->run(send, recv, others); });
}

// The exchange goes before the buffers it was told to keep (a p2p exchange's peers write into them).
template <class Real>
SlabFFT<Real>::~SlabFFT() {
  exchange_.reset();
}

template <class Real>
std::size_t SlabFFT<Real>::workspace_bytes() const {
  return scratch_.bytes() + receive_.bytes() + transforms_->work_bytes() + wire_send_.bytes() +
         wire_receive_.bytes() + piece_.bytes();
}

template <class Real>
void SlabFFT<Real>::pack(const C* planes, C* packed, long count) {
  // planes is [x][y][kz]; peer q's rows y in its range, for every x, become one contiguous block.
  const std::size_t row = layout_.ny() * layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    const std::size_t width = layout_.y_count(q) * layout_.nzc() * sizeof(C);
    device_->copy_2d(packed + layout_.packed_offset(q, {0, count}), width,
                     planes + layout_.y_offset(q) * layout_.nzc(), row, width, count);
  }
}

template <class Real>
void SlabFFT<Real>::unpack(const C* packed, C* planes, long count) {
  const std::size_t row = layout_.ny() * layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    const std::size_t width = layout_.y_count(q) * layout_.nzc() * sizeof(C);
    device_->copy_2d(planes + layout_.y_offset(q) * layout_.nzc(), row,
                     packed + layout_.packed_offset(q, {0, count}), width, width, count);
  }
}

template <class Real>
void SlabFFT<Real>::pack_kept(const C* planes, C* packed, long count) {
  const std::size_t width = layout_.kept_z() * sizeof(C), row = layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    C* chunk = packed + layout_.compact_packed_offset(q, {0, count});
    const std::size_t rows = layout_.kept_y_count(q);
    long done = 0;
    for (const auto& run : layout_.kept_runs(q)) {
      device_->copy_3d(chunk + done * layout_.kept_z(), width, rows, planes + run.start * layout_.nzc(), row,
                       layout_.ny(), width, run.count, count);
      done += run.count;
    }
  }
}

template <class Real>
void SlabFFT<Real>::zero_planes(C* planes, long count) {
  device_->fill_zero(planes, count * layout_.ny() * layout_.nzc() * sizeof(C));
}

template <class Real>
void SlabFFT<Real>::expand_kept_planes(const C* packed, C* planes, long count) {
  const std::size_t width = layout_.kept_z() * sizeof(C), row = layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    const C* chunk = packed + layout_.compact_packed_offset(q, {0, count});
    const std::size_t rows = layout_.kept_y_count(q);
    long done = 0;
    for (const auto& run : layout_.kept_runs(q)) {
      device_->copy_3d(planes + run.start * layout_.nzc(), row, layout_.ny(), chunk + done * layout_.kept_z(),
                       width, rows, width, run.count, count);
      done += run.count;
    }
  }
}

template <class Real>
void SlabFFT<Real>::gather_kept_spectral(const C* spectral, C* compact) {
  const std::size_t width = layout_.kept_z() * sizeof(C), row = layout_.nzc() * sizeof(C);
  const std::size_t rows = layout_.kept_y_count();
  long done = 0;
  for (const auto& run : layout_.kept_runs(layout_.rank())) {
    device_->copy_3d(compact + done * layout_.kept_z(), width, rows,
                     spectral + (run.start - layout_.y_offset()) * layout_.nzc(), row, layout_.y_count(),
                     width, run.count, layout_.nx());
    done += run.count;
  }
}

template <class Real>
void SlabFFT<Real>::scatter_kept_spectral(const C* compact, C* spectral) {
  const std::size_t width = layout_.kept_z() * sizeof(C), row = layout_.nzc() * sizeof(C);
  const std::size_t rows = layout_.kept_y_count();
  long done = 0;
  for (const auto& run : layout_.kept_runs(layout_.rank())) {
    device_->copy_3d(spectral + (run.start - layout_.y_offset()) * layout_.nzc(), row, layout_.y_count(),
                     compact + done * layout_.kept_z(), width, rows, width, run.count, layout_.nx());
    done += run.count;
  }
}

// Several ranks, by copies: planes, packing, the exchange, x transforms of the compact slab, spreading.
template <class Real>
void SlabFFT<Real>::forward_dealiased(const Real* in, C* out) {
  C* scratch = scratch_.data();
  step(Phase::planes, [&] { transforms_->forward_planes(in, scratch); });
  step(Phase::pack, [&] { pack_kept(scratch, out, layout_.x_count()); });
  exchange(out, scratch, forward_kept_chunks_);
  step(Phase::x, [&] { transforms_->forward_x_kept(scratch, scratch); });
  step(Phase::unpack, [&] { scatter_kept_spectral(scratch, out); });
}

template <class Real>
void SlabFFT<Real>::backward_dealiased(const C* in, Real* out) {
  C* scratch = scratch_.data();
  C* packed = reinterpret_cast<C*>(out);
  step(Phase::pack, [&] { gather_kept_spectral(in, scratch); });
  step(Phase::x, [&] { transforms_->backward_x_kept(scratch, scratch); });
  exchange(scratch, packed, backward_kept_chunks_);
  step(Phase::zero, [&] { zero_planes(scratch, layout_.x_count()); });
  step(Phase::unpack, [&] { expand_kept_planes(packed, scratch, layout_.x_count()); });
  step(Phase::planes, [&] { transforms_->backward_planes(scratch, out); });
}

// Buffers alternate between scratch and out, so in == out (in place) needs nothing special: in is read only
// by the first step. Where x transforms run faster in place (FFTW) and out differs from in, the planes go to
// out and the exchange brings the chunks back there, so that the x transforms run in place on out.
template <class Real>
void SlabFFT<Real>::forward_full(const Real* in, C* out) {
  const bool in_out = x_in_place_on_out(in, out);
  C* planes = in_out ? out : scratch_.data();  // the planes, and where the x transforms find their input
  C* packed = in_out ? scratch_.data() : out;
  step(Phase::planes, [&] { transforms_->forward_planes(in, planes); });
  if (layout_.ranks() > 1) {
    step(Phase::pack, [&] { pack(planes, packed, layout_.x_count()); });
    exchange(packed, planes, forward_chunks_);
  }
  step(Phase::x, [&] { transforms_->forward_x(planes, out); });
}

template <class Real>
void SlabFFT<Real>::backward_full(const C* in, Real* out) {
  C* scratch = scratch_.data();
  step(Phase::x, [&] { transforms_->backward_x(in, scratch); });
  if (layout_.ranks() > 1) {
    C* packed = reinterpret_cast<C*>(out);
    exchange(scratch, packed, backward_chunks_);
    step(Phase::unpack, [&] { unpack(packed, scratch, layout_.x_count()); });
  }
  step(Phase::planes, [&] { transforms_->backward_planes(scratch, out); });
}

// Several ranks, the fused route: the send buffer is scratch, chunks arrive in receive_. Forward, the plane
// transforms with callbacks put the rank's own chunk where the x transforms read it unless in == out, where
// cuFFT needs receive_ for its intermediate planes (the input is out, and still being read): then the own
// chunk is packed with the others and copied. Realigned planes leave it in the send buffer, and the x
// transforms read it there.
template <class Real>
void SlabFFT<Real>::forward_fused(const Real* in, C* out, bool dealiased) {
  const FusedRoute route = fused_route(dealiased);
  const bool own_direct =
      route == FusedRoute::full_realigned || static_cast<const void*>(in) != static_cast<const void*>(out);
  C* work = own_direct ? out : receive_.data();
  step(Phase::planes, [&] { transforms_->forward_planes_to_chunks(in, work, route, own_direct); });
  exchange(scratch_.data(), receive_.data(), dealiased ? forward_kept_chunks_ : forward_chunks_, own_direct);
  step(Phase::x, [&] { transforms_->forward_x_from_chunks(out, route); });
}

template <class Real>
void SlabFFT<Real>::backward_fused(const C* in, Real* out, bool dealiased) {
  const FusedRoute route = fused_route(dealiased);
  bool own_placed = false;
  step(Phase::x, [&] { own_placed = transforms_->backward_x_to_chunks(in, route); });
  exchange(scratch_.data(), receive_.data(), dealiased ? backward_kept_chunks_ : backward_chunks_,
           own_placed);
  step(Phase::planes, [&] { transforms_->backward_planes_from_chunks(out, route); });
}

template <class Real>
FusedRoute SlabFFT<Real>::fused_route(bool dealiased) const {
  if (dealiased) return FusedRoute::dealiased;
  return options_.realigned_planes ? FusedRoute::full_realigned : FusedRoute::full;
}

template <class Real>
bool SlabFFT<Real>::fused(Modes modes, bool forward, bool in_place) {
  const FusedRoute route = fused_route(modes == Modes::dealiased);
  const bool own_direct = route == FusedRoute::full_realigned || !in_place;
  return layout_.ranks() > 1 && receive_.size() > 0 && !in_pieces(modes) &&
         transforms_->fused_ready(route, forward, own_direct);
}

template <class Real>
bool SlabFFT<Real>::packs_in_ffts(Modes modes) {
  return fused(modes, true, false) && fused(modes, false, false);
}

template <class Real>
void SlabFFT<Real>::forward_route(const Real* in, C* out, Modes modes) {
  // In place, piece j is packed into [a_j, b_j) x (a packed plane) of the buffer while the input of later
  // pieces starts at b_j x (a real plane): safe where a packed plane is no larger than a real one, which
  // holds for dealiased transforms (about 4/9) but not for full ones (Nz + 2 > Nz values a row).
  const bool dealiased = modes == Modes::dealiased;
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  const bool packed_fits = packed_plane(dealiased) * sizeof(C) <= layout_.ny() * layout_.nz() * sizeof(Real);
  if (in_pieces(modes) && (!in_place || packed_fits)) return forward_in_pieces(in, out, dealiased);
  if (layout_.ranks() == 1 && dealiased) return forward_one_rank(in, out, dealias_.forward);
  if (fused(modes, true, in_place)) return forward_fused(in, out, dealiased);
  if (dealiased) return forward_dealiased(in, out);
  forward_full(in, out);
}

template <class Real>
void SlabFFT<Real>::backward_route(const C* in, Real* out, Modes modes) {
  const bool dealiased = modes == Modes::dealiased;
  if (in_pieces(modes)) return backward_in_pieces(in, out, dealiased);
  if (layout_.ranks() == 1 && dealiased) return backward_one_rank(in, out, dealias_.backward);
  if (fused(modes, false, false)) return backward_fused(in, out, dealiased);
  if (dealiased) return backward_dealiased(in, out);
  backward_full(in, out);
}

template <class Real>
void SlabFFT<Real>::forward(const Real* in, C* out, Modes modes) {
  begin_profile(0);
  forward_route(in, out, modes);
  end_profile();
}

template <class Real>
bool SlabFFT<Real>::x_in_place_on_out(const Real* in, const C* out) const {
  return transforms_->x_faster_in_place() && static_cast<const void*>(in) != static_cast<const void*>(out);
}

template <class Real>
void SlabFFT<Real>::backward(const C* in, Real* out, Modes modes) {
  begin_profile(1);
  backward_route(in, out, modes);
  end_profile();
}

template <class Real>
void SlabFFT<Real>::begin_profile(int direction) {
  if (!clock_) return;
  profiling_ = direction;
  clock_->start();
}

template <class Real>
void SlabFFT<Real>::lap(Phase phase) {
  clock_->lap(profiling_ * kPhaseCount + static_cast<int>(phase));
}

template <class Real>
void SlabFFT<Real>::end_profile() {
  ++times_.transforms;
  if (!clock_) return;
  double seconds[2 * kPhaseCount] = {};
  clock_->add_to(seconds);
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

std::string default_fftw_wisdom_directory() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != 0)
    return (std::filesystem::path(cache) / "kolmo").string();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != 0)
    return (std::filesystem::path(home) / ".cache" / "kolmo").string();
  return "";
}

const std::vector<std::string>& one_rank_dealiasing_names() {
  static const std::vector<std::string> names{"automatic", "copies", "rows", "masked_x", "masked_planes"};
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
