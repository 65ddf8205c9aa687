#include "solver/NavierStokes.hpp"

#include <mpi.h>

#include <cmath>
#include <string>
#include <utility>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/RealSpaceProducts.hpp"
#include "solver/Reductions.hpp"

namespace kolmo::solver {

namespace {

template <class Real>
Vector3<Real> vector3(const std::array<double, 3>& v) {
  return {Real(v[0]), Real(v[1]), Real(v[2])};
}

}  // namespace

template <class Real>
NavierStokes<Real>::NavierStokes(fft::SlabFFT<Real>& fft, const FlowParameters& parameters)
    : fft_(fft),
      parameters_(parameters),
      terms_(fold_terms(parameters.scalars, parameters.terms)),
      wavenumbers_(Wavenumbers<Real>::make(fft.layout(), parameters.box)),
      points_(SlabPoints::make(fft.layout(), parameters.box)),
      forcing_(parameters.forcing, wavenumbers_, fft.device_handle(), fft.comm()),
      velocity_(fft, 3),
      stage_(fft, 3) {
  KOLMO_REQUIRE(parameters.viscosity >= 0,
                "viscosity = " + std::to_string(parameters.viscosity) + " must be >= 0");
  KOLMO_REQUIRE(parameters.box.lx > 0 && parameters.box.ly > 0 && parameters.box.lz > 0,
                "box lengths must be positive");
  form_ = nonlinear_form_used(parameters.nonlinear_form, terms_.two_omega != std::array<double, 3>{0, 0, 0},
                              parameters.forcing.kind == ForcingKind::linear);
  extra_ = SpectralField<Real>(fft, form_ == NonlinearForm::divergence ? 2 : 3);
  const bool accumulate = needs_accumulator(parameters.integrator);
  if (accumulate) accumulator_ = SpectralField<Real>(fft, 3);
  for (int j = 0; j < static_cast<int>(parameters.scalars.size()); ++j) {
    ScalarFields s;
    s.state = SpectralField<Real>(fft, 1);
    if (accumulate) s.accumulator = SpectralField<Real>(fft, 1);
    s.gradient = SpectralField<Real>(fft, 3);
    if (terms_.buoyant(j)) s.input = SpectralField<Real>(fft, 1);
    scalars_.push_back(std::move(s));
  }
  // Zero everything once: slack beyond the slab and the modes the 2/3 rule removes stay zero forever.
  for (auto* field : {&velocity_, &stage_, &extra_, &accumulator_}) field->fill_zero();
  for (auto& s : scalars_)
    for (auto* field : {&s.state, &s.accumulator, &s.gradient, &s.input}) field->fill_zero();
  build_scalar_table();
}

// The device table of the scalars' slots that the stage kernels and the real-space pass read.
template <class Real>
void NavierStokes<Real>::build_scalar_table() {
  if (scalars_.empty()) return;
  std::vector<ScalarSlots<Real>> slots;
  for (int j = 0; j < scalar_count(); ++j) {
    auto& s = scalars_[j];
    ScalarSlots<Real> slot{};
    slot.state = s.state.spectral();
    slot.accumulator = s.accumulator.empty() ? nullptr : s.accumulator.spectral();
    for (int d = 0; d < 3; ++d) slot.gradient[d] = s.gradient.spectral(d);
    slot.input = s.input.empty() ? nullptr : s.input.spectral();
    slot.diffusivity = parameters_.scalars[j].diffusivity;
    slot.mean_gradient = vector3<Real>(terms_.mean_gradient[j]);
    slot.buoyancy = vector3<Real>(terms_.buoyancy[j]);
    slots.push_back(slot);
  }
  scalar_table_ = Buffer<ScalarSlots<Real>>(fft_.device_handle(), slots.size());
  scalar_table_.assign_from_host(slots);
}

template <class Real>
std::size_t NavierStokes<Real>::bytes_held() const {
  std::size_t bytes = velocity_.bytes() + stage_.bytes() + extra_.bytes() + accumulator_.bytes() +
                      forcing_.bytes() + scalar_table_.bytes() + fft_.workspace_bytes();
  for (const auto& s : scalars_)
    bytes += s.state.bytes() + s.accumulator.bytes() + s.gradient.bytes() + s.input.bytes();
  return bytes;
}

template <class Real>
int NavierStokes<Real>::scalar_index(const std::string& name) const {
  for (int j = 0; j < scalar_count(); ++j)
    if (scalar_name(j) == name) return j;
  return -1;
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
  f.wavenumbers = wavenumbers_;
  f.velocity = velocity_.vector_spectral();
  f.accumulator =
      accumulator_.empty() ? Components<C>{{nullptr, nullptr, nullptr}} : accumulator_.vector_spectral();
  f.stage = stage_.vector_spectral();
  f.extra = {
      {extra_.spectral(0), extra_.spectral(1), extra_.components() == 3 ? extra_.spectral(2) : nullptr}};
  f.divergence_form = form_ == NonlinearForm::divergence;
  f.viscosity = parameters_.viscosity;
  f.scalars = scalar_table_.data();
  f.scalar_count = scalar_count();
  f.scale = Real(1 / wavenumbers_.points());
  f.transforms_read_all = backward_modes() == fft::Modes::all;
  return f;
}

// The first stage's input, every field's, in the stage, scratch and gradient fields, unless the last step
// (or cfl_dt after it) left it there.
template <class Real>
void NavierStokes<Real>::prepare_first_input() {
  if (prepared_ != Prepared::nothing) return;
  const StageFields<Real> f = stage_fields();
  parallel_for(
      device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) { f.set_input_from_state(m); });
  if (!scalars_.empty())
    parallel_for(
        device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) { f.set_scalar_inputs_from_state(m); });
  prepared_ = Prepared::spectral_input;
}

