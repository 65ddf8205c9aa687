#include "io/BlockTransfer.hpp"

#include <algorithm>

#include "core/Error.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"

namespace kolmo::io {

namespace {

enum class Direction { read, write };

// The rows (indices of the slowest dimension) in one chunk of dataset; 1 if it is not chunked.
hsize_t chunk_rows_of(hid_t dataset, std::size_t dims) {
  PropertyList creation(KOLMO_CHECK_HDF5(H5Dget_create_plist(dataset)));
  if (KOLMO_CHECK_HDF5(H5Pget_layout(creation.get())) != H5D_CHUNKED) return 1;
  std::vector<hsize_t> chunk(dims);
  KOLMO_CHECK_HDF5(H5Pget_chunk(creation.get(), static_cast<int>(dims), chunk.data()));
  return std::max<hsize_t>(1, chunk[0]);
}

// Whether every chunk of a chunked dataset, or the storage of a contiguous one, has been written. kolmo
// writes every chunk; another tool's file may leave some unwritten (h5py writing only the low modes of a
// chunked dataset), and they read as the fill value. But this HDF5 (1.10) fails a collective read that
// touches one on the ranks whose selection does ("displacements of filetype must be non-negative") while the
// others wait in the collective call: 2 ranks hung so. Such datasets are read independently (every rank still
// makes every call and agrees on its outcome). H5Dget_space_status cannot tell: it calls a checksummed
// dataset partly allocated when every chunk is there (the checksums make it larger than its values).
bool fully_written(hid_t dataset, std::size_t dims) {
  PropertyList creation(KOLMO_CHECK_HDF5(H5Dget_create_plist(dataset)));
  const H5D_layout_t layout = KOLMO_CHECK_HDF5(H5Pget_layout(creation.get()));
  if (layout == H5D_COMPACT) return true;
  if (layout != H5D_CHUNKED) {
    H5D_space_status_t status{};
    KOLMO_CHECK_HDF5(H5Dget_space_status(dataset, &status));
    return status == H5D_SPACE_STATUS_ALLOCATED;
  }
  std::vector<hsize_t> chunk(dims), extent(dims);
  KOLMO_CHECK_HDF5(H5Pget_chunk(creation.get(), static_cast<int>(dims), chunk.data()));
  Dataspace space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
  KOLMO_CHECK_HDF5(H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr));
  hsize_t chunks = 1, written = 0;
  for (std::size_t d = 0; d < dims; ++d)
    chunks *= (extent[d] + chunk[d] - 1) / std::max<hsize_t>(chunk[d], 1);
  KOLMO_CHECK_HDF5(H5Dget_num_chunks(dataset, space.get(), &written));
  return written == chunks;
}

// The transfer property list of a dataset's reads: collective, or independent where some of its storage is
// unwritten (fully_written). The same on every rank, agreed.
PropertyList read_list_for(hid_t dataset, MPI_Comm comm) {
  bool collective = true;
  std::string error;
  try {
    Dataspace space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
    const int dims = KOLMO_CHECK_HDF5(H5Sget_simple_extent_ndims(space.get()));
    collective = fully_written(dataset, std::size_t(dims));
  } catch (const Error& e) {
    error = e.what();
  }
  agree(comm, error);
  int everywhere = collective ? 1 : 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm));
  return everywhere == 1 ? collective_transfer()
                         : PropertyList(KOLMO_CHECK_HDF5(H5Pcreate(H5P_DATASET_XFER)));
}

// One H5Dread or H5Dwrite (collective, or independent: read_list_for), then the ranks agree on its
// outcome.
void transfer_once(hid_t dataset, hid_t memory_type, hid_t memory_space, hid_t file_space,
                   hid_t transfer_list, void* at, Direction direction, MPI_Comm comm) {
  const herr_t status = direction == Direction::write
                            ? H5Dwrite(dataset, memory_type, memory_space, file_space, transfer_list, at)
                            : H5Dread(dataset, memory_type, memory_space, file_space, transfer_list, at);
  std::string error;
  if (status < 0) {
    error = hdf5_error_reason();
    if (error.empty()) error = direction == Direction::write ? "can't write data" : "can't read data";
  }
  agree(comm, error);
}

// How a block is split into calls.
struct Calls {
  std::size_t value_bytes = 0;  // in memory
  hsize_t row_values = 1;       // values in one index of the slowest dimension
  hsize_t rows_per_call = 1;

  std::size_t row_bytes() const { return std::max<std::size_t>(1, row_values * value_bytes); }
};

