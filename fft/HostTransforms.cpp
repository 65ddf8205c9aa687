// LocalTransforms on the host with FFTW3 (float and double), threaded by OpenMP, plans made once.
//
// What makes them as fast as FFTW's own 3D plan (tools/fft_bench.cpp times both in one run):
// - Plans are made on scratch arrays aligned as FFTW's own allocations are, so that FFTW may use its SIMD
//   codelets. (Plans for arrays of any alignment, FFTW_UNALIGNED, made the pair 2-2.5 x slower.) An array
//   that a caller passes aligned otherwise goes through a twin plan for unaligned data, made at its first
//   use.
// - The strided x transforms run in place only: FFTW's in-place plans for them copy a few columns at a time
//   to a buffer and back, while its out-of-place ones ran 1.5 x (128^3) to 6 x (256^3) slower, whether
//   measured or patient (one core, 2026-11). Out of place, blocks of columns (512 bytes of each x row) are
//   copied and transformed in place while in cache, the blocks shared among the threads: on two threads
//   1.2 x (128^3) to 1.4 x (256^3) faster than copying the whole slab first. But columns that stay in cache
//   whole (2 MiB: 64^3 on 2 and 4 ranks) are copied all at once and go through the plan of all
//   columns, which FFTW runs faster than the narrow plans of blocks (backward x of 64^3 on 2 ranks x 1
//   thread: 0.12 -> 0.07 ms).
// - The forward plane transforms run plane by plane, the planes shared among the threads, each plane staying
//   in cache between FFTW's passes along z and y: 1.3-1.6 x faster than FFTW's plan of all planes, which
//   makes each pass over all of them (128^3-256^3, one and two threads). Not for the backward ones, which ran
//   as fast or faster as one plan; nor where planes would start unaligned (Ny Nz odd, or not a multiple of 4
//   in single precision).
// - FftwPlanning::measure: FFTW times its candidate algorithms on the scratch arrays (FFTW_MEASURE) and keeps
//   the fastest. The choices are kept in a wisdom file (fft/FftwWisdom.hpp) so that later runs plan at once,
//   and the ranks agree on one choice per problem (settle_plans) so that runs repeat bit for bit.
#include <fftw3.h>
#include <mpi.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/Executors.hpp"
#include "fft/Fftw.hpp"
#include "fft/FftwShapes.hpp"
#include "fft/FftwWisdom.hpp"
#include "fft/LocalTransforms.hpp"

namespace kolmo::fft {

namespace {

// A batch of transforms in FFTW's guru interface, every size 64-bit (fft/FftwShapes.hpp).
using Shape = FftwShape;

// The arrays plans are made on: what measuring overwrites, aligned to pages (more than FFTW's SIMD needs).
// Sized for every transform of the layout (a slab's values in either form). They are mapped from the system
// and unmapped at once, not taken from malloc: glibc raises its threshold for mapping large blocks when such
// a block is freed, after which the solver's slabs came from the heap, whose freed parts stay resident; the
// peak memory of a 128^3 run then grew by two slabs.
template <class Real>
class ScratchArrays {
 public:
  explicit ScratchArrays(const SlabLayout& layout) : bytes_(sizeof(Complex<Real>) * layout.alloc_complex()) {
    for (auto*& array : arrays_) {
      array = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (array == MAP_FAILED) {
        array = nullptr;
        release();
        throw Error("out of host memory planning the FFTs of " + layout.describe());
      }
    }
  }
  ~ScratchArrays() { release(); }
  ScratchArrays(const ScratchArrays&) = delete;
  ScratchArrays& operator=(const ScratchArrays&) = delete;
  // (in, out) for a transform of this shape.
  std::pair<void*, void*> for_shape(const Shape& shape) const {
    return {arrays_[0], shape.in_place ? arrays_[0] : arrays_[1]};
  }

 private:
  void release() noexcept {
    for (auto*& array : arrays_)
      if (array != nullptr) {
        ::munmap(array, bytes_);
        array = nullptr;
      }
  }
  std::size_t bytes_;
  void* arrays_[2] = {nullptr, nullptr};
};

// One FFTW plan of a shape: made for aligned arrays, with a twin for others made when first needed. A plan
// made by make() is measured or estimated as asked; one never made is estimated at its first use.
template <class Real>
class Plan {
  using W = Fftw<Real>;
  using Owned = UniqueHandle<typename W::plan, W::destroy>;
  static Owned owned(typename W::plan plan) { return plan != nullptr ? Owned(plan) : Owned(); }

