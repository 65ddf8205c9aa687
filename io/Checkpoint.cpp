#include "io/Checkpoint.hpp"

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"
#include "io/ParallelFile.hpp"

namespace kolmo::io {

namespace {

// Complex<Real> as the HDF5 compound {r, i}, the layout h5py maps to numpy complex.
template <class Real>
Type complex_type() {
  Type type(KOLMO_CHECK_HDF5(H5Tcreate(H5T_COMPOUND, sizeof(Complex<Real>))));
  KOLMO_CHECK_HDF5(H5Tinsert(type.get(), "r", offsetof(Complex<Real>, re), native_type<Real>()));
  KOLMO_CHECK_HDF5(H5Tinsert(type.get(), "i", offsetof(Complex<Real>, im), native_type<Real>()));
  return type;
}

std::vector<hsize_t> spectral_shape(const std::array<long, 3>& grid) {
  return {hsize_t(grid[0]), hsize_t(grid[1]), hsize_t(grid[2] / 2 + 1)};
}

Block spectral_block(const fft::SlabLayout& layout) {
  return Block{{0, hsize_t(layout.y_offset()), 0},
               {hsize_t(layout.nx()), hsize_t(layout.y_count()), hsize_t(layout.nzc())}};
}

template <class Named>
void check_sizes(const fft::SlabLayout& layout, const std::vector<Named>& datasets) {
  for (std::size_t i = 0; i < datasets.size(); ++i) {
    const auto& d = datasets[i];
    KOLMO_REQUIRE(d.modes.size() >= layout.spectral_size(),
                  d.name + " has " + std::to_string(d.modes.size()) + " values, the spectral slab needs " +
                      std::to_string(layout.spectral_size()));
    for (std::size_t j = 0; j < i; ++j)
      KOLMO_REQUIRE(datasets[j].name != d.name, "two datasets are named " + d.name);
  }
}

// The layout and the datasets' sizes, checked on every rank before the file is touched; errors name path.
template <class Named>
void check_datasets(const std::filesystem::path& path, const fft::SlabLayout& layout,
                    const std::vector<Named>& datasets, MPI_Comm comm) {
  on_every_rank(comm, [&] {
    try {
      check_layout_matches(layout, comm);
      check_sizes(layout, datasets);
    } catch (const Error& error) {
      throw Error(path.string() + ": " + error.what());
    }
  });
}

template <class Named, class Span>
std::vector<Named> velocity_named(const std::array<Span, 3>& velocity) {
  std::vector<Named> named;
  for (int c = 0; c < 3; ++c) named.push_back({kVelocityComponents[c], velocity[c]});
  return named;
}

void check_exists(const std::filesystem::path& path, MPI_Comm comm) {
  on_root(comm, [&] {
    KOLMO_REQUIRE(std::filesystem::is_regular_file(path), "checkpoint " + path.string() + " does not exist");
    KOLMO_REQUIRE(H5Fis_hdf5(path.c_str()) > 0, "checkpoint " + path.string() + " is not an HDF5 file");
  });
}

CheckpointInfo read_info(hid_t file) {
  CheckpointInfo info;
  info.time = read_double_attribute(file, "time");
  info.step = read_int_attribute(file, "step");
  info.dt = read_double_attribute(file, "dt");
  info.grid = read_long3_attribute(file, "grid");
  info.box = read_double3_attribute(file, "box");
  info.viscosity = read_double_attribute(file, "viscosity");
  info.rng_state = read_uint_attribute(file, "rng_state");
  info.precision = read_string_attribute(file, "precision");
  info.code_version = read_string_attribute(file, "code_version");
  return info;
}

std::string grid_text(const std::array<long, 3>& grid) {
  return std::to_string(grid[0]) + " x " + std::to_string(grid[1]) + " x " + std::to_string(grid[2]);
}

}  // namespace

std::filesystem::path checkpoint_path(const std::filesystem::path& directory) {
  return directory / "checkpoint.h5";
}

std::filesystem::path previous_checkpoint_path(const std::filesystem::path& directory) {
  return directory / "checkpoint.prev.h5";
}

std::filesystem::path latest_checkpoint(const std::filesystem::path& directory, MPI_Comm comm) {
  int rank = 0, use_previous = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  on_root(comm, [&] {
    if (std::filesystem::is_regular_file(checkpoint_path(directory))) return;
    KOLMO_REQUIRE(
        std::filesystem::is_regular_file(previous_checkpoint_path(directory)),
        "no checkpoint in " + directory.string() + " (neither checkpoint.h5 nor checkpoint.prev.h5)");
    use_previous = 1;
  });
  KOLMO_CHECK_MPI(MPI_Bcast(&use_previous, 1, MPI_INT, 0, comm));
  return use_previous ? previous_checkpoint_path(directory) : checkpoint_path(directory);
}

template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout,
                                       const std::vector<SpectralDataset<Real>>& datasets, MPI_Comm comm) {
  const std::filesystem::path path = checkpoint_path(directory);
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  check_datasets(path, layout, datasets, comm);
  on_root(comm, [&] { std::filesystem::create_directories(directory); });

  write_parallel_file(temporary, comm, [&](File& file, std::string& dataset_name) {
    write_attribute(file.get(), "time", info.time);
    write_attribute(file.get(), "step", std::int64_t{info.step});
    write_attribute(file.get(), "dt", info.dt);
    write_attribute(file.get(), "grid", layout.global());
    write_attribute(file.get(), "box", info.box);
    write_attribute(file.get(), "viscosity", info.viscosity);
    write_attribute(file.get(), "rng_state", std::uint64_t{info.rng_state});
    write_attribute(file.get(), "precision", std::string(precision_name<Real>()));
    write_attribute(file.get(), "code_version", code_version());

    const std::vector<hsize_t> shape = spectral_shape(layout.global());
    Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(3, shape.data(), nullptr)));
    PropertyList creation = unfilled_datasets();
    Type type = complex_type<Real>();
    for (const auto& d : datasets) {
      dataset_name = d.name;
      Dataset dataset(KOLMO_CHECK_HDF5(H5Dcreate2(file.get(), d.name.c_str(), type.get(), space.get(),
                                                  H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
      write_block(dataset.get(), type.get(), spectral_block(layout), d.modes.data(), comm);
    }
  });
  on_root(comm, [&] {
    if (std::filesystem::exists(path)) rename_or_throw(path, previous_checkpoint_path(directory));
    rename_or_throw(temporary, path);
  });
  return path;
}

template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout, const VelocityModes<Real>& velocity,
                                       MPI_Comm comm) {
  return write_checkpoint<Real>(directory, info, layout, velocity_named<SpectralDataset<Real>>(velocity),
                                comm);
}

