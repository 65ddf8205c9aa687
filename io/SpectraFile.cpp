#include "io/SpectraFile.hpp"

#include <cmath>

#include "core/Error.hpp"
#include "io/ParallelFile.hpp"

namespace kolmo::io {

namespace {

std::vector<Column> spectra_columns(const std::filesystem::path& path, const std::vector<std::string>& names,
                                    hsize_t shells) {
  KOLMO_REQUIRE(shells > 0, path.string() + ": a spectra file needs at least one wavenumber shell");
  std::vector<Column> columns{Column{"time", 0, false}, Column{"step", 0, true}};
  for (const auto& name : names) columns.push_back(Column{name, shells, false});
  return columns;
}

// Writes /k into a new file, or checks that a continued file has the same shells.
void write_or_check_k(hid_t file, bool created, const std::vector<double>& k) {
  const hsize_t shells = k.size();
  if (created) {
    Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(1, &shells, nullptr)));
    const PropertyList creation = checksummed_datasets({shells});
    Dataset dataset(KOLMO_CHECK_HDF5(
        H5Dcreate2(file, "k", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
    KOLMO_CHECK_HDF5(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, k.data()));
    return;
  }
  Dataset dataset = open_dataset(file, "k");
  const std::vector<hsize_t> shape = dataset_shape(dataset.get());
  KOLMO_REQUIRE(
      shape == std::vector<hsize_t>{shells},
      "dataset 'k' has shape " + shape_text(shape) + ", the run has " + std::to_string(shells) + " shells");
  std::vector<double> stored(k.size());
  KOLMO_CHECK_HDF5(H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, stored.data()));
  for (std::size_t i = 0; i < k.size(); ++i)
    KOLMO_REQUIRE(std::abs(stored[i] - k[i]) <= 1e-12 * std::max(std::abs(k[i]), 1.0),
                  "dataset 'k' differs from the run's shells at index " + std::to_string(i));
}

}  // namespace

SpectraFile::SpectraFile(const std::filesystem::path& path, std::vector<double> k,
                         std::vector<std::string> spectra, Opening opening, MPI_Comm comm)
    : k_(std::move(k)),
      spectra_(std::move(spectra)),
      table_(path, spectra_columns(path, spectra_, k_.size()), opening, comm,
             [this](hid_t file, bool created) { write_or_check_k(file, created, k_); }) {}

void SpectraFile::append(double time, long step, const std::vector<std::vector<double>>& spectra) {
  const double step_value = static_cast<double>(step);
  std::vector<std::span<const double>> row{std::span<const double>(&time, 1),
                                           std::span<const double>(&step_value, 1)};
  for (const auto& spectrum : spectra) row.push_back(spectrum);
  table_.append(row);
}

}  // namespace kolmo::io
