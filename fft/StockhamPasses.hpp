// The arithmetic of kolmo's own column FFTs (fft/ColumnFft.cu): the passes of a Stockham autosort FFT of a
// power-of-two length, host and device alike, so that the host tests check the very code the kernels run.
//
// Contract (N = 2^m, 8 <= N <= 2048; sign -1 computes sum_n x_n exp(-2 pi i k n / N), sign +1 exp(+...)):
// - The passes have the radices of stockham_radix(m, p), p < stockham_passes(m): radix 8 while at least 8 of
//   the length remains, then one pass of radix 2 or 4 (512 = 8 8 8, 1024 = 8 8 8 2, 256 = 8 8 4). Before pass
//   p the sub-transforms have length Ns = 8^p.
// - Pass p of radix R takes x to y: butterfly j (0 <= j < N/R) reads x[j + r N/R] (r < R), multiplies the
//   r-th value by w^(r k), k = j mod Ns, w = exp(sign 2 pi i / (Ns R)), does an R-point DFT (dft<R>; the two
//   steps: stockham_butterfly) and writes value r to y[(j / Ns) Ns R + k + r Ns] (stockham_source,
//   stockham_target). After the last pass y holds the DFT in natural order: no bit reversal (Van Loan,
//   Computational Frameworks for the FFT, 1992, section 1.7; the GPU formulation of Govindaraju et al., SC
//   2008).
// - The twiddles come from a table of N values, table[q] = exp(-2 pi i q / N) computed in double precision
//   (stockham_twiddle: w^(r k) at index r k N / (Ns R), conjugated for sign +1), for r = 1, 2 and 4; the
//   others are their products (r = 3 as 1 + 2, 5 as 1 + 4, 6 as 2 + 4, 7 as 3 + 4), one or two roundings
//   from the exact values, within the rounding the passes make anyway.
// - Real transforms of length N = 2M (kolmo's row FFTs, fft/RowFft.hpp) are complex transforms of length M
//   of the pairs z_n = x_2n + i x_2n+1 with a pass before (backward) or after (forward) that pairs mode k
//   with M - k (real_forward_pair, real_backward_pair; Numerical Recipes, 3rd ed., section 12.3.2). Their
//   twiddle is table[k] of the table of length N, whose even entries are the table of length M: the passes
//   of length M read it by calling stockham_twiddle with n = N.
#pragma once

#include <cmath>
#include <vector>

#include "core/Complex.hpp"
#include "core/HostDevice.hpp"

