// Compiled by nvcc when CUDA is on (its kernels run on either backend).
#include "fft/WireFormat.hpp"

#include "core/ParallelFor.hpp"

namespace kolmo::fft {

void narrow(Device& device, const Complex<double>* in, Complex<float>* out, long n) {
  parallel_for(
      device, n, KOLMO_LAMBDA(long i) { out[i] = Complex<float>(float(in[i].re), float(in[i].im)); });
}

void widen(Device& device, const Complex<float>* in, Complex<double>* out, long n) {
  parallel_for(
      device, n, KOLMO_LAMBDA(long i) { out[i] = Complex<double>(in[i].re, in[i].im); });
}

}  // namespace kolmo::fft