CheckpointInfo read_checkpoint_info(const std::filesystem::path& path, MPI_Comm comm) {
  check_exists(path, comm);
  try {
    File file = open_parallel(path, comm);
    return read_info(file.get());
  } catch (const Error& error) {
    throw Error(path.string() + ": " + error.what());
  }
}

template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm) {
  check_datasets(path, layout, targets, comm);
  check_exists(path, comm);
  std::string dataset_name;
  try {
    File file = open_parallel(path, comm);
    CheckpointInfo info = read_info(file.get());
    KOLMO_REQUIRE(info.grid == layout.global(),
                  "grid " + grid_text(info.grid) + " differs from the run's " + grid_text(layout.global()));
    const std::vector<hsize_t> expected = spectral_shape(layout.global());
    Type type = complex_type<Real>();
    for (const auto& target : targets) {
      dataset_name = target.name;
      Dataset dataset = open_dataset(file.get(), target.name);
      const std::vector<hsize_t> shape = dataset_shape(dataset.get());
      KOLMO_REQUIRE(shape == expected, "shape " + shape_text(shape) + ", expected " + shape_text(expected));
      Type stored(KOLMO_CHECK_HDF5(H5Dget_type(dataset.get())));
      KOLMO_REQUIRE(KOLMO_CHECK_HDF5(H5Tget_class(stored.get())) == H5T_COMPOUND,
                    "not a complex {r, i} compound");
      read_block(dataset.get(), type.get(), spectral_block(layout), target.modes.data(), comm);
    }
    return info;
  } catch (const Error& error) {
    throw Error(path.string() + (dataset_name.empty() ? "" : " dataset '" + dataset_name + "'") + ": " +
                error.what());
  }
}

template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const VelocityTargets<Real>& velocity, MPI_Comm comm) {
  return read_checkpoint<Real>(path, layout, velocity_named<SpectralTarget<Real>>(velocity), comm);
}

#define KOLMO_INSTANTIATE_CHECKPOINT(Real)                                                                   \
  template std::filesystem::path write_checkpoint<Real>(                                                     \
      const std::filesystem::path&, const CheckpointInfo&, const fft::SlabLayout&,                           \
      const std::vector<SpectralDataset<Real>>&, MPI_Comm);                                                  \
  template std::filesystem::path write_checkpoint<Real>(const std::filesystem::path&, const CheckpointInfo&, \
                                                        const fft::SlabLayout&, const VelocityModes<Real>&,  \
                                                        MPI_Comm);                                           \
  template CheckpointInfo read_checkpoint<Real>(const std::filesystem::path&, const fft::SlabLayout&,        \
                                                const std::vector<SpectralTarget<Real>>&, MPI_Comm);         \
  template CheckpointInfo read_checkpoint<Real>(const std::filesystem::path&, const fft::SlabLayout&,        \
                                                const VelocityTargets<Real>&, MPI_Comm);
KOLMO_INSTANTIATE_CHECKPOINT(float)
KOLMO_INSTANTIATE_CHECKPOINT(double)
#undef KOLMO_INSTANTIATE_CHECKPOINT

}  // namespace kolmo::io
