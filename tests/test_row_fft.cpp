// kolmo's row FFTs (fft/RowFft.hpp) against cuFFT's 1D R2C and C2R, an independent implementation, on random
// rows: R2C writes cuFFT's modes k < kept and nothing else; C2R of the kept modes gives cuFFT's C2R of the
// row whose other modes are zero, whatever they hold (NaN included), and writes nothing past a row's n reals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Device.hpp"
#include "tests/TestSupport.hpp"

#ifdef KOLMO_HAVE_CUDA
#include <cufft.h>

#include "core/Complex.hpp"
#include "fft/RowFft.hpp"
#include "fft/StockhamPasses.hpp"
#endif

using namespace kolmo;

#ifdef KOLMO_HAVE_CUDA
using namespace kolmo::fft;

namespace {

// cuFFT's 1D transforms in Real precision.
template <class Real>
constexpr bool is_double = std::is_same_v<Real, double>;
template <class Real>
cufftResult cufft_r2c(cufftHandle plan, Real* in, Complex<Real>* out) {
  if constexpr (is_double<Real>)
    return cufftExecD2Z(plan, in, reinterpret_cast<cufftDoubleComplex*>(out));
  else
    return cufftExecR2C(plan, in, reinterpret_cast<cufftComplex*>(out));
}
template <class Real>
cufftResult cufft_c2r(cufftHandle plan, Complex<Real>* in, Real* out) {
  if constexpr (is_double<Real>)
    return cufftExecZ2D(plan, reinterpret_cast<cufftDoubleComplex*>(in), out);
  else
    return cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(in), out);
}

// cuFFT's plan of the same rows (its own work area), on the device's stream; it lives until the results
// are on the host.
struct Plan {
  cufftHandle handle = 0;
  Plan(const RowSet& s, cufftType type, bool forward, cudaStream_t stream) {
    int n = int(s.n), real_embed = int(s.row_pitch_real), complex_embed = int(s.row_pitch_complex);
    const int real_dist = int(s.row_pitch_real), complex_dist = int(s.row_pitch_complex);
    REQUIRE(cufftPlanMany(&handle, 1, &n, forward ? &real_embed : &complex_embed, 1,
                          forward ? real_dist : complex_dist, forward ? &complex_embed : &real_embed, 1,
                          forward ? complex_dist : real_dist, type, int(s.rows)) == CUFFT_SUCCESS);
    REQUIRE(cufftSetStream(handle, stream) == CUFFT_SUCCESS);
  }
  ~Plan() { cufftDestroy(handle); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
};

template <class Real>
double tolerance(long n) {  // 8 eps log2 n relative to the largest value: both FFTs' rounding
  return 8 * std::numeric_limits<Real>::epsilon() * std::log2(double(n));
}

template <class Real>
void check_rows(const std::shared_ptr<Device>& gpu, const RowSet& s) {
  using C = Complex<Real>;
  auto stream = static_cast<cudaStream_t>(gpu->stream());
  Buffer<C> table(gpu, s.n);
  table.assign_from_host(stockham_twiddles<Real>(s.n));

  // Forward: random rows, their pitch's padding too (which must not matter).
  std::vector<Real> x(s.rows * s.row_pitch_real);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = Real(kolmo::testing::random_value(long(i), s.n, s.kept));
  Buffer<Real> real(gpu, x.size());
  real.assign_from_host(x);
  const C sentinel(Real(1234), Real(-5));
  Buffer<C> ours(gpu, s.rows * s.row_pitch_complex), theirs(gpu, ours.size());
  ours.assign_from_host(std::vector<C>(ours.size(), sentinel));
  row_fft_r2c<Real>(s, real.data(), ours.data(), table.data(), stream);
  const Plan r2c(s, is_double<Real> ? CUFFT_D2Z : CUFFT_R2C, true, stream),
      c2r(s, is_double<Real> ? CUFFT_Z2D : CUFFT_C2R, false, stream);
  REQUIRE(cufft_r2c<Real>(r2c.handle, real.data(), theirs.data()) == CUFFT_SUCCESS);
  const std::vector<C> mine = ours.host_copy(), modes = theirs.host_copy();
  double error = 0, scale = 0;
  long written = 0;  // modes of ours past kept that are not the sentinel
  for (long r = 0; r < s.rows; ++r)
    for (long k = 0; k < s.row_pitch_complex; ++k) {
      const long i = r * s.row_pitch_complex + k;
      if (k < s.kept) {
        error =
            std::max(error, std::hypot(double(mine[i].re - modes[i].re), double(mine[i].im - modes[i].im)));
        scale = std::max(scale, std::hypot(double(modes[i].re), double(modes[i].im)));
      } else {
        written += mine[i].re != sentinel.re || mine[i].im != sentinel.im ? 1 : 0;
      }
    }
  CHECK(error <= scale * tolerance<Real>(s.n));
  CHECK(written == 0);

  // Backward: cuFFT's modes (of real rows), those from kept on zero for cuFFT, garbage for ours.
  std::vector<C> zeroed = modes, garbage = modes;
  for (long r = 0; r < s.rows; ++r)
    for (long k = s.kept; k < s.row_pitch_complex; ++k) {
      const long i = r * s.row_pitch_complex + k;
      zeroed[i] = C(0, 0);
      garbage[i] = k % 3 == 0 ? C(std::numeric_limits<Real>::quiet_NaN(), Real(0)) : C(Real(1e3), Real(-7));
    }
  ours.assign_from_host(garbage);
  theirs.assign_from_host(zeroed);
  const Real mark = Real(777);
  Buffer<Real> back(gpu, x.size()), reference(gpu, x.size());
  back.assign_from_host(std::vector<Real>(x.size(), mark));
  row_fft_c2r<Real>(s, ours.data(), back.data(), table.data(), stream);
  REQUIRE(cufft_c2r<Real>(c2r.handle, theirs.data(), reference.data()) == CUFFT_SUCCESS);
  const std::vector<Real> got = back.host_copy(), want = reference.host_copy();
  error = scale = 0;
  written = 0;  // reals of a row's padding that are not the mark
  for (long r = 0; r < s.rows; ++r)
    for (long e = 0; e < s.row_pitch_real; ++e) {
      const long i = r * s.row_pitch_real + e;
      if (e < s.n) {
        error = std::max(error, std::abs(double(got[i]) - double(want[i])));  // NaN fails below
        if (std::isnan(got[i])) error = std::numeric_limits<double>::infinity();
        scale = std::max(scale, std::abs(double(want[i])));
      } else {
        written += got[i] != mark ? 1 : 0;
      }
    }
  CHECK(error <= scale * tolerance<Real>(s.n));
  CHECK(written == 0);
}

}  // namespace
#endif

