// LocalTransforms on one GPU: executors (fft/Executors.hpp) of cuFFT's plans, every plan sharing one work
// area, and of kolmo's own row and column FFTs (fft/RowFft.hpp, fft/ColumnFft.hpp); all on the device's
// stream, but for the plane groups, which a second stream forked from it and joined back to it shares.
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/Buffer.hpp"
#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/ChunkRoutes.hpp"
#include "fft/ColumnExecutors.cuh"
#include "fft/ColumnFft.hpp"
#include "fft/Executors.hpp"
#include "fft/KeptModeMask.hpp"
#include "fft/LocalTransforms.hpp"
#include "fft/PhaseClock.hpp"
#include "fft/RouteChoices.hpp"
#include "fft/RowFft.hpp"
#include "fft/StockhamPasses.hpp"

// The LTO-IR of fft/DealiasCallbacks.cu and fft/ExchangeCallbacks.cu, made by the build.
#include "DealiasCallbacks.fatbin.h"
#include "ExchangeCallbacks.fatbin.h"

namespace kolmo::fft {

namespace {

using namespace column_executors;

template <class Real>
struct CufftTypes;
template <>
struct CufftTypes<double> {
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
  static constexpr cufftXtCallbackType load = CUFFT_CB_LD_COMPLEX_DOUBLE, store = CUFFT_CB_ST_COMPLEX_DOUBLE;
  static constexpr const char* load_kept = "kolmo_load_kept_double";
  static constexpr const char* store_kept = "kolmo_store_kept_double";
  static constexpr const char* store_chunks = "kolmo_store_chunks_double";
  static constexpr const char* load_chunks = "kolmo_load_chunks_double";
  static constexpr const char* store_own_rows = "kolmo_store_own_rows_double";
  static constexpr const char* load_spread = "kolmo_load_spread_double";
  static constexpr const char* store_spread = "kolmo_store_spread_double";
  static constexpr const char* load_lines = "kolmo_load_lines_double";
  static constexpr const char* store_lines = "kolmo_store_lines_double";
};
template <>
struct CufftTypes<float> {
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static constexpr cufftXtCallbackType load = CUFFT_CB_LD_COMPLEX, store = CUFFT_CB_ST_COMPLEX;
  static constexpr const char* load_kept = "kolmo_load_kept_float";
  static constexpr const char* store_kept = "kolmo_store_kept_float";
  static constexpr const char* store_chunks = "kolmo_store_chunks_float";
  static constexpr const char* load_chunks = "kolmo_load_chunks_float";
  static constexpr const char* store_own_rows = "kolmo_store_own_rows_float";
  static constexpr const char* load_spread = "kolmo_load_spread_float";
  static constexpr const char* store_spread = "kolmo_store_spread_float";
  static constexpr const char* load_lines = "kolmo_load_lines_float";
  static constexpr const char* store_lines = "kolmo_store_lines_float";
};

// The plan shapes of the slab's own transforms, given to a cuFFT call of cufftMakePlanMany64's signature:
// cufftMakePlanMany64 makes the plan, cufftGetSizeMany64 only says the work bytes it would need (for the
// memory estimate, cuda_work_bytes). planes_2d: the 2D R2C (forward) or C2R transforms of `planes`
// consecutive yz planes; x_c2c: the x transforms (both directions) of `count` adjacent columns whose x lines
// have `stride`.
using CufftShapeCall = decltype(&cufftMakePlanMany64);
template <class Real>
cufftResult planes_2d(CufftShapeCall call, cufftHandle plan, const SlabLayout& layout, long long planes,
                      bool forward, std::size_t* size) {
  const long long ny = layout.ny(), nz = layout.nz(), nzc = layout.nzc();
  long long plane[2] = {ny, nz}, real_embed[2] = {ny, nz}, complex_embed[2] = {ny, nzc};
  long long *in = real_embed, *out = complex_embed, in_dist = ny * nz, out_dist = ny * nzc;
  if (!forward) std::swap(in, out), std::swap(in_dist, out_dist);
  return call(plan, 2, plane, in, 1, in_dist, out, 1, out_dist,
              forward ? CufftTypes<Real>::r2c : CufftTypes<Real>::c2r, planes, size);
}
// z_rows: the 1D R2C (forward) or C2R transforms along z of every row of `planes` yz planes (the pruned
// route where kolmo's row FFTs do not take Nz).
template <class Real>
cufftResult z_rows(CufftShapeCall call, cufftHandle plan, const SlabLayout& layout, long long planes,
                   bool forward, std::size_t* size) {
  long long line[1] = {layout.nz()}, real_embed[1] = {layout.nz()}, complex_embed[1] = {layout.nzc()};
  long long *in = real_embed, *out = complex_embed, in_dist = layout.nz(), out_dist = layout.nzc();
  if (!forward) std::swap(in, out), std::swap(in_dist, out_dist);
  return call(plan, 1, line, in, 1, in_dist, out, 1, out_dist,
              forward ? CufftTypes<Real>::r2c : CufftTypes<Real>::c2r, planes * layout.ny(), size);
}
template <class Real>
cufftResult x_c2c(CufftShapeCall call, cufftHandle plan, const SlabLayout& layout, long long stride,
                  long long count, std::size_t* size) {
  long long line[1] = {layout.nx()};
  return call(plan, 1, line, line, stride, 1, line, stride, 1, CufftTypes<Real>::c2c, count, size);
}

// The cuFFT work area every plan of a backend shares (they never run at the same time): attach(plan, bytes)
// points the plan at it, first growing it (every attached plan moved to the new one) where the plan needs
// more; detach forgets a plan that is being destroyed.
class WorkArea {
 public:
  WorkArea(std::shared_ptr<Device> device, cudaStream_t stream)
      : device_(std::move(device)), stream_(stream) {}
  void attach(cufftHandle plan, std::size_t bytes) {
    if (bytes > area_.bytes() || area_.size() == 0) {
      KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream_));
      area_ = Buffer<char>(device_, std::max(bytes, std::size_t(1)));
      for (cufftHandle other : plans_) KOLMO_CHECK_CUFFT(cufftSetWorkArea(other, area_.data()));
    }
    KOLMO_CHECK_CUFFT(cufftSetWorkArea(plan, area_.data()));
    plans_.push_back(plan);
  }
  void detach(cufftHandle plan) {
    plans_.erase(std::remove(plans_.begin(), plans_.end(), plan), plans_.end());
  }
  std::size_t bytes() const { return area_.bytes(); }

 private:
  std::shared_ptr<Device> device_;
  cudaStream_t stream_;
  Buffer<char> area_;
  std::vector<cufftHandle> plans_;
};

