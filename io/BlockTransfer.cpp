#include "io/BlockTransfer.hpp"

#include <algorithm>

#include "core/Error.hpp"
#include "io/Hdf5.hpp"

namespace kolmo::io {

namespace {

enum class Direction { read, write };

void transfer(hid_t dataset, hid_t memory_type, const Block& block, void* data, Direction direction,
              MPI_Comm comm, std::size_t max_bytes_per_call) {
  const std::size_t dims = block.count.size();
  KOLMO_REQUIRE(dims >= 1 && block.start.size() == dims, "block transfer: start and count differ in rank");
  const std::size_t value_bytes = KOLMO_CHECK_HDF5(H5Tget_size(memory_type));
  hsize_t row_values = 1;  // values in one index of the slowest dimension
  for (std::size_t d = 1; d < dims; ++d) row_values *= block.count[d];
  const std::size_t row_bytes = std::max<std::size_t>(1, row_values * value_bytes);
  const hsize_t rows = block.count[0];
  const hsize_t rows_per_call = std::max<hsize_t>(1, max_bytes_per_call / row_bytes);

  long my_calls = static_cast<long>((rows + rows_per_call - 1) / rows_per_call), calls = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&my_calls, &calls, 1, MPI_LONG, MPI_MAX, comm));
  calls = std::max(calls, 1L);  // every rank calls at least once, so empty blocks still join in

  PropertyList transfer_list = collective_transfer();
  for (long call = 0; call < calls; ++call) {
    const hsize_t first = std::min(rows, static_cast<hsize_t>(call) * rows_per_call);
    const hsize_t n = std::min(rows_per_call, rows - first);
    Dataspace file_space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
    std::vector<hsize_t> memory_dims = block.count;
    memory_dims[0] = std::max<hsize_t>(n, 1);
    Dataspace memory_space(
        KOLMO_CHECK_HDF5(H5Screate_simple(static_cast<int>(dims), memory_dims.data(), nullptr)));
    if (n > 0 && row_values > 0) {
      std::vector<hsize_t> start = block.start, count = block.count;
      start[0] += first;
      count[0] = n;
      KOLMO_CHECK_HDF5(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                           count.data(), nullptr));
    } else {
      KOLMO_CHECK_HDF5(H5Sselect_none(file_space.get()));
      KOLMO_CHECK_HDF5(H5Sselect_none(memory_space.get()));
    }
    char* at = static_cast<char*>(data) + first * row_values * value_bytes;
    if (direction == Direction::write)
      KOLMO_CHECK_HDF5(
          H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), transfer_list.get(), at));
    else
      KOLMO_CHECK_HDF5(
          H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), transfer_list.get(), at));
  }
}

}  // namespace

void write_block(hid_t dataset, hid_t memory_type, const Block& block, const void* data, MPI_Comm comm,
                 std::size_t max_bytes_per_call) {
  // HDF5 only reads from the buffer on a write.
  transfer(dataset, memory_type, block, const_cast<void*>(data), Direction::write, comm, max_bytes_per_call);
}

void read_block(hid_t dataset, hid_t memory_type, const Block& block, void* data, MPI_Comm comm,
                std::size_t max_bytes_per_call) {
  transfer(dataset, memory_type, block, data, Direction::read, comm, max_bytes_per_call);
}

}  // namespace kolmo::io
