#include "tests/TestSupport.hpp"

#include <cstdio>

#include "core/Communicator.hpp"

namespace kolmo::testing {

std::shared_ptr<Device> gpu_or_skip(const std::string& test) {
  // Every rank must see a GPU, or all skip together (tests are collective).
  int have = cuda_device_count() > 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all == 0) {
    if (world_rank() == 0)
      std::printf("SKIPPED [gpu] %s: %s\n", test.c_str(),
                  cuda_compiled() ? "no GPU visible to this process" : "built without CUDA");
    return nullptr;
  }
  return Device::create(Backend::cuda, node_rank(MPI_COMM_WORLD));
}

}  // namespace kolmo::testing