Calls split_of(hid_t dataset, hid_t memory_type, const Block& block, std::size_t max_bytes_per_call) {
  const std::size_t dims = block.count.size();
  KOLMO_REQUIRE(dims >= 1 && block.start.size() == dims, "block transfer: start and count differ in rank");
  Calls split;
  split.value_bytes = KOLMO_CHECK_HDF5(H5Tget_size(memory_type));
  for (std::size_t d = 1; d < dims; ++d) split.row_values *= block.count[d];
  const hsize_t chunk = chunk_rows_of(dataset, dims);
  const hsize_t fit = std::max<hsize_t>(1, max_bytes_per_call / split.row_bytes());
  // Whole chunks per call where one chunk's rows fit, else as many rows as fit (correct, only slower).
  split.rows_per_call = fit >= chunk ? fit / chunk * chunk : fit;
  return split;
}

// through: every call reads into data's start and hands its rows to through (BlockReader::read_through);
// otherwise each call's rows land at their place in the block.
void transfer(hid_t dataset, hid_t memory_type, const Block& block, const Calls& split, void* data,
              Direction direction, hid_t transfer_list, MPI_Comm comm, const TakeRows* through = nullptr) {
  const std::size_t dims = block.count.size();
  const hsize_t rows = block.count[0];
  long my_calls = static_cast<long>((rows + split.rows_per_call - 1) / split.rows_per_call), calls = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&my_calls, &calls, 1, MPI_LONG, MPI_MAX, comm));
  calls = std::max(calls, 1L);  // every rank calls at least once, so empty blocks still join in

  for (long call = 0; call < calls; ++call) {
    const hsize_t first = std::min(rows, static_cast<hsize_t>(call) * split.rows_per_call);
    const hsize_t n = std::min(split.rows_per_call, rows - first);
    Dataspace file_space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
    std::vector<hsize_t> memory_dims = block.count;
    memory_dims[0] = std::max<hsize_t>(n, 1);
    Dataspace memory_space(
        KOLMO_CHECK_HDF5(H5Screate_simple(static_cast<int>(dims), memory_dims.data(), nullptr)));
    if (n > 0 && split.row_values > 0) {
      std::vector<hsize_t> start = block.start, count = block.count;
      start[0] += first;
      count[0] = n;
      KOLMO_CHECK_HDF5(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                           count.data(), nullptr));
    } else {
      KOLMO_CHECK_HDF5(H5Sselect_none(file_space.get()));
      KOLMO_CHECK_HDF5(H5Sselect_none(memory_space.get()));
    }
    char* at = static_cast<char*>(data) + (through ? 0 : first * split.row_values * split.value_bytes);
    transfer_once(dataset, memory_type, memory_space.get(), file_space.get(), transfer_list, at, direction,
                  comm);
    if (through && n > 0 && split.row_values > 0) (*through)(at, n);
  }
}

}  // namespace

void write_block(hid_t dataset, hid_t memory_type, const Block& block, const void* data, MPI_Comm comm,
                 std::size_t max_bytes_per_call) {
  const Calls split = split_of(dataset, memory_type, block, max_bytes_per_call);
  const PropertyList collective = collective_transfer();
  // HDF5 only reads from the buffer on a write.
  transfer(dataset, memory_type, block, split, const_cast<void*>(data), Direction::write, collective.get(),
           comm);
}

BlockReader::BlockReader(hid_t dataset, MPI_Comm comm)
    : dataset_(dataset),
      chunk_rows_(chunk_rows_of(dataset, std::max<std::size_t>(1, dataset_shape(dataset).size()))),
      comm_(comm),
      transfer_(read_list_for(dataset, comm)) {}

void BlockReader::read(hid_t memory_type, const Block& block, void* data,
                       std::size_t max_bytes_per_call) const {
  transfer(dataset_, memory_type, block, split_of(dataset_, memory_type, block, max_bytes_per_call), data,
           Direction::read, transfer_.get(), comm_);
}

void BlockReader::read_through(hid_t memory_type, const Block& block, std::size_t max_bytes_per_call,
                               const TakeRows& take) const {
  const Calls split = split_of(dataset_, memory_type, block, max_bytes_per_call);
  const hsize_t rows = std::max<hsize_t>(1, std::min(split.rows_per_call, block.count.at(0)));
  std::vector<char> buffer;  // agreed, as the transfers are: the file is open on every rank
  resize_on_every_rank(comm_, buffer, rows * split.row_bytes(), "the buffer that verifies its chunks");
  transfer(dataset_, memory_type, block, split, buffer.data(), Direction::read, transfer_.get(), comm_,
           &take);
}

}  // namespace kolmo::io
