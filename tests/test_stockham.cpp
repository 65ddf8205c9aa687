// The arithmetic of kolmo's own column FFTs (fft/StockhamPasses.hpp), which the GPU kernels run: its passes,
// applied in order as the kernels do, give the DFT of every supported length in both directions, against a
// direct sum in long double.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <vector>

#include "fft/StockhamPasses.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;

namespace {

template <class Real, int R>
void stockham_pass(const std::vector<Complex<Real>>& x, std::vector<Complex<Real>>& y,
                   const std::vector<Complex<Real>>& table, long ns, int sign) {
  const long n = static_cast<long>(x.size());
  for (long j = 0; j < n / R; ++j) {
    Complex<Real> v[R];
    for (int r = 0; r < R; ++r) {
      v[r] = x[stockham_source(j, r, n, R)];
      if (r > 0) v[r] = v[r] * stockham_twiddle(table.data(), j, r, n, ns, R, sign);
    }
    dft<R>(v, sign);
    for (int r = 0; r < R; ++r) y[stockham_target(j, r, ns, R)] = v[r];
  }
}

// The transform by the passes; the largest error against the direct sum, relative to the largest value.
template <class Real>
double stockham_error(int log2n, int sign) {
  const long n = 1L << log2n;
  std::vector<Complex<Real>> x(n), y(n);
  for (long e = 0; e < n; ++e)
    x[e] = Complex<Real>(Real(kolmo::testing::random_value(e, 1, log2n)),
                         Real(kolmo::testing::random_value(e, 2, log2n)));
  const std::vector<Complex<Real>> input = x, table = stockham_twiddles<Real>(n);
  long ns = 1;
  for (int p = 0; p < stockham_passes(log2n); ++p) {
    const int radix = stockham_radix(log2n, p);
    if (radix == 8) stockham_pass<Real, 8>(x, y, table, ns, sign);
    if (radix == 4) stockham_pass<Real, 4>(x, y, table, ns, sign);
    if (radix == 2) stockham_pass<Real, 2>(x, y, table, ns, sign);
    ns *= radix;
    x.swap(y);
  }
  REQUIRE(ns == n);
  double error = 0, largest = 0;
  const long double pi = 3.141592653589793238462643383279502884L;
  for (long k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    for (long e = 0; e < n; ++e)
      sum += std::complex<long double>(input[e].re, input[e].im) *
             std::polar(1.0L, sign * 2 * pi * static_cast<long double>((k * e) % n) / n);
    error = std::max(error, double(std::abs(sum - std::complex<long double>(x[k].re, x[k].im))));
    largest = std::max(largest, double(std::abs(sum)));
  }
  return error / largest;
}

}  // namespace

TEMPLATE_TEST_CASE("the Stockham passes of the column FFTs give the DFT of every length from 8 to 2048",
                   "[fft]", float, double) {
  const double epsilon = std::is_same_v<TestType, double> ? 1.1e-16 : 6e-8;
  for (int log2n = kStockhamMinLog2; log2n <= kStockhamMaxLog2; ++log2n)
    for (int sign : {-1, 1}) {
      INFO("length " << (1L << log2n) << " sign " << sign);
      // Rounding grows like log n for an FFT; 4 eps log2 n leaves room for the table's rounding.
      CHECK(stockham_error<TestType>(log2n, sign) < 4 * epsilon * log2n);
    }
}

TEST_CASE("the column FFTs' radices multiply to the length", "[fft]") {
  for (int log2n = kStockhamMinLog2; log2n <= kStockhamMaxLog2; ++log2n) {
    long product = 1;
    for (int p = 0; p < stockham_passes(log2n); ++p) {
      const int radix = stockham_radix(log2n, p);
      CHECK((radix == 2 || radix == 4 || radix == 8));
      CHECK((radix == 8 || p + 1 == stockham_passes(log2n)));  // radix 8 but for the last pass
      product *= radix;
    }
    CHECK(product == 1L << log2n);
  }
}
