// Three device buffers, one per vector component, each large enough for a spectral slab or a real slab of the
// SlabFFT (layout().alloc_complex() complex values), so one field can be transformed in place.
//
// Contract: spectral(d) and real(d) are two views of the same memory of component d (0 = x, 1 = y, 2 = z);
// which one is meaningful depends on what was last written. Contents are uninitialised after construction.
#pragma once

#include <array>
#include <cstddef>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "core/HostDevice.hpp"
#include "fft/SlabFFT.hpp"

namespace kolmo::solver {

// The three component pointers of a vector field, a plain value for kernels to capture.
template <class T>
struct Components {
  T* c[3];
  KOLMO_HD T* operator[](int d) const { return c[d]; }
};

template <class Real>
class SpectralVector {
 public:
  using C = Complex<Real>;

  SpectralVector() = default;
  explicit SpectralVector(const fft::SlabFFT<Real>& fft)
      : components_{fft.make_spectral(), fft.make_spectral(), fft.make_spectral()} {}

  C* spectral(int d) { return components_[d].data(); }
  const C* spectral(int d) const { return components_[d].data(); }
  Real* real(int d) { return reinterpret_cast<Real*>(components_[d].data()); }
  const Real* real(int d) const { return reinterpret_cast<const Real*>(components_[d].data()); }
  Components<C> spectral() { return {{spectral(0), spectral(1), spectral(2)}}; }
  Components<const C> spectral() const { return {{spectral(0), spectral(1), spectral(2)}}; }
  Components<Real> real() { return {{real(0), real(1), real(2)}}; }
  Components<const Real> real() const { return {{real(0), real(1), real(2)}}; }
  Buffer<C>& buffer(int d) { return components_[d]; }
  const Buffer<C>& buffer(int d) const { return components_[d]; }

  std::size_t bytes() const {
    return components_[0].bytes() + components_[1].bytes() + components_[2].bytes();
  }
  void copy_from(const SpectralVector& other) {
    for (int d = 0; d < 3; ++d) components_[d].copy_from(other.components_[d]);
  }
  void fill_zero() {
    for (auto& c : components_) c.fill_zero();
  }

 private:
  std::array<Buffer<C>, 3> components_;
};

}  // namespace kolmo::solver
