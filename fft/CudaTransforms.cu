// LocalTransforms on one GPU with cuFFT: plans sharing one work area, all on the device's stream.
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/Buffer.hpp"
#include "core/CudaCheck.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/ChunkRoutes.hpp"
#include "fft/KeptModeMask.hpp"
#include "fft/LocalTransforms.hpp"

// The LTO-IR of fft/DealiasCallbacks.cu and fft/ExchangeCallbacks.cu, made by the build.
#include "DealiasCallbacks.fatbin.h"
#include "ExchangeCallbacks.fatbin.h"

namespace kolmo::fft {

namespace {

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

// One cuFFT plan, created with the object (shapes are set later, by cufftMakePlan*).
class Plan {
 public:
  Plan() {
    cufftHandle handle = 0;
    KOLMO_CHECK_CUFFT(cufftCreate(&handle));
    handle_ = UniqueHandle<cufftHandle, cufftDestroy>(handle);
  }
  cufftHandle get() const { return handle_.get(); }

 private:
  UniqueHandle<cufftHandle, cufftDestroy> handle_;
};

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
class CudaTransforms final : public LocalTransforms<Real> {
  using T = CufftTypes<Real>;
  using C = Complex<Real>;

 public:
  CudaTransforms(const SlabLayout& layout, const std::shared_ptr<Device>& device)
      : layout_(layout), device_(device) {
    nx_ = layout.nx();
    ny_ = layout.ny();
    nzc_ = layout.nzc();
    nz_ = layout.nz();
    stream_ = static_cast<cudaStream_t>(device->stream());
    const long long columns = layout.y_count() * layout.nzc();

    std::size_t largest = plan_planes(r2c_, c2r_, layout.x_count());
    // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
    largest = std::max(largest, plan_x(x_, columns, columns));
    // The compact columns of dealiased transforms (none on a rank that keeps no ky plane).
    if (compact_columns() > 0) {
      kept_ = std::make_unique<Plan>();
      largest = std::max(largest, plan_x(*kept_, compact_columns(), compact_columns()));
    }
    // One rank: x transforms with the dealiasing mask inside cuFFT's kernels (callbacks linked at plan time).
    if (layout.ranks() == 1) largest = std::max(largest, make_masked_plans());
    // One work area serves every plan: they never run at the same time.
    work_ = Buffer<char>(device, std::max(largest, std::size_t(1)));
    for (cufftHandle plan : all_plans()) KOLMO_CHECK_CUFFT(cufftSetWorkArea(plan, work_.data()));
  }

  void forward_planes(const Real* in, C* out) override { execute_r2c(r2c_.get(), in, out); }
  void backward_planes(C* in, Real* out) override { execute_c2r(c2r_.get(), in, out); }
  void forward_x(const C* in, C* out) override { execute_x(in, out, CUFFT_FORWARD); }
  void backward_x(const C* in, C* out) override { execute_x(in, out, CUFFT_INVERSE); }
  void forward_x_kept(const C* in, C* out) override {
    if (kept_) execute_x(in, out, CUFFT_FORWARD, kept_->get());
  }
  void backward_x_kept(const C* in, C* out) override {
    if (kept_) execute_x(in, out, CUFFT_INVERSE, kept_->get());
  }
  // Plans for kept-row x transforms are made on first use (the timing that chooses a way of dealiasing, on
  // one rank only), so that runs on several ranks make no plan they do not use.
  void forward_x_columns(const C* in, C* out, long first, long count) override {
    execute_x(in + first, out + first, CUFFT_FORWARD, column_plan(count));
  }
  void backward_x_columns(const C* in, C* out, long first, long count) override {
    execute_x(in + first, out + first, CUFFT_INVERSE, column_plan(count));
  }
  void make_piece_plans(long planes) override {
    if (planes == 0 || pieces_.count(planes) > 0) return;
    auto& [r2c, c2r] = pieces_[planes];
    r2c = std::make_unique<Plan>();
    c2r = std::make_unique<Plan>();
    const std::size_t size = plan_planes(*r2c, *c2r, planes);
    attach_work(r2c->get(), size);
    attach_work(c2r->get(), size);
  }
  void forward_planes_piece(const Real* in, C* out, long planes) override {
    if (planes > 0) execute_r2c(piece(planes).first->get(), in, out);
  }
  void backward_planes_piece(C* in, Real* out, long planes) override {
    if (planes > 0) execute_c2r(piece(planes).second->get(), in, out);
  }
  bool has_masked() const override { return load_kept_x_ != nullptr; }
  void forward_x_masked(const C* in, C* out) override {
    execute_x(in, out, CUFFT_FORWARD, store_kept_x_->get());
  }
  void backward_x_masked(const C* in, C* out) override {
    execute_x(in, out, CUFFT_INVERSE, load_kept_x_->get());
  }
  void backward_planes_masked(C* in, Real* out) override { execute_c2r(load_kept_c2r_->get(), in, out); }

