// LocalTransforms on the host with FFTW3 (float and double), threaded by OpenMP, plans made once.
#include <fftw3.h>
#include <omp.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "core/Error.hpp"
#include "fft/LocalTransforms.hpp"

namespace kolmo::fft {

namespace {

// FFTW's float and double interfaces under one name.
template <class Real>
struct Fftw;

template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static constexpr auto plan_r2c = fftw_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftw_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftw_plan_many_dft;
  static constexpr auto execute_r2c = fftw_execute_dft_r2c;
  static constexpr auto execute_c2r = fftw_execute_dft_c2r;
  static constexpr auto execute_c2c = fftw_execute_dft;
  static constexpr auto destroy = fftw_destroy_plan;
  static constexpr auto malloc = fftw_malloc;
  static constexpr auto free = fftw_free;
  static void threads(int n) {
    static std::once_flag once;
    std::call_once(once, [] { fftw_init_threads(); });
    fftw_plan_with_nthreads(n);
  }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static constexpr auto plan_r2c = fftwf_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftwf_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftwf_plan_many_dft;
  static constexpr auto execute_r2c = fftwf_execute_dft_r2c;
  static constexpr auto execute_c2r = fftwf_execute_dft_c2r;
  static constexpr auto execute_c2c = fftwf_execute_dft;
  static constexpr auto destroy = fftwf_destroy_plan;
  static constexpr auto malloc = fftwf_malloc;
  static constexpr auto free = fftwf_free;
  static void threads(int n) {
    static std::once_flag once;
    std::call_once(once, [] { fftwf_init_threads(); });
    fftwf_plan_with_nthreads(n);
  }
};

// FFTW's planner is not thread-safe; plans are made under this lock.
std::mutex& planner_lock() {
  static std::mutex lock;
  return lock;
}

template <class Real>
class HostTransforms final : public LocalTransforms<Real> {
  using W = Fftw<Real>;
  using C = Complex<Real>;

 public:
  explicit HostTransforms(const SlabLayout& layout) {
    std::lock_guard<std::mutex> guard(planner_lock());
    nzc_ = layout.nzc();
    ny_ = layout.ny();
    nz_ = layout.nz();
    nx_ = layout.nx();
    W::threads(omp_get_max_threads());
    const int nx = static_cast<int>(layout.nx());
    const int planes = static_cast<int>(layout.x_count());
    const int columns = static_cast<int>(layout.y_count() * layout.nzc());

    const std::size_t real_count = layout.planes_size() * 2, complex_count = layout.alloc_complex();
    auto* real = static_cast<Real*>(W::malloc(sizeof(Real) * real_count));
    auto* a = static_cast<typename W::complex*>(W::malloc(sizeof(C) * complex_count));
    auto* b = static_cast<typename W::complex*>(W::malloc(sizeof(C) * complex_count));
    bool planned = true;
    const int line[1] = {nx};
    std::tie(r2c_, c2r_) = plane_plans(planes, real, a);
    // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
    std::tie(x_forward_, x_backward_) = x_plans(columns, columns, a, b);
    // The compact columns of dealiased transforms, out of place and in place (FFTW plans are one or the
    // other).
    const int kept = static_cast<int>(layout.kept_y_count() * layout.kept_z());
    if (kept > 0) {
      for (int direction = 0; direction < 2; ++direction) {
        const int sign = direction == 0 ? FFTW_FORWARD : FFTW_BACKWARD;
        kept_[direction][0] =
            W::plan_c2c(1, line, kept, a, nullptr, kept, 1, b, nullptr, kept, 1, sign, kFlags);
        kept_[direction][1] =
            W::plan_c2c(1, line, kept, a, nullptr, kept, 1, a, nullptr, kept, 1, sign, kFlags);
        if (kept_[direction][0] == nullptr || kept_[direction][1] == nullptr) planned = false;
      }
    }
    // One rank: x transforms of the kept ky rows alone (dealiased transforms), both directions.
    if (layout.ranks() == 1)
      for (const auto& run : layout.kept_column_runs()) {
        const int count = static_cast<int>(run.count);
        if (columns_.count(run.count) > 0 || count == 0) continue;
        const auto& plans = columns_[run.count] = x_plans(count, columns, a, b);
        if (plans.first == nullptr || plans.second == nullptr) planned = false;
      }
    W::free(real);
    W::free(a);
    W::free(b);
    if (!planned || r2c_ == nullptr || c2r_ == nullptr || x_forward_ == nullptr || x_backward_ == nullptr) {
      release();
      throw Error("FFTW could not plan the transforms for " + layout.describe());
    }
  }
  ~HostTransforms() override { release(); }