// One cuFFT plan on the device's stream, without a work area of its own until attach(bytes) gives it the
// shared one; with the device memory its callbacks read (caller infos, tables), if any.
class Plan {
 public:
  Plan(WorkArea& work, cudaStream_t stream) : work_(work) {
    cufftHandle handle = 0;
    KOLMO_CHECK_CUFFT(cufftCreate(&handle));
    handle_ = UniqueHandle<cufftHandle, cufftDestroy>(handle);
    KOLMO_CHECK_CUFFT(cufftSetAutoAllocation(handle, 0));
    KOLMO_CHECK_CUFFT(cufftSetStream(handle, stream));
  }
  ~Plan() {
    if (attached_) work_.detach(get());
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  cufftHandle get() const { return handle_.get(); }
  void attach(std::size_t bytes) {
    work_.attach(get(), bytes);
    attached_ = true;
  }
  std::vector<Buffer<char>> data;

 private:
  WorkArea& work_;
  UniqueHandle<cufftHandle, cufftDestroy> handle_;
  bool attached_ = false;
};
using PlanHandle = std::shared_ptr<Plan>;

// A callback for a plan: its function in one of the embedded LTO-IR files, and its caller info (a device
// pointer).
struct Callback {
  const char* name;
  cufftXtCallbackType type;
  void* info;
  const unsigned char* fatbin;
  std::size_t fatbin_bytes;
};

template <std::size_t Bytes>
Callback callback(const char* name, cufftXtCallbackType type, void* info,
                  const unsigned char (&fatbin)[Bytes]) {
  return {name, type, info, fatbin, Bytes};
}

// Points a store-spread route at the slab its callback writes (before the transform, on the stream).
__global__ void point_spread_at(ColumnRoute* route, void* spread) {
  route->spread = spread;
}

template <class Real>
auto z(const Complex<Real>* p) {
  if constexpr (std::is_same_v<Real, double>)
    return reinterpret_cast<cufftDoubleComplex*>(const_cast<Complex<Real>*>(p));
  else
    return reinterpret_cast<cufftComplex*>(const_cast<Complex<Real>*>(p));
}
template <class Real>
void execute_r2c(cufftHandle plan, const Real* in, Complex<Real>* out) {
  if constexpr (std::is_same_v<Real, double>)
    KOLMO_CHECK_CUFFT(cufftExecD2Z(plan, const_cast<double*>(in), z(out)));
  else
    KOLMO_CHECK_CUFFT(cufftExecR2C(plan, const_cast<float*>(in), z(out)));
}
template <class Real>
void execute_c2r(cufftHandle plan, Complex<Real>* in, Real* out) {
  if constexpr (std::is_same_v<Real, double>)
    KOLMO_CHECK_CUFFT(cufftExecZ2D(plan, z(in), out));
  else
    KOLMO_CHECK_CUFFT(cufftExecC2R(plan, z(in), out));
}
template <class Real>
void execute_x(cufftHandle plan, const Complex<Real>* in, Complex<Real>* out, int direction) {
  if constexpr (std::is_same_v<Real, double>)
    KOLMO_CHECK_CUFFT(cufftExecZ2Z(plan, z(in), z(out), direction));
  else
    KOLMO_CHECK_CUFFT(cufftExecC2C(plan, z(in), z(out), direction));
}

[[noreturn]] void wrong_direction() {
  throw Error("internal: a fused executor called in the direction it was not made for");
}

// Plane transforms: an R2C plan (forward) and a C2R plan (backward) of `count` planes; a fused executor has
// one of them.
template <class Real>
class CudaPlanes final : public PlaneTransform<Real> {
  using C = Complex<Real>;

 public:
  CudaPlanes(PlanHandle r2c, PlanHandle c2r, long count)
      : r2c_(std::move(r2c)), c2r_(std::move(c2r)), count_(count) {}
  void forward(const Real* in, C* out) override {
    if (count_ == 0) return;
    if (!r2c_) wrong_direction();
    execute_r2c<Real>(r2c_->get(), in, out);
  }
  void backward(C* in, Real* out) override {
    if (count_ == 0) return;
    if (!c2r_) wrong_direction();
    execute_c2r<Real>(c2r_->get(), in, out);
  }

 private:
  PlanHandle r2c_, c2r_;
  long count_;
};

// x transforms: a C2C plan per direction (plain ones: one plan for both), of the columns from `first` on.
// With a spread route (fused forward, dealiased), cuFFT works in place on its input and the callback stores
// the kept modes to out.
template <class Real>
class CudaLines final : public XTransform<Real> {
  using C = Complex<Real>;

 public:
  CudaLines(PlanHandle forward, PlanHandle backward, long first = 0, ColumnRoute* spread = nullptr,
            cudaStream_t stream = nullptr)
      : forward_(std::move(forward)),
        backward_(std::move(backward)),
        first_(first),
        spread_(spread),
        stream_(stream) {}
  void forward(const C* in, C* out) override { run(forward_, in, out, CUFFT_FORWARD); }
  void backward(const C* in, C* out) override { run(backward_, in, out, CUFFT_INVERSE); }

 private:
  void run(const PlanHandle& plan, const C* in, C* out, int direction) {
    if (!plan) wrong_direction();
    if (spread_ == nullptr) return execute_x<Real>(plan->get(), in + first_, out + first_, direction);
    if (spread_target_ != out) {
      point_spread_at<<<1, 1, 0, stream_>>>(spread_, out);
      KOLMO_CHECK_LAUNCH("point_spread_at");
      spread_target_ = out;
    }
    execute_x<Real>(plan->get(), in, const_cast<C*>(in), direction);
  }
  PlanHandle forward_, backward_;
  long first_;
  ColumnRoute* spread_;
  cudaStream_t stream_;
  void* spread_target_ = nullptr;
};

template <class Real>
class CudaTransforms final : public LocalTransforms<Real> {
  using T = CufftTypes<Real>;
  using C = Complex<Real>;

 public:
  CudaTransforms(const SlabLayout& layout, const std::shared_ptr<Device>& device, int plane_groups,
                 RouteChoices* choices)
      : layout_(layout),
        device_(device),
        nx_(layout.nx()),
        ny_(layout.ny()),
        nz_(layout.nz()),
        nzc_(layout.nzc()),
        stream_(static_cast<cudaStream_t>(device->stream())),
        work_(device, stream_),
        plane_groups_(plane_groups),
        choices_(choices) {}