  bool enable_fused(C* send, C* receive) override {
    if (layout_.ranks() < 2 || !routes_usable(layout_)) return false;
    send_ = send;
    receive_ = receive;
    return true;
  }
  bool fused_ready(FusedRoute route, bool forward, bool own_direct) override {
    bool& refused = fused_refused_[static_cast<int>(route)][forward];
    if (send_ == nullptr || refused) return false;
    if (route == FusedRoute::full_realigned)
      refused = !make_line_plans(forward);
    else
      refused = !(forward ? make_forward_plans(route == FusedRoute::dealiased, own_direct)
                          : make_backward_plans(route == FusedRoute::dealiased));
    return !refused;
  }
  std::string fused_refusal() const override { return refusal_; }
  void forward_planes_to_chunks(const Real* in, C* work, FusedRoute route, bool own_direct) override {
    if (route == FusedRoute::full_realigned) return execute_r2c(r2c_lines_->get(), in, send_);
    execute_r2c(to_chunks_[route == FusedRoute::dealiased][own_direct].plan->get(), in, work);
  }
  void forward_x_from_chunks(C* out, FusedRoute route) override {
    if (route == FusedRoute::full_realigned)
      return execute_x(receive_, out, CUFFT_FORWARD, x_from_lines_.plan->get());
    if (route == FusedRoute::full) return execute_x(receive_, out, CUFFT_FORWARD);
    if (compact_columns() == 0) return;
    // The kept modes go to out through the route; cuFFT works in place on what arrived.
    if (spread_target_ != out) {
      point_spread_at<<<1, 1, 0, stream_>>>(spread_route_, out);
      KOLMO_CHECK_LAUNCH("point_spread_at");
      spread_target_ = out;
    }
    execute_x(receive_, receive_, CUFFT_FORWARD, to_spectral_.plan->get());
  }
  bool backward_x_to_chunks(const C* in, FusedRoute route) override {
    if (route == FusedRoute::full_realigned) {
      execute_x(in, send_, CUFFT_INVERSE, x_to_lines_.plan->get());
      return true;
    }
    const bool dealiased = route == FusedRoute::dealiased;
    if (dealiased && compact_columns() == 0) return true;
    execute_x(in, send_, CUFFT_INVERSE, x_to_chunks_[dealiased].plan->get());
    return !(dealiased && gather_only_);
  }
  void backward_planes_from_chunks(Real* out, FusedRoute route) override {
    if (route == FusedRoute::full_realigned) return execute_c2r(c2r_lines_->get(), receive_, out);
    execute_c2r(from_chunks_[route == FusedRoute::dealiased].plan->get(), send_, out);
  }

  std::size_t work_bytes() const override { return work_.bytes() + mask_.bytes(); }

 private:
  using PlanPair = std::pair<std::unique_ptr<Plan>, std::unique_ptr<Plan>>;
  // A plan whose kernels carry callbacks, with the device memory the callbacks read (caller infos, tables).
  struct CallbackPlan {
    std::unique_ptr<Plan> plan;
    std::vector<Buffer<char>> data;
  };

