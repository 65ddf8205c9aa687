// Reduced precision on the wire: double-precision spectra sent as single precision through the all-to-all.
//
// Contract: narrow(device, in, out, n) rounds n complex doubles to complex floats; widen does the reverse
// exactly. Both are asynchronous on the device's stream, in and out must not overlap.
#pragma once

#include "core/Complex.hpp"
#include "core/Device.hpp"

namespace kolmo::fft {

void narrow(Device& device, const Complex<double>* in, Complex<float>* out, long n);
void widen(Device& device, const Complex<float>* in, Complex<double>* out, long n);

}  // namespace kolmo::fft
