#include "solver/NavierStokes.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "solver/Diagnostics.hpp"
#include "solver/RealSpaceProducts.hpp"
#include "solver/Reductions.hpp"
#include "solver/VelocityRate.hpp"

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
      lanes_(std::make_unique<fft::TransformLanes<Real>>(
          fft, parameters.transform_lanes > 0 ? parameters.transform_lanes
                                              : fft::TransformLanes<Real>::automatic_lanes(fft))),
      parameters_(parameters),
      terms_(fold_terms(parameters.scalars, parameters.terms)),
      wavenumbers_(Wavenumbers<Real>::make(fft.layout(), parameters.box)),
      points_(SlabPoints::make(fft.layout(), parameters.box)),
      forcing_(parameters.forcing, wavenumbers_, fft.device_handle(), fft.comm()),
      magnetic_forcing_(parameters.magnetic.forcing, wavenumbers_, fft.device_handle(), fft.comm(),
                        "magnetic forcing"),
      velocity_(fft, 3),
      stage_(fft, 3) {
  KOLMO_REQUIRE(parameters.viscosity >= 0,
                "viscosity = " + std::to_string(parameters.viscosity) + " must be >= 0");
  KOLMO_REQUIRE(parameters.box.lx > 0 && parameters.box.ly > 0 && parameters.box.lz > 0,
                "box lengths must be positive");
  form_ = nonlinear_form_used(parameters.nonlinear_form, terms_.two_omega != std::array<double, 3>{0, 0, 0},
                              parameters.forcing.kind == ForcingKind::linear, parameters.magnetic.enabled);
  extra_ = SpectralField<Real>(fft, form_ == NonlinearForm::divergence ? 2 : 3);
  const bool accumulate = needs_accumulator(parameters.integrator);
  if (accumulate) accumulator_ = SpectralField<Real>(fft, 3);
  if (magnetic()) {
    const auto& b = parameters.magnetic;
    KOLMO_REQUIRE(std::isfinite(b.resistivity) && b.resistivity >= 0,
                  "magnetic: resistivity = " + std::to_string(b.resistivity) + " must be >= 0");
    KOLMO_REQUIRE(std::isfinite(b.background[0] + b.background[1] + b.background[2]),
                  "magnetic: the background field B0 is not finite");
    KOLMO_REQUIRE(b.forcing.kind != ForcingKind::linear,
                  "magnetic forcing: only band forcing of b is available (linear is not)");
    magnetic_ = SpectralField<Real>(fft, 3);
    magnetic_stage_ = SpectralField<Real>(fft, 3);
    if (accumulate) magnetic_accumulator_ = SpectralField<Real>(fft, 3);
    // Coriolis and the linear forcing act on u, which the real-space pass overwrites: a spectral copy of the
    // stage's u carries them to the stage update (StageFields.hpp).
    if (terms_.two_omega != std::array<double, 3>{0, 0, 0} || parameters.forcing.kind == ForcingKind::linear)
      velocity_input_ = SpectralField<Real>(fft, 3);
  } else {
    KOLMO_REQUIRE(parameters.magnetic.forcing.kind == ForcingKind::none,
                  "magnetic forcing without a magnetic field");
  }
  for (int j = 0; j < static_cast<int>(parameters.scalars.size()); ++j) {
    ScalarFields s;
    s.state = SpectralField<Real>(fft, 1);
    if (accumulate) s.accumulator = SpectralField<Real>(fft, 1);
    s.gradient = SpectralField<Real>(fft, 3);
    if (terms_.buoyant(j)) s.input = SpectralField<Real>(fft, 1);
    scalars_.push_back(std::move(s));
  }
  // Zero everything once: slack beyond the slab and the modes the 2/3 rule removes stay zero forever.
  for (auto* field : {&velocity_, &stage_, &extra_, &accumulator_, &magnetic_, &magnetic_stage_,
                      &magnetic_accumulator_, &velocity_input_})
    field->fill_zero();
  for (auto& s : scalars_)
    for (auto* field : {&s.state, &s.accumulator, &s.gradient, &s.input}) field->fill_zero();
  build_scalar_table();
  make_products_between_rows();
}

