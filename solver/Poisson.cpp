#include "solver/Poisson.hpp"

#include <mpi.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"

namespace kolmo::solver {

template <class Real>
Poisson<Real>::Poisson(fft::SlabFFT<Real>& fft, const Box& box)
    : fft_(fft),
      wavenumbers_(Wavenumbers<Real>::make(fft.layout(), box)),
      solution_(fft.make_spectral()),
      work_(fft.make_spectral()) {
  KOLMO_REQUIRE(box.lx > 0 && box.ly > 0 && box.lz > 0, "box lengths must be positive");
  solution_.fill_zero();
  work_.fill_zero();
}

template <class Real>
void Poisson<Real>::check_mean(const Real* f, double lambda) {
  std::ostringstream text;
  text << "Poisson: lambda = " << lambda << " must be >= 0";
  KOLMO_REQUIRE(lambda >= 0, text.str());
  if (lambda > 0) return;
  auto local = sum<2>(
      fft_.device(), static_cast<long>(fft_.layout().real_size()), KOLMO_LAMBDA(long p) {
        Sums<2> s;
        s[0] = double(f[p]);
        s[1] = double(f[p]) * double(f[p]);
        return s;
      });
  double global[2];
  KOLMO_CHECK_MPI(MPI_Allreduce(local.value, global, 2, MPI_DOUBLE, MPI_SUM, fft_.comm()));
  const double points = wavenumbers_.points();
  const double mean = global[0] / points, rms = std::sqrt(global[1] / points);
  if (!(std::fabs(mean) <= mean_tolerance(rms))) {  // also refuses a NaN mean
    std::ostringstream message;
    message.precision(17);
    message << "Poisson: the right-hand side has mean " << mean
            << "; with lambda = 0 it must have zero mean in a periodic box";
    throw Error(message.str());
  }
}

// solution <- -solution / ((|k|^2 + lambda) Nx Ny Nz), the forward transform's factor folded in.
template <class Real>
void Poisson<Real>::divide_by_symbol(double lambda) {
  const auto wavenumbers = wavenumbers_;
  C* phi = solution_.data();
  const double scale = 1 / wavenumbers.points();
  parallel_for(
      fft_.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const auto k = wavenumbers.k(wavenumbers.mode(m));
        const double symbol = double(k.x) * k.x + double(k.y) * k.y + double(k.z) * k.z + lambda;
        phi[m] = symbol == 0 ? C(0, 0) : Real(-scale / symbol) * phi[m];
      });
  solved_ = true;
}

template <class Real>
void Poisson<Real>::solve(const Real* f, Real* phi, double lambda) {
  check_mean(f, lambda);
  fft_.forward(f, solution_.data());
  divide_by_symbol(lambda);
  fft_.backward(solution_.data(), phi);
}

template <class Real>
void Poisson<Real>::solve(const std::vector<Real>& f, std::vector<Real>& phi, double lambda) {
  const std::size_t n = fft_.layout().real_size();
  KOLMO_REQUIRE(f.size() == n, "Poisson: right-hand side has " + std::to_string(f.size()) +
                                   " values, expected " + std::to_string(n));
  Real* work = reinterpret_cast<Real*>(work_.data());
  fft_.device().copy_from_host(work, f.data(), n * sizeof(Real));
  solve(work, work, lambda);
  phi.resize(n);
  fft_.device().copy_to_host(phi.data(), work, n * sizeof(Real));
}

// work <- i k_d phi^, without the Nyquist mode of direction d.
template <class Real>
void Poisson<Real>::differentiate(int direction) {
  const auto wavenumbers = wavenumbers_;
  const C* phi = solution_.data();
  C* derivative = work_.data();
  parallel_for(
      fft_.device(), wavenumbers.size(), KOLMO_LAMBDA(long m) {
        const Mode n = wavenumbers.mode(m);
        const auto k = wavenumbers.k(n);
        const long index = direction == 0 ? n.x : direction == 1 ? n.y : n.z;
        const long size = direction == 0 ? wavenumbers.nx : direction == 1 ? wavenumbers.ny : wavenumbers.nz;
        const Real kd = direction == 0 ? k.x : direction == 1 ? k.y : k.z;
        derivative[m] = 2 * index == size ? C(0, 0) : times_i(kd * phi[m]);
      });
}

template <class Real>
void Poisson<Real>::gradient(Real* phi_x, Real* phi_y, Real* phi_z) {
  KOLMO_REQUIRE(solved_, "Poisson: gradient requested before any solve");
  Real* out[3] = {phi_x, phi_y, phi_z};
  for (int d = 0; d < 3; ++d) {
    differentiate(d);
    fft_.backward(work_.data(), out[d]);
  }
}

template <class Real>
void Poisson<Real>::gradient(std::vector<Real>& phi_x, std::vector<Real>& phi_y, std::vector<Real>& phi_z) {
  KOLMO_REQUIRE(solved_, "Poisson: gradient requested before any solve");
  const std::size_t n = fft_.layout().real_size();
  std::vector<Real>* out[3] = {&phi_x, &phi_y, &phi_z};
  Real* work = reinterpret_cast<Real*>(work_.data());
  for (int d = 0; d < 3; ++d) {
    differentiate(d);
    fft_.backward(work_.data(), work);
    out[d]->resize(n);
    fft_.device().copy_to_host(out[d]->data(), work, n * sizeof(Real));
  }
}

template class Poisson<float>;
template class Poisson<double>;

}  // namespace kolmo::solver
