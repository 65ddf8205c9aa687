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
#include "fft/KeptModeMask.hpp"
#include "fft/LocalTransforms.hpp"

// The LTO-IR of fft/DealiasCallbacks.cu, made by the build.
#include "DealiasCallbacks.fatbin.h"

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
};
template <>
struct CufftTypes<float> {
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static constexpr cufftXtCallbackType load = CUFFT_CB_LD_COMPLEX, store = CUFFT_CB_ST_COMPLEX;
  static constexpr const char* load_kept = "kolmo_load_kept_float";
  static constexpr const char* store_kept = "kolmo_store_kept_float";
};

// One cuFFT plan handle (RAII).
class Plan {
 public:
  Plan() { KOLMO_CHECK_CUFFT(cufftCreate(&handle_)); }
  ~Plan() { cufftDestroy(handle_); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  cufftHandle get() const { return handle_; }

 private:
  cufftHandle handle_ = 0;
};

template <class Real>
class CudaTransforms final : public LocalTransforms<Real> {
  using T = CufftTypes<Real>;
  using C = Complex<Real>;

 public:
  CudaTransforms(const SlabLayout& layout, const std::shared_ptr<Device>& device) {
    device_ = device;
    nx_ = layout.nx();
    ny_ = layout.ny();
    nzc_ = layout.nzc();
    nz_ = layout.nz();
    stream_ = static_cast<cudaStream_t>(device->stream());
    long long plane[2] = {layout.ny(), layout.nz()};
    long long real_embed[2] = {layout.ny(), layout.nz()};
    long long complex_embed[2] = {layout.ny(), layout.nzc()};
    long long line[1] = {layout.nx()};
    const long long columns = layout.y_count() * layout.nzc();

    std::size_t largest = plan_planes(r2c_, c2r_, layout.x_count());
    // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
    largest = std::max(largest, plan_x(x_, columns, columns));
    // The compact columns of dealiased transforms (none on a rank that keeps no ky plane).
    const long long kept = layout.kept_y_count() * layout.kept_z();
    if (kept > 0) {
      kept_ = std::make_unique<Plan>();
      largest = std::max(largest, plan_x(*kept_, kept, kept));
    }
    // One rank: x transforms with the dealiasing mask inside cuFFT's kernels (callbacks linked at plan time).
    if (layout.ranks() == 1)
      largest = std::max(largest,
                         make_masked_plans(layout, device, line, columns, plane, real_embed, complex_embed));
    // One work area serves every plan: they never run at the same time.
    work_ = Buffer<char>(device, std::max(largest, std::size_t(1)));
    for (cufftHandle plan : all_plans()) KOLMO_CHECK_CUFFT(cufftSetWorkArea(plan, work_.data()));
  }