// The products between the rows where the FFT splits there and ProductsInRows forms this flow's: the slabs
// in its order (ProductsInRows.hpp), the stage's fields in the slots of the slab pass.
template <class Real>
void NavierStokes<Real>::make_products_between_rows() {
  const ProductKind kind = magnetic()                           ? ProductKind::magnetic
                           : form_ == NonlinearForm::divergence ? ProductKind::stress
                                                                : ProductKind::rotational;
  if (!parameters_.row_products || !lanes_->row_split() ||
      !ProductsInRows<Real>::serves(kind, scalar_count()))
    return;
  std::vector<C*> in, out;
  for (int d = 0; d < 3; ++d) {
    in.push_back(stage_.spectral(d));
    out.push_back(stage_.spectral(d));
  }
  for (int d = 0; d < 3 && kind != ProductKind::stress; ++d)
    in.push_back((kind == ProductKind::magnetic ? magnetic_stage_ : extra_).spectral(d));
  for (int d = 0; d < 2 && kind != ProductKind::rotational; ++d) out.push_back(extra_.spectral(d));
  for (int d = 0; d < 3 && kind == ProductKind::magnetic; ++d) out.push_back(magnetic_stage_.spectral(d));
  for (auto& s : scalars_) {
    for (int d = 0; d < 3; ++d) in.push_back(s.gradient.spectral(d));
    out.push_back(s.gradient.spectral(0));
  }
  rows_ = std::make_unique<ProductsInRows<Real>>(*lanes_, kind, scalar_count(), std::move(in), std::move(out),
                                                 device().stream());
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
                      forcing_.bytes() + scalar_table_.bytes() + fft_.workspace_bytes() +
                      lanes_->workspace_bytes() + magnetic_.bytes() + magnetic_stage_.bytes() +
                      magnetic_accumulator_.bytes() + velocity_input_.bytes() + magnetic_forcing_.bytes();
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
  if (magnetic()) {
    f.magnetic = true;
    f.magnetic_state = magnetic_.vector_spectral();
    f.magnetic_stage = magnetic_stage_.vector_spectral();
    f.magnetic_accumulator = magnetic_accumulator_.empty() ? Components<C>{{nullptr, nullptr, nullptr}}
                                                           : magnetic_accumulator_.vector_spectral();
    f.resistivity = parameters_.magnetic.resistivity;
    if (!velocity_input_.empty()) {
      f.velocity_input = velocity_input_.vector_spectral();
      f.two_omega = vector3<Real>(terms_.two_omega);
    }
  }
  f.scale = Real(1 / wavenumbers_.points());
  f.transforms_read_all = backward_modes() == fft::Modes::all;
  return f;
}

// The first stage's input, every field's, in the stage, scratch and gradient fields, unless the last step
// (or cfl_dt after it) left it there.
template <class Real>
void NavierStokes<Real>::prepare_first_input() {
  // cfl_dt's first stage (first_rhs) has overwritten the input with its right-hand side.
  if (prepared_ != Prepared::nothing && prepared_ != Prepared::first_rhs) return;
  const StageFields<Real> f = stage_fields();
  if (magnetic())
    parallel_for(
        device(), wavenumbers_.size(), KOLMO_LAMBDA(long m) { f.set_magnetic_input_from_state(m); });
  else
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
  if (prepared_ != Prepared::first_rhs) prepare_first_input();
  integrating_factor_step(parameters_.integrator, dt, stage_fields(), device(),
                          [this](bool first) { return evaluate_rhs(first, true, true); });
  time_ += dt;
  last_dt_ = dt;
  ++step_count_;
  prepared_ = Prepared::spectral_input;
}

