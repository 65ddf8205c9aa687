// The nonlinear terms against a direct sum over triads, computed here without a transform: the advection of
// u, of a scalar theta and MHD's terms of u and b at every mode of the rank's slab.
//
// Why this is an independent reference: with fields on the kept modes only (|n_d| < N_d / 3), a product of
// two of them holds modes |n_d| < 2 N_d / 3, whose aliases on the grid all lie outside the kept modes; so on
// the kept modes the solver's pseudo-spectral terms are exactly the convolutions
//   [(a.grad) c]^(k) = sum over p + q = k of (i q . a^(p)) c^(q),
// which the test sums over every pair of kept modes, gathered from all ranks, with the wavenumbers of the box
// and the projection P = I - k k^T / |k|^2 of its own. The other checks of the nonlinear term are
// consistency checks: energy conservation (sum u^* . N^ = 0 holds for N^ of either sign or any factor), the
// agreement of the divergence and rotational forms (both share the projection, the stage's scaling and the
// wavenumbers), the exact flows (whose terms are gradients). This one fixes sign, factor, the wavenumbers of
// each direction in a box of three different sides, the projection and the 2/3 rule (N_z = 12 is a multiple
// of 3, where a rule |n| <= N / 3 would alias) against a sum a wrong term cannot share.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <vector>

#include "solver/InitialConditions.hpp"
#include "tests/TestSupport.hpp"
#include "tests/solver/SolverTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::solver;