 public:
  Plan(const Shape& shape, int threads) : shape_(shape), threads_(threads) {}
  ~Plan() = default;  // under fftw_planner_lock(), as every FFTW planner call
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  const Shape& shape() const { return shape_; }
  bool made() const { return made_; }

  // Plans (again) on these arrays with these flags. Under fftw_planner_lock().
  bool make(unsigned flags, std::pair<void*, void*> arrays) {
    made_ = true;
    return plan_on(flags, arrays.first, arrays.second);
  }

  void execute(const void* in, void* out) {
    if ((in == out) != shape_.in_place)
      throw Error(std::string("internal: an FFTW plan made ") + (shape_.in_place ? "in" : "out of") +
                  " place executed otherwise");
    if (!aligned_) {  // never made: estimated now (FFTW_ESTIMATE leaves the arrays alone)
      std::lock_guard<std::mutex> guard(fftw_planner_lock());
      if (!aligned_ && !plan_on(FFTW_ESTIMATE, const_cast<void*>(in), out))
        throw Error("FFTW could not plan a transform");
    }
    typename W::plan plan = aligned_.get();
    if (alignment(in) != in_alignment_ || alignment(out) != out_alignment_) plan = unaligned(in, out);
    auto* source = const_cast<void*>(in);
    switch (shape_.kind) {
      case FftwKind::r2c:
        W::execute_r2c(plan, static_cast<Real*>(source), static_cast<typename W::complex*>(out));
        break;
      case FftwKind::c2r:
        W::execute_c2r(plan, static_cast<typename W::complex*>(source), static_cast<Real*>(out));
        break;
      default:
        W::execute_c2c(plan, static_cast<typename W::complex*>(source),
                       static_cast<typename W::complex*>(out));
    }
  }

 private:
  bool plan_on(unsigned flags, void* in, void* out) {
    aligned_.reset();
    unaligned_.reset();
    W::threads(threads_);
    aligned_ = owned(create(flags, in, out));
    in_alignment_ = alignment(in);
    out_alignment_ = alignment(out);
    return bool(aligned_);
  }
  static int alignment(const void* array) {
    return W::alignment_of(static_cast<Real*>(const_cast<void*>(array)));
  }

  typename W::plan create(unsigned flags, const void* in, void* out) const {
    return plan_fftw<Real>(shape_, flags, const_cast<void*>(in), out);
  }

  // FFTW_ESTIMATE leaves the arrays alone, so this plans on the caller's.
  typename W::plan unaligned(const void* in, void* out) {
    std::lock_guard<std::mutex> guard(fftw_planner_lock());  // threads may execute one plan at once
    if (!unaligned_) {
      W::threads(threads_);
      unaligned_ = owned(create(FFTW_ESTIMATE | FFTW_UNALIGNED, in, out));
      if (!unaligned_) throw Error("FFTW could not plan a transform for unaligned arrays");
    }
    return unaligned_.get();
  }

  Shape shape_;
  Owned aligned_, unaligned_;
  int threads_;
  int in_alignment_ = 0, out_alignment_ = 0;
  bool made_ = false;
};

template <class Real>
class HostTransforms;

// The executors hold plans that the backend owns (it makes them all again from the settled wisdom).
template <class Real>
using PlanPair = std::pair<Plan<Real>*, Plan<Real>*>;  // (forward, backward)

// The plane transforms of `count` planes: (R2C, C2R) plans of them all, the R2C one unused (nullptr) where
// the forward goes plane by plane.
template <class Real>
class HostPlanes final : public PlaneTransform<Real> {
  using C = Complex<Real>;

 public:
  HostPlanes(HostTransforms<Real>& backend, PlanPair<Real> plans, long count)
      : backend_(backend), plans_(plans), count_(count) {}
  void forward(const Real* in, C* out) override {
    if (count_ > 0) backend_.r2c_planes(plans_.first, in, out, count_);
  }
  void backward(C* in, Real* out) override {
    if (count_ > 0) plans_.second->execute(in, out);
  }

 private:
  HostTransforms<Real>& backend_;
  PlanPair<Real> plans_;
  long count_;
};

// The x transforms of the columns [first, first + count) of a slab of `stride` columns; nothing without plans
// (a compact slab of no column).
template <class Real>
class HostLines final : public XTransform<Real> {
  using C = Complex<Real>;

 public:
  HostLines(HostTransforms<Real>& backend, PlanPair<Real> plans, long stride, long first, long count)
      : backend_(backend), plans_(plans), stride_(stride), first_(first), count_(count) {}
  void forward(const C* in, C* out) override {
    if (plans_.first != nullptr) backend_.x_transform(plans_, true, in, out, stride_, first_, count_);
  }
  void backward(const C* in, C* out) override {
    if (plans_.second != nullptr) backend_.x_transform(plans_, false, in, out, stride_, first_, count_);
  }