template <class Real>
double NavierStokes<Real>::cfl_dt(double cfl, double max_dt) {
  KOLMO_REQUIRE(cfl > 0, "cfl = " + std::to_string(cfl) + " must be positive");
  KOLMO_REQUIRE(max_dt > 0, "max_dt = " + std::to_string(max_dt) + " must be positive");
  if (rows_ && prepared_ != Prepared::first_rhs) {
    // The first stage's products between the rows, which do not depend on dt, with the scan of u's (and
    // b's) real values in the same kernel; step(dt) takes them.
    prepare_first_input();
    MaxAndSum local{};
    first_rate_ = evaluate_rhs(true, true, true, &local);
    record_scan(local);
    prepared_ = Prepared::first_rhs;
  } else if (!rows_) {
    prepare_first_input();
    if (prepared_ == Prepared::spectral_input) {
      transform_to_real(magnetic() ? std::vector{&stage_, &magnetic_stage_} : std::vector{&stage_});
      prepared_ = Prepared::real_velocity;
    }
    velocity_rate_of_stage();
  }
  const double rate = scan_.rate + terms_.wave_frequency_bound + forcing_rate();
  return rate > 0 ? std::fmin(max_dt, cfl / rate) : max_dt;
}

template <class Real>
double NavierStokes<Real>::forcing_rate() const {
  auto rate = [](const Forcing<Real>& forcing, const SpectralField<Real>& field) {
    if (forcing.kind() == ForcingKind::none) return 0.0;
    // A fixed coefficient needs no pass over the field.
    if (forcing.parameters().power == 0) return std::abs(forcing.amplitude(0.0));
    return forcing.amplitude(forcing.forced_energy(field));
  };
  return std::max(rate(forcing_, velocity_), magnetic() ? rate(magnetic_forcing_, magnetic_) : 0.0);
}

template <class Real>
double NavierStokes<Real>::largest_forcing_amplitude(ForcingKind kind) const {
  const double largest = double(std::numeric_limits<Real>::max());
  return kind == ForcingKind::band ? largest / wavenumbers_.points() : largest;  // as evaluate_rhs scales it
}

