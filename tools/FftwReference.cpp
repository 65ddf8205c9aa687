#include "tools/FftwReference.hpp"

#include <mpi.h>
#include <omp.h>

#include <mutex>
#include <random>

#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/Fftw.hpp"
#include "fft/FftwWisdom.hpp"

namespace kolmo::tools {

class FftwReference::Pair {
 public:
  virtual ~Pair() = default;
  virtual double pair_ms() = 0;
};

namespace {

template <class Real>
class PairOf final : public FftwReference::Pair {
  using W = fft::Fftw<Real>;

 public:
  PairOf(std::array<long, 3> n, fft::FftwPlanning planning, const std::string& wisdom_directory) {
    const int size[3] = {int(n[0]), int(n[1]), int(n[2])};
    const std::size_t points = std::size_t(n[0]) * n[1] * n[2];
    const std::size_t modes = std::size_t(n[0]) * n[1] * (n[2] / 2 + 1);
    real_ = Array<Real>(static_cast<Real*>(W::malloc(sizeof(Real) * points)));
    spectral_ = Array<typename W::complex>(
        static_cast<typename W::complex*>(W::malloc(sizeof(typename W::complex) * modes)));
    Real* real = real_.get();
    typename W::complex* spectral = spectral_.get();
    const bool measure = planning == fft::FftwPlanning::measure ||
                         (planning == fft::FftwPlanning::automatic && long(points) >= fft::kMeasuredPoints);
    if (measure) fft::load_wisdom<Real>(wisdom_directory);
    {
      std::lock_guard<std::mutex> guard(fft::fftw_planner_lock());
      W::threads(omp_get_max_threads());
      const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
      forward_ = Plan(W::plan_r2c(3, size, 1, real, nullptr, 1, 0, spectral, nullptr, 1, 0, flags));
      backward_ = Plan(W::plan_c2r(3, size, 1, spectral, nullptr, 1, 0, real, nullptr, 1, 0, flags));
    }
    if (forward_.get() == nullptr || backward_.get() == nullptr)
      throw Error("FFTW could not plan its own 3D pair");
    if (measure) fft::settle_wisdom<Real>(wisdom_directory, MPI_COMM_SELF);
    // Random data (measuring overwrote the arrays): zeros can run faster than real data.
    std::mt19937 random(1234);
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (std::size_t i = 0; i < points; ++i) real[i] = Real(uniform(random));
  }
  ~PairOf() override {
    std::lock_guard<std::mutex> guard(fft::fftw_planner_lock());  // FFTW's planner, destroy included
    forward_.reset();
    backward_.reset();
  }
  double pair_ms() override {
    const double start = MPI_Wtime();
    W::execute_r2c(forward_.get(), real_.get(), spectral_.get());
    W::execute_c2r(backward_.get(), spectral_.get(), real_.get());
    return (MPI_Wtime() - start) * 1e3;
  }

 private:
  template <class T>
  using Array = UniqueHandle<T*, W::free>;
  using Plan = UniqueHandle<typename W::plan, W::destroy>;  // destroyed under the planner lock

  Array<Real> real_;
  Array<typename W::complex> spectral_;
  Plan forward_, backward_;
};

}  // namespace

FftwReference::FftwReference(std::array<long, 3> n, bool double_precision, fft::FftwPlanning planning,
                             const std::string& wisdom_directory) {
  if (double_precision)
    pair_ = std::make_unique<PairOf<double>>(n, planning, wisdom_directory);
  else
    pair_ = std::make_unique<PairOf<float>>(n, planning, wisdom_directory);
}

FftwReference::~FftwReference() = default;

double FftwReference::pair_ms() {
  return pair_->pair_ms();
}

}  // namespace kolmo::tools