  long compact_columns() const { return layout_.kept_y_count() * layout_.kept_z(); }
  const PlanPair& piece(long planes) const {
    const auto plans = pieces_.find(planes);
    if (plans == pieces_.end())
      throw Error("internal: no plane transforms planned for " + std::to_string(planes) + " planes");
    return plans->second;
  }
  // The plan shapes, made on the device's stream without a work area of their own; each puts the work bytes
  // it needs into *size. The 2D R2C or C2R transforms of `planes` consecutive yz planes:
  cufftResult shape_r2c(cufftHandle plan, long long planes, std::size_t* size) const {
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, complex_embed[2] = {ny_, nzc_};
    return cufftMakePlanMany64(plan, 2, plane, real_embed, 1, ny_ * nz_, complex_embed, 1, ny_ * nzc_, T::r2c,
                               planes, size);
  }
  cufftResult shape_c2r(cufftHandle plan, long long planes, std::size_t* size) const {
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, complex_embed[2] = {ny_, nzc_};
    return cufftMakePlanMany64(plan, 2, plane, complex_embed, 1, ny_ * nzc_, real_embed, 1, ny_ * nz_, T::c2r,
                               planes, size);
  }
  // The x transforms (a C2C plan serves both directions) of `count` adjacent columns of a slab whose x lines
  // have `stride`.
  cufftResult shape_x(cufftHandle plan, long long stride, long long count, std::size_t* size) const {
    long long line[1] = {nx_};
    return cufftMakePlanMany64(plan, 1, line, line, stride, 1, line, stride, 1, T::c2c, count, size);
  }
  std::size_t plan_planes(Plan& r2c, Plan& c2r, long long planes) {
    std::size_t sizes[2] = {0, 0};
    prepare(r2c);
    prepare(c2r);
    KOLMO_CHECK_CUFFT(shape_r2c(r2c.get(), planes, &sizes[0]));
    KOLMO_CHECK_CUFFT(shape_c2r(c2r.get(), planes, &sizes[1]));
    return std::max(sizes[0], sizes[1]);
  }
  std::size_t plan_x(Plan& plan, long long stride, long long count) {
    std::size_t size = 0;
    prepare(plan);
    KOLMO_CHECK_CUFFT(shape_x(plan.get(), stride, count, &size));
    return size;
  }
  void prepare(Plan& plan) {
    KOLMO_CHECK_CUFFT(cufftSetAutoAllocation(plan.get(), 0));
    KOLMO_CHECK_CUFFT(cufftSetStream(plan.get(), stream_));
  }
  // A plan with callbacks, set before planning as cuFFT requires, shaped by shape(handle, &size); nullptr if
  // cuFFT refuses (no JIT linking on this system). *size gets its work bytes.
  template <class Shape>
  std::unique_ptr<Plan> callback_plan(const std::vector<Callback>& callbacks, Shape shape,
                                      std::size_t* size) {
    auto plan = std::make_unique<Plan>();
    std::string names;
    for (const Callback& c : callbacks) names += std::string(names.empty() ? "" : " and ") + c.name;
    auto refused = [&](const char* step, cufftResult status) {
      refusal_ =
          "cuFFT refused a plan with " + names + " at " + step + " (status " + std::to_string(status) + ")";
      return nullptr;
    };
    cufftResult status = cufftSetAutoAllocation(plan->get(), 0);
    if (status == CUFFT_SUCCESS) status = cufftSetStream(plan->get(), stream_);
    if (status != CUFFT_SUCCESS) return refused("setup", status);
    for (const Callback& c : callbacks) {
      void* info = c.info;
      status = cufftXtSetJITCallback(plan->get(), c.name, c.fatbin, c.fatbin_bytes, c.type, &info);
      if (status != CUFFT_SUCCESS) return refused("cufftXtSetJITCallback", status);
    }
    status = shape(plan->get(), size);
    if (status != CUFFT_SUCCESS) return refused("planning", status);
    return plan;
  }
  // The x transforms of `count` consecutive columns of the one-rank slab.
  cufftHandle column_plan(long count) {
    auto& plan = columns_[count];
    if (!plan) {
      plan = std::make_unique<Plan>();
      attach_work(plan->get(), plan_x(*plan, ny_ * nzc_, count));
    }
    return plan->get();
  }
  // A plan made after the constructor: it shares the work area, which grows (every plan moved to the new
  // one) if this plan needs more. Plans never run concurrently, so one area serves all.
  void attach_work(cufftHandle plan, std::size_t size) {
    if (size > work_.bytes()) {
      KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream_));
      work_ = Buffer<char>(device_, size);
      for (cufftHandle other : all_plans()) KOLMO_CHECK_CUFFT(cufftSetWorkArea(other, work_.data()));
    }
    KOLMO_CHECK_CUFFT(cufftSetWorkArea(plan, work_.data()));
  }
  std::vector<cufftHandle> all_plans() const {
    std::vector<cufftHandle> plans{r2c_.get(), c2r_.get(), x_.get()};
    for (const auto* plan : {kept_.get(), load_kept_x_.get(), store_kept_x_.get(), load_kept_c2r_.get()})
      if (plan != nullptr) plans.push_back(plan->get());
    for (const auto& [count, plan] : columns_)
      if (plan) plans.push_back(plan->get());
    for (const auto& [planes, pair] : pieces_)
      for (const auto* plan : {pair.first.get(), pair.second.get()})
        if (plan != nullptr) plans.push_back(plan->get());
    for (int d = 0; d < 2; ++d)
      for (const CallbackPlan* fused :
           {&to_chunks_[d][0], &to_chunks_[d][1], &from_chunks_[d], &x_to_chunks_[d]})
        if (fused->plan) plans.push_back(fused->plan->get());
    for (const CallbackPlan* fused : {&to_spectral_, &x_from_lines_, &x_to_lines_})
      if (fused->plan) plans.push_back(fused->plan->get());
    for (const auto* plan : {r2c_lines_.get(), c2r_lines_.get()})
      if (plan != nullptr) plans.push_back(plan->get());
    return plans;
  }

