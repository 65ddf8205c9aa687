// MPI's lifetime in a program (MpiRuntime), and an owned MPI communicator (RAII): a duplicate of the
// caller's, so kolmo's messages never mix with the caller's, freed on destruction. Also knows the rank's
// index among ranks of the same node (picks the GPU).
#pragma once

#include <mpi.h>

namespace kolmo {

// MPI for the life of a program: MPI_Init_thread (funneled: only the main thread calls MPI) on construction,
// MPI_Finalize on destruction, so every return from main finalises. Declare it first in main: MPI objects
// declared after it are gone before it finalises.
class MpiRuntime {
 public:
  MpiRuntime(int& argc, char**& argv);
  ~MpiRuntime();
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm parent);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int node_rank() const { return node_rank_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0;
};

// Rank within the node (MPI_COMM_TYPE_SHARED) of the calling process in comm, and how many of comm's ranks
// share that node.
int node_rank(MPI_Comm comm);
int node_size(MPI_Comm comm);

// Unless OMP_NUM_THREADS is set, gives each of comm's ranks on a node an equal share of the node's cores as
// OpenMP threads. Ranks that each start one thread per core oversubscribe the node, and MPI's busy waiting
// then slows everything down by orders of magnitude.
void share_node_cores(MPI_Comm comm);

}  // namespace kolmo