template <class Real>
void NavierStokes<Real>::step(double dt) {
  KOLMO_REQUIRE(dt > 0 && std::isfinite(dt), "time step dt = " + std::to_string(dt) + " must be positive");
  prepare_first_input();
  integrating_factor_step(parameters_.integrator, dt, stage_fields(), device(),
                          [this](bool first) { evaluate_rhs(first, true, true); });
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
  const double rate = velocity_rate_of_stage() + terms_.wave_frequency_bound;
  return rate > 0 ? std::fmin(max_dt, cfl / rate) : max_dt;
}

// The raw tendencies of the stage input (StageFields.hpp): the velocity's into the stage field, each scalar's
// into its gradient[0]. The inputs are in the stage, scratch and gradient fields (the velocity possibly
// already in real space for the first stage). with_terms = false leaves out Coriolis and the mean gradients
// (the advective terms alone, for transfer spectra).
template <class Real>
void NavierStokes<Real>::evaluate_rhs(bool first_stage, bool with_forcing, bool with_terms) {
  const ForcingKind forcing = with_forcing ? forcing_.kind() : ForcingKind::none;
  // The forcing amplitude belongs to the input field, which the transforms below overwrite.
  const SpectralField<Real>& input = first_stage ? velocity_ : stage_;
  double amplitude = 0;
  if (forcing == ForcingKind::band) amplitude = forcing_.amplitude(forcing_.capture_band(input));
  if (forcing == ForcingKind::linear) amplitude = forcing_.amplitude(forcing_.forced_energy(input));

  const bool divergence = form_ == NonlinearForm::divergence;
  if (!divergence) transform_to_real(extra_);  // omega
  if (!(first_stage && prepared_ == Prepared::real_velocity)) transform_to_real(stage_);
  for (auto& s : scalars_) transform_to_real(s.gradient);
  prepared_ = Prepared::nothing;
  // Linear forcing f = a u is pointwise in real space, so it joins the products there (rotational form).
  real_space_products(forcing == ForcingKind::linear ? Real(amplitude) : Real(0), with_terms);
  transform_to_spectral(stage_);
  if (divergence) transform_to_spectral(extra_);  // T_xz, T_yz
  for (auto& s : scalars_) fft_.forward(s.gradient.real(0), s.gradient.spectral(0), forward_modes());
  // Band forcing joins the unnormalised transform; the projection leaves it (divergence-free) unchanged. In
  // the divergence form it joins T as a stress whose -i k.F is the forcing (Forcing.hpp).
  const Real scaled_amplitude = Real(amplitude * wavenumbers_.points());
  if (forcing == ForcingKind::band && divergence)
    forcing_.add_captured_as_stress(stage_, extra_, scaled_amplitude);
  if (forcing == ForcingKind::band && !divergence) forcing_.add_captured(stage_, scaled_amplitude);
}

// The one real-space pass of a right-hand side (RealSpaceProducts.hpp): u in the stage field, omega in the
// extra field (rotational form), the scalars' gradients in theirs.
template <class Real>
void NavierStokes<Real>::real_space_products(Real linear_forcing_amplitude, bool with_terms) {
  RealSpaceProducts<Real> products;
  products.velocity = stage_.vector_real();
  products.extra = {{extra_.real(0), extra_.real(1), extra_.components() == 3 ? extra_.real(2) : nullptr}};
  products.two_omega = with_terms ? vector3<Real>(terms_.two_omega) : Vector3<Real>{0, 0, 0};
  products.linear_forcing = linear_forcing_amplitude;
  products.scalars = scalar_table_.data();
  products.scalar_count = scalar_count();
  products.mean_gradients = with_terms;
  const bool divergence = form_ == NonlinearForm::divergence;
  if (scalars_.empty() && divergence) {
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long p) { products.stress_at(p); });
  } else if (scalars_.empty()) {
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long p) { products.rotational_at(p); });
  } else if (divergence) {
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long p) {
          products.scalars_at(p);
          products.stress_at(p);
        });
  } else {
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long p) {
          products.scalars_at(p);
          products.rotational_at(p);
        });
  }
}