  void forward_planes(const Real* in, C* out) override {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecD2Z(r2c_.get(), const_cast<double*>(in), z(out)));
    else
      KOLMO_CHECK_CUFFT(cufftExecR2C(r2c_.get(), const_cast<float*>(in), z(out)));
  }
  void backward_planes(C* in, Real* out) override {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2D(c2r_.get(), z(in), out));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2R(c2r_.get(), z(in), out));
  }
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
    if (planes == 0) return;
    const cufftHandle plan = piece(planes).first->get();
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecD2Z(plan, const_cast<double*>(in), z(out)));
    else
      KOLMO_CHECK_CUFFT(cufftExecR2C(plan, const_cast<float*>(in), z(out)));
  }
  void backward_planes_piece(C* in, Real* out, long planes) override {
    if (planes == 0) return;
    const cufftHandle plan = piece(planes).second->get();
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2D(plan, z(in), out));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2R(plan, z(in), out));
  }
  bool has_masked() const override { return load_kept_x_ != nullptr; }
  void forward_x_masked(const C* in, C* out) override {
    execute_x(in, out, CUFFT_FORWARD, store_kept_x_->get());
  }
  void backward_x_masked(const C* in, C* out) override {
    execute_x(in, out, CUFFT_INVERSE, load_kept_x_->get());
  }
  void backward_planes_masked(C* in, Real* out) override {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2D(load_kept_c2r_->get(), z(in), out));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2R(load_kept_c2r_->get(), z(in), out));
  }
  std::size_t work_bytes() const override { return work_.bytes() + mask_.bytes(); }

 private:
  using PlanPair = std::pair<std::unique_ptr<Plan>, std::unique_ptr<Plan>>;
  const PlanPair& piece(long planes) const {
    const auto plans = pieces_.find(planes);
    if (plans == pieces_.end())
      throw Error("internal: no plane transforms planned for " + std::to_string(planes) + " planes");
    return plans->second;
  }
  // The plan shapes, made on the device's stream without a work area of their own; each returns the work
  // bytes it needs. The (R2C, C2R) transforms of `planes` consecutive yz planes:
  std::size_t plan_planes(Plan& r2c, Plan& c2r, long long planes) {
    long long plane[2] = {ny_, nz_}, real_embed[2] = {ny_, nz_}, complex_embed[2] = {ny_, nzc_};
    const long long real_plane = ny_ * nz_, complex_plane = ny_ * nzc_;
    std::size_t sizes[2] = {0, 0};
    prepare(r2c);
    prepare(c2r);
    KOLMO_CHECK_CUFFT(cufftMakePlanMany64(r2c.get(), 2, plane, real_embed, 1, real_plane, complex_embed, 1,
                                          complex_plane, T::r2c, planes, &sizes[0]));
    KOLMO_CHECK_CUFFT(cufftMakePlanMany64(c2r.get(), 2, plane, complex_embed, 1, complex_plane, real_embed, 1,
                                          real_plane, T::c2r, planes, &sizes[1]));
    return std::max(sizes[0], sizes[1]);
  }
  // The x transforms (a C2C plan serves both directions) of `count` adjacent columns of a slab whose x lines
  // have `stride`.
  std::size_t plan_x(Plan& plan, long long stride, long long count) {
    long long line[1] = {nx_};
    std::size_t size = 0;
    prepare(plan);
    KOLMO_CHECK_CUFFT(
        cufftMakePlanMany64(plan.get(), 1, line, line, stride, 1, line, stride, 1, T::c2c, count, &size));
    return size;
  }
  void prepare(Plan& plan) {
    KOLMO_CHECK_CUFFT(cufftSetAutoAllocation(plan.get(), 0));
    KOLMO_CHECK_CUFFT(cufftSetStream(plan.get(), stream_));
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
    return plans;
  }

  // Plans whose kernels carry the dealiasing callbacks: x transforms that load only kept columns or store
  // zeros to the others, and a C2R plane transform that loads only kept columns. If cuFFT refuses them (no
  // JIT linking on this system), there are none and dealiased transforms copy the kept modes instead.
  std::size_t make_masked_plans(const SlabLayout& layout, const std::shared_ptr<Device>& device,
                                long long* line, long long columns, long long* plane, long long* real_embed,
                                long long* complex_embed) {
    if (!KeptModeMask::usable(layout)) return 0;
    const KeptModeMask mask = KeptModeMask::make(layout);
    mask_ = Buffer<KeptModeMask>(device, 1);
    device->copy_from_host(mask_.data(), &mask, sizeof(mask));
    void* info = mask_.data();
    auto stream = static_cast<cudaStream_t>(device->stream());
    std::size_t largest = 0;
    // One plan: callback set before planning, as cuFFT requires; false if cuFFT refuses.
    auto make = [&](Plan& plan, const char* callback, cufftXtCallbackType type, auto&& make_plan) {
      std::size_t size = 0;
      const bool made =
          cufftSetAutoAllocation(plan.get(), 0) == CUFFT_SUCCESS &&
          cufftXtSetJITCallback(plan.get(), callback, kolmo_dealias_callbacks,
                                sizeof(kolmo_dealias_callbacks), type, &info) == CUFFT_SUCCESS &&
          make_plan(plan.get(), &size) == CUFFT_SUCCESS &&
          cufftSetStream(plan.get(), stream) == CUFFT_SUCCESS;
      largest = std::max(largest, size);
      return made;
    };
    auto x_plan = [&](cufftHandle handle, std::size_t* size) {
      return cufftMakePlanMany64(handle, 1, line, line, columns, 1, line, columns, 1, T::c2c, columns, size);
    };
    const long long planes = layout.x_count(), real_plane = layout.ny() * layout.nz(),
                    complex_plane = layout.ny() * layout.nzc();
    auto c2r_plan = [&](cufftHandle handle, std::size_t* size) {
      return cufftMakePlanMany64(handle, 2, plane, complex_embed, 1, complex_plane, real_embed, 1, real_plane,
                                 T::c2r, planes, size);
    };
    auto load_x = std::make_unique<Plan>(), store_x = std::make_unique<Plan>(),
         load_c2r = std::make_unique<Plan>();
    if (!make(*load_x, T::load_kept, T::load, x_plan) || !make(*store_x, T::store_kept, T::store, x_plan) ||
        !make(*load_c2r, T::load_kept, T::load, c2r_plan))
      return 0;
    load_kept_x_ = std::move(load_x);
    store_kept_x_ = std::move(store_x);
    load_kept_c2r_ = std::move(load_c2r);
    return largest;
  }

  static auto z(const C* p) {
    if constexpr (std::is_same_v<Real, double>)
      return reinterpret_cast<cufftDoubleComplex*>(const_cast<C*>(p));
    else
      return reinterpret_cast<cufftComplex*>(const_cast<C*>(p));
  }
  void execute_x(const C* in, C* out, int direction) { execute_x(in, out, direction, x_.get()); }
  void execute_x(const C* in, C* out, int direction, cufftHandle plan) {
    if constexpr (std::is_same_v<Real, double>)
      KOLMO_CHECK_CUFFT(cufftExecZ2Z(plan, z(in), z(out), direction));
    else
      KOLMO_CHECK_CUFFT(cufftExecC2C(plan, z(in), z(out), direction));
  }

  Plan r2c_, c2r_, x_;
  std::unique_ptr<Plan> kept_, load_kept_x_, store_kept_x_, load_kept_c2r_;
  std::map<long, std::unique_ptr<Plan>> columns_;  // x transforms of kept-row column runs, by column count
  std::map<long, PlanPair> pieces_;                // (R2C, C2R) plane transforms of pieces, by plane count
  long nx_ = 1, ny_ = 1, nz_ = 1, nzc_ = 1;
  std::shared_ptr<Device> device_;
  cudaStream_t stream_ = nullptr;
  Buffer<KeptModeMask> mask_;
  Buffer<char> work_;
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
