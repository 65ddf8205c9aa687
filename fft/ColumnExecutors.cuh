// The executors (fft/Executors.hpp) that kolmo's own row and column FFTs make on a GPU (fft/RowFft.hpp,
// fft/ColumnFft.hpp), for fft/CudaTransforms.cu: the pruned dealiased route's plane and x transforms, the
// strided route's plane transforms that place the rank's own rows, the plane transforms in groups on two
// streams, the fused route's transforms (the chunks loaded and stored by the column FFTs), and
// the row split. A private header of fft/CudaTransforms.cu, which alone includes it.
//
// Contract (CUDA builds; everything is queued on the streams given):
// - ColumnSets: the column sets of one route's y transforms (forward, backward) and x transforms;
//   full_columns and pruned_columns make them from a layout, place_own_rows adds the own rows' moves.
// - RowPlanes, ColumnPlanes, GroupedPlanes (PlaneTransform), PrunedLines, RoutedLines,
//   NoLines (XTransform), PrunedRowSplit (RowSplit): each keeps the device pointers it is given (twiddle
//   tables, the slab the own rows go to), which must outlive it.
#pragma once

#include <cufft.h>

#include <memory>
#include <utility>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "core/Dependence.hpp"
#include "core/Error.hpp"
#include "fft/ColumnFft.hpp"
#include "fft/Executors.hpp"
#include "fft/RowFft.hpp"
#include "fft/RowSplit.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft::column_executors {

// The pruned dealiased route (one rank: OneRankDealiasing::pruned; several: the strided route's dealiased
// transforms): the kept columns by kolmo's own column FFTs (fft/ColumnFft.hpp). The planes [x][y][kz] hold
// x_count planes of every ky; the spectral slab [kx][ky][kz] the rank's ky planes, whose kept ones form at
// most two runs (SlabLayout::kept_runs; one rank: [0, a) and [b, Ny)).
struct ColumnSets {
  ColumnSet y_forward, y_backward, x;     // x: the pruned route's only
  ColumnMoves own_forward, own_backward;  // place_own_rows
};

// Full transforms' y column FFTs: every kz column of every x plane, whole.
inline ColumnSets full_columns(const SlabLayout& layout) {
  ColumnSets columns;
  ColumnSet& y = columns.y_forward;
  y.n = layout.ny();
  y.stride = layout.nzc();
  y.outer_stride = layout.ny() * layout.nzc();
  y.outer_count[0] = layout.x_count();
  y.inner = y.computed = layout.nzc();
  y.kept_below = y.kept_from = y.n;
  columns.y_backward = y;
  return columns;
}

// x along every (ky, kz) column of the rank's ky planes of the spectral slab [kx][ky][kz], whole.
inline ColumnSet slab_x_columns(const SlabLayout& layout) {
  ColumnSet x;
  x.n = layout.nx();
  x.stride = layout.y_count() * layout.nzc();
  x.outer_stride = layout.nzc();
  x.outer_count[0] = layout.y_count();
  x.inner = x.computed = layout.nzc();
  x.kept_below = x.kept_from = x.n;
  return x;
}

// The pruned route's: y along the kept kz columns, x along the kept (ky, kz) columns.
inline ColumnSets pruned_columns(const SlabLayout& layout) {
  const long ny = layout.ny(), nzc = layout.nzc(), kept_z = layout.kept_z();
  const auto [a, b] = SlabLayout::kept_bounds(ny);  // the kept ky of every plane: [0, a) and [b, Ny)
  ColumnSets columns = full_columns(layout);
  // y: along each kept kz column of every x plane. Forward writes only the kept ky; backward reads only
  // them and writes zeros to the dropped kz columns, which cuFFT's C2R along z reads (kolmo's row FFTs do
  // not: pruned_planes narrows the backward set to the kept columns for them).
  ColumnSet& y = columns.y_forward;
  y.inner = y.computed = kept_z;
  y.kept_below = a;
  y.kept_from = b;
  y.store_kept_only = true;
  columns.y_backward = y;
  columns.y_backward.store_kept_only = false;
  columns.y_backward.load_kept_only = true;
  columns.y_backward.inner = nzc;
  // x: the kept (ky, kz) columns of the rank's ky planes, whole.
  columns.x = slab_x_columns(layout);
  ColumnSet& x = columns.x;
  const auto& runs = layout.kept_runs(layout.rank());
  KOLMO_REQUIRE(runs.size() <= 2, "internal: more than two runs of kept ky planes on a rank");
  x.outer_count[0] = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    x.outer_first[r] = runs[r].start - layout.y_offset();
    x.outer_count[r] = runs[r].count;
  }
  x.inner = x.computed = kept_z;
  return columns;
}

