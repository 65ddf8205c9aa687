#include "tests/TestSupport.hpp"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/Communicator.hpp"
#include "core/Error.hpp"

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

TemporaryDirectory::TemporaryDirectory(MPI_Comm comm) : comm_(comm) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::string name;
  if (rank == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kolmo_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) name = pattern;
  }
  int length = static_cast<int>(name.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm_);
  name.resize(static_cast<std::size_t>(length));
  MPI_Bcast(name.data(), length, MPI_CHAR, 0, comm_);
  if (name.empty()) throw Error("cannot create a temporary directory for the tests");
  path_ = name;
}

TemporaryDirectory::~TemporaryDirectory() {
  int rank = 0;
  MPI_Barrier(comm_);
  MPI_Comm_rank(comm_, &rank);
  std::error_code error;
  if (rank == 0) std::filesystem::remove_all(path_, error);
  MPI_Barrier(comm_);
}

}  // namespace kolmo::testing