// The raw tendencies of the stage input (StageFields.hpp): the velocity's into the stage field, each scalar's
// into its gradient[0]. The inputs are in the stage, scratch and gradient fields (the velocity possibly
// already in real space for the first stage). with_terms = false leaves out Coriolis and the mean gradients
// (the advective terms alone, for transfer spectra). Returns the linear forcing's a when the stage update
// applies it (MHD: StageFields::add_input_terms), 0 otherwise.
template <class Real>
double NavierStokes<Real>::evaluate_rhs(bool first_stage, bool with_forcing, bool with_terms,
                                        MaxAndSum* scan) {
  if (first_stage && prepared_ == Prepared::first_rhs) {
    // cfl_dt formed it, as step asks for it (the diagnostics' calls prepare their input anew).
    KOLMO_REQUIRE(with_forcing && with_terms && !scan, "internal: the first stage's right-hand side reused");
    prepared_ = Prepared::nothing;
    return first_rate_;
  }
  const ForcingKind forcing = with_forcing ? forcing_.kind() : ForcingKind::none;
  // The forcing amplitudes belong to the input fields, which the transforms below overwrite.
  const SpectralField<Real>& input = first_stage ? velocity_ : stage_;
  double amplitude = 0;
  if (forcing == ForcingKind::band) amplitude = forcing_.amplitude(forcing_.capture_band(input));
  if (forcing == ForcingKind::linear) amplitude = forcing_.amplitude(forcing_.forced_energy(input));
  const bool force_b = with_forcing && magnetic_forcing_.kind() == ForcingKind::band;
  const double amplitude_b = force_b ? magnetic_forcing_.amplitude(magnetic_forcing_.capture_band(
                                           first_stage ? magnetic_ : magnetic_stage_))
                                     : 0.0;

  const bool divergence = form_ == NonlinearForm::divergence;
  // Linear forcing f = a u is pointwise in real space, so it joins the products there (rotational form);
  // MHD's stage update applies it from the spectral copy of u.
  const bool linear_in_update = forcing == ForcingKind::linear && magnetic();
  const ProductCoefficients<Real> coefficients = product_coefficients(
      forcing == ForcingKind::linear && !linear_in_update ? Real(amplitude) : Real(0), with_terms);
  if (rows_) {
    rows_->to_rows();
    prepared_ = Prepared::nothing;
    if (scan) {
      const auto& b0 = parameters_.magnetic.background;
      *scan = rows_->form_and_scan(coefficients, inverse_spacing(), Vector3<double>{b0[0], b0[1], b0[2]});
    } else {
      rows_->form(coefficients);
    }
    rows_->from_rows();
  } else {
    std::vector<SpectralField<Real>*> to_real, to_spectral{&stage_}, firsts;
    if (!divergence) to_real.push_back(&extra_);  // omega
    if (!(first_stage && prepared_ == Prepared::real_velocity)) {
      to_real.push_back(&stage_);
      if (magnetic()) to_real.push_back(&magnetic_stage_);
    }
    for (auto& s : scalars_) to_real.push_back(&s.gradient);
    transform_to_real(to_real);
    prepared_ = Prepared::nothing;
    real_space_products(coefficients, with_terms);
    if (divergence) to_spectral.push_back(&extra_);           // T_xz, T_yz
    if (magnetic()) to_spectral.push_back(&magnetic_stage_);  // E = u x B
    for (auto& s : scalars_) firsts.push_back(&s.gradient);   // each scalar's term, in its first component
    transform_to_spectral(to_spectral, firsts);
  }
  // Band forcing joins the unnormalised transform; the projection leaves it (divergence-free) unchanged. In
  // the divergence form it joins T as a stress whose -i k.F is the forcing (Forcing.hpp).
  const Real scaled_amplitude = Real(amplitude * wavenumbers_.points());
  if (forcing == ForcingKind::band && divergence)
    forcing_.add_captured_as_stress(stage_, extra_, scaled_amplitude);
  if (forcing == ForcingKind::band && !divergence) forcing_.add_captured(stage_, scaled_amplitude);
  // b's band forcing joins E as a field whose curl it is.
  if (force_b)
    magnetic_forcing_.add_captured_as_curl(magnetic_stage_, Real(amplitude_b * wavenumbers_.points()));
  return linear_in_update ? amplitude : 0.0;
}

// The coefficients of the real-space products, for both passes: the linear forcing's a, and with_terms the
// rotation, B0 and the mean gradients (the row pass's, ProductsInRows.hpp; the slab pass reads each scalar's
// from its slots).
template <class Real>
ProductCoefficients<Real> NavierStokes<Real>::product_coefficients(Real linear_forcing,
                                                                   bool with_terms) const {
  ProductCoefficients<Real> c;
  c.linear_forcing = linear_forcing;
  if (!with_terms) return c;
  c.two_omega = vector3<Real>(terms_.two_omega);
  c.background = vector3<Real>(parameters_.magnetic.background);
  for (int j = 0; j < std::min(scalar_count(), kMaxRowScalars); ++j)
    c.mean_gradient[j] = vector3<Real>(terms_.mean_gradient[j]);
  return c;
}

