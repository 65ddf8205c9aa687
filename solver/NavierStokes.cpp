#include "solver/NavierStokes.hpp"

#include <mpi.h>

#include <cmath>
#include <string>
#include <utility>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "solver/Reductions.hpp"

namespace kolmo::solver {

template <class Real>
NavierStokes<Real>::NavierStokes(fft::SlabFFT<Real>& fft, const FlowParameters& parameters)
    : fft_(fft),
      parameters_(parameters),
      wavenumbers_(Wavenumbers<Real>::make(fft.layout(), parameters.box)),
      points_(SlabPoints::make(fft.layout(), parameters.box)),
      forcing_(parameters.forcing, wavenumbers_, fft.device_handle(), fft.comm()),
      velocity_(fft),
      stage_(fft),
      scratch_(fft) {
  KOLMO_REQUIRE(parameters.viscosity >= 0,
                "viscosity = " + std::to_string(parameters.viscosity) + " must be >= 0");
  KOLMO_REQUIRE(parameters.box.lx > 0 && parameters.box.ly > 0 && parameters.box.lz > 0,
                "box lengths must be positive");
  if (needs_accumulator(parameters.integrator)) accumulator_ = SpectralVector<Real>(fft);
  // Zero everything once: slack beyond the slab and the modes the 2/3 rule removes stay zero forever.
  velocity_.fill_zero();
  stage_.fill_zero();
  scratch_.fill_zero();
  if (needs_accumulator(parameters.integrator)) accumulator_.fill_zero();
}

template <class Real>
std::size_t NavierStokes<Real>::bytes_held() const {
  return velocity_.bytes() + stage_.bytes() + scratch_.bytes() + accumulator_.bytes() + forcing_.bytes() +
         fft_.workspace_bytes();
}

template <class Real>
void NavierStokes<Real>::set_clock(double time, long step_count, double last_dt) {
  time_ = time;
  step_count_ = step_count;
  last_dt_ = last_dt;
}

template <class Real>
StageFields<Real> NavierStokes<Real>::stage_fields() {
  StageFields<Real> f;
  f.w = wavenumbers_;
  f.stage = stage_.spectral();
  f.curl = scratch_.spectral();
  f.scale = Real(1 / wavenumbers_.points());
  f.transforms_read_all = backward_modes() == fft::Modes::all;
  return f;
}

// The first stage's input, the velocity and its curl in the stage and scratch fields, unless the last step
// (or cfl_dt after it) left it there.
template <class Real>
void NavierStokes<Real>::prepare_first_input() {
  if (prepared_ != Prepared::nothing) return;
  const StageFields<Real> f = stage_fields();
  const Components<const C> u = std::as_const(velocity_).spectral();
  parallel_for(
      device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) { f.set_input_from(u, m); });
  prepared_ = Prepared::spectral_input;
}

template <class Real>
void NavierStokes<Real>::step(double dt) {
  KOLMO_REQUIRE(dt > 0 && std::isfinite(dt), "time step dt = " + std::to_string(dt) + " must be positive");
  prepare_first_input();
  SpectralVector<Real>* accumulator = needs_accumulator(parameters_.integrator) ? &accumulator_ : nullptr;
  integrating_factor_step(parameters_.integrator, dt, parameters_.viscosity, stage_fields(), device(),
                          velocity_, accumulator, [this](bool first) { evaluate_rhs(first, true); });
  time_ += dt;
  last_dt_ = dt;
  ++step_count_;
  prepared_ = Prepared::spectral_input;
}

template <class Real>
double NavierStokes<Real>::cfl_dt(double cfl, double max_dt) {
  KOLMO_REQUIRE(cfl > 0, "cfl = " + std::to_string(cfl) + " must be positive");
  KOLMO_REQUIRE(max_dt > 0, "max_dt = " + std::to_string(max_dt) + " must be positive");
  prepare_first_input();
  if (prepared_ == Prepared::spectral_input) {
    transform_to_real(stage_);
    prepared_ = Prepared::real_velocity;
  }
  const double rate = velocity_rate_of_stage();
  return rate > 0 ? std::fmin(max_dt, cfl / rate) : max_dt;
}

