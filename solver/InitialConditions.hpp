// Initial fields. Each one replaces the velocity (or one scalar) of a NavierStokes object; the result is
// projected onto divergence-free fields and dealiased (2/3 rule). Time and step counters are left alone.
//
// Contract (angles th_x = 2 pi x / Lx etc., so every field is periodic in any box):
// - taylor_green:    u = A sin th_x cos th_y cos th_z, v = B cos th_x sin th_y cos th_z, w = 0, with
//   B = -A Ly / Lx: the divergence-free generalisation to any box (a A + b B = 0 for the wavenumbers
//   a = 2 pi / Lx, b = 2 pi / Ly; B = -A in a cube), so the field is exactly this formula.
// - taylor_green_2d: u = A sin th_x cos th_y, v = B cos th_x sin th_y, w = 0, B as above (a steady-shape
//   solution: its nonlinear term is a pure gradient, and it decays as exp(-nu k^2 t),
//   k^2 = (2pi/Lx)^2 + (2pi/Ly)^2).
// - abc:             u = A sin(n th_z) + C cos(n th_y), v = B sin(n th_x) + A cos(n th_z),
//                    w = C sin(n th_y) + B cos(n th_x) (a Beltrami field, omega = n u in a 2 pi box).
// - random_isotropic: every kept mode k != 0 gets amplitude |u^| proportional to |k| exp(-(|k|/k0)^2), so
//   that the shell spectrum follows E(k) ~ k^4 exp(-2 (k/k0)^2), a random divergence-free direction and
//   random phases, scaled to the given energy. The direction is isotropic: the projection normal to k of
//   three independent complex Gaussians, so that the share of a mode's energy along any fixed direction
//   normal to k is uniform on [0, 1] (toroidal and poloidal parts hold half the energy on average at every
//   angle). The random numbers are a hash of (seed, global mode index, stream), so the field does not depend
//   on the number of ranks (up to the round-off of the one global energy sum).
// - random_scalar: scalar j gets the same spectral shape as random_isotropic's velocity (|theta^| from
//   the shape at |k|, random phases from the hash with its own stream, k = 0 left zero), scaled to the given
//   variance <theta^2>; also independent of the number of ranks.
// - Vector fields (abc, random_isotropic) set the velocity or, with VectorField::magnetic, the magnetic
//   field b of an MHD flow (its random numbers from streams of its own: a field of the same seed differs
//   from the velocity's).
// - orszag_tang: the 3D Orszag-Tang vortex of Politano, Pouquet & Sulem, Phys. Plasmas 2, 2931 (1995), as
//   run by Mininni, Pouquet & Montgomery, PRL 97, 244503 (2006): u = A (-2 sin th_y, 2 sin th_x, 0),
//   b = B (-2 sin 2th_y + sin th_z, 2 sin th_x + sin th_z, sin th_x + sin th_y) (A = 1, B = 0.8 there); the
//   amplitude is A for the velocity, B for b. Both are divergence-free as written.
// - taylor_green_conducting (b only): the Taylor-Green magnetic field of the conducting configuration of
//   Pouquet, Lee, Brachet, Mininni & Rosenberg, Geophys. Astrophys. Fluid Dyn. 104, 115 (2010)
//   (arXiv:0906.1384): b = B (sin 2th_x cos 2th_y cos 2th_z, cos 2th_x sin 2th_y cos 2th_z, C cos 2th_x cos
//   2th_y sin 2th_z) with C = -(Lz/Lx + Lz/Ly) (-2 in a cube, their field), the divergence-free
//   generalisation to any box as for taylor_green. In a 2 pi cube E_b = 3 B^2 / 8 (B = 1/sqrt 3: E_b = 1/8,
//   their run C2 with the unit taylor_green velocity), <u.b> = 0 against that velocity, and 1/2 <|j|^2> = 12
//   E_b.
// - from host slabs: NavierStokes::set_velocity and set_scalar (restarts, input files). A scalar starts at
//   zero when nothing sets it.
#pragma once

#include <cstdint>

#include "solver/NavierStokes.hpp"

namespace kolmo::solver {

enum class VectorField { velocity, magnetic };

template <class Real>
void set_taylor_green(NavierStokes<Real>& flow, double amplitude = 1);

template <class Real>
void set_taylor_green_2d(NavierStokes<Real>& flow, double amplitude = 1);

template <class Real>
void set_abc(NavierStokes<Real>& flow, double a = 1, double b = 1, double c = 1, int wavenumber = 1,
             VectorField target = VectorField::velocity);

template <class Real>
void set_orszag_tang(NavierStokes<Real>& flow, double amplitude, VectorField target);

template <class Real>
void set_taylor_green_conducting(NavierStokes<Real>& flow, double amplitude);

template <class Real>
void set_random_isotropic(NavierStokes<Real>& flow, double energy, double k0, std::uint64_t seed,
                          SpectrumShape shape = SpectrumShape::k4_exp,
                          VectorField target = VectorField::velocity);

template <class Real>
void set_random_scalar(NavierStokes<Real>& flow, int scalar, double variance, double k0, std::uint64_t seed,
                       SpectrumShape shape = SpectrumShape::k4_exp);

}  // namespace kolmo::solver
