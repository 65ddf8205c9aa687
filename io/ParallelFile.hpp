// Writing one HDF5 file collectively under a temporary name, so that a file with its final name is always
// whole, and so that a failure (a full disk above all) stops every rank with one message and leaves nothing
// behind.
//
// Contract:
// - write_parallel_file(path, comm, content, write) is collective over comm. It writes temporary_path(path)
//   (path + ".tmp", replacing a stale one) and returns once every rank has closed it, ready for rank 0 to
//   rename. In order:
//     1. rank 0 creates the temporary file and reserves its space on disk (DiskSpace.hpp): the dataset
//        values' bytes (content.data_bytes) plus room for HDF5's metadata (reserved_bytes()); all ranks agree
//        on the outcome, so a disk without room fails here, before HDF5 has the file open;
//     2. every rank creates the file in content.format and calls write(file, dataset), which writes the
//        datasets with BlockTransfer (whose transfers agree on their outcome after every call) and sets
//        dataset to the name of the dataset it is writing (empty otherwise);
//     3. every rank closes the file, and the ranks agree on the outcome;
//     4. rank 0 gives back the space the reservation kept past the file's end.
//   On an error at any step every rank throws the same kolmo::Error, one line naming the file (its final
//   name) and dataset, after the file was closed on every rank and rank 0 removed the temporary file.
// - reserved_bytes(data_bytes, chunks): what step 1 reserves for a file with these dataset bytes in this
//   many chunks (written into the file's space; tested to cover every file kolmo writes).
// - unfilled_datasets(): creation properties for datasets written whole right after creation: contiguous, no
//   fill values (which would double the I/O).
// - checksummed_datasets(chunk): creation properties for datasets written whole right after creation:
//   chunked as given (slowest dimension first), each chunk checksummed by HDF5's Fletcher32 filter (verified
//   by HDF5 on every read; parallel HDF5 writes filtered datasets only collectively, as BlockTransfer does),
//   no fill values (which would double the I/O).
// - rename_or_throw(from, to): a rename whose failure is one kolmo::Error line naming both paths.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/Hdf5.hpp"

namespace kolmo::io {

struct FileContent {
  std::uintmax_t data_bytes = 0;  // the dataset values, as stored
  std::uintmax_t chunks = 0;      // how many chunks hold them
  FileFormat format = FileFormat::compatible;
};

std::filesystem::path temporary_path(const std::filesystem::path& path);

std::uintmax_t reserved_bytes(std::uintmax_t data_bytes, std::uintmax_t chunks);

void write_parallel_file(const std::filesystem::path& path, MPI_Comm comm, const FileContent& content,
                         const std::function<void(File& file, std::string& dataset)>& write);

PropertyList unfilled_datasets();
PropertyList checksummed_datasets(const std::vector<hsize_t>& chunk);

void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace kolmo::io