  // cuFFT's 2D plans, or kolmo's row and column FFTs of every mode where they take Nz and Ny and a timing
  // finds them faster, per direction (grouped_planes): on one H200 at 512^2 0.91 x cuFFT's time in single
  // precision and 0.93-0.96 x in double, at 1024^2 1.18 x in single
  // (docs/results/full_planes_kolmo_h200.log).
  std::unique_ptr<PlaneTransform<Real>> planes(long count) override {
    if (count == 0) return std::make_unique<CudaPlanes<Real>>(nullptr, nullptr, 0);
    if (!column_fft_supports(ny_) || !row_fft_supports(nz_)) return cufft_2d_planes(count);
    ColumnSets columns = full_columns(layout_);
    columns.y_forward.outer_count[0] = columns.y_backward.outer_count[0] = count;
    return grouped_planes(columns, {}, PlaneKernels::cufft_2d);
  }
  // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
  std::unique_ptr<XTransform<Real>> x_slab() override { return lines(slab_columns(), slab_columns(), 0); }
  std::unique_ptr<XTransform<Real>> x_kept() override {
    if (compact_columns() == 0) return std::make_unique<NoLines<Real>>();
    return lines(compact_columns(), compact_columns(), 0);
  }
  std::unique_ptr<XTransform<Real>> x_run(long first, long count) override {
    return lines(slab_columns(), count, first);
  }
  // x transforms whose kernels carry the dealiasing callbacks: the backward one loads only kept columns,
  // the forward one stores zeros to the others. nullptr where cuFFT refuses them (no JIT linking here).
  std::unique_ptr<XTransform<Real>> x_masked() override {
    if (!KeptModeMask::usable(layout_)) return nullptr;
    if (mask_.size() == 0) {
      const KeptModeMask mask = KeptModeMask::make(layout_);
      mask_ = Buffer<KeptModeMask>(device_, 1);
      device_->copy_from_host(mask_.data(), &mask, sizeof(mask));
    }
    void* info = mask_.data();
    const auto& ir = kolmo_dealias_callbacks;
    auto load = callback_plan(new_plan(), {callback(T::load_kept, T::load, info, ir)}, x_shape(false));
    auto store = callback_plan(new_plan(), {callback(T::store_kept, T::store, info, ir)}, x_shape(false));
    if (!load || !store) return nullptr;
    return std::make_unique<CudaLines<Real>>(std::move(store), std::move(load));
  }

  // The pruned route's executors; nullptr where Nx or Ny is not a length the column FFTs take.
  std::unique_ptr<PlaneTransform<Real>> pruned_planes(long count, bool forward_runs) override {
    if (!prunable()) return nullptr;
    ColumnSets columns = pruned_columns(layout_);
    columns.y_forward.outer_count[0] = columns.y_backward.outer_count[0] = count;
    return column_planes(columns, true, {.forward_runs = forward_runs});
  }
  std::unique_ptr<PlaneTransform<Real>> placing_planes(bool dealiased, C* arrived) override {
    if (!places_own_rows(layout_, dealiased)) return nullptr;
    ColumnSets columns = dealiased ? pruned_columns(layout_) : full_columns(layout_);
    place_own_rows(columns, layout_);
    return column_planes(columns, dealiased, {.arrived = arrived});
  }
  std::unique_ptr<XTransform<Real>> pruned_x() override {
    if (!prunable()) return nullptr;
    return std::make_unique<PrunedLines<Real>>(pruned_columns(layout_).x, twiddles(nx_), stream_);
  }
  std::unique_ptr<XTransform<Real>> placing_x(C* planes) override {
    if (!prunable() || !places_own_rows(layout_, true)) return nullptr;
    return std::make_unique<PrunedLines<Real>>(pruned_columns(layout_).x, own_rows_by_x(layout_), planes,
                                               twiddles(nx_), stream_);
  }
  // One rank's split, or (with exchange.to_planes) a split across ranks.
  std::unique_ptr<RowSplit<Real>> row_split(RowExchange<Real> exchange) override {
    const bool across = static_cast<bool>(exchange.to_planes);
    if (!prunable() || !row_fft_supports(nz_) || across != (layout_.ranks() > 1)) return nullptr;
    if (exchange.places_own_rows && !places_own_rows(layout_, true)) return nullptr;
    ColumnSets columns = pruned_columns(layout_);
    columns.y_backward.inner = layout_.kept_z();
    if (exchange.routed) {
      // The fused route's chunks, loaded and stored as its dealiased transforms do (routed_planes, routed_x).
      if (send_ == nullptr) return nullptr;  // the same on every rank (a rank of no kept ky transforms none)
      auto routes =
          std::make_unique<YRoutes>(YRoutes{y_route(true, true, true), y_route(true, false, false)});
      return std::make_unique<PrunedRowSplit<Real>>(
          routed_x(true, false), columns, rows(layout_.x_count(), layout_.kept_z()), twiddles(ny_),
          twiddles(nz_), stream_, std::move(exchange), routed_x(false, true), std::move(routes));
    }
    if (exchange.places_own_rows) place_own_rows(columns, layout_);
    auto x = exchange.places_own_rows ? placing_x(exchange.arrived) : pruned_x();
    return std::make_unique<PrunedRowSplit<Real>>(std::move(x), columns,
                                                  rows(layout_.x_count(), layout_.kept_z()), twiddles(ny_),
                                                  twiddles(nz_), stream_, std::move(exchange));
  }

