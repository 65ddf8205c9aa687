// SlabFFT's all-to-all in pieces, so that local work overlaps the exchange (FftOptions::exchange_pieces).
//
// Every rank splits its x planes into the same number of pieces (evenly, some possibly empty). Forward: for
// each piece, the 2D FFTs of its planes into a piece buffer, packing into the send buffer, and the start of
// its exchange; then all pieces are finished and the x FFTs run. Backward: the x FFTs, the start of every
// piece's exchange, then for each piece in turn its arrival, unpacking into the piece buffer and its 2D FFTs.
// The strided route in pieces packs nothing: the 2D FFTs of a piece write its planes [x][y][kz] where the
// exchange copies each peer's rows from, and backward read them where they arrived.
//
// Layouts: the send (forward) and receive (backward) buffers are piece-major, [piece][q][x][y of q][kz]
// (dealiased: kept y and kz only), so each piece's block for each peer is contiguous. What arrives in the
// forward lands in place in the spectral slab [kx][ky][kz] (kx-major: each peer's piece is one block). The
// backward receives into the top end of the output buffer: the real planes written by earlier pieces end
// below the packed data of later ones, because a real plane (Ny Nz reals) is never larger than its packed
// form and the buffer holds at least x_count real planes above the packed data's start (proof at
// backward_receive_start).
#include <mpi.h>

#include <algorithm>
#include <cstdio>

#include "core/Error.hpp"
#include "fft/DroppedColumns.hpp"
#include "fft/Executors.hpp"
#include "fft/Reshapes.hpp"
#include "fft/Route.hpp"
#include "fft/RouteChoices.hpp"
#include "fft/SlabFFT.hpp"

