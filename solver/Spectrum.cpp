#include "solver/Spectrum.hpp"

#include <mpi.h>

#include <cmath>

#include <utility>
#include "core/Error.hpp"

#include "solver/Reductions.hpp"

namespace kolmo::solver {

namespace {

// Shell sums of 1/2 |a|^2 and Re(a^* . n) over the components of a field (n may be null: no transfer),
// reduced over ranks: [2 s] and [2 s + 1] for shell s.
template <class Real>
std::vector<double> shell_sums(const NavierStokes<Real>& flow, int components,
                               Components<const Complex<Real>> a, Components<const Complex<Real>> n,
                               long shells, double inverse_dk) {
  const auto wavenumbers = flow.wavenumbers();
  const bool transfer = n[0] != nullptr;
  auto local = binned_sum<2>(
      flow.device(), wavenumbers.size(), shells, KOLMO_LAMBDA(long m) {
        const Mode mode = wavenumbers.mode(m);
        const auto k = wavenumbers.k(mode);
        const double weight = double(wavenumbers.parseval_weight(mode));
        Binned<2> b;
        b.bin = static_cast<long>(floor(sqrt(double(k.norm2())) * inverse_dk + 0.5));
        double square = 0, exchange = 0;
        for (int d = 0; d < components; ++d) {
          square += norm2_in_double(a[d][m]);
          if (transfer) exchange += real_product_in_double(a[d][m], n[d][m]);
        }
        b.value[0] = 0.5 * weight * square;
        b.value[1] = weight * exchange;
        return b;
      });
  std::vector<double> global(local.size());
  KOLMO_CHECK_MPI(MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                                MPI_SUM, flow.fft().comm()));
  return global;
}

// Splits shell sums into the spectrum, its transfer and the flux -sum_{s' <= s} T.
void split(const std::vector<double>& sums, bool with_transfer, std::vector<double>& spectrum,
           std::vector<double>& transfer, std::vector<double>& flux) {
  double running = 0;
  for (std::size_t s = 0; s < sums.size() / 2; ++s) {
    spectrum.push_back(sums[2 * s]);
    if (!with_transfer) continue;
    transfer.push_back(sums[2 * s + 1]);
    running -= sums[2 * s + 1];
    flux.push_back(running);
  }
}

// 2 pi over the shortest side among the directions that keep a mode other than n_d = 0 (in double, from the
// box: the shells of a resumed spectra.h5 must match). A direction of N_d <= 3 points (N_d = 1: a
// two-dimensional run) has only n_d = 0, so its side spaces no wavenumbers: a plane of side 1 made dk 2 pi
// and put a 2 pi box's whole spectrum into two shells.
template <class Real>
double shell_width(const Box& box, const Wavenumbers<Real>& wavenumbers) {
  const double sides[3] = {box.lx, box.ly, box.lz};
  const long points[3] = {wavenumbers.nx, wavenumbers.ny, wavenumbers.nz};
  double shortest = 0;
  for (int d = 0; d < 3; ++d)
    if (Wavenumbers<Real>::largest_kept_index(points[d]) > 0 && (shortest == 0 || sides[d] < shortest))
      shortest = sides[d];
  return kTwoPi / (shortest > 0 ? shortest : box.min_length());
}

}  // namespace

template <class Real>
Spectrum compute_spectrum(NavierStokes<Real>& flow, bool with_transfer) {
  using C = Complex<Real>;
  const auto wavenumbers = flow.wavenumbers();
  const double dk = shell_width(flow.parameters().box, wavenumbers);
  const long shells = static_cast<long>(std::floor(wavenumbers.kept_corner_wavenumber() / dk + 0.5)) + 1;

  // The nonlinear terms first: they live in the stage fields, which the states never share.
  Components<const C> nonlinear{{nullptr, nullptr, nullptr}};
  if (with_transfer) nonlinear = std::as_const(flow.nonlinear_term()).vector_spectral();

  Spectrum spectrum;
  spectrum.shell_width = dk;
  for (long s = 0; s < shells; ++s) spectrum.k.push_back(s * dk);
  split(shell_sums(flow, 3, std::as_const(flow).velocity().vector_spectral(), nonlinear, shells, 1 / dk),
        with_transfer, spectrum.energy, spectrum.transfer, spectrum.flux);
  for (int j = 0; j < flow.scalar_count(); ++j) {
    const C* theta = std::as_const(flow).scalar(j).spectral();
    const C* n = with_transfer ? flow.scalar_nonlinear_term(j) : nullptr;
    ScalarSpectrum scalar;
    scalar.name = flow.scalar_name(j);
    split(shell_sums(flow, 1, Components<const C>{{theta, nullptr, nullptr}},
                     Components<const C>{{n, nullptr, nullptr}}, shells, 1 / dk),
          with_transfer, scalar.variance, scalar.transfer, scalar.flux);
    spectrum.scalars.push_back(std::move(scalar));
  }
  if (flow.magnetic()) {
    Components<const C> n{{nullptr, nullptr, nullptr}};
    if (with_transfer) n = flow.magnetic_nonlinear_term().vector_spectral();
    std::vector<double> flux;
    split(shell_sums(flow, 3, std::as_const(flow).magnetic_field().vector_spectral(), n, shells, 1 / dk),
          with_transfer, spectrum.magnetic, spectrum.magnetic_transfer, flux);
  }
  return spectrum;
}

template Spectrum compute_spectrum<float>(NavierStokes<float>&, bool);
template Spectrum compute_spectrum<double>(NavierStokes<double>&, bool);

}  // namespace kolmo::solver
