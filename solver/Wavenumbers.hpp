// Wavenumbers of a rank's spectral slab, the 2/3-rule mask and the Parseval weights, as plain values that
// kernels capture by value.
//
// Contract:
// - Box: the periodic box lengths (default 2 pi each). A unit of wavenumber in direction d is 2 pi / L_d, so
//   k_d = (2 pi / L_d) n_d with n_d the signed integer index.
// - Wavenumbers<Real>::mode(m) turns a local spectral index m = (i * y_count + j) * nzc + kz (SlabFFT's
// layout)
//   into signed integer indices: n_x = i or i - Nx (i > Nx/2), n_y likewise for the global y index, n_z = kz.
// - kept(mode): the 2/3 rule, |n_d| < N_d / 3 in every direction (strict, so that the rule is alias-free also
//   when N_d is a multiple of 3); Nyquist modes are never kept. Every other mode is zero in the solver's
//   fields.
// - parseval_weight(mode): 1 for kz = 0 and for kz = Nz/2 (Nz even), 2 otherwise: the R2C half spectrum
// stores
//   one of each pair (k, -k) for 0 < kz < Nz/2, so a sum over all modes is the weighted sum over stored ones.
#pragma once

#include <cmath>

#include "core/HostDevice.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::solver {

constexpr double kTwoPi = 6.283185307179586476925286766559;

struct Box {
  double lx = kTwoPi, ly = kTwoPi, lz = kTwoPi;
  double min_length() const { return std::fmin(lx, std::fmin(ly, lz)); }
};

// Signed integer indices of a Fourier mode.
struct Mode {
  long x, y, z;
};

template <class Real>
struct Vector3 {
  Real x, y, z;
  KOLMO_HD Real norm2() const { return x * x + y * y + z * z; }
};

template <class Real>
struct Wavenumbers {
  long nx = 1, ny = 1, nz = 1, nzc = 1;
  long y_offset = 0, y_count = 1;
  Real unit_x = 1, unit_y = 1, unit_z = 1;  // 2 pi / L_d

  static Wavenumbers make(const fft::SlabLayout& layout, const Box& box) {
    Wavenumbers result;
    result.nx = layout.nx();
    result.ny = layout.ny();
    result.nz = layout.nz();
    result.nzc = layout.nzc();
    result.y_offset = layout.y_offset();
    result.y_count = layout.y_count();
    result.unit_x = Real(kTwoPi / box.lx);
    result.unit_y = Real(kTwoPi / box.ly);
    result.unit_z = Real(kTwoPi / box.lz);
    return result;
  }

  // Complex values of the local spectral slab.
  long size() const { return nx * y_count * nzc; }
  double points() const { return double(nx) * double(ny) * double(nz); }

  KOLMO_HD static long signed_index(long index, long n) { return 2 * index <= n ? index : index - n; }

  KOLMO_HD Mode mode(long m) const {
    // 32-bit division is several times cheaper than 64-bit on GPUs, and a rank's slab holds fewer than 2^31
    // modes at most grids a solver fits in one device's memory (1344^3 on one H200 in single precision:
    // 1.2e9); the 64-bit path keeps larger slabs correct (2048 x 2048 x 1024 on one rank: 2.15e9 modes, which
    // one GPU holds for a transform pair or a Poisson problem; tests/solver/test_wavenumbers.cpp).
    if (nx * y_count * nzc < (1L << 31)) {
      const unsigned index = unsigned(m), row = index / unsigned(nzc), j = row % unsigned(y_count);
      return {signed_index(long(row / unsigned(y_count)), nx), signed_index(y_offset + long(j), ny),
              long(index - row * unsigned(nzc))};
    }
    const long kz = m % nzc;
    const long row = m / nzc;
    const long j = row % y_count;
    const long i = row / y_count;
    return {signed_index(i, nx), signed_index(y_offset + j, ny), kz};
  }

  KOLMO_HD Vector3<Real> k(const Mode& n) const {
    return {unit_x * Real(n.x), unit_y * Real(n.y), unit_z * Real(n.z)};
  }

  KOLMO_HD static bool kept_1d(long index, long n) { return 3 * (index < 0 ? -index : index) < n; }
  KOLMO_HD bool kept(const Mode& n) const { return kept_1d(n.x, nx) && kept_1d(n.y, ny) && kept_1d(n.z, nz); }

  KOLMO_HD Real parseval_weight(const Mode& n) const {
    return (n.z == 0 || 2 * n.z == nz) ? Real(1) : Real(2);
  }

  // Largest kept |n_d| and the smallest of the largest kept wavenumbers over the directions that keep a mode
  // other than n_d = 0: the resolution limit k_max of k_max eta. A direction of N_d <= 3 points (N_d = 1: a
  // two-dimensional run) keeps only n_d = 0 and resolves no scale, so it does not bound k_max (it made k_max
  // 0); 0 where no direction keeps another mode.
  static long largest_kept_index(long n) { return (n - 1) / 3; }
  double largest_kept_wavenumber() const {
    const double largest[3] = {double(unit_x) * largest_kept_index(nx),
                               double(unit_y) * largest_kept_index(ny),
                               double(unit_z) * largest_kept_index(nz)};
    double smallest = 0;
    for (double k : largest)
      if (k > 0 && (smallest == 0 || k < smallest)) smallest = k;
    return smallest;
  }
  // |k| of the corner of the kept cube: no kept mode lies farther out.
  double kept_corner_wavenumber() const {
    const double ax = double(unit_x) * largest_kept_index(nx), ay = double(unit_y) * largest_kept_index(ny),
                 az = double(unit_z) * largest_kept_index(nz);
    return std::sqrt(ax * ax + ay * ay + az * az);
  }
};

// Global grid indices and coordinates of the points of a rank's real slab [x][y][z] (z fastest).
struct SlabPoints {
  long nx = 1, ny = 1, nz = 1, x_offset = 0, x_count = 1;
  double dx = 1, dy = 1, dz = 1;

  static SlabPoints make(const fft::SlabLayout& layout, const Box& box) {
    SlabPoints p;
    p.nx = layout.nx();
    p.ny = layout.ny();
    p.nz = layout.nz();
    p.x_offset = layout.x_offset();
    p.x_count = layout.x_count();
    p.dx = box.lx / double(p.nx);
    p.dy = box.ly / double(p.ny);
    p.dz = box.lz / double(p.nz);
    return p;
  }
  long size() const { return x_count * ny * nz; }
  // Global integer indices (x, y, z) of local point p.
  KOLMO_HD Mode index(long p) const {
    const long z = p % nz;
    const long row = p / nz;
    return {x_offset + row / ny, row % ny, z};
  }
};

}  // namespace kolmo::solver