// The one real-space pass of a right-hand side (RealSpaceProducts.hpp): u in the stage field, omega in the
// extra field (rotational form), the scalars' gradients in theirs.
template <class Real>
void NavierStokes<Real>::real_space_products(const ProductCoefficients<Real>& coefficients, bool with_terms) {
  RealSpaceProducts<Real> products;
  products.velocity = stage_.vector_real();
  products.extra = {{extra_.real(0), extra_.real(1), extra_.components() == 3 ? extra_.real(2) : nullptr}};
  products.two_omega = coefficients.two_omega;
  products.linear_forcing = coefficients.linear_forcing;
  products.scalars = scalar_table_.data();
  products.scalar_count = scalar_count();
  products.mean_gradients = with_terms;
  const bool divergence = form_ == NonlinearForm::divergence;
  if (magnetic()) {
    products.magnetic = magnetic_stage_.vector_real();
    products.background = coefficients.background;
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long p) {
          products.scalars_at(p);
          products.magnetic_at(p);
        });
  } else if (scalars_.empty() && divergence) {
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
        // MHD: b's term from E in its own stage field, which the velocity's term does not read.
        if (f.magnetic) (kept ? f.magnetic_rhs(m, mode) : zero).store(f.magnetic_stage, m);
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
void NavierStokes<Real>::transform_to_real(const std::vector<SpectralField<Real>*>& fields) {
  std::vector<std::pair<const C*, Real*>> components;
  for (SpectralField<Real>* field : fields)
    for (int d = 0; d < field->components(); ++d) components.push_back({field->spectral(d), field->real(d)});
  lanes_->backward(components, backward_modes());
}

template <class Real>
void NavierStokes<Real>::transform_to_spectral(const std::vector<SpectralField<Real>*>& fields,
                                               const std::vector<SpectralField<Real>*>& firsts) {
  std::vector<std::pair<const Real*, C*>> components;
  for (SpectralField<Real>* field : fields)
    for (int d = 0; d < field->components(); ++d) components.push_back({field->real(d), field->spectral(d)});
  for (SpectralField<Real>* field : firsts) components.push_back({field->real(0), field->spectral(0)});
  lanes_->forward(components, forward_modes());
}

template <class Real>
double NavierStokes<Real>::transform_velocity_to_stage() {
  prepared_ = Prepared::nothing;
  std::vector<std::pair<const C*, Real*>> components;
  for (int d = 0; d < 3; ++d) components.push_back({velocity_.spectral(d), stage_.real(d)});
  if (magnetic())
    for (int d = 0; d < 3; ++d) components.push_back({magnetic_.spectral(d), magnetic_stage_.real(d)});
  lanes_->backward(components, backward_modes());
  return velocity_rate_of_stage();
}

// max over points of |u|/dx + |v|/dy + |w|/dz of the real velocity in the stage field, over all ranks, and in
// the same pass the energy 1/2 <|u|^2> (the grid mean equals the sum over modes by Parseval), kept in scan_.
template <class Real>
double NavierStokes<Real>::velocity_rate_of_stage() {
  const auto u = stage_.vector_real();
  // MHD: the Alfven speed |B| joins the flow's in each direction (b in real space in its stage field).
  const bool with_b = magnetic();
  const Components<const Real> b = with_b ? std::as_const(magnetic_stage_).vector_real()
                                          : Components<const Real>{{nullptr, nullptr, nullptr}};
  const auto& background = parameters_.magnetic.background;
  const double b0x = background[0], b0y = background[1], b0z = background[2];
  const InverseSpacing inverse = inverse_spacing();
  const MaxAndSum local = max_and_sum(
      device(), points_.size(), KOLMO_LAMBDA(long p) {
        const double bx = with_b ? fabs(b[0][p] + b0x) : 0.0, by = with_b ? fabs(b[1][p] + b0y) : 0.0,
                     bz = with_b ? fabs(b[2][p] + b0z) : 0.0;
        return rate_and_energy(u[0][p], u[1][p], u[2][p], bx, by, bz, inverse);
      });
  return record_scan(local);
}

template <class Real>
InverseSpacing NavierStokes<Real>::inverse_spacing() const {
  return {1 / points_.dx, 1 / points_.dy, 1 / points_.dz};
}

// The rank's maximum rate and energy sum, over all ranks, into scan_; returns the rate.
template <class Real>
double NavierStokes<Real>::record_scan(const MaxAndSum& local) {
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
        const auto u = f.velocity, b = f.magnetic_state;
        if (!kept) {
          u[0][m] = u[1][m] = u[2][m] = C(0, 0);
          if (f.magnetic) b[0][m] = b[1][m] = b[2][m] = C(0, 0);
          return;
        }
        const auto k = f.wavenumbers.k(mode);
        const Real k2 = k.norm2();
        if (k2 == Real(0)) return;  // the mean fields are divergence-free as they are
        project(k, k2, ModeVector<Real>::load(u, m)).store(u, m);
        if (f.magnetic) project(k, k2, ModeVector<Real>::load(b, m)).store(b, m);
      });
}