namespace kolmo::fft {

template <class Real>
Chunks SlabFFT<Real>::piece_chunks(int piece, int pieces, bool dealiased) const {
  const SlabLayout& l = layout_;
  auto bytes = [](std::size_t values) { return values * sizeof(C); };
  const SlabLayout::Planes out = l.piece(l.rank(), piece, pieces);
  Chunks c;
  for (auto* v : {&c.send_offset, &c.send_bytes, &c.recv_offset, &c.recv_bytes}) v->resize(l.ranks());
  for (int q = 0; q < l.ranks(); ++q) {
    const SlabLayout::Planes in = l.piece(q, piece, pieces);
    c.send_offset[q] = bytes(dealiased ? l.compact_packed_offset(q, out) : l.packed_offset(q, out));
    c.send_bytes[q] = bytes(dealiased ? l.compact_packed_count(q, out) : l.packed_count(q, out));
    c.recv_offset[q] = bytes(dealiased ? l.compact_chunk_offset(q, in) : l.spectral_chunk_offset(q, in));
    c.recv_bytes[q] = bytes(dealiased ? l.compact_chunk_count(q, in) : l.spectral_chunk_count(q, in));
  }
  return c;
}

template <class Real>
long SlabFFT<Real>::packed_plane(bool dealiased) const {
  return dealiased ? layout_.compact_packed_plane() : layout_.packed_plane();
}

// The output buffer holds A bytes; packed data of x_count planes of k bytes each sit at its top; the real
// piece j ends at b_j M bytes (M = Ny Nz reals). Later pieces' packed data start at A - x_count k + b_j k,
// which is >= b_j M: if k >= M (full) since A >= x_count k; else (dealiased) since A >= x_count M.
template <class Real>
std::size_t SlabFFT<Real>::backward_receive_start(bool dealiased) const {
  return layout_.alloc_complex() - layout_.x_count() * packed_plane(dealiased);
}

template <class Real>
void SlabFFT<Real>::make_chunks() {
  forward_chunks_ = piece_chunks(0, 1, false);
  forward_kept_chunks_ = piece_chunks(0, 1, true);
  backward_chunks_ = forward_chunks_.reversed();
  backward_kept_chunks_ = forward_kept_chunks_.reversed();
}

template <class Real>
void SlabFFT<Real>::make_piece_chunks() {
  for (int d = 0; d < 2; ++d) {
    forward_piece_chunks_[d].clear();
    backward_piece_chunks_[d].clear();
    forward_piece_blocks_[d].clear();
    backward_piece_blocks_[d].clear();
    if (pieces_[d] == 1) continue;
    const std::size_t shift = backward_receive_start(d == 1) * sizeof(C);
    for (int j = 0; j < pieces_[d]; ++j) {
      forward_piece_chunks_[d].push_back(piece_chunks(j, pieces_[d], d == 1));
      Chunks backward = forward_piece_chunks_[d].back().reversed();
      for (auto& offset : backward.recv_offset) offset += shift;
      backward_piece_chunks_[d].push_back(backward);
      if (!strided_routes_[d]) continue;
      forward_piece_blocks_[d].push_back(strided_chunks(d == 1, j, pieces_[d]));
      backward_piece_blocks_[d].push_back(forward_piece_blocks_[d].back().reversed());
    }
  }
}

template <class Real>
void SlabFFT<Real>::use_pieces(int full, int dealiased) {
  pieces_[0] = full;
  pieces_[1] = dealiased;
  make_piece_chunks();
  long largest = 0;
  bool strided_pieces = false;
  for (int d = 0; d < 2; ++d)
    if (pieces_[d] > 1) {
      strided_pieces = strided_pieces || strided_routes_[d];
      for (int j = 0; j < pieces_[d]; ++j) {
        const long count = layout_.piece(layout_.rank(), j, pieces_[d]).count;
        largest = std::max(largest, count);
        if (piece_planes_.count(count) == 0) piece_planes_[count] = transforms_->planes(count);
        if (d == 1 && strided_routes_[d] && pruned_x_ && count > 0 && pruned_piece_planes_.count(count) == 0)
          pruned_piece_planes_[count] = transforms_->pruned_planes(count, true);  // the pieces run both ways
      }
    }
  const std::size_t size =
      strided_pieces ? static_cast<std::size_t>(layout_.alloc_complex()) : largest * layout_.packed_plane();
  if (piece_.size() != size) piece_ = size > 0 ? Buffer<C>(device_, size) : Buffer<C>();
  assemble_routes();
}

template <class Real>
bool SlabFFT<Real>::in_pieces(Modes modes) const {
  return layout_.ranks() > 1 && pieces_[modes == Modes::dealiased ? 1 : 0] > 1 && !narrow_wire();
}

template <class Real>
void SlabFFT<Real>::choose_pieces() {
  const int asked = options_.exchange_pieces;
  if (layout_.ranks() == 1 || narrow_wire()) {
    pieces_report_ = "one all-to-all (no pieces)";
    return;
  }
  if (asked > 0) {
    use_pieces(asked, asked);
    pieces_report_ =
        "all-to-all in " + std::to_string(asked) + (asked == 1 ? " piece" : " pieces") + ", as asked";
    return;
  }
  // Automatic: time a forward-backward pair with 1, 2, 4, 8 pieces (no more than the fewest planes a rank
  // has) in turns, the slowest rank's time counting; full and dealiased transforms separately.
  std::vector<int> candidates;
  for (int pieces : {1, 2, 4, 8})
    if (pieces <= layout_.x_count(layout_.ranks() - 1)) candidates.push_back(pieces);
  // As an earlier run of this problem kept them (fft/RouteChoices.hpp; the same on every rank), or timed.
  const int count = int(candidates.size());
  const auto kept_full = choices_->kept("pieces full", count),
             kept_dealiased = choices_->kept("pieces dealiased", count);
  if (kept_full && kept_dealiased) {
    use_pieces(candidates[*kept_full], candidates[*kept_dealiased]);
    pieces_report_ = "all-to-all pieces: " + std::to_string(candidates[*kept_full]) + " (full), " +
                     std::to_string(candidates[*kept_dealiased]) + " (dealiased), kept";
    return;
  }
  Buffer<Real> real(device_, 2 * layout_.alloc_complex());
  Buffer<C> spectral(device_, layout_.alloc_complex());
  real.fill_zero();
  int best[2] = {1, 1};
  std::string text = "all-to-all pieces chosen by timing a pair (ms)";
  for (int d = 0; d < 2; ++d) {
    const Modes modes = d == 1 ? Modes::dealiased : Modes::all;
    // The candidates take turns, each switched to (untimed) before its pair.
    const std::vector<std::function<void()>> pairs(candidates.size(), [&] {
      forward(real.data(), spectral.data(), modes);
      backward(spectral.data(), real.data(), modes);
    });
    const std::vector<double> ms = slowest_rank_medians_ms(pairs, [&](std::size_t k) {
      use_pieces(d == 0 ? candidates[k] : best[0], d == 1 ? candidates[k] : 1);
    });
    double best_ms = 1e300;
    text += d == 1 ? "; dealiased:" : "; full:";
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      char entry[64];
      std::snprintf(entry, sizeof(entry), " %d: %.3f", candidates[k], ms[k]);
      text += entry;
      // Fewer pieces unless more are clearly faster, so that near ties do not flip between runs.
      if (ms[k] < 0.97 * best_ms) {
        best_ms = ms[k];
        best[d] = candidates[k];
      }
    }
    const int chosen = int(std::find(candidates.begin(), candidates.end(), best[d]) - candidates.begin());
    choices_->record(d == 1 ? "pieces dealiased" : "pieces full", count, chosen);
  }
  use_pieces(best[0], best[1]);
  pieces_report_ =
      text + "; using " + std::to_string(best[0]) + " (full), " + std::to_string(best[1]) + " (dealiased)";
}

