#include "solver/Diagnostics.hpp"

#include <mpi.h>

#include <cmath>
#include <limits>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "solver/Reductions.hpp"

namespace kolmo::solver {

namespace {

template <int M>
Sums<M> allreduce_sums(Sums<M> local, MPI_Comm comm) {
  Sums<M> global;
  KOLMO_CHECK_MPI(MPI_Allreduce(local.value, global.value, M, MPI_DOUBLE, MPI_SUM, comm));
  return global;
}

}  // namespace

template <class Real>
double inner_product(const NavierStokes<Real>& flow, const SpectralVector<Real>& a,
                     const SpectralVector<Real>& b) {
  const auto w = flow.wavenumbers();
  const auto x = a.spectral();
  const auto y = b.spectral();
  auto local = sum<1>(
      flow.device(), w.size(), KOLMO_LAMBDA(long m) {
        double value = 0;
        for (int d = 0; d < 3; ++d)
          value += double(x[d][m].re) * double(y[d][m].re) + double(x[d][m].im) * double(y[d][m].im);
        Sums<1> s;
        s[0] = double(w.parseval_weight(w.mode(m))) * value;
        return s;
      });
  return allreduce_sums(local, flow.fft().comm())[0];
}

template <class Real>
double mean_square_half(const NavierStokes<Real>& flow, const SpectralVector<Real>& field) {
  return 0.5 * inner_product(flow, field, field);
}

template <class Real>
double kinetic_energy(const NavierStokes<Real>& flow) {
  return mean_square_half(flow, flow.velocity());
}

template <class Real>
Diagnostics compute_diagnostics(const NavierStokes<Real>& flow) {
  using C = Complex<Real>;
  const auto w = flow.wavenumbers();
  const auto u = flow.velocity().spectral();
  const double nu = flow.parameters().viscosity;

  auto local = sum<2>(
      flow.device(), w.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = w.mode(m);
        const auto k = w.k(mode);
        const C ux = u[0][m], uy = u[1][m], uz = u[2][m];
        const C ox = times_i(k.y * uz - k.z * uy), oy = times_i(k.z * ux - k.x * uz),
                oz = times_i(k.x * uy - k.y * ux);
        const double half_weight = 0.5 * double(w.parseval_weight(mode));
        Sums<2> s;
        s[0] = half_weight * (double(norm2(ux)) + double(norm2(uy)) + double(norm2(uz)));
        s[1] = half_weight * (double(norm2(ox)) + double(norm2(oy)) + double(norm2(oz)));
        return s;
      });
  const auto totals = allreduce_sums(local, flow.fft().comm());

  const double local_divergence = max_of(
      flow.device(), w.size(), KOLMO_LAMBDA(long m) {
        const auto k = w.k(w.mode(m));
        const C divergence = k.x * u[0][m] + k.y * u[1][m] + k.z * u[2][m];
        return sqrt(double(norm2(divergence)));
      });
  double divergence = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local_divergence, &divergence, 1, MPI_DOUBLE, MPI_MAX, flow.fft().comm()));

  Diagnostics d;
  d.time = flow.time();
  d.step = flow.step_count();
  d.energy = totals[0];
  d.enstrophy = totals[1];
  d.dissipation = 2 * nu * d.enstrophy;
  const auto& forcing = flow.forcing();
  d.injection =
      forcing.kind() == ForcingKind::none ? 0.0 : forcing.injection(forcing.forced_energy(flow.velocity()));
  d.max_divergence = divergence;
  d.u_rms = std::sqrt(2 * d.energy / 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool turbulent_scales = nu > 0 && d.dissipation > 0;
  d.taylor_microscale = turbulent_scales ? std::sqrt(15 * nu * d.u_rms * d.u_rms / d.dissipation) : nan;
  d.re_lambda = turbulent_scales ? d.u_rms * d.taylor_microscale / nu : nan;
  d.kolmogorov_eta = turbulent_scales ? std::pow(nu * nu * nu / d.dissipation, 0.25) : nan;
  d.kmax_eta = turbulent_scales ? w.largest_kept_wavenumber() * d.kolmogorov_eta : nan;
  return d;
}

#define KOLMO_INSTANTIATE_DIAGNOSTICS(Real)                                                       \
  template Diagnostics compute_diagnostics<Real>(const NavierStokes<Real>&);                      \
  template double kinetic_energy<Real>(const NavierStokes<Real>&);                                \
  template double mean_square_half<Real>(const NavierStokes<Real>&, const SpectralVector<Real>&); \
  template double inner_product<Real>(const NavierStokes<Real>&, const SpectralVector<Real>&,     \
                                      const SpectralVector<Real>&);
KOLMO_INSTANTIATE_DIAGNOSTICS(float)
KOLMO_INSTANTIATE_DIAGNOSTICS(double)
#undef KOLMO_INSTANTIATE_DIAGNOSTICS

}  // namespace kolmo::solver
