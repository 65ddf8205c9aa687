#include "core/Communicator.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <utility>

#include "core/Error.hpp"

namespace kolmo {

MpiRuntime::MpiRuntime(int& argc, char**& argv) {
  int provided = 0;
  KOLMO_CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  KOLMO_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  KOLMO_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
}

MpiRuntime::~MpiRuntime() {
  MPI_Finalize();
}

Communicator::Communicator(MPI_Comm parent) {
  KOLMO_CHECK_MPI(MPI_Comm_dup(parent, &comm_));
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm_, &rank_));
  KOLMO_CHECK_MPI(MPI_Comm_size(comm_, &size_));
  node_rank_ = kolmo::node_rank(comm_);
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

namespace {

// The rank and size of the calling process among comm's ranks on its node (MPI_COMM_TYPE_SHARED).
std::pair<int, int> place_on_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  KOLMO_CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int rank = 0, size = 1;
  KOLMO_CHECK_MPI(MPI_Comm_rank(node, &rank));
  KOLMO_CHECK_MPI(MPI_Comm_size(node, &size));
  KOLMO_CHECK_MPI(MPI_Comm_free(&node));
  return {rank, size};
}

}  // namespace

int node_rank(MPI_Comm comm) {
  return place_on_node(comm).first;
}
int node_size(MPI_Comm comm) {
  return place_on_node(comm).second;
}

void share_node_cores(MPI_Comm comm) {
  const int ranks = node_size(comm);
  if (std::getenv("OMP_NUM_THREADS") != nullptr) return;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  omp_set_num_threads(std::max(1, cores / std::max(1, ranks)));
}

}  // namespace kolmo
