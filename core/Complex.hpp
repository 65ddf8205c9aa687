// A complex number usable in host code and in CUDA kernels alike.
//
// Contract: Complex<Real> is two Reals, real part first, with the size and alignment of fftw_complex /
// fftwf_complex and cufftDoubleComplex / cufftComplex, so buffers are passed to FFTW and cuFFT by a
// reinterpret_cast. std::complex is not usable in device code, hence this type.
#pragma once

#include "HostDevice.hpp"

namespace kolmo {

template <class Real>
struct alignas(2 * sizeof(Real)) Complex {
  Real re;
  Real im;

  KOLMO_HD Complex() = default;
  KOLMO_HD constexpr Complex(Real r, Real i = Real(0)) : re(r), im(i) {}

  KOLMO_HD Complex& operator+=(Complex b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  KOLMO_HD Complex& operator-=(Complex b) {
    re -= b.re;
    im -= b.im;
    return *this;
  }
  KOLMO_HD Complex& operator*=(Real s) {
    re *= s;
    im *= s;
    return *this;
  }
};

template <class Real>
KOLMO_HD inline Complex<Real> operator+(Complex<Real> a, Complex<Real> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class Real>
KOLMO_HD inline Complex<Real> operator-(Complex<Real> a, Complex<Real> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class Real>
KOLMO_HD inline Complex<Real> operator-(Complex<Real> a) {
  return {-a.re, -a.im};
}
template <class Real>
KOLMO_HD inline Complex<Real> operator*(Complex<Real> a, Complex<Real> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class Real>
KOLMO_HD inline Complex<Real> operator*(Real s, Complex<Real> a) {
  return {s * a.re, s * a.im};
}
template <class Real>
KOLMO_HD inline Complex<Real> operator*(Complex<Real> a, Real s) {
  return {s * a.re, s * a.im};
}
template <class Real>
KOLMO_HD inline Complex<Real> conj(Complex<Real> a) {
  return {a.re, -a.im};
}
template <class Real>
KOLMO_HD inline Real norm2(Complex<Real> a) {  // |a|^2
  return a.re * a.re + a.im * a.im;
}
// Re(a^* b) and |a|^2 formed in double, for sums of energies and fluxes: a single-precision mode of 1e-30
// has a square (1e-60) that float cannot hold.
template <class Real>
KOLMO_HD inline double real_product_in_double(Complex<Real> a, Complex<Real> b) {
  return double(a.re) * double(b.re) + double(a.im) * double(b.im);
}
template <class Real>
KOLMO_HD inline double norm2_in_double(Complex<Real> a) {
  return real_product_in_double(a, a);
}
// i * a, the spectral derivative's factor without a multiply.
template <class Real>
KOLMO_HD inline Complex<Real> times_i(Complex<Real> a) {
  return {-a.im, a.re};
}

}  // namespace kolmo