template <class Real>
const SpectralField<Real>& NavierStokes<Real>::nonlinear_term() {
  prepare_first_input();
  evaluate_rhs(true, false, false);
  finish_nonlinear_terms();
  return stage_;
}

// stage <- P (stage / (Nx Ny Nz)) and each scalar's gradient[0] <- gradient[0] / (Nx Ny Nz) on kept modes;
// 0 elsewhere and, for the velocity, at k = 0.
template <class Real>
void NavierStokes<Real>::finish_nonlinear_terms() {
  const StageFields<Real> f = stage_fields();
  parallel_for(
      device(), f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.wavenumbers.mode(m);
        const bool kept = f.kept(mode);
        const ModeVector<Real> zero{{C(0, 0), C(0, 0), C(0, 0)}};
        (kept ? f.velocity_rhs(m, mode) : zero).store(f.stage, m);
        for (int j = 0; j < f.scalar_count; ++j) {
          C* n = f.scalars[j].gradient[0];
          n[m] = kept ? f.scalar_rhs(f.scalars[j], m) : C(0, 0);
        }
      });
}

// omega^ = i k x u^ into the stage field.
template <class Real>
void NavierStokes<Real>::curl_to_stage(const SpectralField<Real>& field) {
  prepared_ = Prepared::nothing;
  const auto wavenumbers = wavenumbers_;
  const auto u = field.vector_spectral();
  const auto omega = stage_.vector_spectral();
  parallel_for(
      device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        curl(wavenumbers.k(wavenumbers.mode(m)), ModeVector<Real>::load(u, m)).store(omega, m);
      });
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
void NavierStokes<Real>::transform_to_real(SpectralField<Real>& field) {
  for (int d = 0; d < field.components(); ++d)
    fft_.backward(field.spectral(d), field.real(d), backward_modes());
}

template <class Real>
void NavierStokes<Real>::transform_to_spectral(SpectralField<Real>& field) {
  for (int d = 0; d < field.components(); ++d)
    fft_.forward(field.real(d), field.spectral(d), forward_modes());
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
  const auto u = stage_.vector_real();
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

template <class Real>
void NavierStokes<Real>::enforce_constraints() {
  prepared_ = Prepared::nothing;
  const StageFields<Real> f = stage_fields();
  parallel_for(
      device(), f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.wavenumbers.mode(m);
        const bool kept = f.kept(mode);
        for (int j = 0; j < f.scalar_count; ++j)
          if (!kept) f.scalars[j].state[m] = C(0, 0);
        const auto u = f.velocity;
        if (!kept) {
          u[0][m] = u[1][m] = u[2][m] = C(0, 0);
          return;
        }
        const auto k = f.wavenumbers.k(mode);
        const Real k2 = k.norm2();
        if (k2 == Real(0)) return;  // the mean flow is divergence-free as it is
        project(k, k2, ModeVector<Real>::load(u, m)).store(u, m);
      });
}

// Scales the unnormalised transform of a real field to normalised coefficients.
template <class Real>
void NavierStokes<Real>::set_velocity_from_scratch() {
  for (int d = 0; d < 3; ++d) fft_.forward(stage_.real(d), velocity_.spectral(d));
  const auto u = velocity_.vector_spectral();
  const Real scale = Real(1 / wavenumbers_.points());
  parallel_for(
      device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) {
        for (int d = 0; d < 3; ++d) u[d][m] = scale * u[d][m];
      });
  enforce_constraints();
}

template <class Real>
void NavierStokes<Real>::set_scalar_from_scratch(int j) {
  C* theta = scalars_.at(j).state.spectral();
  fft_.forward(stage_.real(0), theta);
  const Real scale = Real(1 / wavenumbers_.points());
  parallel_for(
      device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) { theta[m] = scale * theta[m]; });
  enforce_constraints();
}

namespace {

template <class Real>
void copy_slab_to_device(Device& device, Real* to, const std::vector<Real>& from, std::size_t n,
                         const std::string& what) {
  KOLMO_REQUIRE(from.size() == n,
                what + " has " + std::to_string(from.size()) + " values, expected " + std::to_string(n));
  device.copy_from_host(to, from.data(), n * sizeof(Real));
}

}  // namespace

