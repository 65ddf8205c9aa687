// Incompressible Navier-Stokes in a periodic box, pseudo-spectral, on either backend.
//
// Contract:
// - Equations: du/dt = u x omega - grad(p + |u|^2/2) + nu lap u + f, div u = 0, with p the kinematic pressure
//   (pressure / density). The velocity is held in spectral space as normalised Fourier coefficients,
//   u(x) = sum_k u^(k) exp(i k.x) (so E = 1/2 sum_k |u^(k)|^2), three components on the SlabFFT's spectral
//   slab. Every mode outside the 2/3 rule (Wavenumbers::kept) is zero and u^ is divergence-free.
// - Right-hand side R(u) = P [u x omega]^ + f^, where [u x omega]^ is computed pseudo-spectrally (omega^ =
//   i k x u^; u and omega to real space with 6 backward transforms; the cross product pointwise; 3 forward
//   transforms), dealiased by the 2/3 rule and projected by P = I - k k^T / |k|^2; its k = 0 mode is zero.
//   The forcing (Forcing.hpp) is part of R and its amplitude is recomputed at every Runge-Kutta stage.
// - Time stepping (Integrators.hpp): the viscous term exactly through exp(-nu k^2 t), rk2, rk3 or rk4 for R.
//   step(dt) advances time by dt and the step counter by one. Each stage makes one pass over spectral memory
//   (projection, update, next input and its curl; StageFields.hpp) besides its transforms and cross product,
//   and the last one leaves the next step's first input ready.
// - cfl_dt(cfl, max_dt) = min(max_dt, cfl / max over points of (|u|/dx + |v|/dy + |w|/dz)) for the current
//   velocity (0 when the velocity holds a NaN or an infinity). Its real-space velocity is kept for the next
//   step's first stage, so calling it every step costs no extra transform. The same pass fills
//   velocity_scan(): that maximum (+infinity for a velocity that is not finite) and the energy
//   1/2 <|u|^2> (kinetic_energy() up to round-off), for blow-up checks every step at no extra cost.
// - Memory: four vector fields for rk3 and rk4 (velocity, stage, scratch, accumulator), three for rk2 (no
//   accumulator), each three slabs of alloc_complex() complex values, plus the FFT's workspace and the
//   forcing's short list of band modes; nothing is allocated per step. For N^3 points over P ranks that is
//   12 (rk3, rk4) or 9 (rk2) real-field equivalents (N^3/P reals each, times (Nz+2)/Nz) plus the FFT's
//   scratch slab and library work area. bytes_held() reports the total on this rank's device.
// - Scratch and stage fields may be used between steps: output functions (velocity, vorticity and pressure
//   to host) and nonlinear_term() use them (the next step then prepares its input again, one extra pass);
//   they never touch the velocity.
// - Access: velocity() (non-const) lets callers write the spectral coefficients (restarts); call
//   enforce_constraints() after writing. Each non-const velocity() call drops the prepared first input
//   (and cfl_dt's cached real velocity), so do not write through a reference obtained before the last step
//   or cfl_dt. Host slabs are the rank's real x-slab, [x][y][z] with z fastest, layout().real_size() values
//   per component, in physical units (the 1/(Nx Ny Nz) of the FFT is folded in).
// - All ranks of the FFT's communicator construct the object and call every member together.
#pragma once

#include <cstddef>
#include <vector>

#include "fft/SlabFFT.hpp"
#include "solver/Forcing.hpp"
#include "solver/Integrators.hpp"
#include "solver/SpectralVector.hpp"
#include "solver/StageFields.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

struct FlowParameters {
  double viscosity = 0;
  Box box;
  Integrator integrator = Integrator::rk4;
  ForcingParameters forcing;
};

template <class Real>
class NavierStokes {
 public:
  using C = Complex<Real>;

  NavierStokes(fft::SlabFFT<Real>& fft, const FlowParameters& parameters);
  NavierStokes(const NavierStokes&) = delete;
  NavierStokes& operator=(const NavierStokes&) = delete;

  // Time stepping.
  void step(double dt);
  double cfl_dt(double cfl, double max_dt);
  double time() const { return time_; }
  long step_count() const { return step_count_; }
  double last_dt() const { return last_dt_; }
  void set_clock(double time, long step_count, double last_dt = 0);
  struct VelocityScan {
    double rate = 0;    // max over points of |u|/dx + |v|/dy + |w|/dz; +infinity if not finite
    double energy = 0;  // 1/2 <|u|^2>
  };
  // What the last cfl_dt() found (zeros before the first call).
  const VelocityScan& velocity_scan() const { return scan_; }

