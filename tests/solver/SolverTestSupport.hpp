// Helpers for the solver tests: a flow on the host backend over MPI_COMM_WORLD, field comparisons reduced
// over ranks, and tolerances by precision.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>
#include <type_traits>
#include <vector>

#include "fft/SlabFFT.hpp"
#include "solver/NavierStokes.hpp"

namespace kolmo::testing {

// A SlabFFT and a NavierStokes on it (the FFT outlives the flow).
template <class Real>
struct Flow {
  std::unique_ptr<fft::SlabFFT<Real>> fft;
  std::unique_ptr<solver::NavierStokes<Real>> ns;
  solver::NavierStokes<Real>& operator*() { return *ns; }
  solver::NavierStokes<Real>* operator->() { return ns.get(); }
};

// On the host unless a device is given.
template <class Real>
Flow<Real> make_flow(std::array<long, 3> n, const solver::FlowParameters& parameters,
                     MPI_Comm comm = MPI_COMM_WORLD, std::shared_ptr<Device> device = nullptr,
                     fft::FftOptions options = {}) {
  Flow<Real> flow;
  flow.fft =
      std::make_unique<fft::SlabFFT<Real>>(n, comm, device ? device : Device::create(Backend::host), options);
  flow.ns = std::make_unique<solver::NavierStokes<Real>>(*flow.fft, parameters);
  return flow;
}

// The local spectral coefficients of a vector field, copied to the host: [component][mode].
template <class Real>
std::array<std::vector<Complex<Real>>, 3> host_copy(const solver::NavierStokes<Real>& flow,
                                                    const solver::SpectralVector<Real>& field) {
  std::array<std::vector<Complex<Real>>, 3> out;
  const auto size = static_cast<std::size_t>(flow.wavenumbers().size());
  for (int d = 0; d < 3; ++d) {
    out[d].resize(size);
    flow.device().copy_to_host(out[d].data(), field.spectral(d), size * sizeof(Complex<Real>));
  }
  return out;
}

// max over modes and ranks of |a - b| for host copies of two spectral fields.
template <class Real>
double max_difference(const std::array<std::vector<Complex<Real>>, 3>& a,
                      const std::array<std::vector<Complex<Real>>, 3>& b, MPI_Comm comm = MPI_COMM_WORLD);

// max over modes and ranks of |a|.
template <class Real>
double max_magnitude(const std::array<std::vector<Complex<Real>>, 3>& a, MPI_Comm comm = MPI_COMM_WORLD);

// Round-off scale for tests templated over precision.
template <class Real>
constexpr double round_off() {
  return std::is_same_v<Real, double> ? 1e-13 : 1e-5;
}

}  // namespace kolmo::testing