  // Plans whose kernels carry the dealiasing callbacks: x transforms that load only kept columns or store
  // zeros to the others, and a C2R plane transform that loads only kept columns. If cuFFT refuses them (no
  // JIT linking on this system), there are none and dealiased transforms copy the kept modes instead.
  std::size_t make_masked_plans() {
    if (!KeptModeMask::usable(layout_)) return 0;
    const KeptModeMask mask = KeptModeMask::make(layout_);
    mask_ = Buffer<KeptModeMask>(device_, 1);
    device_->copy_from_host(mask_.data(), &mask, sizeof(mask));
    void* info = mask_.data();
    const auto& ir = kolmo_dealias_callbacks;
    std::size_t sizes[3] = {0, 0, 0};
    auto load_x = callback_plan({callback(T::load_kept, T::load, info, ir)}, x_shape(false), &sizes[0]);
    auto store_x = callback_plan({callback(T::store_kept, T::store, info, ir)}, x_shape(false), &sizes[1]);
    auto load_c2r = callback_plan({callback(T::load_kept, T::load, info, ir)}, c2r_shape(), &sizes[2]);
    if (!load_x || !store_x || !load_c2r) return 0;
    load_kept_x_ = std::move(load_x);
    store_kept_x_ = std::move(store_x);
    load_kept_c2r_ = std::move(load_c2r);
    return *std::max_element(sizes, sizes + 3);
  }