// The strided route across ranks (fft/SlabFFT.cpp) without the own chunk's copy: the rank's own ky rows of
// its x planes have their places in its spectral slab [kx][ky][kz], at kx = x_offset + the plane. The y
// column FFTs store them there (forward, into the slab the x transforms read) and load them from there
// (backward, where the x transforms left them).
// Whether a rank places its own rows (CudaTransforms::placing_planes): several ranks, x planes here, and Ny
// (dealiased: Nx too) a length the column FFTs take.
inline bool places_own_rows(const SlabLayout& layout, bool dealiased) {
  return layout.ranks() > 1 && layout.x_count() > 0 && column_fft_supports(layout.ny()) &&
         (!dealiased || column_fft_supports(layout.nx()));
}
inline void place_own_rows(ColumnSets& columns, const SlabLayout& layout) {
  ColumnMoves& own = columns.own_forward;
  own.first = layout.y_offset();
  own.count = layout.y_count();
  own.outer_stride = layout.y_count() * layout.nzc();
  own.offset = layout.x_offset() * own.outer_stride;
  own.stride = layout.nzc();
  columns.own_backward = own;
  columns.own_backward.loads = true;
}

// The same placement done by the x transforms backward (the strided route's dealiased backward transforms,
// whose plane transforms then read every row from the planes, in groups): the x column FFTs store the
// elements of the rank's own kx (its x planes) of each of its ky planes to their place in the planes
// [x][y][kz], where the exchange would have put the own chunk.
inline ColumnMoves own_rows_by_x(const SlabLayout& layout) {
  ColumnMoves own;
  own.first = layout.x_offset();
  own.count = layout.x_count();
  own.stride = layout.ny() * layout.nzc();
  own.outer_stride = layout.nzc();
  own.offset = layout.y_offset() * layout.nzc();
  return own;
}

// The transforms along z of every row by kolmo's row FFTs (fft/RowFft.hpp), which write and read only the
// kept kz modes: the pruned route's where Nz is a length they take (CudaPlanes' 1D plans otherwise). The
// rows from `first` on (GroupedPlanes' groups), in and out pointing at row 0; each direction's kernel
// depends on the kernel before it on the stream as told (core/DependentLaunch.cuh).
template <class Real>
class RowPlanes final : public PlaneTransform<Real> {
  using C = Complex<Real>;

 public:
  RowPlanes(const RowSet& rows, long first, const C* twiddles, cudaStream_t stream, Dependence forward = {},
            Dependence backward = {})
      : rows_(rows),
        first_(first),
        twiddles_(twiddles),
        stream_(stream),
        forward_(forward),
        backward_(backward) {}
  void forward(const Real* in, C* out) override {
    row_fft_r2c<Real>(rows_, in + first_ * rows_.row_pitch_real, out + first_ * rows_.row_pitch_complex,
                      twiddles_, stream_, forward_);
  }
  void backward(C* in, Real* out) override {
    row_fft_c2r<Real>(rows_, in + first_ * rows_.row_pitch_complex, out + first_ * rows_.row_pitch_real,
                      twiddles_, stream_, backward_);
  }

 private:
  RowSet rows_;
  long first_;
  const C* twiddles_;
  cudaStream_t stream_;
  Dependence forward_, backward_;
};

// A route (fft/ColumnFft.hpp) with its rows in device memory: route.rows is rows.data(), which a move keeps.
struct HeldRoute {
  ElementRoute route;
  Buffer<PlaneRow> rows;
};

// Plane transforms by kolmo's column FFTs along y (the pruned route's, of the kept kz columns; the strided
// route's, of all of them or the kept ones; the fused route's): the transforms along z of every row (z:
// RowPlanes or CudaPlanes' 1D plans), then the column FFTs. Forward out and backward in are the planes
// [x][y][kz]; backward overwrites its input. With `arrived` (place_own_rows): forward stores the own rows
// into the spectral slab arrived, backward loads them from the spectral slab its out holds, before z
// overwrites it. With a route (the fused route's chunks, one direction: the other is an internal error):
// forward's column FFTs store along it instead of to out, backward's load along it instead of from in.
// Each direction's column FFTs depend on the kernel before them on the stream as told.
template <class Real>
class ColumnPlanes final : public PlaneTransform<Real> {
  using C = Complex<Real>;

