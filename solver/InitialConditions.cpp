#include "solver/InitialConditions.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"
#include "solver/Diagnostics.hpp"

namespace kolmo::solver {

// Angles 2 pi i / N of a slab point, in double.
struct PointAngles {
  double x, y, z;
  KOLMO_HD PointAngles(const SlabPoints& points, long p) {
    const Mode i = points.index(p);
    x = kTwoPi * double(i.x) / double(points.nx);
    y = kTwoPi * double(i.y) / double(points.ny);
    z = kTwoPi * double(i.z) / double(points.nz);
  }
};

// The amplitude B of v in the Taylor-Green fields: a A + b B = 0 with a = 2 pi / Lx, b = 2 pi / Ly makes
// them divergence-free in any box (B = -A when Lx = Ly), so the projection leaves them as written.
namespace {
double taylor_green_v_amplitude(const Box& box, double amplitude) {
  return -amplitude * box.ly / box.lx;
}
}  // namespace

namespace {

template <class Real>
SpectralField<Real>& field_of(NavierStokes<Real>& flow, VectorField target) {
  KOLMO_REQUIRE(target == VectorField::velocity || flow.magnetic(),
                "initial magnetic field: the flow has no magnetic field");
  return target == VectorField::velocity ? flow.velocity() : flow.magnetic_field();
}

template <class Real>
void set_from_scratch(NavierStokes<Real>& flow, VectorField target) {
  if (target == VectorField::velocity)
    flow.set_velocity_from_scratch();
  else
    flow.set_magnetic_from_scratch();
}

}  // namespace

template <class Real>
void set_taylor_green(NavierStokes<Real>& flow, double amplitude) {
  const auto points = flow.points();
  auto u = flow.scratch().vector_real();
  const double b = taylor_green_v_amplitude(flow.parameters().box, amplitude);
  parallel_for(
      flow.device(), points.size(), KOLMO_LAMBDA(long p) {
        const PointAngles t(points, p);
        u[0][p] = Real(amplitude * sin(t.x) * cos(t.y) * cos(t.z));
        u[1][p] = Real(b * cos(t.x) * sin(t.y) * cos(t.z));
        u[2][p] = Real(0);
      });
  flow.set_velocity_from_scratch();
}

template <class Real>
void set_taylor_green_2d(NavierStokes<Real>& flow, double amplitude) {
  const auto points = flow.points();
  auto u = flow.scratch().vector_real();
  const double b = taylor_green_v_amplitude(flow.parameters().box, amplitude);
  parallel_for(
      flow.device(), points.size(), KOLMO_LAMBDA(long p) {
        const PointAngles t(points, p);
        u[0][p] = Real(amplitude * sin(t.x) * cos(t.y));
        u[1][p] = Real(b * cos(t.x) * sin(t.y));
        u[2][p] = Real(0);
      });
  flow.set_velocity_from_scratch();
}

template <class Real>
void set_abc(NavierStokes<Real>& flow, double a, double b, double c, int wavenumber, VectorField target) {
  field_of(flow, target);  // checks the target
  const auto points = flow.points();
  auto u = flow.scratch().vector_real();
  const double n = wavenumber;
  parallel_for(
      flow.device(), points.size(), KOLMO_LAMBDA(long p) {
        const PointAngles t(points, p);
        u[0][p] = Real(a * sin(n * t.z) + c * cos(n * t.y));
        u[1][p] = Real(b * sin(n * t.x) + a * cos(n * t.z));
        u[2][p] = Real(c * sin(n * t.y) + b * cos(n * t.x));
      });
  set_from_scratch(flow, target);
}

template <class Real>
void set_orszag_tang(NavierStokes<Real>& flow, double amplitude, VectorField target) {
  field_of(flow, target);  // checks the target
  const auto points = flow.points();
  auto q = flow.scratch().vector_real();
  const bool velocity = target == VectorField::velocity;
  parallel_for(
      flow.device(), points.size(), KOLMO_LAMBDA(long p) {
        const PointAngles t(points, p);
        if (velocity) {
          q[0][p] = Real(-2 * amplitude * sin(t.y));
          q[1][p] = Real(2 * amplitude * sin(t.x));
          q[2][p] = Real(0);
        } else {
          q[0][p] = Real(amplitude * (-2 * sin(2 * t.y) + sin(t.z)));
          q[1][p] = Real(amplitude * (2 * sin(t.x) + sin(t.z)));
          q[2][p] = Real(amplitude * (sin(t.x) + sin(t.y)));
        }
      });
  set_from_scratch(flow, target);
}

template <class Real>
void set_taylor_green_conducting(NavierStokes<Real>& flow, double amplitude) {
  field_of(flow, VectorField::magnetic);  // checks that there is a b
  const auto points = flow.points();
  auto b = flow.scratch().vector_real();
  // With wavenumbers kx = 2 pi / Lx etc., div b = 2 B (kx + ky + kz C) cos cos cos: zero for
  // C = -(kx + ky) / kz = -(Lz / Lx + Lz / Ly), so the projection leaves the field as written.
  const Box& box = flow.parameters().box;
  const double amplitude_z = -amplitude * (box.lz / box.lx + box.lz / box.ly);
  parallel_for(
      flow.device(), points.size(), KOLMO_LAMBDA(long p) {
        const PointAngles t(points, p);
        const double sx = sin(2 * t.x), cx = cos(2 * t.x), sy = sin(2 * t.y), cy = cos(2 * t.y);
        const double sz = sin(2 * t.z), cz = cos(2 * t.z);
        b[0][p] = Real(amplitude * sx * cy * cz);
        b[1][p] = Real(amplitude * cx * sy * cz);
        b[2][p] = Real(amplitude_z * cx * cy * sz);
      });
  flow.set_magnetic_from_scratch();
}

// A reproducible uniform number in [0, 1) for (seed, mode, stream): splitmix64 steps over the inputs.
KOLMO_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
KOLMO_HD inline double hashed_uniform(std::uint64_t seed, const Mode& n, int stream) {
  std::uint64_t h = mix64(seed);
  h = mix64(h ^ static_cast<std::uint64_t>(n.x));
  h = mix64(h ^ static_cast<std::uint64_t>(n.y));
  h = mix64(h ^ static_cast<std::uint64_t>(n.z));
  h = mix64(h ^ static_cast<std::uint64_t>(stream));
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

// The mode of the stored half spectrum whose random numbers a mode uses: a field's coefficients at k and -k
// are conjugate, and in the kz = 0 plane, where both are stored, the lower half takes its partner's numbers
// and is conjugated.
KOLMO_HD inline Mode random_partner(Mode n, bool& conjugate) {
  conjugate = n.z == 0 && (n.x < 0 || (n.x == 0 && n.y < 0));
  return conjugate ? Mode{-n.x, -n.y, 0} : n;
}

// |q^| at |k|^2 = k2 for a shell spectrum of the shape: E(k) ~ 4 pi k^2 |q^|^2 on a shell, so
// |q^| ~ k exp(-k^2/k0^2) gives k^4 exp(-2 (k/k0)^2), and |q^| ~ exp(-k^2/(2 k0^2)) gives k^2 exp(-(k/k0)^2).
KOLMO_HD inline double shaped_magnitude(double k2, double k0, bool quartic) {
  return quartic ? sqrt(k2) * exp(-k2 / (k0 * k0)) : exp(-k2 / (2 * k0 * k0));
}

template <class Real>
void set_random_isotropic(NavierStokes<Real>& flow, double energy, double k0, std::uint64_t seed,
                          SpectrumShape shape, VectorField target) {
  using C = Complex<Real>;
  std::ostringstream text;
  text << "random initial field: energy = " << energy << " and k0 = " << k0 << " must be positive";
  KOLMO_REQUIRE(energy > 0 && k0 > 0, text.str());
  const auto wavenumbers = flow.wavenumbers();
  SpectralField<Real>& field = field_of(flow, target);
  auto u = field.vector_spectral();
  const bool quartic = shape == SpectrumShape::k4_exp;
  // Streams 0-2 for the velocity's phases; b's lie beyond every scalar's (3 + j); the moduli's beyond both.
  const int first_stream = target == VectorField::velocity ? 0 : 1 << 20;
  constexpr int kModulusStreams = 1 << 16;
  parallel_for(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        bool conjugate = false;
        const Mode n = random_partner(wavenumbers.mode(m), conjugate);
        const auto k = wavenumbers.k(n);
        const double kx = k.x, ky = k.y, kz = k.z;
        const double k2 = kx * kx + ky * ky + kz * kz;
        if (k2 == 0 || !wavenumbers.kept(n)) {
          u[0][m] = u[1][m] = u[2][m] = C(0, 0);
          return;
        }
        // Each component a complex Gaussian (Box-Muller: its phase from stream first_stream + d, its modulus
        // from first_stream + kModulusStreams + d), then the part normal to k, scaled to the amplitude.
        // Independent Gaussian components make the direction's distribution invariant under rotations, so
        // the polarisation about k is isotropic: a fixed transverse direction's share of a mode's energy is
        // uniform on [0, 1]. Components of unit modulus (random phases only, until 2026-11-29) were not: a
        // mode along x split its energy half and half between y and z always, and a horizontal mode along a
        // diagonal kept 1/sqrt(3) of it in its vertical part on average (0.538 of the near-horizontal modes'
        // energy in the wave part of a stratified flow, against 1/2).
        double re[3], im[3];
        for (int d = 0; d < 3; ++d) {
          const double phase = kTwoPi * hashed_uniform(seed, n, first_stream + d);
          const double modulus =
              sqrt(-2 * log(1 - hashed_uniform(seed, n, first_stream + kModulusStreams + d)));
          re[d] = modulus * cos(phase);
          im[d] = modulus * sin(phase);
        }
        const double k_dot_re = (kx * re[0] + ky * re[1] + kz * re[2]) / k2;
        const double k_dot_im = (kx * im[0] + ky * im[1] + kz * im[2]) / k2;
        const double kd[3] = {kx, ky, kz};
        double norm = 0;
        for (int d = 0; d < 3; ++d) {
          re[d] -= kd[d] * k_dot_re;
          im[d] -= kd[d] * k_dot_im;
          norm += re[d] * re[d] + im[d] * im[d];
        }
        const double amplitude = norm > 0 ? shaped_magnitude(k2, k0, quartic) / sqrt(norm) : 0.0;
        for (int d = 0; d < 3; ++d)
          u[d][m] = C(Real(amplitude * re[d]), Real((conjugate ? -1 : 1) * amplitude * im[d]));
      });
  flow.enforce_constraints();
  const double raw = mean_square_half(flow, std::as_const(field));
  KOLMO_REQUIRE(raw > 0,
                "random initial field: no resolved mode carries energy for k0 = " + std::to_string(k0));
  const Real scale = Real(std::sqrt(energy / raw));
  parallel_for(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        for (int d = 0; d < 3; ++d) u[d][m] = scale * u[d][m];
      });
}

