#include "tests/solver/SolverTestSupport.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "core/Error.hpp"

#include "tests/TestSupport.hpp"

namespace kolmo::testing {

template <class Real>
double max_difference(const HostField<Real>& a, const HostField<Real>& b, MPI_Comm comm) {
  double local = 0;
  for (std::size_t d = 0; d < a.size(); ++d)
    for (std::size_t m = 0; m < a[d].size(); ++m)
      local = worse(local, std::sqrt(double(norm2(a[d][m] - b[d][m]))));
  return global_max(local, comm);
}

template <class Real>
double max_magnitude(const HostField<Real>& a, MPI_Comm comm) {
  double local = 0;
  for (const auto& component : a)
    for (const auto& value : component) local = worse(local, std::sqrt(double(norm2(value))));
  return global_max(local, comm);
}

void check_drift_falls_at_order(const std::function<double(solver::Integrator, int)>& drift,
                                double rk4_bound) {
  struct Case {
    solver::Integrator integrator;
    double order;
  };
  for (const Case& c :
       {Case{solver::Integrator::rk2, 2}, Case{solver::Integrator::rk3, 3}, Case{solver::Integrator::rk4, 4},
        Case{solver::Integrator::lsrk3, 3}, Case{solver::Integrator::lsrk4, 4}}) {
    const double coarse = drift(c.integrator, 8), middle = drift(c.integrator, 16),
                 fine = drift(c.integrator, 32);
    const double observed = std::max(std::log2(coarse / middle), std::log2(middle / fine));
    INFO("integrator " << to_string(c.integrator) << ": relative drift " << coarse << " -> " << middle
                       << " -> " << fine << ", observed rate " << observed);
    CHECK(observed > c.order - 0.3);
    if (c.integrator == solver::Integrator::rk4) CHECK(middle < rk4_bound);
  }
}

void check_budget_closes(const std::function<double(double h)>& residual, double h) {
  const double r1 = residual(h), r2 = residual(h / 2), r3 = residual(h / 4);
  INFO("budget residuals at h = " << h << ", h/2, h/4: " << r1 << ", " << r2 << ", " << r3);
  CHECK(r1 / r2 == Approx(4).epsilon(0.1));
  CHECK(r2 / r3 == Approx(4).epsilon(0.1));
}

double outside_the_mode(const solver::NavierStokes<double>& flow, const HostField<double>& field,
                        const Vec& wave, MPI_Comm comm) {
  const auto& wavenumbers = flow.wavenumbers();
  double largest = 0;
  for (long m = 0; m < wavenumbers.size(); ++m) {
    const solver::Mode n = wavenumbers.mode(m);
    if (n.x == long(wave[0]) && n.y == long(wave[1]) && n.z == long(wave[2])) continue;
    for (const auto& component : field) largest = worse(largest, std::sqrt(norm2(component[m])));
  }
  double global = 0;
  MPI_Allreduce(&largest, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
  return global;
}

std::string error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const kolmo::Error& e) {
    return e.what();
  }
  return "";
}

template double max_difference<float>(const HostField<float>&, const HostField<float>&, MPI_Comm);
template double max_difference<double>(const HostField<double>&, const HostField<double>&, MPI_Comm);
template double max_magnitude<float>(const HostField<float>&, MPI_Comm);
template double max_magnitude<double>(const HostField<double>&, MPI_Comm);

}  // namespace kolmo::testing