// The raw nonlinear term of the stage input (StageFields.hpp) into the stage field: the input and its curl
// are in the stage and scratch fields (the velocity's for the first stage, possibly already in real space).
template <class Real>
void NavierStokes<Real>::evaluate_rhs(bool first_stage, bool with_forcing) {
  const ForcingKind forcing = with_forcing ? forcing_.kind() : ForcingKind::none;
  // The forcing amplitude belongs to the input field, which the transforms below overwrite.
  const SpectralVector<Real>& input = first_stage ? velocity_ : stage_;
  double amplitude = 0;
  if (forcing == ForcingKind::band) amplitude = forcing_.amplitude(forcing_.capture_band(input));
  if (forcing == ForcingKind::linear) amplitude = forcing_.amplitude(forcing_.forced_energy(input));

  transform_to_real(scratch_);
  if (!(first_stage && prepared_ == Prepared::real_velocity)) transform_to_real(stage_);
  prepared_ = Prepared::nothing;
  // Linear forcing f = a u is pointwise in real space, so it joins the cross product there.
  cross_product_in_stage(forcing == ForcingKind::linear ? Real(amplitude) : Real(0));
  transform_to_spectral(stage_);
  // Band forcing joins the unnormalised transform; the projection leaves it (divergence-free) unchanged.
  if (forcing == ForcingKind::band) forcing_.add_captured(stage_, Real(amplitude * wavenumbers_.points()));
}

template <class Real>
const SpectralVector<Real>& NavierStokes<Real>::nonlinear_term() {
  prepare_first_input();
  evaluate_rhs(true, false);
  project_stage();
  return stage_;
}

// omega^ = i k x u^.
template <class Real>
void NavierStokes<Real>::curl_to_scratch(const SpectralVector<Real>& field) {
  prepared_ = Prepared::nothing;
  const auto w = wavenumbers_;
  const auto u = field.spectral();
  const auto omega = scratch_.spectral();
  parallel_for(
      device(), w.size(),
      KOLMO_LAMBDA(long m) { curl(w.k(w.mode(m)), ModeVector<Real>::load(u, m)).store(omega, m); });
}

// The fields of a step are dealiased (zero outside the 2/3 rule) before every backward transform, and only
// the kept modes of every forward transform's result are used. Across ranks the FFT's dealiased mode leaves
// the others out of the all-to-all and the x transforms (about 4/9 of the data moved); on one rank the FFT
// skips them where that is faster (a cuFFT mask, or x transforms of the kept rows on the host); the fields
// are the same either way.
template <class Real>
fft::Modes NavierStokes<Real>::backward_modes() const {
  return fft_.dealiased_backward_saves_work() ? fft::Modes::dealiased : fft::Modes::all;
}

template <class Real>
fft::Modes NavierStokes<Real>::forward_modes() const {
  return fft_.dealiased_forward_saves_work() ? fft::Modes::dealiased : fft::Modes::all;
}

template <class Real>
void NavierStokes<Real>::transform_to_real(SpectralVector<Real>& field) {
  for (int d = 0; d < 3; ++d) fft_.backward(field.spectral(d), field.real(d), backward_modes());
}

template <class Real>
void NavierStokes<Real>::transform_to_spectral(SpectralVector<Real>& field) {
  for (int d = 0; d < 3; ++d) fft_.forward(field.real(d), field.spectral(d), forward_modes());
}

template <class Real>
double NavierStokes<Real>::transform_velocity_to_stage() {
  prepared_ = Prepared::nothing;
  for (int d = 0; d < 3; ++d) fft_.backward(velocity_.spectral(d), stage_.real(d), backward_modes());
  return velocity_rate_of_stage();
}