// The plane FFTs and packing of the pieces overlap the exchange: all of it counts as exchange.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_in_pieces(bool dealiased) {
  const int d = dealiased ? 1 : 0;
  ForwardRoute route;
  C* scratch = scratch_.data();
  route.add(Phase::exchange, [this, d, dealiased, scratch](const Real* in, C* out) {
    const SlabLayout& l = layout_;
    const long per_plane = packed_plane(dealiased);
    C* piece = piece_.data();
    for (int j = 0; j < pieces_[d]; ++j) {
      const auto [first, count] = l.piece(l.rank(), j, pieces_[d]);
      if (count > 0) {
        piece_planes_.at(count)->forward(in + first * l.ny() * l.nz(), piece);
        if (dealiased)
          pack_kept<Real>(*device_, l, piece, out + first * per_plane, count);
        else
          pack<Real>(*device_, l, piece, out + first * per_plane, count);
      }
      exchange_->start(out, scratch, forward_piece_chunks_[d][j], j);
    }
    for (int j = 0; j < pieces_[d]; ++j) exchange_->finish(j);
  });
  if (dealiased) {
    route.add(Phase::x, [this, scratch](const Real*, C*) { kept_x_->forward(scratch, scratch); });
    route.add(Phase::unpack, [this, scratch](const Real*, C* out) {
      scatter_kept_spectral<Real>(*device_, layout_, scratch, out);
    });
  } else {
    route.add(Phase::x, [this, scratch](const Real*, C* out) { x_->forward(scratch, out); });
  }
  return route;
}

// The unpacking and plane FFTs of arrived pieces overlap the exchange of later ones: all counts as exchange.
template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_in_pieces(bool dealiased) {
  const int d = dealiased ? 1 : 0;
  BackwardRoute route;
  C* scratch = scratch_.data();
  if (dealiased) {
    route.add(Phase::pack, [this, scratch](const C* in, Real*) {
      gather_kept_spectral<Real>(*device_, layout_, in, scratch);
    });
    route.add(Phase::x, [this, scratch](const C*, Real*) { kept_x_->backward(scratch, scratch); });
  } else {
    route.add(Phase::x, [this, scratch](const C* in, Real*) { x_->backward(in, scratch); });
  }
  route.add(Phase::exchange, [this, d, dealiased, scratch](const C*, Real* out) {
    const SlabLayout& l = layout_;
    const long per_plane = packed_plane(dealiased);
    C* piece = piece_.data();
    const C* packed = reinterpret_cast<const C*>(out) + backward_receive_start(dealiased);
    for (int j = 0; j < pieces_[d]; ++j) exchange_->start(scratch, out, backward_piece_chunks_[d][j], j);
    for (int j = 0; j < pieces_[d]; ++j) {
      exchange_->finish(j);
      const auto [first, count] = l.piece(l.rank(), j, pieces_[d]);
      if (count == 0) continue;
      if (dealiased) {
        zero_planes<Real>(*device_, l, piece, count);
        expand_kept_planes<Real>(*device_, l, packed + first * per_plane, piece, count);
      } else {
        unpack<Real>(*device_, l, packed + first * per_plane, piece, count);
      }
      piece_planes_.at(count)->backward(piece, out + first * l.ny() * l.nz());
    }
  });
  return route;
}

// The strided route's plane transforms of `count` planes: the pruned ones (dealiased, where they exist) or
// cuFFT's (FFTW's). The own rows go with the exchange, as a copy.
template <class Real>
PlaneTransform<Real>* SlabFFT<Real>::strided_piece_planes(bool dealiased, long count) const {
  if (dealiased && pruned_x_) return pruned_piece_planes_.at(count).get();
  return piece_planes_.at(count).get();
}