// Scales the unnormalised transform of a real field to normalised coefficients.
template <class Real>
void NavierStokes<Real>::set_velocity_from_scratch() {
  set_vector_from_scratch(velocity_);
}

template <class Real>
void NavierStokes<Real>::set_magnetic_from_scratch() {
  KOLMO_REQUIRE(magnetic(), "internal: a magnetic field set in a flow without one");
  set_vector_from_scratch(magnetic_);
}

template <class Real>
void NavierStokes<Real>::set_vector_from_scratch(SpectralField<Real>& field) {
  lanes_->forward({{stage_.real(0), field.spectral(0)},
                   {stage_.real(1), field.spectral(1)},
                   {stage_.real(2), field.spectral(2)}});
  const auto u = field.vector_spectral();
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

// Three host slabs into the stage field's real views (scratch()); what names them in messages.
template <class Real>
void NavierStokes<Real>::vector_to_stage(const std::vector<Real>& x, const std::vector<Real>& y,
                                         const std::vector<Real>& z, const std::string& what,
                                         const std::array<const char*, 3>& names) {
  const std::vector<Real>* slabs[3] = {&x, &y, &z};
  for (int d = 0; d < 3; ++d)
    copy_slab_to_device(device(), stage_.real(d), *slabs[d], real_size(), what + " " + names[d]);
}

template <class Real>
void NavierStokes<Real>::set_velocity(const std::vector<Real>& u, const std::vector<Real>& v,
                                      const std::vector<Real>& w) {
  vector_to_stage(u, v, w, "velocity slab", {"u", "v", "w"});
  set_velocity_from_scratch();
}

template <class Real>
void NavierStokes<Real>::set_magnetic(const std::vector<Real>& x, const std::vector<Real>& y,
                                      const std::vector<Real>& z) {
  vector_to_stage(x, y, z, "magnetic slab", {"bx", "by", "bz"});
  set_magnetic_from_scratch();
}

template <class Real>
void NavierStokes<Real>::set_scalar(int j, const std::vector<Real>& theta) {
  copy_slab_to_device(device(), stage_.real(0), theta, real_size(), "scalar slab " + scalar_name(j));
  set_scalar_from_scratch(j);
}

// A vector field (or its curl) to host slabs, through the stage field.
template <class Real>
void NavierStokes<Real>::vector_to_host(const SpectralField<Real>& field, bool take_curl,
                                        std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  prepared_ = Prepared::nothing;
  if (take_curl) {
    curl_to_stage(field);
    transform_to_real({&stage_});
  } else {
    lanes_->backward({{field.spectral(0), stage_.real(0)},
                      {field.spectral(1), stage_.real(1)},
                      {field.spectral(2), stage_.real(2)}});
  }
  std::vector<Real>* slabs[3] = {&x, &y, &z};
  for (int d = 0; d < 3; ++d) {
    slabs[d]->resize(real_size());
    device().copy_to_host(slabs[d]->data(), stage_.real(d), real_size() * sizeof(Real));
  }
}

template <class Real>
void NavierStokes<Real>::velocity_to_host(std::vector<Real>& u, std::vector<Real>& v, std::vector<Real>& w) {
  vector_to_host(velocity_, false, u, v, w);
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
  vector_to_host(velocity_, true, x, y, z);
}

template <class Real>
void NavierStokes<Real>::magnetic_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  KOLMO_REQUIRE(magnetic(), "internal: the magnetic field of a flow without one");
  vector_to_host(magnetic_, false, x, y, z);
}

