// LocalTransforms on one GPU with cuFFT: four plans sharing one work area, all on the device's stream.
#include <cufft.h>

#include <algorithm>
#include <type_traits>

#include "core/Buffer.hpp"
#include "core/CudaCheck.hpp"
#include "fft/LocalTransforms.hpp"

namespace kolmo::fft {

namespace {

template <class Real>
struct CufftTypes;
template <>
struct CufftTypes<double> {
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
};
template <>
struct CufftTypes<float> {
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
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
    long long plane[2] = {layout.ny(), layout.nz()};
    long long real_embed[2] = {layout.ny(), layout.nz()};
    long long complex_embed[2] = {layout.ny(), layout.nzc()};
    long long line[1] = {layout.nx()};
    const long long planes = layout.x_count();
    const long long columns = layout.y_count() * layout.nzc();
    const long long real_plane = layout.ny() * layout.nz(), complex_plane = layout.ny() * layout.nzc();
    auto stream = static_cast<cudaStream_t>(device->stream());

    std::size_t sizes[4] = {0, 0, 0, 0};
    Plan* plans[4] = {&r2c_, &c2r_, &x_, nullptr};
    for (Plan* plan : {&r2c_, &c2r_, &x_}) {
      KOLMO_CHECK_CUFFT(cufftSetAutoAllocation(plan->get(), 0));
      KOLMO_CHECK_CUFFT(cufftSetStream(plan->get(), stream));
    }
    KOLMO_CHECK_CUFFT(cufftMakePlanMany64(r2c_.get(), 2, plane, real_embed, 1, real_plane, complex_embed, 1,
                                          complex_plane, T::r2c, planes, &sizes[0]));
    KOLMO_CHECK_CUFFT(cufftMakePlanMany64(c2r_.get(), 2, plane, complex_embed, 1, complex_plane, real_embed,
                                          1, real_plane, T::c2r, planes, &sizes[1]));
    // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
    KOLMO_CHECK_CUFFT(cufftMakePlanMany64(x_.get(), 1, line, line, columns, 1, line, columns, 1, T::c2c,
                                          columns, &sizes[2]));
    // The compact columns of dealiased transforms (none on a rank that keeps no ky plane).
    const long long kept = layout.kept_y_count() * layout.kept_z();
    if (kept > 0) {
      kept_ = std::make_unique<Plan>();
      plans[3] = kept_.get();
      KOLMO_CHECK_CUFFT(cufftSetAutoAllocation(kept_->get(), 0));
      KOLMO_CHECK_CUFFT(cufftSetStream(kept_->get(), stream));
      KOLMO_CHECK_CUFFT(
          cufftMakePlanMany64(kept_->get(), 1, line, line, kept, 1, line, kept, 1, T::c2c, kept, &sizes[3]));
    }
    // One work area serves every plan: they never run at the same time.
    work_ = Buffer<char>(device, std::max({sizes[0], sizes[1], sizes[2], sizes[3], std::size_t(1)}));
    for (Plan* plan : plans)
      if (plan != nullptr) KOLMO_CHECK_CUFFT(cufftSetWorkArea(plan->get(), work_.data()));
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
  std::size_t work_bytes() const override { return work_.bytes(); }

 private:
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
  std::unique_ptr<Plan> kept_;
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
