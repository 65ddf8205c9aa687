// Collective reads and writes of each rank's block of a shared dataset.
//
// Contract: a rank's block is the box [start, start + count) of the dataset (slowest dimension first), stored
// contiguously in memory in the same C order. write_block, BlockReader's constructor and its reads are
// collective over comm (the communicator the file was opened with): every rank calls them, and a rank whose
// block is empty (count[0] = 0) takes part with an empty selection. Transfers are split along the slowest
// dimension so that no single MPI-IO call moves more than max_bytes_per_call per rank (ROMIO counts in int),
// every rank making the same number of calls; in a chunked dataset the splits fall on chunk boundaries where
// one chunk's rows fit in a call (a chunk written in two calls is read back, checksummed and written twice).
// HDF5 converts between the memory type and the dataset's type (float <-> double). Storage never written
// (another tool's chunked dataset with chunks left out, or a contiguous one never written) reads as the
// dataset's fill value: such datasets are read by independent calls, which HDF5 1.10 serves where its
// collective ones fail. Finding them walks the dataset's chunk index (O(chunks)), so a BlockReader does it
// once, at construction, for all the reads of its dataset that follow (a checkpoint's verifying pass reads
// one ky plane a call).
//
// Failures: after every call the ranks agree on its outcome (io/Collective.hpp), so an error that only some
// ranks meet (a chunk failing its checksum is read by one rank only; a write error may reach one rank only)
// throws the same kolmo::Error on every rank, with HDF5's words for it, and no rank goes on to the next
// collective call alone.
//
// BlockReader::chunk_rows() is the dataset's chunk length along its slowest dimension (1 where it is not
// chunked): a reader that splits a block into reads of its own makes each chunk one read's by splitting
// there.
//
// BlockReader::read_through() reads the block like read() but through a buffer of at most max_bytes_per_call
// per rank, handing each call's rows to take (at the buffer's start, C order; only where the call read some
// values on that rank): it reads every chunk of the block (checksums verified) without the memory to hold
// the block. take must not throw: every rank's next call is collective.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "io/Hdf5.hpp"

namespace kolmo::io {

inline constexpr std::size_t kMaxBytesPerCall = std::size_t(1) << 30;

struct Block {
  std::vector<hsize_t> start;
  std::vector<hsize_t> count;
};

void write_block(hid_t dataset, hid_t memory_type, const Block& block, const void* data, MPI_Comm comm,
                 std::size_t max_bytes_per_call = kMaxBytesPerCall);
using TakeRows = std::function<void(const void* rows, hsize_t count)>;

// The reads of one open dataset's blocks (the dataset must outlive it).
class BlockReader {
 public:
  BlockReader(hid_t dataset, MPI_Comm comm);
  void read(hid_t memory_type, const Block& block, void* data,
            std::size_t max_bytes_per_call = kMaxBytesPerCall) const;
  void read_through(hid_t memory_type, const Block& block, std::size_t max_bytes_per_call,
                    const TakeRows& take) const;
  hsize_t chunk_rows() const { return chunk_rows_; }

 private:
  hid_t dataset_;
  hsize_t chunk_rows_;
  MPI_Comm comm_;
  PropertyList transfer_;  // collective, or independent where some storage is unwritten
};

}  // namespace kolmo::io
