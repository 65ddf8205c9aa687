// The FFTs one rank does on its own memory, the backend-specific half of SlabFFT.
//
// Contract: made once for a layout (plans, and for cuFFT one shared work area); all calls are out of place
// and asynchronous on the device's stream. Unnormalised: forward uses exp(-i k x), backward exp(+i k x).
// - forward_planes: real slab [x][y][z] -> [x][y][kz] (2D R2C on each yz plane). Leaves its input intact.
// - backward_planes: [x][y][kz] -> [x][y][z] (2D C2R). Overwrites its input.
// - forward_x / backward_x: 1D C2C along kx on the spectral slab [kx][ky][kz]. Leave their input intact.
// - forward_x_kept / backward_x_kept: the same on the compact slab [kx][kept ky][kept kz] of dealiased
//   transforms; in place (in == out) or out of place.
#pragma once

#include <cstddef>
#include <memory>

#include "core/Complex.hpp"
#include "core/Device.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

template <class Real>
class LocalTransforms {
 public:
  using C = Complex<Real>;
  virtual ~LocalTransforms() = default;
  virtual void forward_planes(const Real* in, C* out) = 0;
  virtual void backward_planes(C* in, Real* out) = 0;
  virtual void forward_x(const C* in, C* out) = 0;
  virtual void backward_x(const C* in, C* out) = 0;
  virtual void forward_x_kept(const C* in, C* out) = 0;
  virtual void backward_x_kept(const C* in, C* out) = 0;
  // Bytes of library work space these transforms hold (0 for FFTW, the shared cuFFT work area for CUDA).
  virtual std::size_t work_bytes() const = 0;
};

template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_host_transforms(const SlabLayout& layout);
template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_cuda_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device);

}  // namespace kolmo::fft