  void forward_planes(const Real* in, C* out) override {
    W::execute_r2c(r2c_, const_cast<Real*>(in), reinterpret_cast<typename W::complex*>(out));
  }
  void backward_planes(C* in, Real* out) override {
    W::execute_c2r(c2r_, reinterpret_cast<typename W::complex*>(in), out);
  }
  void make_piece_plans(long planes) override {
    if (planes == 0 || pieces_.count(planes) > 0) return;
    std::lock_guard<std::mutex> guard(planner_lock());
    auto* real = static_cast<Real*>(W::malloc(sizeof(C) * planes * ny_ * nzc_));
    auto* a = static_cast<typename W::complex*>(W::malloc(sizeof(C) * planes * ny_ * nzc_));
    const auto& [r2c, c2r] = pieces_[planes] = plane_plans(static_cast<int>(planes), real, a);
    W::free(real);
    W::free(a);
    if (r2c == nullptr || c2r == nullptr)
      throw Error("FFTW could not plan the plane transforms of " + std::to_string(planes) + " planes");
  }
  void forward_planes_piece(const Real* in, C* out, long planes) override {
    if (planes > 0)
      W::execute_r2c(piece(planes).first, const_cast<Real*>(in), reinterpret_cast<typename W::complex*>(out));
  }
  void backward_planes_piece(C* in, Real* out, long planes) override {
    if (planes > 0) W::execute_c2r(piece(planes).second, reinterpret_cast<typename W::complex*>(in), out);
  }
  void forward_x(const C* in, C* out) override { execute_x(x_forward_, in, out); }
  void backward_x(const C* in, C* out) override { execute_x(x_backward_, in, out); }
  void forward_x_kept(const C* in, C* out) override { execute_kept(0, in, out); }
  void backward_x_kept(const C* in, C* out) override { execute_kept(1, in, out); }
  void forward_x_columns(const C* in, C* out, long first, long count) override {
    execute_x(column_plans(count).first, in + first, out + first);
  }
  void backward_x_columns(const C* in, C* out, long first, long count) override {
    execute_x(column_plans(count).second, in + first, out + first);
  }
  std::size_t work_bytes() const override { return 0; }

 private:
  // Plans are made on scratch arrays with FFTW_ESTIMATE (the arrays are not touched) and FFTW_UNALIGNED, so
  // they execute on any caller's arrays. Planning happens under planner_lock().
  static constexpr unsigned kFlags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  // The (R2C, C2R) transforms of `count` consecutive yz planes.
  std::pair<typename W::plan, typename W::plan> plane_plans(int count, Real* real,
                                                            typename W::complex* a) const {
    const int ny = static_cast<int>(ny_), nz = static_cast<int>(nz_), nzc = static_cast<int>(nzc_);
    const int plane[2] = {ny, nz}, real_embed[2] = {ny, nz}, complex_embed[2] = {ny, nzc};
    return {W::plan_r2c(2, plane, count, real, real_embed, 1, ny * nz, a, complex_embed, 1, ny * nzc, kFlags),
            W::plan_c2r(2, plane, count, a, complex_embed, 1, ny * nzc, real, real_embed, 1, ny * nz,
                        kFlags | FFTW_DESTROY_INPUT)};
  }
  // The (forward, backward) x transforms of `count` adjacent columns of a slab whose x lines have `stride`.
  std::pair<typename W::plan, typename W::plan> x_plans(int count, int stride, typename W::complex* a,
                                                        typename W::complex* b) const {
    const int line[1] = {static_cast<int>(nx_)};
    return {W::plan_c2c(1, line, count, a, nullptr, stride, 1, b, nullptr, stride, 1, FFTW_FORWARD, kFlags),
            W::plan_c2c(1, line, count, a, nullptr, stride, 1, b, nullptr, stride, 1, FFTW_BACKWARD, kFlags)};
  }
  // The [forward, backward] x transforms of `count` columns.
  const std::pair<typename W::plan, typename W::plan>& column_plans(long count) const {
    const auto plans = columns_.find(count);
    if (plans == columns_.end())
      throw Error("internal: no x transform planned for " + std::to_string(count) + " columns");
    return plans->second;
  }
  const std::pair<typename W::plan, typename W::plan>& piece(long planes) const {
    const auto plans = pieces_.find(planes);
    if (plans == pieces_.end())
      throw Error("internal: no plane transforms planned for " + std::to_string(planes) + " planes");
    return plans->second;
  }
  static void execute_x(typename W::plan plan, const C* in, C* out) {
    W::execute_c2c(plan, reinterpret_cast<typename W::complex*>(const_cast<C*>(in)),
                   reinterpret_cast<typename W::complex*>(out));
  }
  void execute_kept(int direction, const C* in, C* out) {
    typename W::plan plan = kept_[direction][in == out ? 1 : 0];
    if (plan != nullptr) execute_x(plan, in, out);  // no plan: this rank keeps no ky plane
  }
  void release() noexcept {
    for (auto& [count, plans] : columns_)
      for (auto plan : {plans.first, plans.second})
        if (plan != nullptr) W::destroy(plan);
    columns_.clear();
    for (auto& [planes, plans] : pieces_)
      for (auto plan : {plans.first, plans.second})
        if (plan != nullptr) W::destroy(plan);
    pieces_.clear();
    for (auto* plan :
         {&r2c_, &c2r_, &x_forward_, &x_backward_, &kept_[0][0], &kept_[0][1], &kept_[1][0], &kept_[1][1]})
      if (*plan != nullptr) {
        W::destroy(*plan);
        *plan = nullptr;
      }
  }

  typename W::plan r2c_ = nullptr, c2r_ = nullptr, x_forward_ = nullptr, x_backward_ = nullptr;
  // x transforms of the kept-row column runs, [forward, backward] by column count
  std::map<long, std::pair<typename W::plan, typename W::plan>> columns_;
  std::map<long, std::pair<typename W::plan, typename W::plan>> pieces_;  // (R2C, C2R) by plane count
  long nzc_ = 1, ny_ = 1, nz_ = 1, nx_ = 1;
  typename W::plan kept_[2][2] = {{nullptr, nullptr},
                                  {nullptr, nullptr}};  // [forward, backward][out of, in place]
};

}  // namespace

template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_host_transforms(const SlabLayout& layout) {
  return std::make_unique<HostTransforms<Real>>(layout);
}

template std::unique_ptr<LocalTransforms<float>> make_host_transforms<float>(const SlabLayout&);
template std::unique_ptr<LocalTransforms<double>> make_host_transforms<double>(const SlabLayout&);

}  // namespace kolmo::fft