// max over points of |u|/dx + |v|/dy + |w|/dz of the real velocity in the stage field, over all ranks, and in
// the same pass the energy 1/2 <|u|^2> (the grid mean equals the sum over modes by Parseval), kept in scan_.
template <class Real>
double NavierStokes<Real>::velocity_rate_of_stage() {
  const auto u = stage_.real();
  const double inverse_dx = 1 / points_.dx, inverse_dy = 1 / points_.dy, inverse_dz = 1 / points_.dz;
  const MaxAndSum local = max_and_sum(
      device(), points_.size(), KOLMO_LAMBDA(long p) {
        const double ux = u[0][p], uy = u[1][p], uz = u[2][p];
        return MaxAndSum{fabs(ux) * inverse_dx + fabs(uy) * inverse_dy + fabs(uz) * inverse_dz,
                         0.5 * (ux * ux + uy * uy + uz * uz)};
      });
  // MPI_MAX, like a plain comparison, may skip a NaN: max_and_sum counts it as +infinity already.
  double energy_sum = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local.max, &scan_.rate, 1, MPI_DOUBLE, MPI_MAX, fft_.comm()));
  KOLMO_CHECK_MPI(MPI_Allreduce(&local.sum, &energy_sum, 1, MPI_DOUBLE, MPI_SUM, fft_.comm()));
  scan_.energy = energy_sum / wavenumbers_.points();
  return scan_.rate;
}

// stage <- u x omega + a u in real space (u in the stage field, omega in scratch).
template <class Real>
void NavierStokes<Real>::cross_product_in_stage(Real linear_forcing_amplitude) {
  const auto u = stage_.real();
  const auto omega = scratch_.real();
  const Real a = linear_forcing_amplitude;
  parallel_for(
      device(), points_.size(), KOLMO_LAMBDA(long p) {
        const Real ux = u[0][p], uy = u[1][p], uz = u[2][p];
        const Real ox = omega[0][p], oy = omega[1][p], oz = omega[2][p];
        u[0][p] = uy * oz - uz * oy + a * ux;
        u[1][p] = uz * ox - ux * oz + a * uy;
        u[2][p] = ux * oy - uy * ox + a * uz;
      });
}

// stage <- P (stage / (Nx Ny Nz)) on kept modes, 0 elsewhere and at k = 0.
template <class Real>
void NavierStokes<Real>::project_stage() {
  const StageFields<Real> f = stage_fields();
  parallel_for(
      device(), f.w.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.w.mode(m);
        const ModeVector<Real> zero{{C(0, 0), C(0, 0), C(0, 0)}};
        (f.kept(mode) ? f.rhs(m, mode) : zero).store(f.stage, m);
      });
}

template <class Real>
void NavierStokes<Real>::enforce_constraints() {
  prepared_ = Prepared::nothing;
  const auto w = wavenumbers_;
  const auto u = velocity_.spectral();
  parallel_for(
      device(), w.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = w.mode(m);
        const auto k = w.k(mode);
        const Real k2 = k.norm2();
        if (!w.kept(mode)) {
          u[0][m] = u[1][m] = u[2][m] = C(0, 0);
          return;
        }
        if (k2 == Real(0)) return;  // the mean flow is divergence-free as it is
        project(k, k2, ModeVector<Real>::load(u, m)).store(u, m);
      });
}

template <class Real>
void NavierStokes<Real>::set_velocity_from_scratch() {
  for (int d = 0; d < 3; ++d) fft_.forward(scratch_.real(d), velocity_.spectral(d));
  const auto u = velocity_.spectral();
  const Real scale = Real(1 / wavenumbers_.points());
  parallel_for(
      device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) {
        for (int d = 0; d < 3; ++d) u[d][m] = scale * u[d][m];
      });
  enforce_constraints();
}

template <class Real>
void NavierStokes<Real>::set_velocity(const std::vector<Real>& u, const std::vector<Real>& v,
                                      const std::vector<Real>& w) {
  const std::size_t n = real_size();
  const std::vector<Real>* slabs[3] = {&u, &v, &w};
  const char* names[3] = {"u", "v", "w"};
  for (int d = 0; d < 3; ++d) {
    KOLMO_REQUIRE(slabs[d]->size() == n, std::string("velocity slab ") + names[d] + " has " +
                                             std::to_string(slabs[d]->size()) + " values, expected " +
                                             std::to_string(n));
    device().copy_from_host(scratch_.real(d), slabs[d]->data(), n * sizeof(Real));
  }
  set_velocity_from_scratch();
}

