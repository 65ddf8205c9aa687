// FFTW's float and double interfaces under one name (internal to the host backend: fft/HostTransforms.cpp,
// fft/FftwWisdom.cpp).
//
// Contract: Fftw<Real> (Real = float or double) names FFTW's types and functions of that precision.
// threads(n) makes later plans use n threads (FFTW's OpenMP threads, initialised once per process by
// initialise(), which must precede importing wisdom: wisdom of threaded plans names threaded algorithms).
// FFTW's planner and wisdom are process-wide and not thread-safe: every planning call and every use of the
// wisdom happens under fftw_planner_lock().
#pragma once

#include <fftw3.h>

#include <mutex>

namespace kolmo::fft {

template <class Real>
struct Fftw;

template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  using iodim = fftw_iodim;
  static constexpr auto plan_r2c = fftw_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftw_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftw_plan_many_dft;
  static constexpr auto execute_r2c = fftw_execute_dft_r2c;
  static constexpr auto execute_c2r = fftw_execute_dft_c2r;
  static constexpr auto execute_c2c = fftw_execute_dft;
  static constexpr auto destroy = fftw_destroy_plan;
  static constexpr auto malloc = fftw_malloc;
  static constexpr auto free = fftw_free;
  static constexpr auto alignment_of = fftw_alignment_of;
  static constexpr auto set_timelimit = fftw_set_timelimit;
  static constexpr auto export_wisdom = fftw_export_wisdom_to_string;
  static constexpr auto import_wisdom = fftw_import_wisdom_from_string;
  static constexpr const char* name = "double";
  // FFTW's threads, once per process: before plans or wisdom that name threaded algorithms.
  static void initialise() {
    static std::once_flag once;
    std::call_once(once, [] { fftw_init_threads(); });
  }
  static void threads(int n) {
    initialise();
    fftw_plan_with_nthreads(n);
  }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  using iodim = fftwf_iodim;
  static constexpr auto plan_r2c = fftwf_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftwf_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftwf_plan_many_dft;
  static constexpr auto execute_r2c = fftwf_execute_dft_r2c;
  static constexpr auto execute_c2r = fftwf_execute_dft_c2r;
  static constexpr auto execute_c2c = fftwf_execute_dft;
  static constexpr auto destroy = fftwf_destroy_plan;
  static constexpr auto malloc = fftwf_malloc;
  static constexpr auto free = fftwf_free;
  static constexpr auto alignment_of = fftwf_alignment_of;
  static constexpr auto set_timelimit = fftwf_set_timelimit;
  static constexpr auto export_wisdom = fftwf_export_wisdom_to_string;
  static constexpr auto import_wisdom = fftwf_import_wisdom_from_string;
  static constexpr const char* name = "float";
  // FFTW's threads, once per process: before plans or wisdom that name threaded algorithms.
  static void initialise() {
    static std::once_flag once;
    std::call_once(once, [] { fftwf_init_threads(); });
  }
  static void threads(int n) {
    initialise();
    fftwf_plan_with_nthreads(n);
  }
};

// FFTW's planner is not thread-safe; plans are made and wisdom used under this lock.
inline std::mutex& fftw_planner_lock() {
  static std::mutex lock;
  return lock;
}

}  // namespace kolmo::fft