  // Copies `count` values to the device, kept alive with the plan; returns where they are.
  template <class Value>
  Value* upload(CallbackPlan& owner, const Value* values, std::size_t count) {
    owner.data.emplace_back(device_, std::max<std::size_t>(count * sizeof(Value), 1));
    if (count > 0) device_->copy_from_host(owner.data.back().data(), values, count * sizeof(Value));
    return reinterpret_cast<Value*>(owner.data.back().data());
  }
  void* upload_route(CallbackPlan& owner, PlaneRouteTable table, C* buffer0, C* buffer1) {
    table.route.rows = upload(owner, table.rows.data(), table.rows.size());
    table.route.buffers[0] = buffer0;
    table.route.buffers[1] = buffer1;
    return upload(owner, &table.route, 1);
  }
  void* upload_route(CallbackPlan& owner, LineRouteTable table, C* buffer0, C* buffer1) {
    table.route.rows = upload(owner, table.rows.data(), table.rows.size());
    table.route.buffers[0] = buffer0;
    table.route.buffers[1] = buffer1;
    return upload(owner, &table.route, 1);
  }
  void* upload_route(CallbackPlan& owner, ColumnRouteTable table, C* own) {
    table.route.row_offset = upload(owner, table.row_offset.data(), table.row_offset.size());
    table.route.own = own;
    return upload(owner, &table.route, 1);
  }
  // Make (once) the callback plans of the fused route, one direction, and attach the work area; false if
  // cuFFT refuses them.
  bool make_forward_plans(bool dealiased, bool own_direct) {
    const auto& ir = kolmo_exchange_callbacks;
    CallbackPlan& to_chunks = to_chunks_[dealiased][own_direct];
    if (!to_chunks.plan) {
      void* route = upload_route(to_chunks, plane_route(layout_, dealiased, own_direct), send_, receive_);
      if (!finish_plan(to_chunks, {callback(T::store_chunks, T::store, route, ir)}, r2c_shape()))
        return false;
    }
    // Full transforms: the plain x transforms read what arrived. Dealiased (if this rank keeps ky planes):
    // x transforms whose output goes to the kept modes of the spectral slab.
    if (!dealiased || compact_columns() == 0 || to_spectral_.plan) return true;
    spread_route_ = static_cast<ColumnRoute*>(upload_route(to_spectral_, spread_route(layout_), nullptr));
    spread_target_ = nullptr;
    return finish_plan(to_spectral_, {callback(T::store_spread, T::store, spread_route_, ir)}, x_shape(true));
  }
  bool make_backward_plans(bool dealiased) {
    const auto& ir = kolmo_exchange_callbacks;
    CallbackPlan& from_chunks = from_chunks_[dealiased];
    if (!from_chunks.plan) {
      void* route = upload_route(from_chunks, plane_route(layout_, dealiased, false), receive_, receive_);
      if (!finish_plan(from_chunks, {callback(T::load_chunks, T::load, route, ir)}, c2r_shape()))
        return false;
    }
    CallbackPlan& x_to_chunks = x_to_chunks_[dealiased];
    if ((dealiased && compact_columns() == 0) || x_to_chunks.plan) return true;
    void* own_rows = upload_route(x_to_chunks, own_rows_route(layout_, dealiased), receive_);
    const Callback store_own = callback(T::store_own_rows, T::store, own_rows, ir);
    if (!dealiased) return finish_plan(x_to_chunks, {store_own}, x_shape(false));
    // Dealiased: the kept modes are also read straight from the spectral slab. If cuFFT takes only one
    // callback here, the gathering one: the own chunk then goes with the others and is copied.
    const Callback gather =
        callback(T::load_spread, T::load, upload_route(x_to_chunks, spread_route(layout_), nullptr), ir);
    gather_only_ = false;
    if (finish_plan(x_to_chunks, {store_own, gather}, x_shape(true), false)) return true;
    gather_only_ = true;
    return finish_plan(x_to_chunks, {gather}, x_shape(true));
  }
  // Full transforms with realigned planes: plane transforms between the real slab and [ky][x][kz] (plain
  // cuFFT, advanced layout), x transforms reading (forward) or writing (backward) the chunks through a
  // LineRoute whose other ranks' rows are on the x side of the exchange, the own rows on the planes' side.
  bool make_line_plans(bool forward) {
    std::unique_ptr<Plan>& planes = forward ? r2c_lines_ : c2r_lines_;
    if (!planes) {
      planes = std::make_unique<Plan>();
      prepare(*planes);
      std::size_t size = 0;
      KOLMO_CHECK_CUFFT(forward ? shape_r2c_lines(planes->get(), &size)
                                : shape_c2r_lines(planes->get(), &size));
      attach_work(planes->get(), size);
    }
    CallbackPlan& lines = forward ? x_from_lines_ : x_to_lines_;
    if (lines.plan) return true;
    void* route = upload_route(lines, realigned_line_route(layout_), forward ? receive_ : send_,
                               forward ? send_ : receive_);
    const Callback callback_of_lines =
        forward ? callback(T::load_lines, T::load, route, kolmo_exchange_callbacks)
                : callback(T::store_lines, T::store, route, kolmo_exchange_callbacks);
    return finish_plan(lines, {callback_of_lines}, x_shape(false));
  }
  // Realigned planes [ky][x][kz]: rows of Nzc values c Nzc apart, neighbouring planes Nzc apart.
  cufftResult shape_r2c_lines(cufftHandle plan, std::size_t* size) const {
    const long long planes = layout_.x_count();
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, lines_embed[2] = {ny_, planes * nzc_};
    return cufftMakePlanMany64(plan, 2, plane, real_embed, 1, ny_ * nz_, lines_embed, 1, nzc_, T::r2c, planes,
                               size);
  }
  cufftResult shape_c2r_lines(cufftHandle plan, std::size_t* size) const {
    const long long planes = layout_.x_count();
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, lines_embed[2] = {ny_, planes * nzc_};
    return cufftMakePlanMany64(plan, 2, plane, lines_embed, 1, nzc_, real_embed, 1, ny_ * nz_, T::c2r, planes,
                               size);
  }
  // The shapes of the slab's plane transforms and x transforms (dealiased: of the compact columns).
  auto r2c_shape() const {
    return [this](cufftHandle h, std::size_t* size) { return shape_r2c(h, layout_.x_count(), size); };
  }
  auto c2r_shape() const {
    return [this](cufftHandle h, std::size_t* size) { return shape_c2r(h, layout_.x_count(), size); };
  }
  auto x_shape(bool dealiased) const {
    const long long columns = dealiased ? compact_columns() : layout_.y_count() * layout_.nzc();
    return [this, columns](cufftHandle h, std::size_t* size) { return shape_x(h, columns, columns, size); };
  }
  // Plans `fused` with the callbacks and attaches the work area; on refusal drops its device data.
  // drop_data false: the caller infos stay, for another try.
  template <class Shape>
  bool finish_plan(CallbackPlan& fused, const std::vector<Callback>& callbacks, Shape shape,
                   bool drop_data = true) {
    std::size_t size = 0;
    fused.plan = callback_plan(callbacks, shape, &size);
    if (!fused.plan) {
      if (drop_data) fused.data.clear();
      return false;
    }
    attach_work(fused.plan->get(), size);
    return true;
  }

