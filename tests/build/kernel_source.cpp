// A source that uses kolmo's kernels (core/ParallelFor.hpp). tests/CMakeLists.txt compiles it with the host
// compiler twice: as in a build without CUDA it must compile; with KOLMO_HAVE_CUDA defined, as a source
// missing from kolmo_kernel_sources(...) in a CUDA build, it must fail with a message saying so.
#include <vector>

#include "core/ParallelFor.hpp"

int main() {
  auto device = kolmo::Device::create(kolmo::Backend::host);
  std::vector<double> values(8, 1.0);
  double* data = values.data();
  kolmo::parallel_for(
      *device, 8, KOLMO_LAMBDA(long i) { data[i] *= 2; });
  return values[7] == 2.0 ? 0 : 1;
}
