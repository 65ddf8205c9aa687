// kolmo's column FFTs (fft/ColumnFft.hpp) over more outer indices than one grid takes along y (65535): the
// launch goes in parts, and every column of both outer ranges must equal a direct DFT, every other value of
// the output stay as it was.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Device.hpp"
#include "tests/TestSupport.hpp"

#ifdef KOLMO_HAVE_CUDA
#include <cufft.h>

#include "core/Complex.hpp"
#include "fft/ColumnFft.hpp"
#include "fft/StockhamPasses.hpp"
#endif

using namespace kolmo;

TEMPLATE_TEST_CASE("GPU: column FFTs of more than 65535 outer indices equal a direct DFT", "[fft][gpu]",
                   float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("column FFTs");
  if (!gpu || kolmo::testing::world_size() > 1) return;
#ifdef KOLMO_HAVE_CUDA
  using namespace kolmo::fft;
  using C = Complex<TestType>;
  ColumnSet set;
  set.n = 8;
  set.inner = set.computed = 3;
  set.outer_stride = 3;
  set.outer_first[0] = 5;
  set.outer_count[0] = 40000;
  set.outer_first[1] = 50000;
  set.outer_count[1] = 30000;  // 70000 outer indices, o < 80000
  set.stride = 80000 * set.outer_stride;
  set.kept_below = set.kept_from = set.n;
  const long size = set.n * set.stride;
  std::vector<C> x(size);
  for (long i = 0; i < size; ++i)
    x[i] = C(TestType(testing::random_value(i, 1, 2)), TestType(testing::random_value(i, 3, 4)));
  Buffer<C> in(gpu, size), out(gpu, size), table(gpu, set.n);
  in.assign_from_host(x);
  const C mark(TestType(777), TestType(-3));
  out.assign_from_host(std::vector<C>(size, mark));
  table.assign_from_host(stockham_twiddles<TestType>(set.n));
  column_fft<TestType>(set, in.data(), out.data(), table.data(), CUFFT_FORWARD,
                       static_cast<cudaStream_t>(gpu->stream()));
  const std::vector<C> y = out.host_copy();
  std::vector<bool> column(size, false);
  double error = 0;
  for (int r = 0; r < 2; ++r)
    for (long o = set.outer_first[r]; o < set.outer_first[r] + set.outer_count[r]; ++o)
      for (long i = 0; i < set.inner; ++i) {
        const long base = o * set.outer_stride + i;
        for (long k = 0; k < set.n; ++k) {
          double re = 0, im = 0;
          for (long e = 0; e < set.n; ++e) {
            const double angle = -2 * M_PI * double(k * e) / double(set.n);
            const C v = x[base + e * set.stride];
            re += v.re * std::cos(angle) - v.im * std::sin(angle);
            im += v.re * std::sin(angle) + v.im * std::cos(angle);
          }
          const C got = y[base + k * set.stride];
          error = std::max(error, std::hypot(got.re - re, got.im - im));
          column[base + k * set.stride] = true;
        }
      }
  long touched = 0;  // values outside the columns that are not the mark
  for (long i = 0; i < size; ++i) touched += !column[i] && (y[i].re != mark.re || y[i].im != mark.im) ? 1 : 0;
  CHECK(error < 64 * std::numeric_limits<TestType>::epsilon());
  CHECK(touched == 0);
#endif
}
