// Helpers shared by kolmo's tests: collective verdicts and the device list to test on.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "core/Device.hpp"

namespace kolmo::testing {

inline double global_max(double value, MPI_Comm comm = MPI_COMM_WORLD) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}
inline double global_sum(double value, MPI_Comm comm = MPI_COMM_WORLD) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, comm);
  return result;
}
inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// A GPU device for [gpu] tests, or nullptr with a message saying the test was skipped.
std::shared_ptr<Device> gpu_or_skip(const std::string& test);

}  // namespace kolmo::testing
