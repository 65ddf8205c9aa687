// FFTW's float and double interfaces under one name (internal to the host backend: fft/HostTransforms.cpp,
// fft/FftwWisdom.cpp; and the benchmarks' FFTW peers in tools/).
//
// Contract: Fftw<Real> (Real = float or double) names FFTW's types and functions of that precision. The
// planners: plan_r2c, plan_c2r, plan_c2c, FFTW's advanced interface (int counts, strides and distances: for
// the tools' serial references of small grids); plan_guru64_r2c, _c2r, _c2c, its guru interface of 64-bit
// sizes (fftw_iodim64), which the library plans with (fft/FftwShapes.hpp), as a slab's planes may hold more
// than 2^31 - 1 values.
// threads(n) makes later plans use n threads (FFTW's OpenMP threads, initialised once per process by
// initialise(), which must precede importing wisdom: wisdom of threaded plans names threaded algorithms).
// FFTW's planner and wisdom are process-wide and not thread-safe: every planning call and every use of the
// wisdom happens under fftw_planner_lock(). KOLMO_FFTW_DOUBLE(name) and KOLMO_FFTW_FLOAT(name) give FFTW's
// name of a function or type in each precision (fftw_name, fftwf_name).
#pragma once

#include <fftw3.h>

#include <mutex>

namespace kolmo::fft {

template <class Real>
struct Fftw;

// The two precisions differ only in FFTW's prefix (fftw_, fftwf_): X(name) is the name with the prefix.
#define KOLMO_FFTW_PRECISION(Real, X)                                                          \
  template <>                                                                                  \
  struct Fftw<Real> {                                                                          \
    using plan = X(plan);                                                                      \
    using complex = X(complex);                                                                \
    static constexpr auto plan_r2c = X(plan_many_dft_r2c);                                     \
    static constexpr auto plan_c2r = X(plan_many_dft_c2r);                                     \
    static constexpr auto plan_c2c = X(plan_many_dft);                                         \
    static constexpr auto plan_guru64_r2c = X(plan_guru64_dft_r2c);                            \
    static constexpr auto plan_guru64_c2r = X(plan_guru64_dft_c2r);                            \
    static constexpr auto plan_guru64_c2c = X(plan_guru64_dft);                                \
    static constexpr auto execute_r2c = X(execute_dft_r2c);                                    \
    static constexpr auto execute_c2r = X(execute_dft_c2r);                                    \
    static constexpr auto execute_c2c = X(execute_dft);                                        \
    static constexpr auto destroy = X(destroy_plan);                                           \
    static constexpr auto malloc = X(malloc);                                                  \
    static constexpr auto free = X(free);                                                      \
    static constexpr auto alignment_of = X(alignment_of);                                      \
    static constexpr auto sprint_plan = X(sprint_plan); /* the caller frees the text (free) */ \
    static constexpr auto export_wisdom = X(export_wisdom_to_string);                          \
    static constexpr auto import_wisdom = X(import_wisdom_from_string);                        \
    static constexpr auto forget_wisdom = X(forget_wisdom);                                    \
    static constexpr const char* name = #Real;                                                 \
    /* FFTW's threads, once per process: before plans or wisdom naming threaded algorithms. */ \
    static void initialise() {                                                                 \
      static std::once_flag once;                                                              \
      std::call_once(once, [] { X(init_threads)(); });                                         \
    }                                                                                          \
    static void threads(int n) {                                                               \
      initialise();                                                                            \
      X(plan_with_nthreads)(n);                                                                \
    }                                                                                          \
  };
#define KOLMO_FFTW_DOUBLE(name) fftw_##name
#define KOLMO_FFTW_FLOAT(name) fftwf_##name
KOLMO_FFTW_PRECISION(double, KOLMO_FFTW_DOUBLE)
KOLMO_FFTW_PRECISION(float, KOLMO_FFTW_FLOAT)
#undef KOLMO_FFTW_PRECISION

// FFTW's planner is not thread-safe; plans are made and wisdom used under this lock.
inline std::mutex& fftw_planner_lock() {
  static std::mutex lock;
  return lock;
}

}  // namespace kolmo::fft