 private:
  HostTransforms<Real>& backend_;
  PlanPair<Real> plans_;
  long stride_, first_, count_;
};

template <class Real>
class HostTransforms final : public LocalTransforms<Real> {
  using W = Fftw<Real>;
  using C = Complex<Real>;
  using PlanPair = fft::PlanPair<Real>;
  using Planes = HostPlanes<Real>;
  using Lines = HostLines<Real>;

 public:
  HostTransforms(const SlabLayout& layout, std::shared_ptr<Device> device, FftwPlanning planning,
                 std::string wisdom_directory)
      : layout_(layout),
        device_(std::move(device)),
        flags_(measures(planning, layout) ? FFTW_MEASURE : FFTW_ESTIMATE),
        wisdom_directory_(measures(planning, layout) ? std::move(wisdom_directory) : ""),
        threads_(omp_get_max_threads()) {
    if (measuring()) report_ = load_wisdom<Real>(wisdom_directory_);
    const double start = MPI_Wtime();
    ScratchArrays<Real> scratch(layout_);
    std::lock_guard<std::mutex> guard(fftw_planner_lock());
    planes_ = plane_plans(layout_.x_count(), scratch);
    if (plane_by_plane()) plane_ = add(plane_shape(layout_, FftwKind::r2c, 1), scratch, 1);
    const long columns = this->columns();
    // kx-major slab: a line along kx has stride (ky count * Nzc); neighbouring lines are adjacent.
    x_ = x_plans(columns, columns, scratch);
    // The compact columns of dealiased transforms (none on a rank that keeps no ky plane). One rank uses
    // them only when dealiasing by copies is asked for by name (tests, benchmarks): estimated when first
    // used.
    const long kept = this->kept();
    if (kept > 0) kept_ = x_plans(kept, kept, scratch, layout_.ranks() == 1);
    // One rank: x transforms of the kept ky rows alone (dealiased transforms). Across ranks only the
    // strided route uses them, when asked for: planned then (x_run).
    if (layout_.ranks() == 1)
      for (const auto& run : layout_.kept_column_runs())
        if (run.count > 0 && columns_.count(run.count) == 0)
          columns_[run.count] = x_plans(run.count, columns, scratch);
    // Out of place, the slab's columns go in blocks (x_transform): a block and the last one's remainder.
    std::vector<long> widths{block_columns(), columns % block_columns()};
    for (const auto& run : columns_) widths.push_back(run.first % block_columns());
    plan_blocks(widths, scratch);
    planning_seconds_ += MPI_Wtime() - start;
  }
  ~HostTransforms() override {
    std::lock_guard<std::mutex> guard(fftw_planner_lock());
    plans_.clear();
  }

  std::unique_ptr<PlaneTransform<Real>> planes(long count) override {
    if (count == layout_.x_count()) return std::make_unique<Planes>(*this, planes_, count);
    if (count > 0 && pieces_.count(count) == 0) {
      const double start = MPI_Wtime();
      ScratchArrays<Real> scratch(layout_);
      std::lock_guard<std::mutex> guard(fftw_planner_lock());
      pieces_[count] = plane_plans(count, scratch);
      planning_seconds_ += MPI_Wtime() - start;
    }
    return std::make_unique<Planes>(*this, count > 0 ? pieces_[count] : PlanPair{nullptr, nullptr}, count);
  }
  std::unique_ptr<XTransform<Real>> x_slab() override {
    return std::make_unique<Lines>(*this, x_, columns(), 0, columns());
  }
  std::unique_ptr<XTransform<Real>> x_kept() override {
    return std::make_unique<Lines>(*this, kept_, kept(), 0, kept());
  }
  std::unique_ptr<XTransform<Real>> x_run(long first, long count) override {
    if (columns_.count(count) == 0) {
      const double start = MPI_Wtime();
      ScratchArrays<Real> scratch(layout_);
      std::lock_guard<std::mutex> guard(fftw_planner_lock());
      columns_[count] = x_plans(count, columns(), scratch);
      plan_blocks({count % block_columns()}, scratch);
      planning_seconds_ += MPI_Wtime() - start;
    }
    return std::make_unique<Lines>(*this, column_plans(count), columns(), first, count);
  }
  bool x_faster_in_place() const override { return true; }
  std::size_t work_bytes() const override { return 0; }