template <class Real>
void NavierStokes<Real>::set_velocity(const std::vector<Real>& u, const std::vector<Real>& v,
                                      const std::vector<Real>& w) {
  const std::vector<Real>* slabs[3] = {&u, &v, &w};
  const char* names[3] = {"u", "v", "w"};
  for (int d = 0; d < 3; ++d)
    copy_slab_to_device(device(), stage_.real(d), *slabs[d], real_size(),
                        std::string("velocity slab ") + names[d]);
  set_velocity_from_scratch();
}

template <class Real>
void NavierStokes<Real>::set_scalar(int j, const std::vector<Real>& theta) {
  copy_slab_to_device(device(), stage_.real(0), theta, real_size(), "scalar slab " + scalar_name(j));
  set_scalar_from_scratch(j);
}

template <class Real>
void NavierStokes<Real>::velocity_to_host(std::vector<Real>& u, std::vector<Real>& v, std::vector<Real>& w) {
  prepared_ = Prepared::nothing;
  std::vector<Real>* slabs[3] = {&u, &v, &w};
  for (int d = 0; d < 3; ++d) {
    fft_.backward(velocity_.spectral(d), stage_.real(d));
    slabs[d]->resize(real_size());
    device().copy_to_host(slabs[d]->data(), stage_.real(d), real_size() * sizeof(Real));
  }
}

template <class Real>
void NavierStokes<Real>::scalar_to_host(int j, std::vector<Real>& theta) {
  prepared_ = Prepared::nothing;
  fft_.backward(scalars_.at(j).state.spectral(), stage_.real(0));
  theta.resize(real_size());
  device().copy_to_host(theta.data(), stage_.real(0), real_size() * sizeof(Real));
}

template <class Real>
void NavierStokes<Real>::vorticity_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  curl_to_stage(velocity_);
  transform_to_real(stage_);
  std::vector<Real>* slabs[3] = {&x, &y, &z};
  for (int d = 0; d < 3; ++d) {
    slabs[d]->resize(real_size());
    device().copy_to_host(slabs[d]->data(), stage_.real(d), real_size() * sizeof(Real));
  }
}

template <class Real>
void NavierStokes<Real>::pressure_to_host(std::vector<Real>& pressure) {
  // The tendency before projection by the step's own real-space pass: R^ = [u x (omega + 2 Omega)]^ + ...
  // in the rotational form, whose gradient part is -grad(p + c |u|^2) with c = 1/2; -i k.T^ + ... in the
  // divergence form, with c = 1/3 (StageFields.hpp). Pi^ = -i k.R^ / k^2 into the stage's x slab, then
  // p^ = Pi^ - c [|u|^2]^ on the kept modes, zero elsewhere and at k = 0: the same in both forms.
  const Real c = form_ == NonlinearForm::divergence ? Real(1) / Real(3) : Real(0.5);
  prepare_first_input();
  evaluate_rhs(true, false, true);
  const StageFields<Real> f = stage_fields();
  C* pi = stage_.spectral(0);
  parallel_for(
      device(), f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.wavenumbers.mode(m);
        const auto k = f.wavenumbers.k(mode);
        const Real k2 = k.norm2();
        if (k2 == Real(0) || !f.kept(mode)) {
          pi[m] = C(0, 0);
          return;
        }
        ModeVector<Real> r = f.tendency(m, k);
        f.add_buoyancy(r, m, true);
        pi[m] = times_i(k.x * r[0] + k.y * r[1] + k.z * r[2]) * (Real(-1) / k2);
      });
  // |u|^2 in the stage's y slab, one velocity component at a time through the extra field.
  Real* u2 = stage_.real(1);
  Real* u = extra_.real(0);
  for (int d = 0; d < 3; ++d) {
    fft_.backward(velocity_.spectral(d), u);
    const bool first = d == 0;
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long i) { u2[i] = (first ? Real(0) : u2[i]) + u[i] * u[i]; });
  }
  fft_.forward(u2, stage_.spectral(1));
  const C* u2_hat = stage_.spectral(1);
  parallel_for(
      device(), f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.wavenumbers.mode(m);
        if (f.kept(mode) && f.wavenumbers.k(mode).norm2() != Real(0))
          pi[m] = pi[m] - (c * f.scale) * u2_hat[m];
      });
  fft_.backward(pi, stage_.real(0));
  pressure.resize(real_size());
  device().copy_to_host(pressure.data(), stage_.real(0), real_size() * sizeof(Real));
}

template class NavierStokes<float>;
template class NavierStokes<double>;

}  // namespace kolmo::solver
