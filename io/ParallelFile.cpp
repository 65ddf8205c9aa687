#include "io/ParallelFile.hpp"

#include "core/Error.hpp"

namespace kolmo::io {

void write_parallel_file(const std::filesystem::path& temporary, MPI_Comm comm,
                         const std::function<void(File& file, std::string& dataset)>& write) {
  std::string dataset;
  try {
    File file = create_parallel(temporary, comm);
    write(file, dataset);
    dataset.clear();
    file.close();
  } catch (const Error& error) {
    throw Error(temporary.string() + (dataset.empty() ? "" : " dataset '" + dataset + "'") + ": " +
                error.what());
  }
  // The caller renames the file only after every rank has closed it.
  KOLMO_CHECK_MPI(MPI_Barrier(comm));
}

PropertyList unfilled_datasets() {
  PropertyList creation(KOLMO_CHECK_HDF5(H5Pcreate(H5P_DATASET_CREATE)));
  KOLMO_CHECK_HDF5(H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER));
  return creation;
}

void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code error;
  std::filesystem::rename(from, to, error);
  KOLMO_REQUIRE(!error, "cannot rename " + from.string() + " to " + to.string() + ": " + error.message());
}

}  // namespace kolmo::io
