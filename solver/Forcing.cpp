#include "solver/Forcing.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"

namespace kolmo::solver {

namespace {

std::string text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

template <class Real>
Forcing<Real>::Forcing(const ForcingParameters& parameters, const Wavenumbers<Real>& wavenumbers,
                       std::shared_ptr<Device> device, MPI_Comm comm, const std::string& name)
    : parameters_(parameters), wavenumbers_(wavenumbers), device_(std::move(device)), comm_(comm) {
  const auto& p = parameters_;
  KOLMO_REQUIRE(p.power >= 0, name + " power = " + text(p.power) + " must be >= 0");
  if (p.kind != ForcingKind::band) return;
  KOLMO_REQUIRE(p.k_min >= 0 && p.k_max >= p.k_min, name + " band k_min = " + text(p.k_min) + ", k_max = " +
                                                        text(p.k_max) + " must satisfy 0 <= k_min <= k_max");
  // The forced modes of this rank, listed once: the band is a thin shell, so its list is small.
  std::vector<long> index;
  const double k_min2 = p.k_min * p.k_min, k_max2 = p.k_max * p.k_max;
  for (long m = 0; m < wavenumbers_.size(); ++m) {
    const Mode n = wavenumbers_.mode(m);
    const auto k = wavenumbers_.k(n);
    const double k2 = double(k.x) * k.x + double(k.y) * k.y + double(k.z) * k.z;
    if (wavenumbers_.kept(n) && k2 > 0 && k2 >= k_min2 && k2 <= k_max2) index.push_back(m);
  }
  band_count_ = static_cast<long>(index.size());
  const double total = allreduce(double(band_count_));
  KOLMO_REQUIRE(total > 0, name + " band k_min = " + text(p.k_min) + ", k_max = " + text(p.k_max) +
                               " contains no resolved mode");
  band_index_ = Buffer<long>(device_, index.size());
  band_index_.assign_from_host(index);
  band_values_ = Buffer<C>(device_, 3 * index.size());
}

template <class Real>
double Forcing<Real>::allreduce(double local) const {
  double global = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_));
  return global;
}

template <class Real>
double Forcing<Real>::amplitude(double forced_energy) const {
  switch (parameters_.kind) {
    case ForcingKind::band:
      return forced_energy > 0 ? parameters_.power / (2 * forced_energy) : 0.0;
    case ForcingKind::linear:
      if (parameters_.power > 0) return forced_energy > 0 ? parameters_.power / (2 * forced_energy) : 0.0;
      return parameters_.linear_rate;
    default:
      return 0.0;
  }
}

template <class Real>
double Forcing<Real>::band_energy(const SpectralField<Real>& u, C* saved) const {
  const long count = band_count_;
  const long* index = band_index_.data();
  const bool capture = saved != nullptr;
  const C *ux = u.spectral(0), *uy = u.spectral(1), *uz = u.spectral(2);
  const auto wavenumbers = wavenumbers_;
  auto local = sum<1>(
      *device_, count, KOLMO_LAMBDA(long b) {
        const long m = index[b];
        const Real weight = wavenumbers.parseval_weight(wavenumbers.mode(m));
        if (capture) {
          saved[b] = ux[m];
          saved[count + b] = uy[m];
          saved[2 * count + b] = uz[m];
        }
        Sums<1> s;
        s[0] =
            0.5 * double(weight) * (norm2_in_double(ux[m]) + norm2_in_double(uy[m]) + norm2_in_double(uz[m]));
        return s;
      });
  return allreduce(local[0]);
}

