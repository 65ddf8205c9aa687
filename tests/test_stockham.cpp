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

// One pass; its twiddles from the table of length table_n (a multiple of x's length: the row FFTs' table of
// length 2M serves their passes of length M).
template <class Real, int R>
void stockham_pass(const std::vector<Complex<Real>>& x, std::vector<Complex<Real>>& y,
                   const std::vector<Complex<Real>>& table, long table_n, long ns, int sign) {
  const long n = static_cast<long>(x.size());
  for (long j = 0; j < n / R; ++j) {
    Complex<Real> v[R];
    for (int r = 0; r < R; ++r) v[r] = x[stockham_source(j, r, n, R)];
    stockham_butterfly<R>(v, table.data(), j, table_n, ns, sign);
    for (int r = 0; r < R; ++r) y[stockham_target(j, r, ns, R)] = v[r];
  }
}

// x <- its DFT of length 2^log2n by the passes, in order as the kernels run them.
template <class Real>
void stockham_transform(int log2n, std::vector<Complex<Real>>& x, const std::vector<Complex<Real>>& table,
                        int sign) {
  std::vector<Complex<Real>> y(x.size());
  const long table_n = static_cast<long>(table.size());
  long ns = 1;
  for (int p = 0; p < stockham_passes(log2n); ++p) {
    const int radix = stockham_radix(log2n, p);
    if (radix == 8) stockham_pass<Real, 8>(x, y, table, table_n, ns, sign);
    if (radix == 4) stockham_pass<Real, 4>(x, y, table, table_n, ns, sign);
    if (radix == 2) stockham_pass<Real, 2>(x, y, table, table_n, ns, sign);
    ns *= radix;
    x.swap(y);
  }
  REQUIRE(ns == 1L << log2n);
}

// The transform by the passes; the largest error against the direct sum, relative to the largest value.
template <class Real>
double stockham_error(int log2n, int sign) {
  const long n = 1L << log2n;
  std::vector<Complex<Real>> x(n);
  for (long e = 0; e < n; ++e)
    x[e] = Complex<Real>(Real(kolmo::testing::random_value(e, 1, log2n)),
                         Real(kolmo::testing::random_value(e, 2, log2n)));
  const std::vector<Complex<Real>> input = x;
  stockham_transform(log2n, x, stockham_twiddles<Real>(n), sign);
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

// exp(2 pi i q / n), q < n, in long double: the direct sums' factors.
std::vector<std::complex<long double>> unit_roots(long n) {
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<std::complex<long double>> roots(n);
  for (long q = 0; q < n; ++q) roots[q] = std::polar(1.0L, 2 * pi * static_cast<long double>(q) / n);
  return roots;
}

// The forward real transform of length n = 2^log2n as the row FFT kernels compute it (the pairs of the row
// through the passes of length n/2, then real_forward_pair for k <= n/4); the largest error of the modes
// k < kept against the direct sum, relative to the largest of them.
template <class Real>
double real_forward_error(int log2n, long kept) {
  const long n = 1L << log2n, m = n / 2;
  std::vector<Real> x(n);
  for (long e = 0; e < n; ++e) x[e] = Real(kolmo::testing::random_value(e, 3, log2n));
  std::vector<Complex<Real>> z(m), modes(m + 1);
  for (long e = 0; e < m; ++e) z[e] = Complex<Real>(x[2 * e], x[2 * e + 1]);
  const std::vector<Complex<Real>> table = stockham_twiddles<Real>(n);
  stockham_transform(log2n - 1, z, table, -1);
  for (long k = 0; k <= m / 2; ++k) {
    const ModePair<Real> pair = real_forward_pair(z[k], z[(m - k) % m], table[k]);
    modes[k] = pair.low;
    modes[m - k] = pair.high;
  }
  const auto roots = unit_roots(n);
  double error = 0, largest = 0;
  for (long k = 0; k < kept; ++k) {
    std::complex<long double> sum = 0;
    for (long e = 0; e < n; ++e) sum += static_cast<long double>(x[e]) * std::conj(roots[(k * e) % n]);
    error = std::max(error, double(std::abs(sum - std::complex<long double>(modes[k].re, modes[k].im))));
    largest = std::max(largest, double(std::abs(sum)));
  }
  return error / largest;
}

// The backward real transform of length n of the modes k < kept (random, those of X[0] and X[n/2] with
// imaginary parts, which count as zero) as the kernels compute it: real_backward_pair for k <= n/4, the
// passes of length n/2; the largest error against the direct sum of the Hermitian row, relative to the
// largest value.
template <class Real>
double real_backward_error(int log2n, long kept) {
  const long n = 1L << log2n, m = n / 2;
  std::vector<Complex<Real>> modes(m + 1, Complex<Real>(0, 0)), z(m);
  for (long k = 0; k < kept; ++k)
    modes[k] = Complex<Real>(Real(kolmo::testing::random_value(k, 4, log2n)),
                             Real(kolmo::testing::random_value(k, 5, log2n)));
  const std::vector<Complex<Real>> table = stockham_twiddles<Real>(n);
  for (long k = 0; k <= m / 2; ++k) {
    Complex<Real> low = modes[k], high = modes[m - k];
    if (k == 0) low.im = high.im = 0;
    const ModePair<Real> pair = real_backward_pair(low, high, table[k]);
    z[k] = pair.low;
    z[(m - k) % m] = pair.high;
  }
  stockham_transform(log2n - 1, z, table, 1);
  const auto roots = unit_roots(n);
  double error = 0, largest = 0;
  for (long e = 0; e < n; ++e) {
    // X[0] + X[m] (-1)^e + 2 Re sum_{0<k<m} X[k] exp(2 pi i k e / n), the real parts of X[0] and X[m] only.
    long double sum = static_cast<long double>(modes[0].re) + (e % 2 == 0 ? 1 : -1) * modes[m].re;
    for (long k = 1; k < m; ++k)
      sum += 2 * std::real(std::complex<long double>(modes[k].re, modes[k].im) * roots[(k * e) % n]);
    const Real value = e % 2 == 0 ? z[e / 2].re : z[e / 2].im;
    error = std::max(error, double(std::abs(sum - static_cast<long double>(value))));
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

TEMPLATE_TEST_CASE("the row FFTs' pairing gives the real DFT of every length from 16 to 4096 both ways",
                   "[fft]", float, double) {
  const double epsilon = std::is_same_v<TestType, double> ? 1.1e-16 : 6e-8;
  for (int log2n = kStockhamMinLog2 + 1; log2n <= kStockhamMaxLog2 + 1; ++log2n) {
    const long n = 1L << log2n;
    // All modes, the 2/3 rule's (n - 1) / 3 + 1, and one.
    for (long kept : {n / 2 + 1, (n - 1) / 3 + 1, 1L}) {
      INFO("length " << n << " kept " << kept);
      CHECK(real_forward_error<TestType>(log2n, kept) < 4 * epsilon * log2n);
      CHECK(real_backward_error<TestType>(log2n, kept) < 4 * epsilon * log2n);
    }
  }
}