template <class Real>
void set_random_scalar(NavierStokes<Real>& flow, int scalar, double variance, double k0, std::uint64_t seed,
                       SpectrumShape shape) {
  using C = Complex<Real>;
  const std::string name = flow.scalar_name(scalar);
  std::ostringstream text;
  text << "random initial scalar " << name << ": variance = " << variance << " and k0 = " << k0
       << " must be positive";
  KOLMO_REQUIRE(variance > 0 && k0 > 0, text.str());
  const auto wavenumbers = flow.wavenumbers();
  C* theta = flow.scalar(scalar).spectral();
  const bool quartic = shape == SpectrumShape::k4_exp;
  // Streams 0-2 are the velocity's components; each scalar has its own after them.
  const int stream = 3 + scalar;
  parallel_for(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        bool conjugate = false;
        const Mode n = random_partner(wavenumbers.mode(m), conjugate);
        const double k2 = double(wavenumbers.k(n).norm2());
        if (k2 == 0 || !wavenumbers.kept(n)) {
          theta[m] = C(0, 0);
          return;
        }
        const double phase = kTwoPi * hashed_uniform(seed, n, stream);
        const double amplitude = shaped_magnitude(k2, k0, quartic);
        theta[m] = C(Real(amplitude * cos(phase)), Real((conjugate ? -1 : 1) * amplitude * sin(phase)));
      });
  flow.enforce_constraints();
  const double raw = 2 * mean_square_half(flow, std::as_const(flow).scalar(scalar));
  KOLMO_REQUIRE(raw > 0, "random initial scalar " + name +
                             ": no resolved mode carries variance for k0 = " + std::to_string(k0));
  const Real scale = Real(std::sqrt(variance / raw));
  parallel_for(
      flow.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) { theta[m] = scale * theta[m]; });
}

#define KOLMO_INSTANTIATE_INITIAL_CONDITIONS(Real)                                               \
  template void set_taylor_green<Real>(NavierStokes<Real>&, double);                             \
  template void set_taylor_green_2d<Real>(NavierStokes<Real>&, double);                          \
  template void set_abc<Real>(NavierStokes<Real>&, double, double, double, int, VectorField);    \
  template void set_orszag_tang<Real>(NavierStokes<Real>&, double, VectorField);                 \
  template void set_taylor_green_conducting<Real>(NavierStokes<Real>&, double);                  \
  template void set_random_isotropic<Real>(NavierStokes<Real>&, double, double, std::uint64_t,   \
                                           SpectrumShape, VectorField);                          \
  template void set_random_scalar<Real>(NavierStokes<Real>&, int, double, double, std::uint64_t, \
                                        SpectrumShape);
KOLMO_INSTANTIATE_INITIAL_CONDITIONS(float)
KOLMO_INSTANTIATE_INITIAL_CONDITIONS(double)
#undef KOLMO_INSTANTIATE_INITIAL_CONDITIONS

}  // namespace kolmo::solver