  static auto z(const C* p) {
    if constexpr (std::is_same_v<Real, double>)
      return reinterpret_cast<cufftDoubleComplex*>(const_cast<C*>(p));
    else
      return reinterpret_cast<cufftComplex*>(const_cast<C*>(p));
  }
  void execute_r2c(cufftHandle plan, const Real* in, C* out) {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecD2Z(plan, const_cast<double*>(in), z(out)));
    else
      KOLMO_CHECK_CUFFT(cufftExecR2C(plan, const_cast<float*>(in), z(out)));
  }
  void execute_c2r(cufftHandle plan, C* in, Real* out) {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2D(plan, z(in), out));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2R(plan, z(in), out));
  }
  void execute_x(const C* in, C* out, int direction) { execute_x(in, out, direction, x_.get()); }
  void execute_x(const C* in, C* out, int direction, cufftHandle plan) {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2Z(plan, z(in), z(out), direction));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2C(plan, z(in), z(out), direction));
  }

  SlabLayout layout_;
  std::shared_ptr<Device> device_;
  Plan r2c_, c2r_, x_;
  std::unique_ptr<Plan> kept_, load_kept_x_, store_kept_x_, load_kept_c2r_;
  std::map<long, std::unique_ptr<Plan>> columns_;  // x transforms of kept-row column runs, by column count
  std::map<long, PlanPair> pieces_;                // (R2C, C2R) plane transforms of pieces, by plane count
  long nx_ = 1, ny_ = 1, nz_ = 1, nzc_ = 1;
  cudaStream_t stream_ = nullptr;
  Buffer<KeptModeMask> mask_;
  Buffer<char> work_;
  // Fused route, by [dealiased] (and [own_direct] for the forward plane transforms): the two slabs, the
  // callback plans, and the slab the forward dealiased x transforms write to last.
  C* send_ = nullptr;
  C* receive_ = nullptr;
  bool fused_refused_[3][2] = {};  // cuFFT refused the plans, by [route][forward]
  bool gather_only_ = false;       // the dealiased backward x transforms could not place the own chunk
  std::string refusal_;
  std::unique_ptr<Plan> r2c_lines_, c2r_lines_;  // realigned planes
  CallbackPlan x_from_lines_, x_to_lines_;
  CallbackPlan to_chunks_[2][2], from_chunks_[2], x_to_chunks_[2], to_spectral_;
  ColumnRoute* spread_route_ = nullptr;
  void* spread_target_ = nullptr;
};

}  // namespace

template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_cuda_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device) {
  return std::make_unique<CudaTransforms<Real>>(layout, device);
}

template std::unique_ptr<LocalTransforms<float>> make_cuda_transforms<float>(const SlabLayout&,
                                                                             const std::shared_ptr<Device>&);
template std::unique_ptr<LocalTransforms<double>> make_cuda_transforms<double>(
    const SlabLayout&, const std::shared_ptr<Device>&);

}  // namespace kolmo::fft