template <class Real>
double Forcing<Real>::forced_energy(const SpectralField<Real>& u) const {
  if (parameters_.kind == ForcingKind::band) return band_energy(u, nullptr);
  if (parameters_.kind == ForcingKind::none) return 0.0;
  // Linear forcing acts on every mode but k = 0: the energy of the fluctuations.
  const C *ux = u.spectral(0), *uy = u.spectral(1), *uz = u.spectral(2);
  const auto wavenumbers = wavenumbers_;
  auto local = sum<1>(
      *device_, wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode n = wavenumbers.mode(m);
        // Only kept modes: a stage field between its update and its transforms holds whatever the transforms
        // ignore outside the 2/3 rule (StageFields.hpp).
        const bool mean = n.x == 0 && n.y == 0 && n.z == 0;
        Sums<1> s;
        s[0] = mean || !wavenumbers.kept(n)
                   ? 0.0
                   : 0.5 * double(wavenumbers.parseval_weight(n)) *
                         (norm2_in_double(ux[m]) + norm2_in_double(uy[m]) + norm2_in_double(uz[m]));
        return s;
      });
  return allreduce(local[0]);
}

template <class Real>
double Forcing<Real>::capture_band(const SpectralField<Real>& u) {
  return band_energy(u, band_values_.data());
}

template <class Real>
void Forcing<Real>::add_captured(SpectralField<Real>& rhs, Real amplitude) {
  const long count = band_count_;
  const long* index = band_index_.data();
  const C* saved = band_values_.data();
  C *rx = rhs.spectral(0), *ry = rhs.spectral(1), *rz = rhs.spectral(2);
  parallel_for(
      *device_, count, KOLMO_LAMBDA(long b) {
        const long m = index[b];
        rx[m] += amplitude * saved[b];
        ry[m] += amplitude * saved[count + b];
        rz[m] += amplitude * saved[2 * count + b];
      });
}

template <class Real>
void Forcing<Real>::add_captured_as_stress(SpectralField<Real>& stage, SpectralField<Real>& extra,
                                           Real amplitude) {
  const long count = band_count_;
  const long* index = band_index_.data();
  const C* saved = band_values_.data();
  const auto wavenumbers = wavenumbers_;
  C *xx = stage.spectral(0), *yy = stage.spectral(1), *xy = stage.spectral(2), *xz = extra.spectral(0),
    *yz = extra.spectral(1);
  parallel_for(
      *device_, count, KOLMO_LAMBDA(long b) {
        const long m = index[b];
        const auto k = wavenumbers.k(wavenumbers.mode(m));
        const Real inverse_k2 = Real(1) / k.norm2();  // band modes have k != 0
        const C fx = amplitude * saved[b], fy = amplitude * saved[count + b],
                fz = amplitude * saved[2 * count + b];
        const C trace_third = (Real(2) / Real(3)) * (k.x * fx + k.y * fy + k.z * fz);
        xx[m] += times_i(inverse_k2 * (Real(2) * k.x * fx - trace_third));
        yy[m] += times_i(inverse_k2 * (Real(2) * k.y * fy - trace_third));
        xy[m] += times_i(inverse_k2 * (k.x * fy + k.y * fx));
        xz[m] += times_i(inverse_k2 * (k.x * fz + k.z * fx));
        yz[m] += times_i(inverse_k2 * (k.y * fz + k.z * fy));
      });
}

template <class Real>
void Forcing<Real>::add_captured_as_curl(SpectralField<Real>& electric, Real amplitude) {
  const long count = band_count_;
  const long* index = band_index_.data();
  const C* saved = band_values_.data();
  const auto wavenumbers = wavenumbers_;
  C *ex = electric.spectral(0), *ey = electric.spectral(1), *ez = electric.spectral(2);
  parallel_for(
      *device_, count, KOLMO_LAMBDA(long b) {
        const long m = index[b];
        const auto k = wavenumbers.k(wavenumbers.mode(m));
        const Real scale = amplitude / k.norm2();  // band modes have k != 0
        const C fx = scale * saved[b], fy = scale * saved[count + b], fz = scale * saved[2 * count + b];
        ex[m] += times_i(k.y * fz - k.z * fy);
        ey[m] += times_i(k.z * fx - k.x * fz);
        ez[m] += times_i(k.x * fy - k.y * fx);
      });
}

template class Forcing<float>;
template class Forcing<double>;

}  // namespace kolmo::solver