template <class Real>
void NavierStokes<Real>::velocity_to_host(std::vector<Real>& u, std::vector<Real>& v, std::vector<Real>& w) {
  prepared_ = Prepared::nothing;
  std::vector<Real>* slabs[3] = {&u, &v, &w};
  for (int d = 0; d < 3; ++d) {
    fft_.backward(velocity_.spectral(d), scratch_.real(d));
    slabs[d]->resize(real_size());
    device().copy_to_host(slabs[d]->data(), scratch_.real(d), real_size() * sizeof(Real));
  }
}

template <class Real>
void NavierStokes<Real>::vorticity_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  curl_to_scratch(velocity_);
  transform_to_real(scratch_);
  std::vector<Real>* slabs[3] = {&x, &y, &z};
  for (int d = 0; d < 3; ++d) {
    slabs[d]->resize(real_size());
    device().copy_to_host(slabs[d]->data(), scratch_.real(d), real_size() * sizeof(Real));
  }
}

template <class Real>
void NavierStokes<Real>::pressure_to_host(std::vector<Real>& pressure) {
  curl_to_scratch(velocity_);
  transform_to_real(scratch_);
  transform_velocity_to_stage();
  // scratch <- u x omega; stage x-slab <- |u|^2/2, whose grid mean is the energy.
  const auto u = stage_.real();
  const auto omega = scratch_.real();
  const Sums<1> kinetic_sum = sum<1>(
      device(), points_.size(), KOLMO_LAMBDA(long p) {
        const Real ux = u[0][p], uy = u[1][p], uz = u[2][p];
        const Real ox = omega[0][p], oy = omega[1][p], oz = omega[2][p];
        omega[0][p] = uy * oz - uz * oy;
        omega[1][p] = uz * ox - ux * oz;
        omega[2][p] = ux * oy - uy * ox;
        const Real kinetic = Real(0.5) * (ux * ux + uy * uy + uz * uz);
        u[0][p] = kinetic;
        Sums<1> s;
        s[0] = double(kinetic);
        return s;
      });
  double kinetic_local = kinetic_sum[0], kinetic_total = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&kinetic_local, &kinetic_total, 1, MPI_DOUBLE, MPI_SUM, fft_.comm()));
  const Real kinetic_mean = Real(kinetic_total / wavenumbers_.points());

  // Pi^ = -i k.N^ / k^2 into the stage's y slab; its mean is <|u|^2/2>, so that p has zero mean.
  transform_to_spectral(scratch_);
  const auto w = wavenumbers_;
  const auto n = scratch_.spectral();
  C* pi = stage_.spectral(1);
  const Real scale = Real(1 / w.points());
  parallel_for(
      device(), w.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = w.mode(m);
        const auto k = w.k(mode);
        const Real k2 = k.norm2();
        if (k2 == Real(0)) {
          pi[m] = C(kinetic_mean, 0);
        } else if (!w.kept(mode)) {
          pi[m] = C(0, 0);
        } else {
          pi[m] = times_i(k.x * n[0][m] + k.y * n[1][m] + k.z * n[2][m]) * (-scale / k2);
        }
      });
  fft_.backward(stage_.spectral(1), stage_.real(1));
  Real* p = stage_.real(1);
  const Real* kinetic = stage_.real(0);
  parallel_for(
      device(), points_.size(), KOLMO_LAMBDA(long i) { p[i] = p[i] - kinetic[i]; });
  pressure.resize(real_size());
  device().copy_to_host(pressure.data(), p, real_size() * sizeof(Real));
}

template class NavierStokes<float>;
template class NavierStokes<double>;

}  // namespace kolmo::solver