namespace {

using Z = std::complex<double>;

// Every kept mode of a few fields, whole, on every rank: value(f, d, n) for field f's component d at the
// signed indices n (zero outside the kept cube). Kept here means 3 |n_d| < N_d, the test's own 2/3 rule.
class WholeModes {
 public:
  WholeModes(const NavierStokes<double>& flow, const std::vector<testing::HostField<double>>& fields) {
    const auto& w = flow.wavenumbers();
    const long points[3] = {w.nx, w.ny, w.nz};
    for (int d = 0; d < 3; ++d) {
      largest_[d] = (points[d] - 1) / 3;  // the largest |n_d| with 3 |n_d| < N_d
      width_[d] = 2 * largest_[d] + 1;
    }
    for (const auto& field : fields) {
      first_.push_back(slots_);
      slots_ += int(field.size());
    }
    values_.assign(std::size_t(2 * slots_ * width_[0] * width_[1] * width_[2]), 0.0);
    for (long m = 0; m < w.size(); ++m) {
      const Mode n = w.mode(m);
      if (!kept({n.x, n.y, n.z})) continue;
      int slot = 0;
      for (const auto& field : fields)
        for (const auto& component : field) {
          const Z value(component[m].re, component[m].im);
          store(slot, {n.x, n.y, n.z}, value);
          // The half spectrum holds k_z >= 0: the mode -k of a real field is the conjugate.
          if (n.z > 0) store(slot, {-n.x, -n.y, -n.z}, std::conj(value));
          ++slot;
        }
    }
    // Each mode was written by the one rank holding it.
    MPI_Allreduce(MPI_IN_PLACE, values_.data(), int(values_.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }

  bool kept(const std::array<long, 3>& n) const {
    for (int d = 0; d < 3; ++d)
      if (std::labs(n[d]) > largest_[d]) return false;
    return true;
  }
  long largest(int d) const { return largest_[d]; }

  // Component c of field f at n; zero outside the kept cube.
  Z value(int field, int component, const std::array<long, 3>& n) const {
    if (!kept(n)) return 0.0;
    const std::size_t at = index(first_[field] + component, n);
    return {values_[at], values_[at + 1]};
  }

 private:
  std::size_t index(int slot, const std::array<long, 3>& n) const {
    const long cell =
        ((n[0] + largest_[0]) * width_[1] + (n[1] + largest_[1])) * width_[2] + n[2] + largest_[2];
    return std::size_t(2 * (cell * slots_ + slot));
  }
  void store(int slot, const std::array<long, 3>& n, Z value) {
    const std::size_t at = index(slot, n);
    values_[at] = value.real();
    values_[at + 1] = value.imag();
  }

  long largest_[3] = {0, 0, 0}, width_[3] = {1, 1, 1};
  int slots_ = 0;
  std::vector<int> first_;  // each field's first slot
  std::vector<double> values_;
};

using Vec3 = std::array<Z, 3>;

struct Reference {
  Vec3 velocity{};  // the velocity's term before the projection
  Vec3 magnetic{};  // b's term (MHD)
  Z scalar = 0;
};

// The convolutions at mode n (signed indices) with wavenumber units `unit`: a the velocity (field 0), b the
// magnetic field (field `b_field`, or -1), theta a scalar (field `theta_field`, or -1).
Reference triad_sums(const WholeModes& whole, const std::array<long, 3>& n, const std::array<double, 3>& unit,
                     int b_field, int theta_field) {
  Reference r;
  for (long px = -whole.largest(0); px <= whole.largest(0); ++px)
    for (long py = -whole.largest(1); py <= whole.largest(1); ++py)
      for (long pz = -whole.largest(2); pz <= whole.largest(2); ++pz) {
        const std::array<long, 3> p{px, py, pz}, q{n[0] - px, n[1] - py, n[2] - pz};
        if (!whole.kept(q)) continue;
        const std::array<double, 3> kq{unit[0] * double(q[0]), unit[1] * double(q[1]),
                                       unit[2] * double(q[2])};
        auto vector = [&](int field, const std::array<long, 3>& at) {
          return Vec3{whole.value(field, 0, at), whole.value(field, 1, at), whole.value(field, 2, at)};
        };
        // i q . a^(p), the derivative along a^(p) of the mode q.
        auto along = [&](const Vec3& a) { return Z(0, 1) * (kq[0] * a[0] + kq[1] * a[1] + kq[2] * a[2]); };
        const Vec3 up = vector(0, p), uq = vector(0, q);
        const Z u_grad = along(up);
        for (int d = 0; d < 3; ++d) r.velocity[d] -= u_grad * uq[d];  // -(u.grad) u
        if (b_field >= 0) {
          const Vec3 bp = vector(b_field, p), bq = vector(b_field, q);
          const Z b_grad = along(bp);
          for (int d = 0; d < 3; ++d) {
            r.velocity[d] += b_grad * bq[d];                   // + (b.grad) b
            r.magnetic[d] += b_grad * uq[d] - u_grad * bq[d];  // curl(u x b) = (b.grad) u - (u.grad) b
          }
        }
        if (theta_field >= 0) r.scalar -= u_grad * whole.value(theta_field, 0, q);  // -u.grad theta
      }
  return r;
}

Vec3 projected(const Vec3& v, const std::array<double, 3>& k) {
  const double k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
  if (k2 == 0) return {0.0, 0.0, 0.0};
  const Z along = (k[0] * v[0] + k[1] * v[1] + k[2] * v[2]) / k2;
  return {v[0] - k[0] * along, v[1] - k[1] * along, v[2] - k[2] * along};
}

// The rank's copy of one component of a solver field given by its device pointer.
testing::HostField<double> host_component(const NavierStokes<double>& flow, const Complex<double>* values) {
  testing::HostField<double> out(1);
  out[0].resize(std::size_t(flow.wavenumbers().size()));
  flow.device().copy_to_host(out[0].data(), values, out[0].size() * sizeof(Complex<double>));
  return out;
}

struct Errors {
  double velocity = 0, magnetic = 0, scalar = 0;                 // max |solver - reference| / max |reference|
  double velocity_size = 0, magnetic_size = 0, scalar_size = 0;  // max |reference|
};

// Compares the flow's nonlinear terms, mode by mode, with the triad sums of its current fields.
Errors compare_with_triads(NavierStokes<double>& flow, const Box& box) {
  const bool magnetic = flow.magnetic(), scalar = flow.scalar_count() > 0;
  std::vector<testing::HostField<double>> fields{testing::host_copy(flow, flow.velocity())};
  int b_field = -1, theta_field = -1;
  if (magnetic) {
    b_field = int(fields.size());
    fields.push_back(testing::host_copy(flow, flow.magnetic_field()));
  }
  if (scalar) {
    theta_field = int(fields.size());
    fields.push_back(testing::host_copy(flow, flow.scalar(0)));
  }
  const WholeModes whole(flow, fields);
  const auto n_u = testing::host_copy(flow, flow.nonlinear_term());
  const auto n_b =
      magnetic ? testing::host_copy(flow, flow.magnetic_nonlinear_term()) : testing::HostField<double>{};
  const auto n_theta =
      scalar ? host_component(flow, flow.scalar_nonlinear_term(0)) : testing::HostField<double>{};
  const std::array<double, 3> unit{kTwoPi / box.lx, kTwoPi / box.ly, kTwoPi / box.lz};
  const auto& w = flow.wavenumbers();
  double error[3] = {0, 0, 0}, size[3] = {0, 0, 0};
  auto compare = [&](int which, const Complex<double>& computed, Z expected) {
    error[which] = testing::worse(error[which], std::abs(Z(computed.re, computed.im) - expected));
    size[which] = testing::worse(size[which], std::abs(expected));
  };
  for (long m = 0; m < w.size(); ++m) {
    const Mode mode = w.mode(m);
    const std::array<long, 3> n{mode.x, mode.y, mode.z};
    // Outside the test's 2/3 rule every term is zero.
    Reference r;
    if (whole.kept(n)) r = triad_sums(whole, n, unit, b_field, theta_field);
    const std::array<double, 3> k{unit[0] * double(n[0]), unit[1] * double(n[1]), unit[2] * double(n[2])};
    const Vec3 velocity = projected(r.velocity, k);
    for (int d = 0; d < 3; ++d) compare(0, n_u[d][m], velocity[d]);
    if (magnetic)
      for (int d = 0; d < 3; ++d) compare(1, n_b[d][m], r.magnetic[d]);  // already divergence-free
    if (scalar) compare(2, n_theta[0][m], r.scalar);
  }
  Errors e;
  for (int i = 0; i < 3; ++i) size[i] = testing::global_max(size[i]);
  e.velocity_size = size[0];
  e.magnetic_size = size[1];
  e.scalar_size = size[2];
  e.velocity = testing::global_max(error[0]) / std::fmax(size[0], 1e-300);
  e.magnetic = testing::global_max(error[1]) / std::fmax(size[1], 1e-300);
  e.scalar = testing::global_max(error[2]) / std::fmax(size[2], 1e-300);
  return e;
}

// 10 x planes (uneven real slabs on 3 and 4 ranks), 12 z points (a multiple of 3), three different sides.
const std::array<long, 3> kGrid{10, 8, 12};
const Box kBox{2.0, 3.0, 2.5};

}  // namespace

TEST_CASE("the nonlinear terms of u and of a scalar equal the direct sums over triads, in both forms",
          "[solver]") {
  for (const auto form : {NonlinearForm::divergence, NonlinearForm::rotational}) {
    INFO(to_string(form) << " form");
    FlowParameters parameters;
    parameters.viscosity = 0.01;
    parameters.box = kBox;
    parameters.nonlinear_form = form;
    parameters.scalars.push_back({"theta", 0.02});
    // The mean gradient is a term of the step (Terms.hpp), not of the advection the nonlinear term holds.
    parameters.terms.push_back(mean_gradient(0, {0.3, -0.2, 0.5}));
    auto flow = testing::make_flow<double>(kGrid, parameters);
    REQUIRE(flow->nonlinear_form() == form);
    // k0 beyond the largest kept wavenumber: every kept mode, the 2/3 rule's edge included, carries energy.
    set_random_isotropic(*flow, 0.5, 20.0, 71);
    set_random_scalar(*flow, 0, 0.4, 20.0, 72);
    const Errors e = compare_with_triads(*flow, kBox);
    INFO("relative errors: velocity " << e.velocity << ", scalar " << e.scalar << " (sizes "
                                      << e.velocity_size << ", " << e.scalar_size << ")");
    CHECK(e.velocity_size > 0.1);
    CHECK(e.scalar_size > 0.1);
    CHECK(e.velocity < 1e-12);
    CHECK(e.scalar < 1e-12);
  }
}

TEST_CASE("MHD's nonlinear terms equal the direct sums over triads: P[-(u.grad)u + (b.grad)b], curl(u x b)",
          "[solver]") {
  // NavierStokes::nonlinear_term and magnetic_nonlinear_term are without B0 (its linear terms are the
  // step's): a background field must leave them as they are.
  for (const std::array<double, 3> background : {std::array<double, 3>{0, 0, 0}, {0.4, -0.3, 0.9}}) {
    INFO("B0 = " << background[0] << ", " << background[1] << ", " << background[2]);
    auto parameters = testing::mhd_parameters(0.01, 0.02, background);
    parameters.box = kBox;
    parameters.scalars.push_back({"theta", 0.02});
    auto flow = testing::make_flow<double>(kGrid, parameters);
    set_random_isotropic(*flow, 0.5, 20.0, 73);
    set_random_isotropic(*flow, 0.4, 20.0, 74, SpectrumShape::k4_exp, VectorField::magnetic);
    set_random_scalar(*flow, 0, 0.3, 20.0, 75);
    const Errors e = compare_with_triads(*flow, kBox);
    INFO("relative errors: velocity " << e.velocity << ", magnetic " << e.magnetic << ", scalar "
                                      << e.scalar);
    CHECK(e.velocity_size > 0.1);
    CHECK(e.magnetic_size > 0.1);
    CHECK(e.velocity < 1e-12);
    CHECK(e.magnetic < 1e-12);
    CHECK(e.scalar < 1e-12);
  }
}
