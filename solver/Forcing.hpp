// Large-scale forcing of the velocity, f^(k) = a u^(k) on the forced modes, with a real amplitude a; the same
// class forces MHD's magnetic field b (band only: u below reads b, E_band its magnetic energy).
//
// Contract:
// - none: f = 0.
// - band: forced modes are the kept modes with k_min <= |k| <= k_max (|k| the physical wavenumber, k != 0).
//   With power eps, a = eps / (2 E_band) (E_band the energy of those modes), so the injection rate
//   <f.u> = 2 a E_band = eps exactly; a = 0 while E_band = 0.
// - linear (Lundgren): every mode but k = 0 is forced (f = a u in real space). With power eps > 0,
//   a = eps / (2 E) holds the injection at eps; with power = 0, a = linear_rate (fixed).
// - The amplitude is recomputed from the field at every Runge-Kutta stage (NavierStokes applies the forcing
//   as part of the right-hand side of each stage), so the forced scheme keeps the integrator's order and the
//   injection rate of every stage field is exactly eps.
// - Energies are volume averages (E = 1/2 <|u|^2>) reduced over the communicator; every rank gets the same a.
// - ForcingParameters (FlowParameters.hpp) say which forcing, its power, band and fixed rate.
// - Errors: impossible parameters (negative power, an empty or inverted band) throw kolmo::Error naming the
//   key, after `name` ("forcing", "magnetic forcing").
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "core/Buffer.hpp"
#include "core/Complex.hpp"
#include "solver/FlowParameters.hpp"
#include "solver/SpectralField.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

template <class Real>
class Forcing {
 public:
  using C = Complex<Real>;

  Forcing(const ForcingParameters& parameters, const Wavenumbers<Real>& wavenumbers,
          std::shared_ptr<Device> device, MPI_Comm comm, const std::string& name = "forcing");

  const ForcingParameters& parameters() const { return parameters_; }
  ForcingKind kind() const { return parameters_.kind; }

  // Energy of the forced modes of u (the band, or every kept mode but k = 0 for linear forcing), over all
  // ranks. Modes outside the 2/3 rule are not read.
  double forced_energy(const SpectralField<Real>& u) const;
  // The amplitude a for a field whose forced energy is forced_energy.
  double amplitude(double forced_energy) const;
  // Injection rate <f.u> of a field with that forced energy: 2 a E_forced.
  double injection(double forced_energy) const { return 2 * amplitude(forced_energy) * forced_energy; }

  // Band forcing inside a right-hand side evaluation that overwrites its input: capture_band saves the band
  // modes of u (and returns their energy, as forced_energy does), add_captured adds a times them to rhs.
  double capture_band(const SpectralField<Real>& u);
  void add_captured(SpectralField<Real>& rhs, Real amplitude);
  // The same for a tendency held as the traceless symmetric stress T of the divergence form (StageFields.hpp;
  // MHD's T = u u - B B less its trace too:
  // T_xx, T_yy, T_xy in stage, T_xz, T_yz in extra): adds F = i (k f^T + f k^T) / |k|^2 - 2 i (k.f) / (3
  // |k|^2) I with f = a times the saved modes, so that -i k.F = f + (1/3) k (k.f) / |k|^2, which the
  // projection takes to P f, the forcing itself.
  void add_captured_as_stress(SpectralField<Real>& stage, SpectralField<Real>& extra, Real amplitude);
  // The same for a tendency held as a field E whose curl i k x E it is (MHD's electric field, b's
  // tendency): adds i (k x f) / |k|^2, whose i k x (.) is f - k (k.f) / |k|^2 = f for the divergence-free
  // saved modes.
  void add_captured_as_curl(SpectralField<Real>& electric, Real amplitude);

  // Forced modes held by this rank (band forcing), and bytes of device memory held.
  long local_band_modes() const { return band_count_; }
  std::size_t bytes() const { return band_index_.bytes() + band_values_.bytes(); }

  // Implementation step, public only because CUDA device lambdas may not live in private members: the band
  // energy of u, saving the band modes into saved unless it is null.
  double band_energy(const SpectralField<Real>& u, C* saved) const;

 private:
  double allreduce(double local) const;

  ForcingParameters parameters_;
  Wavenumbers<Real> wavenumbers_;
  std::shared_ptr<Device> device_;
  MPI_Comm comm_;
  long band_count_ = 0;
  Buffer<long> band_index_;  // local spectral indices of the forced modes
  Buffer<C> band_values_;    // captured u on them, [component][mode]
};

extern template class Forcing<float>;
extern template class Forcing<double>;

}  // namespace kolmo::solver
