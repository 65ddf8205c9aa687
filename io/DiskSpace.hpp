// Reserving a file's disk space before HDF5 writes into it, so that a full disk stops a write cleanly.
//
// Why: HDF5 cannot recover from a failed write of its own metadata. When a parallel H5Fclose fails to flush
// on some ranks (the disk filled), those ranks skip collective calls inside HDF5 that the others make, and
// all wait forever; and a failed H5Fclose in HDF5 1.10 frees the file but keeps its id, which HDF5's shutdown
// in MPI_Finalize closes again (a segfault). Space allocated beforehand is used by the later writes into that
// range, so a full disk is met by the reservation, before HDF5 holds anything it could fail to write.
//
// Contract (local to the calling process; the callers agree across ranks):
// - reserve_space(path, offset, bytes) allocates the bytes [offset, offset + bytes) of the existing file path
//   without changing its size (fallocate with FALLOC_FL_KEEP_SIZE; already allocated parts cost nothing).
//   Returns false, reserving nothing, where the file system cannot reserve (no fallocate: the write then goes
//   ahead unprotected). A lack of space throws kolmo::Error with the amount and the system's reason ("No
//   space left on device"); the caller adds the file's name.
// - release_unreserved_tail(path) gives back what a reservation left allocated past the file's end.
// - file_size_or_zero(path): the size in bytes, 0 if there is no such file.
// - describe_bytes(bytes): "1.5 MiB", for messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace kolmo::io {

bool reserve_space(const std::filesystem::path& path, std::uintmax_t offset, std::uintmax_t bytes);

void release_unreserved_tail(const std::filesystem::path& path);

std::uintmax_t file_size_or_zero(const std::filesystem::path& path);

std::string describe_bytes(std::uintmax_t bytes);

}  // namespace kolmo::io