// Strided, forward (out of place): each piece's plane transforms write its planes where the exchange copies
// each peer's rows from, and its exchange starts; then all pieces are finished and the x FFTs run (as
// forward_strided's: the planes in out and the chunks arriving in the scratch slab, or the other way round
// where x transforms run faster in place). All but the x transforms counts as exchange.
template <class Real>
typename SlabFFT<Real>::ForwardRoute SlabFFT<Real>::forward_strided_in_pieces(bool dealiased) {
  const int d = dealiased ? 1 : 0;
  const bool in_out = transforms_->x_faster_in_place();
  const Slot planes = in_out ? Slot::scratch : Slot::out;
  const Slot arrived = in_out ? Slot::out : Slot::scratch;
  ForwardRoute route;
  route.add(Phase::exchange, [this, d, dealiased, planes, arrived](const Real* in, C* out) {
    const SlabLayout& l = layout_;
    for (int j = 0; j < pieces_[d]; ++j) {
      const auto [first, count] = l.piece(l.rank(), j, pieces_[d]);
      if (count > 0)
        strided_piece_planes(dealiased, count)
            ->forward(in + first * l.ny() * l.nz(), at(planes, out) + first * l.ny() * l.nzc());
      exchange_->start(at(planes, out), at(arrived, out), forward_piece_blocks_[d][j], j);
    }
    for (int j = 0; j < pieces_[d]; ++j) exchange_->finish(j);
  });
  route.add(Phase::x, [this, arrived, x = strided_x(dealiased, true)](const Real*, C* out) {
    x(at(arrived, out), out);
  });
  return route;
}

// Strided, backward: the x transforms into the piece slab (so that the plane transforms of arrived pieces
// write the output while later pieces are still being sent from it), every piece's exchange started, then for
// each piece in turn its arrival in the scratch slab and its plane transforms (dealiased without the pruned
// ones: after zeroing its dropped modes). The input stays intact.
template <class Real>
typename SlabFFT<Real>::BackwardRoute SlabFFT<Real>::backward_strided_in_pieces(bool dealiased) {
  const int d = dealiased ? 1 : 0;
  BackwardRoute route;
  route.add(Phase::x, [this, x = strided_x(dealiased, false)](const C* in, Real*) { x(in, piece_.data()); });
  // Without the pruned plane transforms, dealiased: each piece's planes as a one-rank layout, whose dropped
  // columns (zeroed before the plane transforms read them) are those of the planes.
  const bool zeroed = dealiased && !pruned_x_;
  std::vector<SlabLayout> piece_planes;
  for (int j = 0; zeroed && j < pieces_[d]; ++j)
    piece_planes.emplace_back(
        std::array<long, 3>{std::max(1L, layout_.piece(layout_.rank(), j, pieces_[d]).count), layout_.ny(),
                            layout_.nz()},
        1, 0);
  route.add(Phase::exchange, [this, d, dealiased, zeroed, piece_planes](const C*, Real* out) {
    const SlabLayout& l = layout_;
    C* scratch = scratch_.data();
    for (int j = 0; j < pieces_[d]; ++j)
      exchange_->start(piece_.data(), scratch, backward_piece_blocks_[d][j], j);
    for (int j = 0; j < pieces_[d]; ++j) {
      exchange_->finish(j);
      const auto [first, count] = l.piece(l.rank(), j, pieces_[d]);
      if (count == 0) continue;
      C* planes = scratch + first * l.ny() * l.nzc();
      if (zeroed) zero_dropped_columns(*device_, piece_planes[j], planes);
      strided_piece_planes(dealiased, count)->backward(planes, out + first * l.ny() * l.nz());
    }
  });
  return route;
}

// SlabFFT itself is instantiated in fft/SlabFFT.cpp; these are its members defined here.
#define KOLMO_SLAB_FFT_PIECES(Real)                                                     \
  template Chunks SlabFFT<Real>::piece_chunks(int, int, bool) const;                    \
  template long SlabFFT<Real>::packed_plane(bool) const;                                \
  template std::size_t SlabFFT<Real>::backward_receive_start(bool) const;               \
  template void SlabFFT<Real>::make_chunks();                                           \
  template void SlabFFT<Real>::make_piece_chunks();                                     \
  template void SlabFFT<Real>::use_pieces(int, int);                                    \
  template bool SlabFFT<Real>::in_pieces(Modes) const;                                  \
  template void SlabFFT<Real>::choose_pieces();                                         \
  template Route<Real, Complex<Real>> SlabFFT<Real>::forward_in_pieces(bool);           \
  template Route<Complex<Real>, Real> SlabFFT<Real>::backward_in_pieces(bool);          \
  template PlaneTransform<Real>* SlabFFT<Real>::strided_piece_planes(bool, long) const; \
  template Route<Real, Complex<Real>> SlabFFT<Real>::forward_strided_in_pieces(bool);   \
  template Route<Complex<Real>, Real> SlabFFT<Real>::backward_strided_in_pieces(bool);
KOLMO_SLAB_FFT_PIECES(float)
KOLMO_SLAB_FFT_PIECES(double)
#undef KOLMO_SLAB_FFT_PIECES

}  // namespace kolmo::fft
