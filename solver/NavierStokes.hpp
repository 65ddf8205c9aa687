// Incompressible Navier-Stokes in a periodic box with passive or active scalars, Boussinesq buoyancy and
// rotation, pseudo-spectral, on either backend.
//
// Contract:
// - Equations: du/dt = u x omega - grad(p + |u|^2/2) + nu lap u + f + terms, div u = 0, with p the kinematic
//   pressure (pressure / density), and for each scalar theta_j dtheta_j/dt = -u.grad theta_j + kappa_j
//   lap theta_j + terms; the terms (Coriolis, mean gradients, buoyancy) are the data of Terms.hpp, checked
//   and folded once at construction. Every field is held in spectral space as normalised Fourier
//   coefficients, q(x) = sum_k q^(k) exp(i k.x) (so E = 1/2 sum_k |u^(k)|^2), on the SlabFFT's spectral
//   slab. Every mode outside the 2/3 rule (Wavenumbers::kept) is zero and u^ is divergence-free.
// - Right-hand side, pseudo-spectral, in one of two forms of the advective term (FlowParameters::
//   nonlinear_form; nonlinear_form() says which is used: Options.hpp, nonlinear_form_used):
//   divergence (default): per Runge-Kutta stage u and each grad theta_j = i k theta_j go to real space
//     (3 + 3 s backward transforms for s scalars), one pointwise pass forms the traceless symmetric
//     T = u u - |u|^2/3 I (5 components; Basdevant, J. Comput. Phys. 50 (1983) 209) and each
//     -u.(grad theta_j + G_j), and 5 + s forward transforms bring them back: 8 + 4 s transforms per stage;
//     the stage update forms -i k.T. Used unless Coriolis or the linear forcing is on.
//   rotational: u, omega = i k x u and the gradients go to real space (6 + 3 s backward), the pass forms
//     u x (omega + 2 Omega) + a u and the scalars' terms, 3 + s forward: 9 + 4 s per stage.
//   The two differ by a gradient, which the projection removes: with the 2/3 rule they agree to round-off.
//   The stage update adds the buoyancy sum_j theta_j c_j in spectral space, projects the velocity's
//   tendency by P = I - k k^T / |k|^2 (zero at k = 0) and dealiases by the 2/3 rule. The forcing
//   (Forcing.hpp) is part of R and its amplitude is recomputed at every Runge-Kutta stage.
// - MHD (parameters.magnetic.enabled; MagneticTerms.hpp): a magnetic field b in Alfven units, resistivity
//   eta and background B0, du/dt = -div(u u - B B) - grad P + nu lap u + f and db/dt = curl(u x B) + eta lap
//   b with B = B0 + b, both fields divergence-free by projection. MHD always uses its own divergence form
//   (nonlinear_form_used; nonlinear_form() is divergence whatever was requested): per stage u and b go to
//   real space (6 backward transforms), one pass forms the stress S and E = u x B (and the scalars'
//   products) and 8 forward transforms bring them back: 14 + 4 s per stage. Band forcing, scalars (passive
//   or buoyant) and every integrator work as without b. Coriolis and the linear forcing, which have no slot
//   in that pass, are applied by the stage update from a spectral copy of the stage's u, kept only when a
//   run has one of them (3 slabs; StageFields.hpp), with the linear forcing's amplitude recomputed per
//   stage. b may have band forcing of its own (MagneticParameters::forcing; magnetic_forcing()), joined to
//   E as a field whose curl it is (Forcing.hpp).
// - Products between the rows: where the FFT splits its dealiased transforms at their rows along z
//   (SlabFFT::row_split: a GPU, Nx and Ny powers of two from 8 to 2048, Nz from 16 to 4096; one rank, or
//   several exchanging strided blocks, p2p, or contiguous chunks on the fused route, NCCL or MPI),
//   the stage takes its inputs' rows back to real values, forms the real-space pass's products and
//   transforms them forward row by row in one kernel (ProductsInRows.hpp, fft/RowProducts.cuh), so that no
//   real slab is written or read: the divergence form with no scalar or one, the rotational form and MHD
//   without scalars (more scalars keep the real slabs). cfl_dt forms the first stage's products there (they
//   do not depend on dt), its scan reading u's (and b's) real values in the same kernel, and step(dt) takes
//   them unless something changed the state or used the stage fields in between. The fields are the same to
//   round-off (another order of operations); FlowParameters::row_products = false keeps the real slabs;
//   products_between_rows() says which is used.
// - Transforms: a stage's fields go to real space together and come back together, through transform lanes
//   (fft/TransformLanes.hpp; FlowParameters::transform_lanes), which on several GPU ranks run up to three
//   fields' transforms at once on streams of their own; the fields are the same to round-off.
// - Time stepping (Integrators.hpp): each field's diffusion exactly through exp(-D k^2 t), rk2, rk3, rk4,
//   lsrk3 or lsrk4
//   for R. step(dt) advances time by dt and the step counter by one. Each stage makes one pass over spectral
//   memory (projection, update and next input of every field; StageFields.hpp) besides its transforms and
//   real-space pass, and the last one leaves the next step's first input ready.
// - cfl_dt(cfl, max_dt) = min(max_dt, cfl / (max over points of (|u|/dx + |v|/dy + |w|/dz) + W + a)) (with
//   b: (|u_x| + |B_x|)/dx + ..., the Alfven waves' speed added to the flow's), W the bound of the linear
//   terms' frequencies (TermCoefficients::wave_frequency_bound; 0 for pure Navier-Stokes) and a the
//   forcings' rate (forcing_rate(): explicit like W, and with a constant power as fast as the forced modes
//   are weak), for the current velocity (0 when the velocity holds a NaN or an infinity). Its
//   real-space velocity is kept for the next step's first stage, so calling it every step costs no extra
//   transform. The same pass fills velocity_scan(): that maximum (+infinity for a velocity that is not
//   finite; W not included) and the energy 1/2 <|u|^2> (kinetic_energy() up to round-off), for blow-up
//   checks every step at no extra cost. (With the products between the rows it keeps the first stage's
//   right-hand side instead.)
// - largest_forcing_amplitude(kind): the largest forcing amplitude a step can apply in the precision: the
//   largest Real, over the point count for band forcing (which joins the unnormalised transforms). A larger
//   one, as a constant power needs on forced modes of little energy, makes the first stage infinite.
// - Memory, in slabs of alloc_complex() complex values (a real-field equivalent, N^3/P reals, times
//   (Nz+2)/Nz): the velocity 3, its stage input 3, the extra field 2 (divergence form: T_xz, T_yz) or 3
//   (rotational: omega), its accumulator 3 (rk3, rk4); per scalar its state 1, gradient 3, accumulator 1
//   (rk3, rk4) and, when buoyant, its spectral stage input 1; plus the FFT's scratch slab and library work
//   area, the forcing's short list of band modes and the scalars' table. So for pure Navier-Stokes 8 (rk2,
//   lsrk3, lsrk4) or 11 (rk3, rk4) in the divergence form, 9 or 12 in the rotational form; 5 (4) more per
//   passive scalar and 6 (5) for a buoyancy. The magnetic field adds its state 3, stage field 3 and
//   accumulator 3 (rk3, rk4): MHD (divergence form) holds 20 (rk3, rk4) or 14 (rk2, lsrk3, lsrk4), and 3
//   more with Coriolis or the linear forcing (the copy of u); b's band forcing its short list of band
//   modes. Nothing is allocated per step. bytes_held() reports the total on this rank's device.
// - Scratch and stage fields may be used between steps: output functions (velocity, vorticity, pressure and
//   scalars to host) and nonlinear_term() use them (the next step then prepares its input again, one extra
//   pass); they never touch the states.
// - Access: velocity() and scalar(j) (non-const) let callers write the spectral coefficients (restarts);
//   call enforce_constraints() after writing. Each non-const access drops the prepared first input (and
//   cfl_dt's cached real velocity), so do not write through a reference obtained before the last step or
//   cfl_dt. Host slabs are the rank's real x-slab, [x][y][z] with z fastest, layout().real_size() values
//   per component, in physical units (the 1/(Nx Ny Nz) of the FFT is folded in).
// - All ranks of the FFT's communicator construct the object and call every member together.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "fft/SlabFFT.hpp"
#include "fft/TransformLanes.hpp"
#include "solver/FlowParameters.hpp"
#include "solver/Forcing.hpp"
#include "solver/Integrators.hpp"
#include "solver/ProductsInRows.hpp"
#include "solver/SpectralField.hpp"
#include "solver/StageFields.hpp"
#include "solver/Terms.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

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

  // State: spectral velocity and scalars (device buffers). Write through velocity() or scalar(j), then call
  // enforce_constraints().
  const SpectralField<Real>& velocity() const { return velocity_; }
  SpectralField<Real>& velocity() {
    prepared_ = Prepared::nothing;
    return velocity_;
  }
  int scalar_count() const { return static_cast<int>(scalars_.size()); }
  const std::string& scalar_name(int j) const { return parameters_.scalars.at(j).name; }
  // The index of the scalar of that name, -1 if there is none.
  int scalar_index(const std::string& name) const;
  const SpectralField<Real>& scalar(int j) const { return scalars_.at(j).state; }
  SpectralField<Real>& scalar(int j) {
    prepared_ = Prepared::nothing;
    return scalars_.at(j).state;
  }
  // The magnetic field (MHD only; an empty field otherwise).
  bool magnetic() const { return parameters_.magnetic.enabled; }
  const SpectralField<Real>& magnetic_field() const { return magnetic_; }
  SpectralField<Real>& magnetic_field() {
    prepared_ = Prepared::nothing;
    return magnetic_;
  }
  // Projects the velocity (and b) onto divergence-free fields and zeroes every field's modes outside the 2/3
  // rule.
  void enforce_constraints();
  // Sets the velocity from the real-space slabs scratch().real(d), d = 0, 1, 2 (x, y, z), or scalar j from
  // scratch().real(0), then enforces the constraints. Initial conditions write into scratch() and call these.
  void set_velocity_from_scratch();
  void set_scalar_from_scratch(int j);
  void set_magnetic_from_scratch();
  // The same from host real-space slabs (real_size() values each; restarts from field files).
  void set_velocity(const std::vector<Real>& u, const std::vector<Real>& v, const std::vector<Real>& w);
  void set_scalar(int j, const std::vector<Real>& theta);
  void set_magnetic(const std::vector<Real>& x, const std::vector<Real>& y, const std::vector<Real>& z);

  // The dealiased nonlinear (advective) terms of the current state, without forcing and without the terms of
  // Terms.hpp: P [u x omega]^ = P [-div T]^ in the form used (returned: the stage field) and -[u.grad
  // theta_j]^ (scalar_nonlinear_term(j)), zero outside the 2/3 rule; valid until the next call of a member
  // that uses the stage or scratch fields.
  const SpectralField<Real>& nonlinear_term();
  const C* scalar_nonlinear_term(int j) const { return scalars_.at(j).gradient.spectral(0); }
  // MHD: nonlinear_term() is P [-div(u u - b b)]^ and this b's, [curl(u x b)]^ (both without B0).
  const SpectralField<Real>& magnetic_nonlinear_term() const { return magnetic_stage_; }

  // Rank's real-space slabs, each resized to real_size().
  void velocity_to_host(std::vector<Real>& u, std::vector<Real>& v, std::vector<Real>& w);
  void vorticity_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z);
  void scalar_to_host(int j, std::vector<Real>& theta);
  void magnetic_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z);
  void current_to_host(std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z);  // j = curl b
  // The pressure p itself (kinematic: pressure / density), NOT p + |u|^2/2, on the kept modes and with zero
  // mean: p^ = Pi^ - c [|u|^2]^ there, where Pi = p + c |u|^2 solves lap Pi = div(R) for the dealiased
  // tendency R before projection (u x (omega + 2 Omega) + sum_j theta_j c_j with c = 1/2 in the rotational
  // form, -div T + ... with c = 1/3 in the divergence form: the divergence of the momentum equation; the
  // forcing is divergence-free), formed by the step's own real-space pass. Both forms give the same p.
  // MHD: p is the fluid pressure, the total pressure less the magnetic |B|^2/2 (B = B0 + b): from R = -i k.T
  // + u x 2 Omega + ..., MHD's stress T, p^ = Pi^ - [|u|^2/3 + |B|^2/6]^ (Pi = p + |u|^2/3 + |B|^2/6).
  void pressure_to_host(std::vector<Real>& p);

  // Scratch vector field (the stage field): three slabs for callers that build fields (initial conditions);
  // contents undefined after any other member call.
  SpectralField<Real>& scratch() {
    prepared_ = Prepared::nothing;
    return stage_;
  }

  const FlowParameters& parameters() const { return parameters_; }
  const TermCoefficients& terms() const { return terms_; }
  const Wavenumbers<Real>& wavenumbers() const { return wavenumbers_; }
  const SlabPoints& points() const { return points_; }
  fft::SlabFFT<Real>& fft() const { return fft_; }
  Device& device() const { return fft_.device(); }
  const Forcing<Real>& forcing() const { return forcing_; }
  const Forcing<Real>& magnetic_forcing() const { return magnetic_forcing_; }  // of b (MHD)
  // The largest amplitude a the forcings (of u; of b) give the current state, the rate at which they make
  // the forced modes grow: the fixed coefficient, or power / (2 E_forced); 0 without forcing.
  double forcing_rate() const;
  // The largest amplitude a that the step can apply for a forcing of this kind (contract above).
  double largest_forcing_amplitude(ForcingKind kind) const;
  std::size_t real_size() const { return fft_.layout().real_size(); }
  // The FFT modes of the step's backward and forward transforms: dealiased where that is faster
  // (SlabFFT::dealiased_backward_saves_work and ..._forward_...), full otherwise; the fields are the same.
  fft::Modes backward_modes() const;
  fft::Modes forward_modes() const;
  // The form of the advective term used (the requested one unless nonlinear_form_used says otherwise).
  NonlinearForm nonlinear_form() const { return form_; }
  // Transforms per Runge-Kutta stage: backward 3 (divergence form), 6 (rotational) or 6 (MHD: u and b) + 3
  // per scalar, forward 5, 3 or 8 (MHD: S and E) + 1 per scalar.
  int backward_transforms_per_stage() const {
    return (form_ == NonlinearForm::divergence && !magnetic() ? 3 : 6) + 3 * scalar_count();
  }
  int forward_transforms_per_stage() const {
    return (magnetic() ? 8 : form_ == NonlinearForm::divergence ? 5 : 3) + scalar_count();
  }
  int transforms_per_stage() const {
    return backward_transforms_per_stage() + forward_transforms_per_stage();
  }
  // Whether the stage forms its products between the row FFTs ("Products between the rows" above).
  bool products_between_rows() const { return rows_ != nullptr; }
  // How many fields' transforms run at once (FlowParameters::transform_lanes, resolved).
  int transform_lanes() const { return lanes_->lanes(); }
  // Device bytes held by this object and its FFT (fields, FFT scratch and work area, forcing list, table).
  std::size_t bytes_held() const;

  // Implementation steps, public only because CUDA device lambdas may not live in private members.
  // scan: between the rows, also cfl_dt's scan of u (and b) in the products' kernel (rows_ only).
  double evaluate_rhs(bool first_stage, bool with_forcing, bool with_terms, MaxAndSum* scan = nullptr);
  StageFields<Real> stage_fields();
  void prepare_first_input();
  double transform_velocity_to_stage();
  void curl_to_stage(const SpectralField<Real>& field);
  void vector_to_host(const SpectralField<Real>& field, bool take_curl, std::vector<Real>& x,
                      std::vector<Real>& y, std::vector<Real>& z);
  void vector_to_stage(const std::vector<Real>& x, const std::vector<Real>& y, const std::vector<Real>& z,
                       const std::string& what, const std::array<const char*, 3>& names);
  // Every component of each field, in place, all at once through the lanes; transform_to_spectral also the
  // first component alone of each of `firsts` (a scalar's advection term, in its gradient field).
  void transform_to_real(const std::vector<SpectralField<Real>*>& fields);
  void transform_to_spectral(const std::vector<SpectralField<Real>*>& fields,
                             const std::vector<SpectralField<Real>*>& firsts = {});
  ProductCoefficients<Real> product_coefficients(Real linear_forcing, bool with_terms) const;
  void real_space_products(const ProductCoefficients<Real>& coefficients, bool with_terms);
  void finish_nonlinear_terms();
  double velocity_rate_of_stage();
  double record_scan(const MaxAndSum& local);
  void make_products_between_rows();
  InverseSpacing inverse_spacing() const;
  void build_scalar_table();
  void set_vector_from_scratch(SpectralField<Real>& field);  // the velocity or b

 private:
  // A scalar's state and accumulator, and its stage fields: gradient, and input when buoyant.
  struct ScalarFields {
    SpectralField<Real> state, accumulator, gradient, input;
  };

  fft::SlabFFT<Real>& fft_;
  std::unique_ptr<fft::TransformLanes<Real>> lanes_;
  FlowParameters parameters_;
  TermCoefficients terms_;
  Wavenumbers<Real> wavenumbers_;
  SlabPoints points_;
  Forcing<Real> forcing_, magnetic_forcing_;
  NonlinearForm form_ = NonlinearForm::divergence;
  // extra_: omega (rotational form, 3 slabs) or T_xz, T_yz (divergence form, 2 slabs); StageFields.hpp.
  SpectralField<Real> velocity_, stage_, extra_, accumulator_;
  std::vector<ScalarFields> scalars_;
  SpectralField<Real> magnetic_, magnetic_stage_, magnetic_accumulator_;  // MHD
  SpectralField<Real>
      velocity_input_;  // MHD with Coriolis or linear forcing: the stage's u (StageFields.hpp)
  Buffer<ScalarSlots<Real>> scalar_table_;  // the slots of every scalar, for the kernels
  double time_ = 0, last_dt_ = 0;
  VelocityScan scan_;
  long step_count_ = 0;
  // What the stage and scratch fields hold between calls: the next step's first input, every field's input
  // in spectral space (left by step), or the velocity already in real space with the rest still spectral
  // (left by cfl_dt), or the first stage's right-hand side, formed between the rows (cfl_dt where rows_ is
  // set; first_rate_ its return); or nothing of use.
  enum class Prepared { nothing, spectral_input, real_velocity, first_rhs };
  double first_rate_ = 0;
  // The products between the rows along z where the stage forms them there, null otherwise.
  std::unique_ptr<ProductsInRows<Real>> rows_;
  Prepared prepared_ = Prepared::nothing;
};

extern template class NavierStokes<float>;
extern template class NavierStokes<double>;

}  // namespace kolmo::solver
