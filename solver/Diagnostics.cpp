#include "solver/Diagnostics.hpp"

#include <mpi.h>

#include <cmath>
#include <limits>
#include <utility>

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
double inner_product(const NavierStokes<Real>& flow, const SpectralField<Real>& a,
                     const SpectralField<Real>& b) {
  KOLMO_REQUIRE(a.components() == b.components(), "internal: inner product of fields of different sizes");
  const auto wavenumbers = flow.wavenumbers();
  const int components = a.components();
  const Components<const Complex<Real>> x{
      {a.spectral(0), components > 1 ? a.spectral(1) : nullptr, components > 1 ? a.spectral(2) : nullptr}};
  const Components<const Complex<Real>> y{
      {b.spectral(0), components > 1 ? b.spectral(1) : nullptr, components > 1 ? b.spectral(2) : nullptr}};
  auto local = sum<1>(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        double value = 0;
        for (int d = 0; d < components; ++d) value += real_product_in_double(x[d][m], y[d][m]);
        Sums<1> s;
        s[0] = double(wavenumbers.parseval_weight(wavenumbers.mode(m))) * value;
        return s;
      });
  return allreduce_sums(local, flow.fft().comm())[0];
}

template <class Real>
double mean_square_half(const NavierStokes<Real>& flow, const SpectralField<Real>& field) {
  return 0.5 * inner_product(flow, field, field);
}

template <class Real>
double scalar_variance(const NavierStokes<Real>& flow, int scalar) {
  return 2 * mean_square_half(flow, flow.scalar(scalar));
}

template <class Real>
double kinetic_energy(const NavierStokes<Real>& flow) {
  return mean_square_half(flow, flow.velocity());
}

template <class Real>
std::vector<ScalarDiagnostics> compute_scalar_diagnostics(const NavierStokes<Real>& flow) {
  using C = Complex<Real>;
  const auto wavenumbers = flow.wavenumbers();
  const auto u = flow.velocity().vector_spectral();
  std::vector<ScalarDiagnostics> result;
  for (int j = 0; j < flow.scalar_count(); ++j) {
    const C* theta = flow.scalar(j).spectral();
    // <theta^2>, <|grad theta|^2>, <u theta>: sums of weight |theta^|^2, k^2 |theta^|^2, Re(u^* theta^).
    auto local = sum<5>(
        flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
          const Mode mode = wavenumbers.mode(m);
          const double weight = double(wavenumbers.parseval_weight(mode));
          const C t = theta[m];
          const double t2 = norm2_in_double(t);
          Sums<5> s;
          s[0] = weight * t2;
          s[1] = weight * double(wavenumbers.k(mode).norm2()) * t2;
          for (int d = 0; d < 3; ++d) s[2 + d] = weight * real_product_in_double(u[d][m], t);
          return s;
        });
    const auto totals = allreduce_sums(local, flow.fft().comm());
    ScalarDiagnostics d;
    d.name = flow.scalar_name(j);
    d.variance = totals[0];
    d.dissipation = 2 * flow.parameters().scalars[j].diffusivity * totals[1];
    d.flux = {totals[2], totals[3], totals[4]};
    const auto& g = flow.terms().mean_gradient[j];
    d.production = -2 * (g[0] * d.flux[0] + g[1] * d.flux[1] + g[2] * d.flux[2]);
    result.push_back(d);
  }
  return result;
}

template <class Real>
MagneticDiagnostics compute_magnetic_diagnostics(const NavierStokes<Real>& flow) {
  using C = Complex<Real>;
  MagneticDiagnostics d;
  if (!flow.magnetic()) return d;
  const auto wavenumbers = flow.wavenumbers();
  const auto u = flow.velocity().vector_spectral();
  const auto b = flow.magnetic_field().vector_spectral();
  // 1/2 |b^|^2, 1/2 |k x b^|^2, Re(u^* . b^), Re(a^* . b^) per mode, a^ = i k x b^ / k^2.
  auto local = sum<4>(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = wavenumbers.mode(m);
        const auto k = wavenumbers.k(mode);
        const double weight = double(wavenumbers.parseval_weight(mode));
        const ModeVector<Real> bm = ModeVector<Real>::load(b, m);
        const ModeVector<Real> j = curl(k, bm);
        const Real k2 = k.norm2();
        Sums<4> s;
        for (int c = 0; c < 4; ++c) s[c] = 0;
        for (int c = 0; c < 3; ++c) {
          s[0] += 0.5 * weight * norm2_in_double(bm[c]);
          s[1] += 0.5 * weight * norm2_in_double(j[c]);
          s[2] += weight * real_product_in_double(u[c][m], bm[c]);
          if (k2 > Real(0)) s[3] += weight * real_product_in_double(C(j[c].re / k2, j[c].im / k2), bm[c]);
        }
        return s;
      });
  const auto totals = allreduce_sums(local, flow.fft().comm());
  d.energy = totals[0];
  d.enstrophy = totals[1];
  d.dissipation = 2 * flow.parameters().magnetic.resistivity * totals[1];
  d.cross_helicity = totals[2];
  // a^ = i k x b^ / k^2 = j^ / k^2: the sum above is already <a.b>.
  d.magnetic_helicity = totals[3];
  const auto& forcing = flow.magnetic_forcing();
  d.injection = forcing.kind() == ForcingKind::none
                    ? 0.0
                    : forcing.injection(forcing.forced_energy(flow.magnetic_field()));
  return d;
}