  void settle_plans(MPI_Comm comm) override {
    if (!measuring()) return;
    const double start = MPI_Wtime();
    const std::string saved = settle_wisdom<Real>(wisdom_directory_, comm);
    {
      // From the settled wisdom: nothing is measured again, every rank with a problem plans it alike, and
      // as a later run that loads the wisdom file will.
      ScratchArrays<Real> scratch(layout_);
      std::lock_guard<std::mutex> guard(fftw_planner_lock());
      for (auto& plan : plans_)
        if (plan.made() && !plan.make(flags_, scratch.for_shape(plan.shape())))
          throw Error("FFTW could not plan again from settled wisdom for " + layout_.describe());
    }
    planning_seconds_ += MPI_Wtime() - start;
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.2f s", planning_seconds_);
    report_ = std::string("FFTW plans (FFTW_MEASURE) made in ") + seconds + " (" + report_ +
              (saved.empty() ? "" : "; " + saved) + ")";
  }
  std::string planning_report() const override {
    return measuring() ? report_ : "FFTW plans estimated (FFTW_ESTIMATE)";
  }

 private:
  friend class HostPlanes<Real>;
  friend class HostLines<Real>;

  bool measuring() const { return flags_ != FFTW_ESTIMATE; }
  static bool measures(FftwPlanning planning, const SlabLayout& layout) {
    if (planning != FftwPlanning::automatic) return planning == FftwPlanning::measure;
    return layout.nx() * layout.ny() * layout.nz() >= kMeasuredPoints;
  }

