// Spectral solver for lap phi - lambda phi = f in the periodic box (lambda >= 0), on either backend.
//
// Contract:
// - Inputs and outputs are real-space slabs of the SlabFFT's layout ([x][y][z], z fastest, real_size()
//   values), either device pointers into buffers from fft.make_real() (they must hold 2 alloc_complex()
//   reals, the transform uses them whole; f may equal phi) or host vectors of real_size() values.
// - phi^(k) = -f^(k) / (|k|^2 + lambda), exact for every mode the grid holds (no dealiasing: the problem is
//   linear). For lambda = 0 the k = 0 mode has no solution unless <f> = 0: a right-hand side whose mean
//   exceeds 1000 machine epsilons of its rms is refused with a kolmo::Error naming the mean, on every rank;
//   otherwise phi has zero mean. For lambda > 0, <phi> = -<f> / lambda.
// - gradient(...) returns grad phi of the last solution (spectral derivative; the Nyquist mode of the
//   differentiated direction, whose derivative is not a real field, is dropped).
// - Memory: two spectral slabs (the solution's coefficients and a work slab) plus the FFT's workspace.
// - Collective over the FFT's communicator.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "core/Buffer.hpp"
#include "fft/SlabFFT.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

template <class Real>
class Poisson {
 public:
  using C = Complex<Real>;

  explicit Poisson(fft::SlabFFT<Real>& fft, const Box& box = Box{});

  void solve(const Real* f, Real* phi, double lambda = 0);
  void solve(const std::vector<Real>& f, std::vector<Real>& phi, double lambda = 0);

  void gradient(Real* phi_x, Real* phi_y, Real* phi_z);
  void gradient(std::vector<Real>& phi_x, std::vector<Real>& phi_y, std::vector<Real>& phi_z);

  std::size_t bytes_held() const { return solution_.bytes() + work_.bytes() + fft_.workspace_bytes(); }

  // The largest |mean| of a right-hand side that counts as zero for lambda = 0: 1000 machine epsilons of its
  // rms, the round-off of summing a zero-mean field.
  static double mean_tolerance(double rms) { return 1000 * std::numeric_limits<Real>::epsilon() * rms; }

  // Implementation steps, public only because CUDA device lambdas may not live in private members.
  void check_mean(const Real* f, double lambda);
  void divide_by_symbol(double lambda);
  void differentiate(int direction);

 private:
  fft::SlabFFT<Real>& fft_;
  Wavenumbers<Real> wavenumbers_;
  Buffer<C> solution_;  // phi^ (normalised coefficients)
  Buffer<C> work_;
  bool solved_ = false;
};

extern template class Poisson<float>;
extern template class Poisson<double>;

}  // namespace kolmo::solver