  bool enable_fused(C* send, C* receive) override {
    if (layout_.ranks() < 2 || !routes_usable(layout_)) return false;
    send_ = send;
    receive_ = receive;
    return true;
  }
  std::unique_ptr<PlaneTransform<Real>> fused_planes(FusedRoute route, bool forward,
                                                     bool own_direct) override {
    if (send_ == nullptr) return nullptr;
    if (route == FusedRoute::dealiased && prunable()) return routed_planes(true, forward, own_direct);
    if (route == FusedRoute::full && full_chunks_by_columns())
      return routed_planes(false, forward, own_direct);
    PlanHandle plan = new_plan();
    if (route == FusedRoute::full_realigned) {
      // Plain cuFFT plans between the real slab and the realigned planes [ky][x][kz] (advanced layout).
      std::size_t size = 0;
      KOLMO_CHECK_CUFFT(shape_lines(forward, plan->get(), &size));
      plan->attach(size);
    } else {
      const bool dealiased = route == FusedRoute::dealiased;
      const auto& ir = kolmo_exchange_callbacks;
      if (forward) {
        void* table = upload_route(*plan, plane_route(layout_, dealiased, own_direct), send_, receive_);
        plan = callback_plan(std::move(plan), {callback(T::store_chunks, T::store, table, ir)},
                             plane_shape(true));
      } else {
        void* table = upload_route(*plan, plane_route(layout_, dealiased, false), receive_, receive_);
        plan = callback_plan(std::move(plan), {callback(T::load_chunks, T::load, table, ir)},
                             plane_shape(false));
      }
      if (!plan) return nullptr;
    }
    return std::make_unique<CudaPlanes<Real>>(forward ? plan : nullptr, forward ? nullptr : plan,
                                              layout_.x_count());
  }
  std::unique_ptr<XTransform<Real>> fused_x(FusedRoute route, bool forward, bool own_direct,
                                            bool* own_placed) override {
    if (send_ == nullptr) return nullptr;
    *own_placed = true;
    const auto& ir = kolmo_exchange_callbacks;
    auto one_way = [this, forward](PlanHandle plan,
                                   ColumnRoute* spread = nullptr) -> std::unique_ptr<XTransform<Real>> {
      if (!plan) return nullptr;
      return std::make_unique<CudaLines<Real>>(forward ? plan : nullptr, forward ? nullptr : plan, 0, spread,
                                               stream_);
    };
    if (route == FusedRoute::full_realigned) {
      // Other ranks' rows on the x side of the exchange, the own rows on the planes' side: by kolmo's column
      // FFTs where they take Nx (not the forward ones in double precision), by cuFFT's with callbacks
      // otherwise.
      if (column_fft_supports(nx_) && (!forward || std::is_same_v<Real, float>)) return realigned_x(forward);
      PlanHandle plan = new_plan();
      void* table = upload_route(*plan, realigned_line_route(layout_), forward ? receive_ : send_,
                                 forward ? send_ : receive_);
      const Callback lines = forward ? callback(T::load_lines, T::load, table, ir)
                                     : callback(T::store_lines, T::store, table, ir);
      return one_way(callback_plan(std::move(plan), {lines}, x_shape(false)));
    }
    const bool dealiased = route == FusedRoute::dealiased;
    if (dealiased && compact_columns() == 0) return std::make_unique<NoLines<Real>>();
    if (dealiased && prunable()) return routed_x(forward, !forward || !own_direct);
    // The others read the own chunk forward only where it arrived (the route copies it there in place).
    if (forward && !own_direct) return nullptr;
    // Full backward ones store the own rows at their packed place by kolmo's column FFTs where they take Nx.
    // Dealiased ones that got here (Ny not a column-FFT length) store compact chunks: cuFFT's callbacks
    // below.
    if (!dealiased && !forward && column_fft_supports(nx_))
      return slab_lines(x_line_rows(layout_, false, true), false, receive_);
    if (forward) {
      // Full: the plain x transforms read what arrived. Dealiased: x transforms whose output goes to the kept
      // modes of the spectral slab.
      if (!dealiased) return x_slab();
      PlanHandle plan = new_plan();
      auto* spread = static_cast<ColumnRoute*>(upload_route(*plan, spread_route(layout_), nullptr));
      return one_way(
          callback_plan(std::move(plan), {callback(T::store_spread, T::store, spread, ir)}, x_shape(true)),
          spread);
    }
    // Backward: the own rows go to their packed receive place. Dealiased, the kept modes are also read
    // straight from the spectral slab; if cuFFT takes only one callback here, the gathering one: the own
    // chunk then goes with the others and is copied.
    auto x_to_chunks = [&](bool own_rows, bool gather) {
      PlanHandle plan = new_plan();
      std::vector<Callback> callbacks;
      if (own_rows)
        callbacks.push_back(callback(T::store_own_rows, T::store,
                                     upload_route(*plan, own_rows_route(layout_, dealiased), receive_), ir));
      if (gather)
        callbacks.push_back(
            callback(T::load_spread, T::load, upload_route(*plan, spread_route(layout_), nullptr), ir));
      return callback_plan(std::move(plan), callbacks, x_shape(dealiased));
    };
    if (!dealiased) return one_way(x_to_chunks(true, false));
    if (PlanHandle both = x_to_chunks(true, true)) return one_way(std::move(both));
    *own_placed = false;
    return one_way(x_to_chunks(false, true));
  }
  std::string fused_refusal() const override { return refusal_; }
  bool full_chunks_by_columns() const override { return column_fft_supports(ny_); }

  std::string planning_report() const override { return groups_report_; }

  std::size_t work_bytes() const override {
    std::size_t bytes = work_.bytes() + mask_.bytes();
    for (const auto& [n, table] : twiddles_) bytes += table.bytes();
    return bytes;
  }