  // State: spectral velocity (device buffers). Write through velocity(), then call enforce_constraints().
  const SpectralVector<Real>& velocity() const { return velocity_; }
  SpectralVector<Real>& velocity() {
    prepared_ = Prepared::nothing;
    return velocity_;
  }
  // Projects onto divergence-free fields and zeroes the modes outside the 2/3 rule.
  void enforce_constraints();
  // Sets the velocity from the real-space slabs scratch().real(d), d = 0, 1, 2 (x, y, z), then enforces the
  // constraints. Initial conditions write into scratch() and call this.
  void set_velocity_from_scratch();
  // Sets the velocity from host real-space slabs (real_size() values each; restarts from field files).
  void set_velocity(const std::vector<Real>& u, const std::vector<Real>& v, const std::vector<Real>& w);

  // The projected, dealiased nonlinear term P [u x omega]^ of the current velocity (no forcing), in the stage
  // field; valid until the next call of a member that uses the stage or scratch fields.
  const SpectralVector<Real>& nonlinear_term();

  // Rank's real-space slabs, each resized to real_size().
  void velocity_to_host(std::vector<Real>& u, std::vector<Real>& v, std::vector<Real>& w);
  void vorticity_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z);
  // The pressure p itself (kinematic: pressure / density), NOT p + |u|^2/2, with zero mean:
  // p = Pi - |u|^2/2 + <|u|^2/2>, where Pi = p + |u|^2/2 solves lap Pi = div(u x omega) with the dealiased
  // u x omega (from the divergence of the momentum equation; f is divergence-free).
  void pressure_to_host(std::vector<Real>& p);

  // Scratch vector field: three slabs for callers that build fields (initial conditions); contents undefined
  // after any other member call.
  SpectralVector<Real>& scratch() {
    prepared_ = Prepared::nothing;
    return scratch_;
  }

  const FlowParameters& parameters() const { return parameters_; }
  const Wavenumbers<Real>& wavenumbers() const { return wavenumbers_; }
  const SlabPoints& points() const { return points_; }
  fft::SlabFFT<Real>& fft() const { return fft_; }
  Device& device() const { return fft_.device(); }
  const Forcing<Real>& forcing() const { return forcing_; }
  std::size_t real_size() const { return fft_.layout().real_size(); }
  // The FFT modes of the step's backward and forward transforms: dealiased where that is faster
  // (SlabFFT::dealiased_backward_saves_work and ..._forward_...), full otherwise; the fields are the same.
  fft::Modes backward_modes() const;
  fft::Modes forward_modes() const;
  // Device bytes held by this object and its FFT (fields, FFT scratch and work area, forcing list).
  std::size_t bytes_held() const;

  // Implementation steps, public only because CUDA device lambdas may not live in private members.
  void evaluate_rhs(bool first_stage, bool with_forcing);
  StageFields<Real> stage_fields();
  void prepare_first_input();
  double transform_velocity_to_stage();
  void curl_to_scratch(const SpectralVector<Real>& field);
  void transform_to_real(SpectralVector<Real>& field);
  void transform_to_spectral(SpectralVector<Real>& field);
  void cross_product_in_stage(Real linear_forcing_amplitude);
  void project_stage();
  double velocity_rate_of_stage();

 private:
  fft::SlabFFT<Real>& fft_;
  FlowParameters parameters_;
  Wavenumbers<Real> wavenumbers_;
  SlabPoints points_;
  Forcing<Real> forcing_;
  SpectralVector<Real> velocity_, stage_, scratch_, accumulator_;
  double time_ = 0, last_dt_ = 0;
  VelocityScan scan_;
  long step_count_ = 0;
  // What the stage and scratch fields hold between calls: the next step's first input, the velocity and its
  // curl in spectral space (left by step), or the velocity already in real space with the curl still
  // spectral (left by cfl_dt); or nothing of use.
  enum class Prepared { nothing, spectral_input, real_velocity };
  Prepared prepared_ = Prepared::nothing;
};

extern template class NavierStokes<float>;
extern template class NavierStokes<double>;

}  // namespace kolmo::solver