 public:
  ColumnPlanes(std::unique_ptr<PlaneTransform<Real>> z, const ColumnSets& columns, const C* twiddles,
               cudaStream_t stream, C* arrived = nullptr, Dependence forward = {}, Dependence backward = {},
               std::shared_ptr<const HeldRoute> route = nullptr)
      : z_(std::move(z)),
        columns_(columns),
        twiddles_(twiddles),
        stream_(stream),
        arrived_(arrived),
        forward_(forward),
        backward_(backward),
        route_(std::move(route)) {}
  void forward(const Real* in, C* out) override {
    z_->forward(in, out);
    if (route_) {
      KOLMO_REQUIRE(!route_->route.loads, "internal: routed plane transforms run the other way");
      column_fft<Real>(columns_.y_forward, out, out, twiddles_, CUFFT_FORWARD, stream_, route_->route,
                       forward_);
      return;
    }
    column_fft<Real>(columns_.y_forward, out, out, twiddles_, CUFFT_FORWARD, stream_,
                     arrived_ ? &columns_.own_forward : nullptr, arrived_, forward_);
  }
  void backward(C* in, Real* out) override {
    if (route_) {
      KOLMO_REQUIRE(route_->route.loads, "internal: routed plane transforms run the other way");
      column_fft<Real>(columns_.y_backward, in, in, twiddles_, CUFFT_INVERSE, stream_, route_->route,
                       backward_);
    } else {
      column_fft<Real>(columns_.y_backward, in, in, twiddles_, CUFFT_INVERSE, stream_,
                       arrived_ ? &columns_.own_backward : nullptr, reinterpret_cast<C*>(out), backward_);
    }
    z_->backward(in, out);
  }

 private:
  std::unique_ptr<PlaneTransform<Real>> z_;
  ColumnSets columns_;
  const C* twiddles_;
  cudaStream_t stream_;
  C* arrived_;
  Dependence forward_, backward_;
  std::shared_ptr<const HeldRoute> route_;
};

// Plane transforms in groups of consecutive planes (each a ColumnPlanes of its own planes, made on its
// stream), which the device's stream and a second one take in turn: the second is forked from the device's
// stream by an event and joined back to it by another, so that what follows on the device's stream waits
// for every group. Each stream's passes run beside the other's ramps and tails, a group's intermediate planes
// [x][y][kz] are still in L2 when its column FFTs read them where the group is small against L2 (a quarter
// or an eighth of it), and groups may follow early: start on their stream as the group before them there ends
// (groups()). Following early, the one-GPU forward plane transforms at 512^3 (dealiased, single precision) in
// 57 groups took 5 % less than in one on an H100, where waiting they had taken 4-10 % more; the pair 2 % less
// (docs/results/small_kernels_h100.log, section 19). Earlier, one H100, 512^2
// planes, the dealiased plane transforms: 64 planes (one rank of 8 at 512^3) in 4 groups (single precision)
// or 8 (double) took 7 and 9 % less in the transform; 512 planes (one GPU) backward in 29 and 57 groups 2
// and 6 % less, forward 4 % more in single precision; groups of 1024^2 planes small enough for L2 (2 to 4
// planes) from 2 % less to 7 % more, so the construction times them. The x transforms in groups (one pass,
// nothing to keep in L2) took from 2 % less to 38 % more, mostly more, and stay whole
// (docs/results/plane_groups_h100.log). Groups touch disjoint planes, so any order of them gives the same
// results; a direction whose groups would not be independent (the placing backward transforms) is made with
// one group.
template <class Real>
class GroupedPlanes final : public PlaneTransform<Real> {
  using C = Complex<Real>;

