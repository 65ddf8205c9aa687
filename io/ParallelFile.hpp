// Writing one HDF5 file collectively under a temporary name, so that a file with its final name is always
// whole.
//
// Contract:
// - write_parallel_file(temporary, comm, write) is collective over comm: it creates temporary for parallel
//   writing, calls write(file, dataset) on every rank, closes the file and returns once every rank has closed
//   it, ready for rank 0 to rename. write sets dataset to the name of the dataset it is writing (empty
//   otherwise), so an error is one kolmo::Error line naming the file and dataset.
// - unfilled_datasets(): creation properties for datasets written whole right after creation (no fill values,
//   which would double the I/O).
// - rename_or_throw(from, to): a rename whose failure is one kolmo::Error line naming both paths.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <functional>
#include <string>

#include "io/Hdf5.hpp"

namespace kolmo::io {

void write_parallel_file(const std::filesystem::path& temporary, MPI_Comm comm,
                         const std::function<void(File& file, std::string& dataset)>& write);

PropertyList unfilled_datasets();

void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace kolmo::io