 private:
  bool prunable() const { return column_fft_supports(nx_) && column_fft_supports(ny_); }
  // How a route uses plane transforms by column FFTs: the spectral slab they place the own rows in
  // (place_own_rows), the chunks they store or load (the fused route's, one direction), and which directions
  // some route runs (the others are made without a timing).
  struct PlaneUse {
    C* arrived = nullptr;
    std::shared_ptr<const HeldRoute> route;
    bool forward_runs = true, backward_runs = true;
  };
  // Whose kernels transform the planes: kolmo's row FFTs along z and column FFTs along y, cuFFT's 1D
  // transforms along z and kolmo's column FFTs, or cuFFT's 2D plans.
  enum class PlaneKernels { kolmo, cufft_z, cufft_2d };
  // How many groups, and whether each group follows the one before it on its stream early (groups()); cuFFT's
  // kernels in one group.
  struct PlaneGroups {
    long count = 1;
    bool following = false;
    PlaneKernels kernels = PlaneKernels::kolmo;
  };
  static std::string describe(PlaneGroups groups) {
    if (groups.kernels == PlaneKernels::cufft_z) return "1 group, z by cuFFT";
    if (groups.kernels == PlaneKernels::cufft_2d) return "cuFFT's 2D plans";
    return std::to_string(groups.count) + (groups.count == 1 ? " group" : " groups") +
           (groups.following ? " following early" : "");
  }
  // ColumnPlanes of these columns (their planes: as many as the y column sets have outer indices): along z
  // kolmo's row FFTs of the kz whose columns the y transforms take (dealiased: the kept ones; full: all) in
  // groups (grouped_planes) where they take Nz, cuFFT's 1D transforms otherwise. Full transforms take the
  // row FFTs per direction only where a timing finds them faster than cuFFT's 1D transforms: on one H200,
  // one rank's plane transforms of 2, 4 and 8 at 512^3 took 7-13 % less with them in single precision
  // (forward and backward) and 4-7 % less forward in double (backward 1-2 % more), at 1024^3 3-8 % more
  // (docs/results/full_rows_h200.log); the row kernels of session 11 had been slower at every size
  // (docs/results/fft_emulated_ranks_placed_h100_experiments.log).
  std::unique_ptr<PlaneTransform<Real>> column_planes(ColumnSets columns, bool dealiased,
                                                      const PlaneUse& use) {
    if (!row_fft_supports(nz_)) return cufft_z_planes(columns, use);
    if (dealiased) columns.y_backward.inner = layout_.kept_z();  // the row FFTs read no dropped kz
    return grouped_planes(columns, use, dealiased ? PlaneKernels::kolmo : PlaneKernels::cufft_z);
  }
  // The fused route's transforms by kolmo's kernels (ColumnExecutors.cuh: ColumnPlanes with a route, in
  // groups as grouped_planes times them, and RoutedLines), with
  // the packing in their own loads and stores, where cuFFT's callbacks packed the output of the full 2D
  // transforms. Dealiased, where they take Nx and Ny: the pruned route's work (a third fewer y transforms
  // than the 2D plans', none of the dropped kz). Full, where they take Ny: the plane transforms, whose y
  // column FFTs store the chunks; and backward, where they take Nx, the x transforms, which store the own
  // rows at their packed receive place (the forward ones read what arrived as it lies: cuFFT's plain plans).
  // The routes: fft/ChunkRoutes.hpp's layouts, as the callbacks'.
  HeldRoute held_route(const std::vector<PlaneRow>& rows, C* first, C* second, bool by_compact, bool loads) {
    HeldRoute held{{}, Buffer<PlaneRow>(device_, std::max<std::size_t>(rows.size(), 1))};
    device_->copy_from_host(held.rows.data(), rows.data(), rows.size() * sizeof(PlaneRow));
    held.route = {held.rows.data(), {first, second}, by_compact, loads};
    if (!loads) held.route.stores = sector_alignment(rows, int(sizeof(C)));
    return held;
  }
  // The y column FFTs' route: forward stores into the send slab (own_direct: the own rows into the receive
  // slab, where the x transforms read them), backward loads from the receive slab.
  HeldRoute y_route(bool dealiased, bool forward, bool own_direct) {
    return held_route(plane_route(layout_, dealiased, forward && own_direct).rows, forward ? send_ : receive_,
                      receive_, false, !forward);
  }
  std::unique_ptr<PlaneTransform<Real>> routed_planes(bool dealiased, bool forward, bool own_direct) {
    const ColumnSets columns = dealiased ? pruned_columns(layout_) : full_columns(layout_);
    PlaneUse use{.route = std::make_shared<const HeldRoute>(y_route(dealiased, forward, own_direct)),
                 .forward_runs = forward,
                 .backward_runs = !forward};
    return column_planes(columns, dealiased, use);
  }
  // The dealiased x transforms: row kx of the compact slab (x_line_rows): forward in what arrived; backward
  // in the send buffer; own_packed: the own x planes' at their packed place, backward in the receive slab,
  // forward (in place) in the send slab, where the plane transforms left them.
  std::unique_ptr<XTransform<Real>> routed_x(bool forward, bool own_packed) {
    // The tiles stay aligned to the spectral slab's rows: aligned to the compact rows instead, the forward x
    // transforms took 12 % longer at 512^3 in single precision on 2 ranks (one H200). Backward, tiles of
    // 64-byte rows align to the compact rows they store (held_route, fft/ColumnFft.cu).
    return std::make_unique<RoutedLines<Real>>(
        pruned_columns(layout_).x,
        held_route(x_line_rows(layout_, true, own_packed), forward ? receive_ : send_,
                   forward ? send_ : receive_, true, forward),
        twiddles(nx_), stream_);
  }
  // kolmo's column FFTs along x of every (ky, kz) column of the spectral slab, the chunk side along `rows`:
  // buffer 0 the x side of the exchange (forward the receive slab, backward the send slab), buffer 1
  // `planes_side`. The fused route's full backward ones (x_line_rows) and the realigned route's.
  std::unique_ptr<XTransform<Real>> slab_lines(const std::vector<PlaneRow>& rows, bool forward,
                                               C* planes_side) {
    if (slab_columns() == 0) return std::make_unique<NoLines<Real>>();
    return std::make_unique<RoutedLines<Real>>(
        slab_x_columns(layout_), held_route(rows, forward ? receive_ : send_, planes_side, false, forward),
        twiddles(nx_), stream_);
  }
  // The realigned route's x transforms by kolmo's column FFTs, every (ky, kz) column of the spectral slab
  // loaded (forward) or stored (backward) along realigned_line_route's rows, as cuFFT's callbacks do. One
  // rank of 2, 4, 8 on one H200, x transforms forward / backward against the callbacks'
  // (docs/results/realigned_x_h200.log): single precision 0.67-0.74 / 0.54-0.66 at 512^3, 0.56-0.57 /
  // 0.58-0.60 at 1024^3; double precision backward 0.99-1.01 at 512^3 and 0.73-0.74 at 1024^3, but forward
  // 1.21-1.34 at 512^3 and 1.02-1.04 at 1024^3, so double precision keeps the callbacks forward.
  std::unique_ptr<XTransform<Real>> realigned_x(bool forward) {
    return slab_lines(realigned_line_route(layout_).rows, forward, forward ? send_ : receive_);
  }
  // cuFFT's 1D transforms along z (every mode) of the rows of `planes` planes.
  std::unique_ptr<PlaneTransform<Real>> cufft_z_rows(long planes) {
    return plan_pair(planes, [this, planes](bool forward, cufftHandle h, std::size_t* size) {
      return z_rows<Real>(cufftMakePlanMany64, h, layout_, planes, forward, size);
    });
  }
  // ColumnPlanes with cuFFT's 1D transforms along z (every mode).
  std::unique_ptr<PlaneTransform<Real>> cufft_z_planes(const ColumnSets& columns, const PlaneUse& use) {
    return std::make_unique<ColumnPlanes<Real>>(cufft_z_rows(columns.y_forward.outer_count[0]), columns,
                                                twiddles(ny_), stream_, use.arrived, Dependence{},
                                                Dependence{}, use.route);
  }
  // cuFFT's 2D plans of `count` planes.
  std::unique_ptr<PlaneTransform<Real>> cufft_2d_planes(long count) {
    return plan_pair(count, [this, count](bool forward, cufftHandle h, std::size_t* size) {
      return planes_2d<Real>(cufftMakePlanMany64, h, layout_, count, forward, size);
    });
  }
  // Row and column FFTs of the planes of these column sets (their outer indices) in groups (GroupedPlanes):
  // FftOptions::plane_groups where asked for, otherwise per direction by a timing (not of a direction that
  // no route runs: the plain one). `plain`: what runs without a timing, and the first candidate (kolmo's: the
  // row FFTs in one group; or cuFFT's kernels, the row FFTs then a candidate in one group and in groups).
  std::unique_ptr<PlaneTransform<Real>> grouped_planes(const ColumnSets& columns, const PlaneUse& use,
                                                       PlaneKernels plain_kernels) {
    const long planes = columns.y_forward.outer_count[0];
    // The placing backward transforms' column FFTs load the own rows from the memory that their row FFTs
    // then overwrite with real planes: every load must come first, so they run in one group.
    const bool backward_groups = use.arrived == nullptr;
    const PlaneGroups plain{1, false, plain_kernels};
    auto make = [&](PlaneGroups forward, PlaneGroups backward) {
      return std::make_unique<GroupedPlanes<Real>>(
          groups(columns, forward, use),
          groups(columns, backward_groups || backward.count == 1 ? backward : plain, use), stream_,
          second_stream());
    };
    if (plane_groups_ > 0) return make({plane_groups_, true}, {plane_groups_, true});
    // 2 and 4 groups, and groups whose intermediate planes [x][y][kz] (the kz transformed) take about a
    // quarter or an eighth of L2, of those that make 2 to 64 groups (more would be more launches than work at
    // the lengths measured) and no more than the planes. 2 and 4 serve small shares and the one GPU alike: in
    // the dealiased 512^3 single-precision transforms on one H200, a rank of 8's 64 planes forward in 2
    // groups took 0.070 ms against 0.072 in one, backward in 4 groups 0.065 against 0.069; the one GPU's 512
    // planes forward in 4 groups 0.462 against 0.486, where a quarter of L2 makes 24 groups
    // (docs/results/plane_groups_h200.log).
    const int l2 = current_device_attribute(cudaDevAttrL2CacheSize);
    const long plane_bytes = ny_ * columns.y_forward.inner * long(sizeof(C));
    std::vector<long> counts{2, 4};  // the candidates, fewest groups first
    for (long share : {4L, 8L}) {
      const long per_group = std::max(1L, l2 / share / plane_bytes);
      counts.push_back((planes + per_group - 1) / per_group);
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    std::erase_if(counts, [&](long count) { return count < 2 || count > std::min(64L, planes); });
    // The candidates: the plain one first; the row FFTs in one group if that is not it; each count twice,
    // the groups on a stream waiting for one another and following early (waiting was the faster in double
    // precision at 512^3 on one H100: docs/results/small_kernels_h100.log, section 19); two groups, one a
    // stream, have no one to follow. Per direction those it may take: a direction that no route runs only
    // the plain one, a placing backward no groups.
    std::vector<PlaneGroups> candidates{plain};
    if (plain_kernels != PlaneKernels::kolmo) candidates.push_back({});
    for (long count : counts)
      for (bool following : {false, true})
        if (!following || count > 2) candidates.push_back({count, following});
    auto allowed = [&](bool forward) {
      std::vector<std::size_t> indices;
      for (std::size_t k = 0; k < candidates.size(); ++k)
        if (k == 0 ||
            (forward ? use.forward_runs : use.backward_runs && (backward_groups || candidates[k].count == 1)))
          indices.push_back(k);
      return indices;
    };
    if (allowed(true).size() == 1 && allowed(false).size() == 1) return make(plain, plain);
    // Each direction's choice as an earlier run of this problem kept it (fft/RouteChoices.hpp), named by
    // what decides it: the planes, their columns, the kernels of the plain candidate, placing or not.
    const std::string name =
        "planes " + std::to_string(planes) + " columns " + std::to_string(columns.y_forward.inner) +
        " kept " + std::to_string(columns.y_forward.kept_below) + "-" +
        std::to_string(columns.y_forward.kept_from) + " kernels " + std::to_string(int(plain_kernels)) +
        (use.arrived ? " placing" : "") + (use.forward_runs ? "" : " unrun") + (use.route ? " routed" : "") +
        (use.backward_runs ? "" : " backward unrun");
    auto kept = [&](bool forward) -> std::optional<PlaneGroups> {
      const std::vector<std::size_t> indices = allowed(forward);
      const std::optional<int> k =
          choices_ ? choices_->kept(name + (forward ? " forward" : " backward"), int(indices.size()))
                   : std::nullopt;
      if (!k) return std::nullopt;
      return candidates[indices[*k]];
    };
    if (const auto forward = kept(true), backward = kept(false); forward && backward) {
      if (!groups_report_.empty()) groups_report_ += "; ";
      groups_report_ += "plane transforms of " + std::to_string(planes) + " planes: forward in " +
                        describe(*forward) + ", backward in " + describe(*backward) + " (kept)";
      return make(*forward, *backward);
    }
    // The times, on the device's stream, of each direction in each candidate, on planes of their own (at
    // most 64 groups of a quarter of L2 each, a few GiB where L2 is 50 MiB): not where they would take more
    // than half the free memory. (Placing forward transforms also store the own rows into `arrived`, which
    // holds nothing yet at construction. Placing backward ones load the own rows from their output, which
    // holds the spectral slab there: that buffer is a slab's size, whichever is the larger.)
    const std::size_t real_count = std::max(std::size_t(planes) * ny_ * nz_,
                                            use.arrived ? 2 * std::size_t(layout_.spectral_size()) : 0),
                      spectral_count = std::size_t(planes) * ny_ * nzc_;
    std::size_t free = 0, total = 0;
    KOLMO_CHECK_CUDA(cudaMemGetInfo(&free, &total));
    if (2 * (real_count * sizeof(Real) + spectral_count * sizeof(C)) > free) return make(plain, plain);
    Buffer<Real> real(device_, real_count);
    Buffer<C> spectral(device_, spectral_count);
    real.fill_zero();
    spectral.fill_zero();
    std::vector<std::unique_ptr<GroupedPlanes<Real>>> made;
    for (PlaneGroups each : candidates) made.push_back(make(each, each));
    // Per direction, the candidate with the least time; another than the plain one only where it is faster
    // by more than the timing's noise (the results are the same either way). And the times, for the report.
    struct Choice {
      PlaneGroups groups;
      std::string said;
    };
    auto choose = [&](bool forward) {
      const std::vector<std::size_t> indices = allowed(forward);
      std::string said = forward ? "forward " : "backward ";
      if (indices.size() == 1) {
        if (choices_) choices_->record(name + (forward ? " forward" : " backward"), 1, 0);
        return Choice{plain,
                      said +
                          (!(forward ? use.forward_runs : use.backward_runs) ? "run by no route"
                                                                             : "placing the own rows") +
                          ": " + describe(plain)};
      }
      std::vector<std::function<void()>> runs;
      for (std::size_t k : indices)
        runs.push_back([&, group = made[k].get(), forward] {
          forward ? group->forward(real.data(), spectral.data())
                  : group->backward(spectral.data(), real.data());
        });
      // Held rounds of one run each after one untimed round, taking turns (timed one after the other, the
      // groups once took 15 % more than in every other construction of the same executor; unheld, the
      // groups, whose runs launch many more kernels than one group's, came out 1.1-3.8 x one group's time in
      // 17 of 756 timings on one H100, held 0.88-1.07 x, none over 1.1:
      // docs/results/held_group_timing_h100.log). One run a round, as a transform runs them: after other
      // work, not after themselves. Ten runs back to back, each kernel starting as the one before it ends,
      // hid one group's ramps and tails, and chose one group where the transforms in groups took 3-6 % less
      // (docs/results/plane_groups_h200.log).
      const std::vector<double> ms = held_medians_ms(device_, runs, 1, 1);
      std::size_t best = 0;
      for (std::size_t k = 1; k < ms.size(); ++k)
        if (ms[k] < 0.99 * ms[0] && ms[k] < ms[best]) best = k;
      for (std::size_t k = 0; k < ms.size(); ++k)
        said += std::string(k == 0 ? "" : ", ") + "in " + describe(candidates[indices[k]]) + " " +
                format_ms(ms[k]);
      if (choices_)
        choices_->record(name + (forward ? " forward" : " backward"), int(indices.size()), int(best));
      return Choice{candidates[indices[best]], said};
    };
    const Choice forward = choose(true), backward = choose(false);
    if (!groups_report_.empty()) groups_report_ += "; ";
    groups_report_ += "plane transforms of " + std::to_string(planes) + " planes: forward in " +
                      describe(forward.groups) + ", backward in " + describe(backward.groups) + " (" +
                      forward.said + "; " + backward.said + ")";
    return make(forward.groups, backward.groups);
  }
  // `count` groups of the planes of these column sets, as even as can be, taken in turn by the device's
  // stream and the second one. Following early, group g + 2 follows group g on their stream without waiting
  // for it: it touches other planes, and group g's first kernel waited for what came before. Group g's last
  // kernel then lets it start once its own blocks have all started, so that group g + 2's blocks take the
  // multiprocessors that group g's last ones leave (core/DependentLaunch.cuh).
  typename GroupedPlanes<Real>::Groups groups(ColumnSets columns, PlaneGroups chosen, const PlaneUse& use) {
    typename GroupedPlanes<Real>::Groups made;
    if (chosen.kernels != PlaneKernels::kolmo) {
      made.push_back(chosen.kernels == PlaneKernels::cufft_z
                         ? cufft_z_planes(columns, use)
                         : cufft_2d_planes(columns.y_forward.outer_count[0]));
      return made;
    }
    const long planes = columns.y_forward.outer_count[0];
    const long count = std::clamp(chosen.count, 1L, std::max(planes, 1L));
    for (long g = 0; g < count; ++g) {
      const long first = planes * g / count, size = planes * (g + 1) / count - first;
      cudaStream_t stream = g % 2 == 0 ? stream_ : second_stream();
      for (ColumnSet* y : {&columns.y_forward, &columns.y_backward}) {
        y->outer_first[0] = first;
        y->outer_count[0] = size;
      }
      const bool follows = chosen.following && g >= 2, followed = chosen.following && g + 2 < count;
      const Dependence first_kernel{.waits = !follows}, last_kernel{.releases_early = followed};
      made.push_back(std::make_unique<ColumnPlanes<Real>>(
          std::make_unique<RowPlanes<Real>>(rows(size, columns.y_forward.inner), first * ny_, twiddles(nz_),
                                            stream, first_kernel, last_kernel),
          columns, twiddles(ny_), stream, use.arrived, last_kernel, first_kernel, use.route));
    }
    return made;
  }
  // The second stream of GroupedPlanes, made when first asked for.
  cudaStream_t second_stream() {
    if (!second_) {
      cudaStream_t stream = nullptr;
      KOLMO_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      second_ = UniqueHandle<cudaStream_t, cudaStreamDestroy>(stream);
    }
    return second_.get();
  }
  // The rows along z of the plane transforms by column FFTs: every (x, y) of `planes` planes, Nz reals or Nzc
  // modes apart; `kept` kz modes (the pruned route's: the kept ones; full: Nzc).
  RowSet rows(long planes, long kept) const { return RowSet{nz_, planes * ny_, nz_, nzc_, kept}; }
  // The column and row FFTs' table of length n, made once.
  const C* twiddles(long n) {
    auto& table = twiddles_[n];
    if (table.size() == 0) {
      const std::vector<C> values = stockham_twiddles<Real>(n);
      table = Buffer<C>(device_, values.size());
      table.assign_from_host(values);
    }
    return table.data();
  }
  long compact_columns() const { return layout_.kept_y_count() * layout_.kept_z(); }
  long slab_columns() const { return layout_.y_count() * layout_.nzc(); }
  PlanHandle new_plan() { return std::make_shared<Plan>(work_, stream_); }
  // Plane transforms of `count` planes by an R2C plan and a C2R plan, each shaped by shape(forward, handle,
  // &work bytes) and attached to the work area.
  template <class Shape>
  std::unique_ptr<CudaPlanes<Real>> plan_pair(long count, Shape shape) {
    auto r2c = new_plan(), c2r = new_plan();
    std::size_t sizes[2] = {0, 0};
    KOLMO_CHECK_CUFFT(shape(true, r2c->get(), &sizes[0]));
    KOLMO_CHECK_CUFFT(shape(false, c2r->get(), &sizes[1]));
    r2c->attach(sizes[0]);
    c2r->attach(sizes[1]);
    return std::make_unique<CudaPlanes<Real>>(std::move(r2c), std::move(c2r), count);
  }
  // The plan shapes; each puts the work bytes it needs into *size.
  // The x transforms (a C2C plan serves both directions) of `count` adjacent columns of a slab whose x lines
  // have `stride`.
  cufftResult shape_x(cufftHandle plan, long long stride, long long count, std::size_t* size) const {
    return x_c2c<Real>(cufftMakePlanMany64, plan, layout_, stride, count, size);
  }
  // The R2C (forward) or C2R transforms between the real slab and realigned planes [ky][x][kz]: rows of
  // Nzc values x_count Nzc apart, neighbouring planes Nzc apart.
  cufftResult shape_lines(bool forward, cufftHandle plan, std::size_t* size) const {
    const long long planes = layout_.x_count();
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, lines_embed[2] = {ny_, planes * nzc_};
    long long *in = real_embed, *out = lines_embed, in_dist = ny_ * nz_, out_dist = nzc_;
    if (!forward) std::swap(in, out), std::swap(in_dist, out_dist);
    return cufftMakePlanMany64(plan, 2, plane, in, 1, in_dist, out, 1, out_dist, forward ? T::r2c : T::c2r,
                               planes, size);
  }
  // The shapes of the slab's plane transforms and x transforms (dealiased: of the compact columns).
  auto plane_shape(bool forward) const {
    return [this, forward](cufftHandle h, std::size_t* size) {
      return planes_2d<Real>(cufftMakePlanMany64, h, layout_, layout_.x_count(), forward, size);
    };
  }
  auto x_shape(bool dealiased) const {
    const long long columns = dealiased ? compact_columns() : slab_columns();
    return [this, columns](cufftHandle h, std::size_t* size) { return shape_x(h, columns, columns, size); };
  }
  std::unique_ptr<XTransform<Real>> lines(long long stride, long long count, long first) {
    PlanHandle plan = new_plan();
    std::size_t size = 0;
    KOLMO_CHECK_CUFFT(shape_x(plan->get(), stride, count, &size));
    plan->attach(size);
    return std::make_unique<CudaLines<Real>>(plan, plan, first);
  }
  // The plan with callbacks, set before planning as cuFFT requires, shaped by shape(handle, &size) and
  // attached to the work area; nullptr if cuFFT refuses (no JIT linking on this system), refusal_ saying
  // what it refused.
  template <class Shape>
  PlanHandle callback_plan(PlanHandle plan, const std::vector<Callback>& callbacks, Shape shape) {
    std::string names;
    for (const Callback& c : callbacks) names += std::string(names.empty() ? "" : " and ") + c.name;
    auto refused = [&](const char* step, cufftResult status) {
      refusal_ =
          "cuFFT refused a plan with " + names + " at " + step + " (status " + std::to_string(status) + ")";
      return nullptr;
    };
    for (const Callback& c : callbacks) {
      void* info = c.info;
      const cufftResult status =
          cufftXtSetJITCallback(plan->get(), c.name, c.fatbin, c.fatbin_bytes, c.type, &info);
      if (status != CUFFT_SUCCESS) return refused("cufftXtSetJITCallback", status);
    }
    std::size_t size = 0;
    const cufftResult status = shape(plan->get(), &size);
    if (status != CUFFT_SUCCESS) return refused("planning", status);
    plan->attach(size);
    return plan;
  }

  // Copies `count` values to the device, kept alive with the plan; returns where they are.
  template <class Value>
  Value* upload(Plan& owner, const Value* values, std::size_t count) {
    owner.data.emplace_back(device_, std::max<std::size_t>(count * sizeof(Value), 1));
    if (count > 0) device_->copy_from_host(owner.data.back().data(), values, count * sizeof(Value));
    return reinterpret_cast<Value*>(owner.data.back().data());
  }
  template <class Table>
  void* upload_route(Plan& owner, Table table, C* buffer0, C* buffer1) {
    table.route.rows = upload(owner, table.rows.data(), table.rows.size());
    table.route.buffers[0] = buffer0;
    table.route.buffers[1] = buffer1;
    return upload(owner, &table.route, 1);
  }
  void* upload_route(Plan& owner, ColumnRouteTable table, C* own) {
    table.route.row_offset = upload(owner, table.row_offset.data(), table.row_offset.size());
    table.route.own = own;
    return upload(owner, &table.route, 1);
  }

  SlabLayout layout_;
  std::shared_ptr<Device> device_;
  long nx_, ny_, nz_, nzc_;
  cudaStream_t stream_;
  WorkArea work_;
  int plane_groups_;                                      // FftOptions::plane_groups
  RouteChoices* choices_;                                 // null: every choice timed
  UniqueHandle<cudaStream_t, cudaStreamDestroy> second_;  // GroupedPlanes' second stream
  std::string groups_report_;                             // planning_report()
  Buffer<KeptModeMask> mask_;                             // the dealiasing callbacks' caller info (one rank)
  std::map<long, Buffer<C>> twiddles_;                    // the column and row FFTs' tables, by length
  // The fused executors' slabs (several ranks), and why cuFFT refused a plan, if it did.
  C* send_ = nullptr;
  C* receive_ = nullptr;
  std::string refusal_;
};

}  // namespace

template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_cuda_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device,
                                                            int plane_groups, RouteChoices* choices) {
  return std::make_unique<CudaTransforms<Real>>(layout, device, plane_groups, choices);
}