  // A plan of this shape, made now on the scratch arrays (the caller holds the planner lock).
  Plan<Real>* add(const Shape& shape, const ScratchArrays<Real>& scratch, int threads = 0) {
    Plan<Real>& plan = plans_.emplace_back(shape, threads > 0 ? threads : threads_);
    if (!plan.make(flags_, scratch.for_shape(shape)))
      throw Error("FFTW could not plan the transforms for " + layout_.describe());
    return &plan;
  }
  // The (R2C, C2R) transforms of `count` consecutive yz planes; the R2C ones only where the forward
  // transforms do not go plane by plane.
  PlanPair plane_plans(long count, const ScratchArrays<Real>& scratch) {
    return {plane_by_plane() ? nullptr : add(plane_shape(layout_, FftwKind::r2c, count), scratch),
            add(plane_shape(layout_, FftwKind::c2r, count), scratch)};
  }
  // Whether the forward plane transforms go plane by plane: where every plane starts aligned.
  bool plane_by_plane() const { return layout_.ny() * layout_.nz() * sizeof(Real) % 16 == 0; }
  // The R2C transforms of `count` planes from in to out: plane by plane, the planes shared among the
  // threads, or by `plans` (all planes, all threads).
  void r2c_planes(Plan<Real>* plans, const Real* in, C* out, long count) {
    if (plane_ == nullptr) return plans->execute(in, out);
    const long real_plane = layout_.ny() * layout_.nz(), complex_plane = layout_.ny() * layout_.nzc();
#pragma omp parallel for schedule(static)
    for (long x = 0; x < count; ++x) plane_->execute(in + x * real_plane, out + x * complex_plane);
  }
  // The (forward, backward) in-place x transforms of `count` adjacent columns of a slab whose x lines have
  // `stride`, on `threads` threads (all by default): planned now, or (later) estimated at their first use.
  PlanPair x_plans(long count, long stride, const ScratchArrays<Real>& scratch, bool later = false,
                   int threads = 0) {
    Shape shape = x_shape(layout_, FftwKind::forward, count, stride);
    auto plan = [&] {
      return later ? &plans_.emplace_back(shape, threads_)
                   : add(shape, scratch, threads > 0 ? threads : threads_);
    };
    Plan<Real>* forward = plan();
    shape.kind = FftwKind::backward;
    return {forward, plan()};
  }
  long columns() const {
    return layout_.y_count() * layout_.nzc();
  }
  long kept() const {
    return layout_.kept_y_count() * layout_.kept_z();
  }
  // Columns per block of an out-of-place x transform: 512 bytes of each x row (32 columns in double
  // precision, 64 in single: 3-8 % faster than 32 at 128^3-256^3 on one thread), or fewer where a block of
  // such long x lines would not stay in a core's cache (512 KiB).
  long block_columns() const {
    const long fit = (512L << 10) / static_cast<long>(layout_.nx() * sizeof(C));
    return std::max(8L, std::min(static_cast<long>(512 / sizeof(C)), fit));
  }
  // The x transform of columns [first, first + count) of a slab of `stride` columns from in to out. In place
  // by `plans` (all threads). Out of place, on the slab's columns, in blocks: each copied to out and
  // transformed there in place while in cache, by one thread, the blocks shared among the threads; where
  // the columns stay in cache whole (columns_in_cache), and on the compact slab (which routes transform in
  // place), a copy first.
  void x_transform(const PlanPair& plans, bool forward, const C* in, C* out, long stride, long first,
                   long count) {
    if (in == out) return (forward ? plans.first : plans.second)->execute(out + first, out + first);
    const std::size_t row = stride * sizeof(C);
    if (stride != columns() || columns_in_cache(count)) {
      device_->copy_2d(out + first, row, in + first, row, count * sizeof(C), layout_.nx());
      return (forward ? plans.first : plans.second)->execute(out + first, out + first);
    }
    const long block = block_columns(), blocks = (count + block - 1) / block, nx = layout_.nx();
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; ++b) {
      const long start = first + b * block, width = std::min(block, count - b * block);
      for (long x = 0; x < nx; ++x)
        std::memcpy(out + x * stride + start, in + x * stride + start, width * sizeof(C));
      const PlanPair& plan = block_plans(width);
      (forward ? plan.first : plan.second)->execute(out + start, out + start);
    }
  }
  // Whether `count` columns of the slab stay in cache (2 MiB) between a copy of them all and their in-place
  // transform: then that is faster than blocks, whose narrow plans FFTW runs slower than its plan of all
  // columns (64^3 on 2 and 4 ranks, one thread: 10-30 %; one core, 2026-11). Larger slabs go in blocks,
  // which read them from memory once. The same bound whatever the threads, so that only slabs of the sizes
  // measured take this way (one rank's at 64^3 in double, 2.2 MB, goes in blocks as before).
  bool columns_in_cache(long count) const {
    return static_cast<std::size_t>(layout_.nx() * count) * sizeof(C) <= (std::size_t(2) << 20);
  }
  // The one-thread plans of blocks of these widths not planned yet; none where the slab's columns stay in
  // cache whole (x_transform copies them all then). Under fftw_planner_lock().
  void plan_blocks(const std::vector<long>& widths, const ScratchArrays<Real>& scratch) {
    for (long width : widths)
      if (width > 0 && blocks_.count(width) == 0 && !columns_in_cache(columns()))
        blocks_[width] = x_plans(width, columns(), scratch, false, 1);
  }
  const PlanPair& block_plans(long width) const {
    const auto plans = blocks_.find(width);
    if (plans == blocks_.end())
      throw Error("internal: no x transform planned for a block of " + std::to_string(width) + " columns");
    return plans->second;
  }
  const PlanPair& column_plans(long count) const {
    const auto plans = columns_.find(count);
    if (plans == columns_.end())
      throw Error("internal: no x transform planned for " + std::to_string(count) + " columns");
    return plans->second;
  }
  SlabLayout layout_;
  std::shared_ptr<Device> device_;
  unsigned flags_;
  std::string wisdom_directory_, report_;
  int threads_;
  double planning_seconds_ = 0;
  std::deque<Plan<Real>> plans_;  // every plan, to plan again after settling; a deque keeps them in place
  PlanPair planes_{nullptr, nullptr}, x_{nullptr, nullptr};
  Plan<Real>* plane_ = nullptr;       // one thread's R2C of one plane, where the forward goes plane by plane
  PlanPair kept_{nullptr, nullptr};   // none on a rank that keeps no ky plane
  std::map<long, PlanPair> columns_;  // x transforms of kept-row column runs, by column count
  std::map<long, PlanPair> blocks_;   // one thread's x transforms of a block of the slab's columns, by width
  std::map<long, PlanPair> pieces_;   // plane transforms by plane count
};

}  // namespace

template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_host_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device,
                                                            FftwPlanning planning,
                                                            const std::string& wisdom_directory) {
  return std::make_unique<HostTransforms<Real>>(layout, device, planning, wisdom_directory);
}

template std::unique_ptr<LocalTransforms<float>> make_host_transforms<float>(const SlabLayout&,
                                                                             const std::shared_ptr<Device>&,
                                                                             FftwPlanning,
                                                                             const std::string&);
template std::unique_ptr<LocalTransforms<double>> make_host_transforms<double>(const SlabLayout&,
                                                                               const std::shared_ptr<Device>&,
                                                                               FftwPlanning,
                                                                               const std::string&);

std::string fftw_library_version() {
  return fftw_version;
}

}  // namespace kolmo::fft