template <class Real>
double max_current(NavierStokes<Real>& flow) {
  if (!flow.magnetic()) return 0;
  flow.curl_to_stage(flow.magnetic_field());  // j = curl b, in the stage field: scratch()
  auto& scratch = flow.scratch();
  flow.transform_to_real({&scratch});
  const auto j = std::as_const(scratch).vector_real();
  const double local = max_of(
      flow.device(), flow.points().size(), KOLMO_LAMBDA(long p) {
        const double x = j[0][p], y = j[1][p], z = j[2][p];
        return sqrt(x * x + y * y + z * z);
      });
  double global = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, flow.fft().comm()));
  return global;
}

template <class Real>
Diagnostics compute_diagnostics(const NavierStokes<Real>& flow) {
  using C = Complex<Real>;
  const auto wavenumbers = flow.wavenumbers();
  const auto u = flow.velocity().vector_spectral();
  const double nu = flow.parameters().viscosity;

  auto local = sum<2>(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = wavenumbers.mode(m);
        const auto k = wavenumbers.k(mode);
        const C ux = u[0][m], uy = u[1][m], uz = u[2][m];
        const C ox = times_i(k.y * uz - k.z * uy), oy = times_i(k.z * ux - k.x * uz),
                oz = times_i(k.x * uy - k.y * ux);
        const double half_weight = 0.5 * double(wavenumbers.parseval_weight(mode));
        Sums<2> s;
        s[0] = half_weight * (norm2_in_double(ux) + norm2_in_double(uy) + norm2_in_double(uz));
        s[1] = half_weight * (norm2_in_double(ox) + norm2_in_double(oy) + norm2_in_double(oz));
        return s;
      });
  const auto totals = allreduce_sums(local, flow.fft().comm());

  const double local_divergence = max_of(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const auto k = wavenumbers.k(wavenumbers.mode(m));
        const C divergence = k.x * u[0][m] + k.y * u[1][m] + k.z * u[2][m];
        return sqrt(norm2_in_double(divergence));
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
  d.kmax_eta = turbulent_scales ? wavenumbers.largest_kept_wavenumber() * d.kolmogorov_eta : nan;

  d.scalars = compute_scalar_diagnostics(flow);
  const auto& terms = flow.terms();
  for (int j = 0; j < flow.scalar_count(); ++j) {
    if (!terms.buoyant(j)) continue;
    const auto& c = terms.buoyancy[j];
    const auto& flux = d.scalars[j].flux;
    d.buoyancy_flux += c[0] * flux[0] + c[1] * flux[1] + c[2] * flux[2];
    d.potential_energy += terms.potential_energy_factor(j) * d.scalars[j].variance;
  }
  d.magnetic = compute_magnetic_diagnostics(flow);
  return d;
}

#define KOLMO_INSTANTIATE_DIAGNOSTICS(Real)                                                            \
  template Diagnostics compute_diagnostics<Real>(const NavierStokes<Real>&);                           \
  template std::vector<ScalarDiagnostics> compute_scalar_diagnostics<Real>(const NavierStokes<Real>&); \
  template MagneticDiagnostics compute_magnetic_diagnostics<Real>(const NavierStokes<Real>&);          \
  template double max_current<Real>(NavierStokes<Real>&);                                              \
  template double kinetic_energy<Real>(const NavierStokes<Real>&);                                     \
  template double scalar_variance<Real>(const NavierStokes<Real>&, int);                               \
  template double mean_square_half<Real>(const NavierStokes<Real>&, const SpectralField<Real>&);       \
  template double inner_product<Real>(const NavierStokes<Real>&, const SpectralField<Real>&,           \
                                      const SpectralField<Real>&);
KOLMO_INSTANTIATE_DIAGNOSTICS(float)
KOLMO_INSTANTIATE_DIAGNOSTICS(double)
#undef KOLMO_INSTANTIATE_DIAGNOSTICS

}  // namespace kolmo::solver
