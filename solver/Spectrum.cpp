#include "solver/Spectrum.hpp"

#include <mpi.h>

#include <cmath>

#include "core/Error.hpp"
#include "solver/Reductions.hpp"

namespace kolmo::solver {

template <class Real>
Spectrum compute_spectrum(NavierStokes<Real>& flow, bool with_transfer) {
  using C = Complex<Real>;
  const auto w = flow.wavenumbers();
  const double dk = kTwoPi / flow.parameters().box.min_length();
  const long shells = static_cast<long>(std::floor(w.kept_corner_wavenumber() / dk + 0.5)) + 1;

  // N^ first: it lives in the stage field, which the velocity never shares.
  const C* nonlinear[3] = {nullptr, nullptr, nullptr};
  if (with_transfer) {
    const auto& n = flow.nonlinear_term();
    for (int d = 0; d < 3; ++d) nonlinear[d] = n.spectral(d);
  }
  const Components<const C> n{{nonlinear[0], nonlinear[1], nonlinear[2]}};
  const auto u = flow.velocity().spectral();
  const double inverse_dk = 1 / dk;
  const bool transfer = with_transfer;

  auto local = binned_sum<2>(
      flow.device(), w.size(), shells, KOLMO_LAMBDA(long m) {
        const Mode mode = w.mode(m);
        const auto k = w.k(mode);
        const double weight = double(w.parseval_weight(mode));
        Binned<2> b;
        b.bin = static_cast<long>(floor(sqrt(double(k.norm2())) * inverse_dk + 0.5));
        double energy = 0, exchange = 0;
        for (int d = 0; d < 3; ++d) {
          energy += double(norm2(u[d][m]));
          if (transfer)
            exchange += double(u[d][m].re) * double(n[d][m].re) + double(u[d][m].im) * double(n[d][m].im);
        }
        b.value[0] = 0.5 * weight * energy;
        b.value[1] = weight * exchange;
        return b;
      });
  std::vector<double> global(local.size());
  KOLMO_CHECK_MPI(MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                                MPI_SUM, flow.fft().comm()));

  Spectrum spectrum;
  spectrum.shell_width = dk;
  double flux = 0;
  for (long s = 0; s < shells; ++s) {
    spectrum.k.push_back(s * dk);
    spectrum.energy.push_back(global[2 * s]);
    if (with_transfer) {
      spectrum.transfer.push_back(global[2 * s + 1]);
      flux -= global[2 * s + 1];
      spectrum.flux.push_back(flux);
    }
  }
  return spectrum;
}

template Spectrum compute_spectrum<float>(NavierStokes<float>&, bool);
template Spectrum compute_spectrum<double>(NavierStokes<double>&, bool);

}  // namespace kolmo::solver