template <class Real>
void NavierStokes<Real>::current_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  KOLMO_REQUIRE(magnetic(), "internal: the current of a flow without a magnetic field");
  vector_to_host(magnetic_, true, x, y, z);
}

template <class Real>
void NavierStokes<Real>::pressure_to_host(std::vector<Real>& pressure) {
  // The tendency before projection by the step's own real-space pass: R^ = [u x (omega + 2 Omega)]^ + ...
  // in the rotational form, whose gradient part is -grad(p + c |u|^2) with c = 1/2; -i k.T^ + ... in the
  // divergence form, with c = 1/3 (StageFields.hpp). Pi^ = -i k.R^ / k^2 into the stage's x slab, then
  // p^ = Pi^ - c [|u|^2]^ on the kept modes, zero elsewhere and at k = 0: the same in both forms.
  // MHD: T = u u - B B - (|u|^2 - |B|^2)/3 I and R = -i k.T + u x 2 Omega (+ buoyancy), while du/dt = -div(u
  // u) - grad p + j x B + ... with j x B = div(B B) - grad |B|^2/2: so Pi = p + |u|^2/3 + |B|^2/6, and
  // p^ = Pi^ - [|u|^2/3 + |B|^2/6]^ (B = B0 + b), the fluid pressure without the magnetic |B|^2/2.
  const bool divergence = form_ == NonlinearForm::divergence;
  const Real c = divergence ? Real(1) / Real(3) : Real(0.5), c_b = Real(1) / Real(6);
  prepare_first_input();
  evaluate_rhs(true, false, true);
  StageFields<Real> f = stage_fields();
  if (magnetic()) {  // Coriolis from the state, the first stage's input (no linear forcing: divergence-free)
    f.velocity_input = velocity_.vector_spectral();
    f.two_omega = vector3<Real>(terms_.two_omega);
    f.linear_forcing = 0;
  }
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
        f.add_input_terms(r, m);
        pi[m] = times_i(k.x * r[0] + k.y * r[1] + k.z * r[2]) * (Real(-1) / k2);
      });
  // q = c |u|^2 (+ c_b |B|^2) in the stage's y slab, one component at a time through the extra field.
  Real* q = stage_.real(1);
  Real* v = extra_.real(0);
  const auto& b0 = parameters_.magnetic.background;
  for (int component = 0; component < (magnetic() ? 6 : 3); ++component) {
    const bool of_u = component < 3;
    const int d = component % 3;
    fft_.backward((of_u ? velocity_ : magnetic_).spectral(d), v);
    const bool first = component == 0;
    const Real weight = of_u ? c : c_b, offset = of_u ? Real(0) : Real(b0[d]);
    parallel_for(
        device(), points_.size(), KOLMO_LAMBDA(long i) {
          const Real value = v[i] + offset;
          q[i] = (first ? Real(0) : q[i]) + weight * value * value;
        });
  }
  fft_.forward(q, stage_.spectral(1));
  const C* q_hat = stage_.spectral(1);
  parallel_for(
      device(), f.wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode mode = f.wavenumbers.mode(m);
        if (f.kept(mode) && f.wavenumbers.k(mode).norm2() != Real(0)) pi[m] = pi[m] - f.scale * q_hat[m];
      });
  fft_.backward(pi, stage_.real(0));
  pressure.resize(real_size());
  device().copy_to_host(pressure.data(), stage_.real(0), real_size() * sizeof(Real));
}

template class NavierStokes<float>;
template class NavierStokes<double>;

}  // namespace kolmo::solver
