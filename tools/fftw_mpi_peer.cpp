// The peer of kolmo's host FFT across ranks: FFTW-MPI's own slab-decomposed 3D R2C + C2R pair, timed as
// kolmo_fft_bench times kolmo's (median of the slowest rank's pair after warm-up, random data, out of place).
//
// Debian's libfftw3-mpi-dev is built on OpenMPI, kolmo on MPICH, so this program is not part of the CMake
// build or CI: tools/cpu_fft_compare.sh builds it with OpenMPI's wrapper and runs it with mpiexec.openmpi.
//
//   mpicxx.openmpi -O2 -fopenmp -I. tools/fftw_mpi_peer.cpp -lfftw3_mpi -lfftw3f_mpi -lfftw3_omp -lfftw3f_omp
//       -lfftw3 -lfftw3f -o fftw_mpi_peer
//   OMP_NUM_THREADS=1 mpiexec.openmpi -n 2 ./fftw_mpi_peer --n 128 --precision double --reps 30
//
// By default the output stays transposed (FFTW_MPI_TRANSPOSED_OUT, and TRANSPOSED_IN back): FFTW-MPI's
// fastest slab transform, one all-to-all each way, like kolmo's whose spectral slab needs no transpose
// either. --normal-order asks for FFTW-MPI's untransposed layout (two more transposes).
#include <fftw3-mpi.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fft/Fftw.hpp"

using kolmo::fft::Fftw;

