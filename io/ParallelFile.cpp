#include "io/ParallelFile.hpp"

#include <fstream>

#include "core/Error.hpp"
#include "io/Collective.hpp"
#include "io/DiskSpace.hpp"

namespace kolmo::io {

namespace {

// Room for HDF5's metadata: the superblock, object headers and attributes (well under the fixed part) and
// each chunk's index entry with its share of index nodes (under 256 bytes in both file formats).
constexpr std::uintmax_t kMetadataBytes = std::uintmax_t(1) << 20;
constexpr std::uintmax_t kIndexBytesPerChunk = 256;

// Rank 0's part of step 1: a fresh temporary file with its space reserved.
void create_reserved(const std::filesystem::path& temporary, const FileContent& content) {
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  {
    std::ofstream create(temporary, std::ios::binary);
    KOLMO_REQUIRE(create.good(), "cannot create " + temporary.string());
  }
  // The file is still empty, so HDF5's create below keeps the reservation (it truncates non-empty files
  // only).
  reserve_space(temporary, 0, reserved_bytes(content.data_bytes, content.chunks));
}

}  // namespace

std::filesystem::path temporary_path(const std::filesystem::path& path) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  return temporary;
}

std::uintmax_t reserved_bytes(std::uintmax_t data_bytes, std::uintmax_t chunks) {
  return data_bytes + kIndexBytesPerChunk * chunks + kMetadataBytes;
}

void write_parallel_file(const std::filesystem::path& path, MPI_Comm comm, const FileContent& content,
                         const std::function<void(File& file, std::string& dataset)>& write) {
  const std::filesystem::path temporary = temporary_path(path);
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  std::string dataset, failure;
  try {
    on_root(comm, [&] { create_reserved(temporary, content); });
    File file = create_parallel(temporary, comm, content.format);
    // An error in write has been agreed by all ranks (BlockTransfer), so all leave here together and close
    // the file in the same order; the reservation leaves the close nothing that a full disk could stop.
    write(file, dataset);
    dataset.clear();
    on_every_rank(comm, [&] { file.close(); });
  } catch (const Error& error) {
    failure = path.string() + (dataset.empty() ? "" : " dataset '" + dataset + "'") + ": " + error.what();
  }
  // Also catches an error that only some ranks met outside the agreed steps, so none renames alone.
  try {
    agree(comm, failure);
  } catch (const Error&) {
    std::error_code ignored;
    if (rank == 0) std::filesystem::remove(temporary, ignored);
    throw;
  }
  if (rank == 0) release_unreserved_tail(temporary);
}

PropertyList unfilled_datasets() {
  PropertyList creation(KOLMO_CHECK_HDF5(H5Pcreate(H5P_DATASET_CREATE)));
  KOLMO_CHECK_HDF5(H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER));
  return creation;
}

PropertyList checksummed_datasets(const std::vector<hsize_t>& chunk) {
  PropertyList creation = unfilled_datasets();
  KOLMO_CHECK_HDF5(H5Pset_chunk(creation.get(), static_cast<int>(chunk.size()), chunk.data()));
  KOLMO_CHECK_HDF5(H5Pset_fletcher32(creation.get()));
  return creation;
}

void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code error;
  std::filesystem::rename(from, to, error);
  KOLMO_REQUIRE(!error, "cannot rename " + from.string() + " to " + to.string() + ": " + error.message());
}

}  // namespace kolmo::io
