// Helpers for the io tests: a scratch directory shared by all ranks, test fields that are exact functions of
// the global index, a serial reader (one process, plain HDF5, no kolmo code) and collective error capture.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/Complex.hpp"
#include "tests/TestSupport.hpp"

namespace kolmo::testing {

// A real test value at global point (x, y, z) of component c: distinct at every point and exact in float for
// the small grids used here, so reads are compared bit for bit.
inline double real_value(long x, long y, long z, int c, const std::array<long, 3>& n) {
  return static_cast<double>((x * n[1] + y) * n[2] + z) + 0.125 * c - 100.0;
}

// A complex test value at global spectral index (kx, ky, kz) of component c.
inline Complex<double> spectral_value(long kx, long ky, long kz, int c, long seed = 0) {
  const double index = static_cast<double>((kx * 64 + ky) * 64 + kz);
  return {index + 0.25 * c + seed, -0.5 * index + c - 2.0 * seed};
}

// The whole dataset as T, read by plain serial HDF5 (H5Fopen with default properties). Empty shape on
// failure.
template <class T>
std::vector<T> read_whole_dataset(const std::filesystem::path& file, const std::string& name,
                                  std::vector<hsize_t>& shape, hid_t memory_type);
// A complex dataset (stored as {r, i}) whole, as doubles: read_whole_dataset with its own compound type.
std::vector<Complex<double>> read_whole_complex(const std::filesystem::path& file, const std::string& name,
                                                std::vector<hsize_t>& shape);

// Damage, done by rank 0 of MPI_COMM_WORLD (all ranks call; they wait for it). Each returns whether it found
// what to damage.
// - flip_bit_in_chunk: one bit in the middle of the stored bytes of the chunk of dataset name whose offset
//   (its first index, slowest dimension first) is chunk_offset, found with plain HDF5's H5Dget_chunk_info.
// - fill_with_ones_in_chunk: bytes [first, first + count) of the stored bytes of that chunk set to 0xff.
// - flip_bit_in_value: one bit of the first place where the 8 bytes of value (a double attribute) appear.
// - cut_file: keeps the first fraction of the file's bytes.
bool flip_bit_in_chunk(const std::filesystem::path& file, const std::string& name,
                       const std::vector<hsize_t>& chunk_offset);
bool fill_with_ones_in_chunk(const std::filesystem::path& file, const std::string& name,
                             const std::vector<hsize_t>& chunk_offset, std::uintmax_t first,
                             std::uintmax_t count);
bool flip_bit_in_value(const std::filesystem::path& file, double value);
bool cut_file(const std::filesystem::path& file, double fraction);

// Runs work on every rank of comm and returns the message of the kolmo::Error it threw ("" if none).
std::string error_message(const std::function<void()>& work);

// True when every rank's message is non-empty, one line, and contains each of the given parts.
bool every_rank_failed_with(const std::string& message, const std::vector<std::string>& parts,
                            MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace kolmo::testing