 public:
  using Groups = std::vector<std::unique_ptr<PlaneTransform<Real>>>;
  GroupedPlanes(Groups forward, Groups backward, cudaStream_t stream, cudaStream_t second)
      : forward_(std::move(forward)),
        backward_(std::move(backward)),
        stream_(stream),
        second_(second),
        fork_(new_event(cudaEventDisableTiming)),
        join_(new_event(cudaEventDisableTiming)) {}
  void forward(const Real* in, C* out) override {
    in_turn(forward_, [&](PlaneTransform<Real>& group) { group.forward(in, out); });
  }
  void backward(C* in, Real* out) override {
    in_turn(backward_, [&](PlaneTransform<Real>& group) { group.backward(in, out); });
  }

 private:
  template <class Run>
  void in_turn(Groups& groups, Run run) {
    if (groups.size() == 1) return run(*groups.front());
    KOLMO_CHECK_CUDA(cudaEventRecord(fork_.get(), stream_));
    KOLMO_CHECK_CUDA(cudaStreamWaitEvent(second_, fork_.get()));
    for (auto& group : groups) run(*group);
    KOLMO_CHECK_CUDA(cudaEventRecord(join_.get(), second_));
    KOLMO_CHECK_CUDA(cudaStreamWaitEvent(stream_, join_.get()));
  }
  Groups forward_, backward_;
  cudaStream_t stream_, second_;
  Event fork_, join_;
};

// Its x transforms: the column FFTs along x of the kept columns, out of place (or in place, as the row split
// runs them: column_fft reads each column whole before it writes it).
template <class Real>
class PrunedLines final : public XTransform<Real> {
  using C = Complex<Real>;

 public:
  PrunedLines(const ColumnSet& columns, const C* twiddles, cudaStream_t stream)
      : columns_(columns), twiddles_(twiddles), stream_(stream) {}
  // With `own` (own_rows_by_x): backward stores the own rows into the planes at `planes` instead of
  // to out.
  PrunedLines(const ColumnSet& columns, const ColumnMoves& own, C* planes, const C* twiddles,
              cudaStream_t stream)
      : columns_(columns), own_(own), planes_(planes), twiddles_(twiddles), stream_(stream) {}
  void forward(const C* in, C* out) override {
    column_fft<Real>(columns_, in, out, twiddles_, CUFFT_FORWARD, stream_);
  }
  void backward(const C* in, C* out) override {
    column_fft<Real>(columns_, in, out, twiddles_, CUFFT_INVERSE, stream_, planes_ ? &own_ : nullptr,
                     planes_);
  }

 private:
  ColumnSet columns_;
  ColumnMoves own_;
  C* planes_ = nullptr;
  const C* twiddles_;
  cudaStream_t stream_;
};

// The y column FFTs' routes of a split whose exchange moves the fused route's chunks (RowExchange::routed):
// forward the stores into the chunks, backward the loads from them (the routed ColumnPlanes' routes).
struct YRoutes {
  HeldRoute forward, backward;
};

// The pruned route split at its rows along z (fft/RowSplit.hpp): its x transforms (PrunedLines; routed:
// RoutedLines, one a direction) and y column FFTs of the kept kz columns. On one rank the planes [x][y][kz]
// are the slab's own shape, so after the x transforms of the kept columns the y transforms run on the same
// memory. Across ranks the exchange runs between them: backward the x transforms in place, the exchange to
// the planes in exchange.arrived, the y transforms from there into the slab's memory; forward the y
// transforms in place (the own rows stored to arrived where the column FFTs place them), the exchange to the
// spectral slab in arrived, the x transforms from there into the slab. Routed (y_routes): the x transforms
// backward and the y transforms forward store into the chunks, the exchange moves them, and the y transforms
// backward and the x transforms forward load from what arrived.
template <class Real>
class PrunedRowSplit final : public RowSplit<Real> {
  using C = Complex<Real>;