namespace {

// FFTW-MPI's functions of each precision (the serial ones are in fft/Fftw.hpp).
template <class Real>
struct FftwMpi;
#define KOLMO_FFTW_MPI_PRECISION(Real, X)                               \
  template <>                                                           \
  struct FftwMpi<Real> {                                                \
    static void init() {                                                \
      Fftw<Real>::initialise();                                         \
      X(mpi_init)();                                                    \
    }                                                                   \
    static constexpr auto local_size = X(mpi_local_size_3d_transposed); \
    static constexpr auto plan_r2c = X(mpi_plan_dft_r2c_3d);            \
    static constexpr auto plan_c2r = X(mpi_plan_dft_c2r_3d);            \
    static constexpr auto execute = X(execute);                         \
  };
KOLMO_FFTW_MPI_PRECISION(double, KOLMO_FFTW_DOUBLE)
KOLMO_FFTW_MPI_PRECISION(float, KOLMO_FFTW_FLOAT)
#undef KOLMO_FFTW_MPI_PRECISION

struct Settings {
  ptrdiff_t n[3] = {64, 64, 64};
  std::string precision = "double";
  bool transposed = true, measure = true;
  int warmup = 3, reps = 10;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class Real>
void run(const Settings& s, int rank, int ranks) {
  using W = Fftw<Real>;
  using M = FftwMpi<Real>;
  M::init();
  W::threads(omp_get_max_threads());
  const ptrdiff_t n0 = s.n[0], n1 = s.n[1], n2 = s.n[2], n2c = n2 / 2 + 1;
  ptrdiff_t local_n0 = 0, local_0_start = 0, local_n1 = 0, local_1_start = 0;
  const ptrdiff_t alloc =
      M::local_size(n0, n1, n2c, MPI_COMM_WORLD, &local_n0, &local_0_start, &local_n1, &local_1_start);
  // The real slab is padded to 2 (n2/2 + 1) values a row, as FFTW-MPI wants even out of place.
  Real* real = static_cast<Real*>(W::malloc(sizeof(Real) * 2 * alloc));
  auto* spectral = static_cast<typename W::complex*>(W::malloc(sizeof(typename W::complex) * alloc));
  const unsigned flags = s.measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  const double planning_start = MPI_Wtime();
  typename W::plan forward = M::plan_r2c(n0, n1, n2, real, spectral, MPI_COMM_WORLD,
                                         flags | (s.transposed ? FFTW_MPI_TRANSPOSED_OUT : 0));
  typename W::plan backward = M::plan_c2r(n0, n1, n2, spectral, real, MPI_COMM_WORLD,
                                          flags | (s.transposed ? FFTW_MPI_TRANSPOSED_IN : 0));
  const double planning = MPI_Wtime() - planning_start;
  if (forward == nullptr || backward == nullptr) {
    std::fprintf(stderr, "fftw_mpi_peer: FFTW-MPI could not plan the transforms\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::mt19937 random(1234 + rank);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (ptrdiff_t i = 0; i < 2 * alloc; ++i) real[i] = Real(uniform(random));
  std::vector<double> pairs;
  for (int r = 0; r < s.warmup + s.reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    M::execute(forward);
    M::execute(backward);
    double local = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= s.warmup) pairs.push_back(slowest * 1e3);
  }
  // The pair must give back N times its input (checks a peer built from source,
  // tools/build_fftw_mpi_mpich.sh).
  // (Fresh data: the timed pairs scaled it by N each time.)
  for (ptrdiff_t i = 0; i < 2 * alloc; ++i) real[i] = Real(uniform(random));
  std::vector<Real> input(real, real + 2 * alloc);
  M::execute(forward);
  M::execute(backward);
  double local_error = 0, error = 0;
  for (ptrdiff_t row = 0; row < local_n0 * n1; ++row)
    for (ptrdiff_t z = 0; z < n2; ++z) {
      const ptrdiff_t i = row * 2 * n2c + z;
      local_error =
          std::max(local_error, std::abs(double(real[i]) / double(n0 * n1 * n2) - double(input[i])));
    }
  MPI_Allreduce(&local_error, &error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (error > (sizeof(Real) == 4 ? 1e-4 : 1e-12)) {
    if (rank == 0)
      std::fprintf(stderr, "fftw_mpi_peer: the pair does not return its input (error %.3g)\n", error);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    std::printf(
        "FFTW-MPI slab FFT %td x %td x %td, %s, %d rank(s) x %d thread(s), %s, planned (%s) in %.2f s\n", n0,
        n1, n2, s.precision.c_str(), ranks, omp_get_max_threads(),
        s.transposed ? "transposed output" : "normal order", s.measure ? "FFTW_MEASURE" : "FFTW_ESTIMATE",
        planning);
    std::printf(
        "  pair (forward+backward): median %.3f ms over %d reps after %d warm-up (min %.3f, max %.3f); round "
        "trip error %.2g\n",
        median(pairs), s.reps, s.warmup, *std::min_element(pairs.begin(), pairs.end()),
        *std::max_element(pairs.begin(), pairs.end()), error);
    std::printf("  PEER n=%tdx%tdx%td %s ranks=%d threads=%d fftw_mpi %.3f ms\n", n0, n1, n2,
                s.precision.c_str(), ranks, omp_get_max_threads(), median(pairs));
  }
  W::destroy(forward);
  W::destroy(backward);
  W::free(real);
  W::free(spectral);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        if (rank == 0) std::fprintf(stderr, "fftw_mpi_peer: %s needs a value\n", arg.c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      return argv[++i];
    };
    if (arg == "--n") {
      s.n[0] = s.n[1] = s.n[2] = std::atol(next());
      if (i + 2 < argc && argv[i + 1][0] != '-' && argv[i + 2][0] != '-') {
        s.n[1] = std::atol(argv[++i]);
        s.n[2] = std::atol(argv[++i]);
      }
    } else if (arg == "--precision") {
      s.precision = next();
    } else if (arg == "--reps") {
      s.reps = std::atoi(next());
    } else if (arg == "--warmup") {
      s.warmup = std::atoi(next());
    } else if (arg == "--normal-order") {
      s.transposed = false;
    } else if (arg == "--planning") {
      s.measure = std::string(next()) != "estimate";
    } else {
      if (rank == 0)
        std::fprintf(stderr,
                     "usage: fftw_mpi_peer [--n N [Ny Nz]] [--precision single|double] [--reps R] "
                     "[--warmup W] [--planning measure|estimate] [--normal-order]\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (s.precision == "single")
    run<float>(s, rank, ranks);
  else
    run<double>(s, rank, ranks);
  MPI_Finalize();
  return 0;
}
