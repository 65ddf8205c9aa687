// Helpers shared by kolmo's tests: collective verdicts and the device list to test on.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
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
// The larger of two errors, a NaN counting as infinitely large. std::max and std::fmax drop a NaN, so an
// error taken over a field that turned NaN would come out as 0 and pass every bound.
inline double worse(double error, double candidate) {
  return std::isnan(candidate) || std::isnan(error) ? INFINITY : std::fmax(error, candidate);
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

// A reproducible random value in [-0.5, 0.5) for global point (x, y, z): the same on every rank and for every
// rank count, so each rank can fill its own slab of a field that serial references build whole.
inline double random_value(long x, long y, long z) {
  std::uint64_t h = static_cast<std::uint64_t>((x * 1000003 + y) * 1000033 + z) + 0x9E3779B97F4A7C15ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<double>(h >> 11) / 9007199254740992.0 - 0.5;
}

// A fresh directory under the system's temporary directory, created by rank 0 of comm (mkdtemp) and removed
// when the test ends, once every rank is done with it.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(MPI_Comm comm = MPI_COMM_WORLD);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  MPI_Comm comm_;
  std::filesystem::path path_;
};

// A GPU device for [gpu] tests, or nullptr with a message saying the test was skipped.
std::shared_ptr<Device> gpu_or_skip(const std::string& test);

}  // namespace kolmo::testing