 public:
  PrunedRowSplit(std::unique_ptr<XTransform<Real>> x, const ColumnSets& columns, const RowSet& rows,
                 const C* y_twiddles, const C* z_twiddles, cudaStream_t stream, RowExchange<Real> exchange,
                 std::unique_ptr<XTransform<Real>> x_backward = nullptr,
                 std::unique_ptr<YRoutes> y_routes = nullptr)
      : x_(std::move(x)),
        x_backward_(std::move(x_backward)),
        columns_(columns),
        rows_(rows),
        y_twiddles_(y_twiddles),
        z_twiddles_(z_twiddles),
        stream_(stream),
        exchange_(std::move(exchange)),
        y_routes_(std::move(y_routes)) {}
  void backward_to_rows(C* slab) override {
    KOLMO_REQUIRE(slab != nullptr, "RowSplit::backward_to_rows: `slab` is a null pointer");
    (x_backward_ ? *x_backward_ : *x_).backward(slab, slab);
    const C* planes = slab;
    if (exchange_.to_planes) {
      exchange_.to_planes(slab);
      if (exchange_.arrived) planes = exchange_.arrived;
    }
    if (y_routes_)
      column_fft<Real>(columns_.y_backward, planes, slab, y_twiddles_, CUFFT_INVERSE, stream_,
                       y_routes_->backward.route);
    else
      column_fft<Real>(columns_.y_backward, planes, slab, y_twiddles_, CUFFT_INVERSE, stream_);
  }
  void forward_from_rows(C* slab) override {
    KOLMO_REQUIRE(slab != nullptr, "RowSplit::forward_from_rows: `slab` is a null pointer");
    const bool places = exchange_.places_own_rows;
    if (y_routes_)
      column_fft<Real>(columns_.y_forward, slab, slab, y_twiddles_, CUFFT_FORWARD, stream_,
                       y_routes_->forward.route);
    else
      column_fft<Real>(columns_.y_forward, slab, slab, y_twiddles_, CUFFT_FORWARD, stream_,
                       places ? &columns_.own_forward : nullptr, places ? exchange_.arrived : nullptr);
    const C* spectral = slab;
    if (exchange_.to_slab) {
      exchange_.to_slab(slab);
      if (exchange_.arrived) spectral = exchange_.arrived;
    }
    x_->forward(spectral, slab);
  }
  const RowSet& rows() const override { return rows_; }
  const C* twiddles() const override { return z_twiddles_; }

 private:
  std::unique_ptr<XTransform<Real>> x_, x_backward_;  // x_backward_: routed, the other direction's
  ColumnSets columns_;
  RowSet rows_;
  const C *y_twiddles_, *z_twiddles_;
  cudaStream_t stream_;
  RowExchange<Real> exchange_;
  std::unique_ptr<YRoutes> y_routes_;
};

// The fused route's x transforms by kolmo's kernels (several ranks, an exchange of contiguous chunks: NCCL
// or MPI), with the all-to-all's packing in the column FFTs' own loads and stores (ElementRoute,
// fft/ColumnFft.hpp), as cuFFT's callbacks pack it (fft/ChunkRoutes.hpp's layouts, the same chunks); its
// plane transforms are ColumnPlanes with a route. RoutedLines holds its route's rows in device memory.
//
// RoutedLines: x transforms whose chunk side goes along the route, forward loaded from what arrived,
// backward stored to the send buffer and the own rows to their place: the fused route's dealiased ones (the
// kept (ky, kz) columns of the spectral slab, each kx row of the compact [kx][kept ky][kept kz] slab, column
// by its compact place), its full backward ones (every column of the spectral slab) and the realigned
// route's (every column, each kx row in its peer's [ky][x][kz] chunk). in (forward) and out (backward) are
// the route's, not the call's.
template <class Real>
class RoutedLines final : public XTransform<Real> {
  using C = Complex<Real>;

 public:
  RoutedLines(const ColumnSet& columns, HeldRoute route, const C* twiddles, cudaStream_t stream)
      : columns_(columns), held_(std::move(route)), twiddles_(twiddles), stream_(stream) {}
  void forward(const C* in, C* out) override {
    KOLMO_REQUIRE(held_.route.loads, "internal: routed x transforms run the other way");
    column_fft<Real>(columns_, in, out, twiddles_, CUFFT_FORWARD, stream_, held_.route);
  }
  void backward(const C* in, C* out) override {
    KOLMO_REQUIRE(!held_.route.loads, "internal: routed x transforms run the other way");
    column_fft<Real>(columns_, in, out, twiddles_, CUFFT_INVERSE, stream_, held_.route);
  }

 private:
  ColumnSet columns_;
  HeldRoute held_;
  const C* twiddles_;
  cudaStream_t stream_;
};

// The x transforms of a compact slab of no column (a rank that keeps no ky plane): nothing to do.
template <class Real>
class NoLines final : public XTransform<Real> {
 public:
  void forward(const Complex<Real>*, Complex<Real>*) override {}
  void backward(const Complex<Real>*, Complex<Real>*) override {}
};

}  // namespace kolmo::fft::column_executors
