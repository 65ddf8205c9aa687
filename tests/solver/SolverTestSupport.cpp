#include "tests/solver/SolverTestSupport.hpp"

#include <algorithm>
#include <cmath>

#include "tests/TestSupport.hpp"

namespace kolmo::testing {

template <class Real>
double max_difference(const HostField<Real>& a, const HostField<Real>& b, MPI_Comm comm) {
  double local = 0;
  for (std::size_t d = 0; d < a.size(); ++d)
    for (std::size_t m = 0; m < a[d].size(); ++m)
      local = std::max(local, std::sqrt(double(norm2(a[d][m] - b[d][m]))));
  return global_max(local, comm);
}

template <class Real>
double max_magnitude(const HostField<Real>& a, MPI_Comm comm) {
  double local = 0;
  for (const auto& component : a)
    for (const auto& value : component) local = std::max(local, std::sqrt(double(norm2(value))));
  return global_max(local, comm);
}

template double max_difference<float>(const HostField<float>&, const HostField<float>&, MPI_Comm);
template double max_difference<double>(const HostField<double>&, const HostField<double>&, MPI_Comm);
template double max_magnitude<float>(const HostField<float>&, MPI_Comm);
template double max_magnitude<double>(const HostField<double>&, MPI_Comm);

}  // namespace kolmo::testing