template <class Real>
std::size_t cuda_work_bytes(const SlabLayout& layout) {
  cufftHandle handle = 0;
  KOLMO_CHECK_CUFFT(cufftCreate(&handle));
  const UniqueHandle<cufftHandle, cufftDestroy> plan(handle);
  std::size_t largest = 0, size = 0;
  const long planes = layout.x_count(), columns = layout.y_count() * layout.nzc();
  // The pruned route plans cuFFT's transforms along z where its row FFTs do not take Nz; the strided route's
  // full plane transforms that place the own rows (several ranks) wherever Ny is a length the column FFTs
  // take.
  const bool z_plans = (column_fft_supports(layout.nx()) && column_fft_supports(layout.ny()) &&
                        !row_fft_supports(layout.nz())) ||
                       places_own_rows(layout, false);
  if (planes > 0) {
    for (const bool forward : {true, false}) {
      KOLMO_CHECK_CUFFT(planes_2d<Real>(cufftGetSizeMany64, handle, layout, planes, forward, &size));
      largest = std::max(largest, size);
      if (!z_plans) continue;
      KOLMO_CHECK_CUFFT(z_rows<Real>(cufftGetSizeMany64, handle, layout, planes, forward, &size));
      largest = std::max(largest, size);
    }
  }
  if (columns > 0) {
    KOLMO_CHECK_CUFFT(x_c2c<Real>(cufftGetSizeMany64, handle, layout, columns, columns, &size));
    largest = std::max(largest, size);
  }
  return largest;
}

std::string cuda_library_versions() {
  int cufft = 0, driver = 0;
  KOLMO_CHECK_CUFFT(cufftGetVersion(&cufft));
  KOLMO_CHECK_CUDA(cudaDriverGetVersion(&driver));
  return "cuFFT " + std::to_string(cufft) + ", driver " + std::to_string(driver);
}

template std::size_t cuda_work_bytes<float>(const SlabLayout&);
template std::size_t cuda_work_bytes<double>(const SlabLayout&);
template std::unique_ptr<LocalTransforms<float>> make_cuda_transforms<float>(const SlabLayout&,
                                                                             const std::shared_ptr<Device>&,
                                                                             int, RouteChoices*);
template std::unique_ptr<LocalTransforms<double>> make_cuda_transforms<double>(const SlabLayout&,
                                                                               const std::shared_ptr<Device>&,
                                                                               int, RouteChoices*);

}  // namespace kolmo::fft