TEMPLATE_TEST_CASE("GPU: kolmo's row FFTs equal cuFFT's 1D R2C and C2R on the kept modes", "[fft][gpu]",
                   float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("row FFTs");
  if (!gpu || kolmo::testing::world_size() > 1) return;
#ifdef KOLMO_HAVE_CUDA
  // 549 rows: in single precision two blocks of the shortest rows' 256 and part of a third (in double, of
  // 32 rows, 17 and part of an 18th). And 800 single-precision blocks' worth (a block takes 4096 / n rows in
  // single precision, 512 / n in double, one at least), so that the staying blocks, as many as a GPU holds at
  // once, each take several groups of rows in turn (fft/RowFft.cu, fft/RowPasses.cuh).
  // The single-precision R2C of 512 reals and fewer takes the plain kernel beyond 65536 rows: 65537 rows of
  // them.
  for (long n = 16; n <= 4096; n *= 2) {
    std::vector<long> row_counts{549L, 800 * std::max(1L, 4096 / n)};
    if (n <= 512) row_counts.push_back(65537);
    for (long rows : row_counts)
      for (long kept : {n / 2 + 1, (n - 1) / 3 + 1})
        for (bool padded : {false, true}) {
          // The slab's pitches, and padded ones.
          const RowSet s{n, rows, padded ? n + 6 : n, padded ? n / 2 + 4 : n / 2 + 1, kept};
          INFO("length " << n << " rows " << rows << " kept " << kept << " pitches " << s.row_pitch_real
                         << " " << s.row_pitch_complex);
          check_rows<TestType>(gpu, s);
        }
  }
  // Lengths and sets outside the contract are refused.
  Buffer<TestType> real(gpu, 8192);
  Buffer<Complex<TestType>> modes(gpu, 8192);
  auto stream = static_cast<cudaStream_t>(gpu->stream());
  for (const RowSet& s : {RowSet{8, 1, 8, 5, 5}, RowSet{24, 1, 24, 13, 13}, RowSet{8192, 1, 8192, 4097, 1},
                          RowSet{16, 1, 16, 9, 0}, RowSet{16, 1, 16, 9, 10}, RowSet{16, 1, 17, 9, 9}})
    CHECK_THROWS_WITH(row_fft_r2c<TestType>(s, real.data(), modes.data(), modes.data(), stream),
                      Catch::Contains("row FFTs of length " + std::to_string(s.n)));
#endif
}
