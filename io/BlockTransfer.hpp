// Collective reads and writes of each rank's block of a shared dataset.
//
// Contract: a rank's block is the box [start, start + count) of the dataset (slowest dimension first), stored
// contiguously in memory in the same C order. read_block/write_block are collective over comm (the
// communicator the file was opened with): every rank calls them, and a rank whose block is empty (count[0] =
// 0) takes part with an empty selection. Transfers are split along the slowest dimension so that no single
// MPI-IO call moves more than max_bytes_per_call per rank (ROMIO counts in int), every rank making the same
// number of calls. HDF5 converts between the memory type and the dataset's type (float <-> double).
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace kolmo::io {

inline constexpr std::size_t kMaxBytesPerCall = std::size_t(1) << 30;

struct Block {
  std::vector<hsize_t> start;
  std::vector<hsize_t> count;
};

void write_block(hid_t dataset, hid_t memory_type, const Block& block, const void* data, MPI_Comm comm,
                 std::size_t max_bytes_per_call = kMaxBytesPerCall);
void read_block(hid_t dataset, hid_t memory_type, const Block& block, void* data, MPI_Comm comm,
                std::size_t max_bytes_per_call = kMaxBytesPerCall);

}  // namespace kolmo::io
