// The device memory of one field of the solver: one buffer per component (1 for a scalar, 3 for a vector
// field), each large enough for a spectral slab or a real slab of the SlabFFT (layout().alloc_complex()
// complex values), so that every component can be transformed in place. (Two components: the divergence
// form's last two stress components, NavierStokes.hpp.)
//
// Contract: spectral(d) and real(d) are two views of the same memory of component d (0 = x, 1 = y, 2 = z for
// a vector field; 0 for a scalar); which one is meaningful depends on what was last written. Contents are
// uninitialised after construction. A default-constructed field has no components and holds no memory (the
// accumulator of an integrator that needs none). vector_spectral() and vector_real() give the three
// component pointers of a vector field as one plain value for kernels.
#pragma once

#include <cstddef>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "core/Error.hpp"
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
class SpectralField {
 public:
  using C = Complex<Real>;

  SpectralField() = default;
  SpectralField(const fft::SlabFFT<Real>& fft, int components) {
    KOLMO_REQUIRE(components >= 1 && components <= 3, "internal: a field has 1 to 3 components");
    for (int d = 0; d < components; ++d) components_.push_back(fft.make_spectral());
  }

  int components() const { return static_cast<int>(components_.size()); }
  bool empty() const { return components_.empty(); }

  C* spectral(int d = 0) { return components_[d].data(); }
  const C* spectral(int d = 0) const { return components_[d].data(); }
  Real* real(int d = 0) { return reinterpret_cast<Real*>(components_[d].data()); }
  const Real* real(int d = 0) const { return reinterpret_cast<const Real*>(components_[d].data()); }
  Buffer<C>& buffer(int d = 0) { return components_[d]; }
  const Buffer<C>& buffer(int d = 0) const { return components_[d]; }

  // A vector field's components (requires three).
  Components<C> vector_spectral() { return {{spectral(0), spectral(vector(1)), spectral(2)}}; }
  Components<const C> vector_spectral() const { return {{spectral(0), spectral(vector(1)), spectral(2)}}; }
  Components<Real> vector_real() { return {{real(0), real(vector(1)), real(2)}}; }
  Components<const Real> vector_real() const { return {{real(0), real(vector(1)), real(2)}}; }

  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& c : components_) total += c.bytes();
    return total;
  }
  void fill_zero() {
    for (auto& c : components_) c.fill_zero();
  }

 private:
  int vector(int d) const {
    KOLMO_REQUIRE(components() == 3, "internal: a scalar field used as a vector field");
    return d;
  }
  std::vector<Buffer<C>> components_;
};

}  // namespace kolmo::solver