namespace kolmo::fft {

constexpr int kStockhamMinLog2 = 3, kStockhamMaxLog2 = 11;

KOLMO_HD constexpr int stockham_passes(int log2n) {
  return log2n / 3 + (log2n % 3 != 0 ? 1 : 0);
}
KOLMO_HD constexpr int stockham_radix(int log2n, int pass) {
  return pass < log2n / 3 ? 8 : 1 << (log2n % 3);
}

// a times (sign i).
template <class Real>
KOLMO_HD inline Complex<Real> times_i(Complex<Real> a, int sign) {
  return sign > 0 ? Complex<Real>(-a.im, a.re) : Complex<Real>(a.im, -a.re);
}

// In place: v[k] <- sum_r v[r] exp(sign 2 pi i r k / R), R = 2, 4 or 8.
template <int R, class Real>
KOLMO_HD inline void dft(Complex<Real>* v, int sign) {
  if constexpr (R == 2) {
    const Complex<Real> a = v[0], b = v[1];
    v[0] = a + b;
    v[1] = a - b;
  } else if constexpr (R == 4) {
    const Complex<Real> t0 = v[0] + v[2], t1 = v[0] - v[2], t2 = v[1] + v[3];
    const Complex<Real> t3 = times_i(v[1] - v[3], sign);
    v[0] = t0 + t2;
    v[2] = t0 - t2;
    v[1] = t1 + t3;
    v[3] = t1 - t3;
  } else {
    static_assert(R == 8, "radix 2, 4 or 8");
    Complex<Real> even[4] = {v[0], v[2], v[4], v[6]}, odd[4] = {v[1], v[3], v[5], v[7]};
    dft<4>(even, sign);
    dft<4>(odd, sign);
    // odd[k] times exp(sign 2 pi i k / 8): 1, (1 + sign i)/sqrt 2, sign i, (-1 + sign i)/sqrt 2.
    const Real h = Real(0.70710678118654752440);
    const Complex<Real> o1 = h * (odd[1] + times_i(odd[1], sign));
    const Complex<Real> o2 = times_i(odd[2], sign);
    const Complex<Real> o3 = h * (times_i(odd[3], sign) - odd[3]);
    v[0] = even[0] + odd[0];
    v[4] = even[0] - odd[0];
    v[1] = even[1] + o1;
    v[5] = even[1] - o1;
    v[2] = even[2] + o2;
    v[6] = even[2] - o2;
    v[3] = even[3] + o3;
    v[7] = even[3] - o3;
  }
}

// Where butterfly j of a pass of radix R over length N reads its r-th value, and where it writes it (Ns:
// the length of the sub-transforms before the pass).
KOLMO_HD constexpr long stockham_source(long j, int r, long n, int radix) {
  return j + r * (n / radix);
}
KOLMO_HD constexpr long stockham_target(long j, int r, long ns, int radix) {
  return (j / ns) * ns * radix + j % ns + r * ns;
}

// f(j, r, i) for each of a thread's values in a pass of radix R (the kernels of fft/ColumnFft.cu and
// fft/RowFft.cu): butterfly j = t + b T (b < B), its r-th
// value, v[i], i = b R + r.
template <int B, int R, int T, class F>
KOLMO_HD inline void each_value(int t, F f) {
  KOLMO_UNROLL
  for (int b = 0; b < B; ++b) {
    KOLMO_UNROLL
    for (int r = 0; r < R; ++r) f(long(t + b * T), r, b * R + r);
  }
}

// w^(r k) of butterfly j's r-th value, from the table of exp(-2 pi i q / N).
template <class Real>
KOLMO_HD inline Complex<Real> stockham_twiddle(const Complex<Real>* table, long j, int r, long n, long ns,
                                               int radix, int sign) {
  const Complex<Real> w = table[r * (j % ns) * (n / (ns * radix))];
  return sign < 0 ? w : Complex<Real>(w.re, -w.im);
}

// Butterfly j of a pass of radix R over sub-transforms of length ns: its R values v (as gathered) times their
// twiddles, then their R-point DFT, in place. The twiddles of r = 1, 2 and 4 come from the table of length
// n, the others are their products. Why: the GPU passes appear bound by what goes through a multiprocessor's
// L1 and shared memory. With 3 loads a radix-8 butterfly instead of 7, a copy of the 512-point
// single-precision column kernel ran 3.6 % faster over 512 planes and 5.6 % over 64 on an H100, no less
// accurate against direct sums, and the dealiased 512^3 pair on one H100 0.7-0.9 % faster
// (docs/results/small_kernels_h100.log, section 18).
template <int R, class Real>
KOLMO_HD inline void stockham_butterfly(Complex<Real>* v, const Complex<Real>* table, long j, long n, long ns,
                                        int sign) {
  if (ns > 1) {
    const Complex<Real> w1 = stockham_twiddle(table, j, 1, n, ns, R, sign);
    if constexpr (R == 2) {
      v[1] = v[1] * w1;
    } else {
      const Complex<Real> w2 = stockham_twiddle(table, j, 2, n, ns, R, sign), w3 = w1 * w2;
      v[1] = v[1] * w1;
      v[2] = v[2] * w2;
      v[3] = v[3] * w3;
      if constexpr (R == 8) {
        const Complex<Real> w4 = stockham_twiddle(table, j, 4, n, ns, R, sign);
        v[4] = v[4] * w4;
        v[5] = v[5] * (w1 * w4);
        v[6] = v[6] * (w2 * w4);
        v[7] = v[7] * (w3 * w4);
      }
    }
  }
  dft<R>(v, sign);
}

// The table: exp(-2 pi i q / n), q < n, computed in double precision (host).
template <class Real>
std::vector<Complex<Real>> stockham_twiddles(long n) {
  std::vector<Complex<Real>> table(n);
  const double pi = 3.14159265358979323846;
  for (long q = 0; q < n; ++q)
    table[q] = Complex<Real>(Real(std::cos(2 * pi * q / n)), Real(-std::sin(2 * pi * q / n)));
  return table;
}

// Two modes of a real transform of length 2m, forward (exp(-...)), unnormalised: from Z = the DFT of length m
// of z_n = x_2n + i x_2n+1, X[k] and X[m - k] out of Z[k] and Z[(m - k) mod m], 0 <= k <= m / 2, with
// w = table[k] = exp(-2 pi i k / 2m). (k = 0 gives X[0] and X[m]; k = m / 2 gives X[m / 2] twice.)
template <class Real>
struct ModePair {
  Complex<Real> low, high;  // at k and m - k
};
template <class Real>
KOLMO_HD inline ModePair<Real> real_forward_pair(Complex<Real> z_k, Complex<Real> z_m_minus_k,
                                                 Complex<Real> w) {
  // X[k] = E + w O with E = (Z[k] + conj Z[m-k]) / 2 the transform of the even x, O = (Z[k] - conj Z[m-k]) /
  // 2i of the odd ones; X[m - k] = conj(E - w O).
  const Complex<Real> a = z_k, b = conj(z_m_minus_k);
  const Complex<Real> even = Real(0.5) * (a + b), odd = w * (Real(0.5) * times_i(a - b, -1));
  return {even + odd, conj(even - odd)};
}

// The inverse, unnormalised (exp(+...)), so that the complex transform of length m that follows gives
// 2m z_n: 2 Z[k] and 2 Z[m - k] out of X[k] and X[m - k], 0 < k <= m / 2, w = table[k]. For k = 0 pass
// X[0] and X[m] with their imaginary parts dropped (a real row has none; cuFFT and FFTW ignore them): both
// results are then 2 Z[0].
template <class Real>
KOLMO_HD inline ModePair<Real> real_backward_pair(Complex<Real> x_k, Complex<Real> x_m_minus_k,
                                                  Complex<Real> w) {
  // 2 E = X[k] + conj X[m-k], 2 O = conj(w) (X[k] - conj X[m-k]); 2 Z[k] = 2 E + 2 i O, 2 Z[m-k] = conj(2E -
  // 2iO).
  const Complex<Real> a = x_k, b = conj(x_m_minus_k);
  const Complex<Real> even = a + b, odd = times_i(conj(w) * (a - b), 1);
  return {even + odd, conj(even - odd)};
}

}  // namespace kolmo::fft
