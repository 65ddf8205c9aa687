// Helpers for the solver tests: a flow on the host backend over MPI_COMM_WORLD, field comparisons reduced
// over ranks, and tolerances by precision.
#pragma once

#include <mpi.h>

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "fft/SlabFFT.hpp"
#include "solver/NavierStokes.hpp"
#include "tests/TestSupport.hpp"

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

// The local spectral coefficients of a field, copied to the host: [component][mode].
template <class Real>
using HostField = std::vector<std::vector<Complex<Real>>>;

template <class Real>
HostField<Real> host_copy(const solver::NavierStokes<Real>& flow, const solver::SpectralField<Real>& field) {
  HostField<Real> out(field.components());
  const auto size = static_cast<std::size_t>(flow.wavenumbers().size());
  for (int d = 0; d < field.components(); ++d) {
    out[d].resize(size);
    flow.device().copy_to_host(out[d].data(), field.spectral(d), size * sizeof(Complex<Real>));
  }
  return out;
}

// The modes of the spectral slab `flow` holds, picked out of a one-rank field `whole` of the same grid: what
// flow's rank holds of the same field.
template <class Real>
HostField<Real> rank_part_of(const solver::NavierStokes<Real>& flow, const HostField<Real>& whole) {
  const auto& w = flow.wavenumbers();
  HostField<Real> part(whole.size());
  for (std::size_t d = 0; d < whole.size(); ++d) {
    part[d].resize(static_cast<std::size_t>(w.size()));
    for (long i = 0; i < w.nx; ++i)
      for (long j = 0; j < w.y_count; ++j)
        for (long k = 0; k < w.nzc; ++k)
          part[d][(i * w.y_count + j) * w.nzc + k] = whole[d][(i * w.ny + w.y_offset + j) * w.nzc + k];
  }
  return part;
}

// This rank's real slab of f(x, y, z) at the grid points, x = i Lx / Nx etc. (physical coordinates).
template <class Real, class F>
std::vector<Real> slab_of(const solver::NavierStokes<Real>& flow, F f) {
  const auto& points = flow.points();
  std::vector<Real> slab(flow.real_size());
  for (long p = 0; p < points.size(); ++p) {
    const solver::Mode g = points.index(p);
    slab[p] = Real(f(g.x * points.dx, g.y * points.dy, g.z * points.dz));
  }
  return slab;
}

// max over modes and ranks of |a - b| for host copies of two spectral fields of as many components.
template <class Real>
double max_difference(const HostField<Real>& a, const HostField<Real>& b, MPI_Comm comm = MPI_COMM_WORLD);

// max over modes and ranks of |a|.
template <class Real>
double max_magnitude(const HostField<Real>& a, MPI_Comm comm = MPI_COMM_WORLD);

// max over points and ranks of |a - b| / max |b|, for two real slabs of one field.
template <class Real>
double max_relative(const std::vector<Real>& a, const std::vector<Real>& b, MPI_Comm comm = MPI_COMM_WORLD) {
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = worse(difference, std::fabs(double(a[i]) - double(b[i])));
    scale = worse(scale, std::fabs(double(b[i])));
  }
  return global_max(difference, comm) / std::fmax(global_max(scale, comm), 1e-300);
}

// An invariant's relative drift over a fixed time, as a function of the integrator and the number of steps,
// must fall at least at the integrator's order (within 0.3) from 8 to 16 steps or from 16 to 32, and stay
// below rk4_bound with rk4 at 16 steps. Checks with Catch. Two halvings, not one: a drift is signed, and its
// leading terms of orders p and p + 1 can nearly cancel at one step (the rate into that step looks high, the
// rate out of it low), or a random field's p + 1 term still weigh at the coarser step (ideal MHD, rk4: the
// magnetic helicity's drift fell at 2.6, 3.5, 3.8 from 4 to 8, 16 and 32 steps; its cross helicity's at 5.96
// from 8 to 16 and 2.2 from 16 to 32). An integrator one order short falls short at both.
void check_drift_falls_at_order(const std::function<double(solver::Integrator, int)>& drift,
                                double rk4_bound);

// A budget's residual: the rate of a quantity by a centred difference over two steps of h, less the
// diagnostics' sources and sinks at the middle step. Exact sources leave only the centred difference's error,
// h^2/6 times the third time derivative (the integrators' own is of higher order), so the residual must fall
// four-fold (within 10 %) from h to h/2 and from h/2 to h/4; a budget short of a term, or a factor off in
// one, leaves a residual that stops falling. Checks with Catch.
void check_budget_closes(const std::function<double(double h)>& residual, double h);

// The message of the kolmo::Error that action throws; empty when it throws none.
std::string error_message(const std::function<void()>& action);

// Vectors of the wave tests (test_waves.cpp, test_mhd.cpp): three doubles and their algebra.
using Vec = std::array<double, 3>;
inline double dot(const Vec& a, const Vec& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline Vec scaled(const Vec& a, double s) {
  return {s * a[0], s * a[1], s * a[2]};
}
inline Vec unit(const Vec& a) {
  return scaled(a, 1 / std::sqrt(dot(a, a)));
}

// The largest coefficient of a field outside the modes +-wave (only +wave is stored: k_z > 0), over the
// ranks of comm.
double outside_the_mode(const solver::NavierStokes<double>& flow, const HostField<double>& field,
                        const Vec& wave, MPI_Comm comm);

// The integrators of the wave tests, each with its order and the coarse run's omega dt.
struct OrderCase {
  solver::Integrator integrator;
  double order;
  double coarse_step;
};
inline constexpr OrderCase kOrderCases[] = {{solver::Integrator::rk2, 2, 0.1},
                                            {solver::Integrator::rk3, 3, 0.2},
                                            {solver::Integrator::rk4, 4, 0.2},
                                            {solver::Integrator::lsrk3, 3, 0.2},
                                            {solver::Integrator::lsrk4, 4, 0.2}};

// The parameters of an MHD flow: viscosity nu, resistivity eta, background field B0, no forcing.
inline solver::FlowParameters mhd_parameters(double nu, double eta,
                                             std::array<double, 3> background = {0, 0, 0},
                                             solver::Integrator integrator = solver::Integrator::rk4) {
  solver::FlowParameters p;
  p.viscosity = nu;
  p.integrator = integrator;
  p.magnetic.enabled = true;
  p.magnetic.resistivity = eta;
  p.magnetic.background = background;
  return p;
}

// Round-off scale for tests templated over precision.
template <class Real>
constexpr double round_off() {
  return std::is_same_v<Real, double> ? 1e-13 : 1e-5;
}

}  // namespace kolmo::testing
