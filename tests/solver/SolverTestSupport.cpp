#include "tests/solver/SolverTestSupport.hpp"

#include <algorithm>
#include <cmath>

#include "tests/TestSupport.hpp"

namespace kolmo::testing {

template <class Real>
double max_difference(const std::array<std::vector<Complex<Real>>, 3>& a,
                      const std::array<std::vector<Complex<Real>>, 3>& b, MPI_Comm comm) {
  double local = 0;
  for (int d = 0; d < 3; ++d)
    for (std::size_t m = 0; m < a[d].size(); ++m)
      local = std::max(local, std::sqrt(double(norm2(a[d][m] - b[d][m]))));
  return global_max(local, comm);
}

template <class Real>
double max_magnitude(const std::array<std::vector<Complex<Real>>, 3>& a, MPI_Comm comm) {
  double local = 0;
  for (int d = 0; d < 3; ++d)
    for (const auto& value : a[d]) local = std::max(local, std::sqrt(double(norm2(value))));
  return global_max(local, comm);
}

template double max_difference<float>(const std::array<std::vector<Complex<float>>, 3>&,
                                      const std::array<std::vector<Complex<float>>, 3>&, MPI_Comm);
template double max_difference<double>(const std::array<std::vector<Complex<double>>, 3>&,
                                       const std::array<std::vector<Complex<double>>, 3>&, MPI_Comm);
template double max_magnitude<float>(const std::array<std::vector<Complex<float>>, 3>&, MPI_Comm);
template double max_magnitude<double>(const std::array<std::vector<Complex<double>>, 3>&, MPI_Comm);

}  // namespace kolmo::testing
