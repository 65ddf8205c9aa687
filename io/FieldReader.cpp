#include "io/FieldReader.hpp"

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Collective.hpp"
#include "io/SlabTransfer.hpp"

namespace kolmo::io {

FieldReader::FieldReader(const std::filesystem::path& path, MPI_Comm comm) : path_(path), comm_(comm) {
  on_root(comm_, [&] {
    KOLMO_REQUIRE(std::filesystem::is_regular_file(path_),
                  "field file " + path_.string() + " does not exist");
    KOLMO_REQUIRE(H5Fis_hdf5(path_.c_str()) > 0, "field file " + path_.string() + " is not an HDF5 file");
  });
  try {
    file_ = open_parallel(path_, comm_);
  } catch (const Error& error) {
    throw Error("cannot open field file " + path_.string() + ": " + error.what());
  }
}

bool FieldReader::has_dataset(const std::string& name) const {
  try {
    return has_link(file_.get(), name) && is_dataset(file_.get(), name);
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

std::vector<std::string> FieldReader::datasets() const {
  try {
    return dataset_names(file_.get());
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

FieldInfo FieldReader::info() const {
  try {
    FieldInfo info;
    info.time = read_double_attribute(file_.get(), "time");
    info.step = read_int_attribute(file_.get(), "step");
    info.box = read_double3_attribute(file_.get(), "box");
    info.viscosity = read_double_attribute(file_.get(), "viscosity");
    return info;
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

std::optional<std::array<double, 3>> FieldReader::box() const {
  try {
    if (!has_attribute(file_.get(), "box")) return std::nullopt;
    return read_double3_attribute(file_.get(), "box");
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

std::array<long, 3> FieldReader::grid() const {
  try {
    return read_long3_attribute(file_.get(), "grid");
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

std::optional<std::array<long, 3>> FieldReader::dataset_grid(const std::string& name) const {
  if (!has_dataset(name)) return std::nullopt;
  try {
    const std::vector<hsize_t> shape = dataset_shape(open_dataset(file_.get(), name).get());
    if (shape.size() != 3) return std::nullopt;
    const std::array<long, 3> slowest_first{long(shape[0]), long(shape[1]), long(shape[2])};
    if (axis_order_of(file_.get()) == AxisOrder::xyz) return slowest_first;
    return std::array<long, 3>{slowest_first[2], slowest_first[1], slowest_first[0]};
  } catch (const Error& error) {
    throw Error(path_.string() + " dataset '" + name + "': " + error.what());
  }
}

std::string FieldReader::precision() const {
  try {
    return read_string_attribute(file_.get(), "precision");
  } catch (const Error& error) {
    throw Error(path_.string() + ": " + error.what());
  }
}

template <class Real>
void FieldReader::read(const std::string& name, const fft::SlabLayout& layout, std::span<Real> slab) const {
  const std::string where = path_.string() + " dataset '" + name + "'";
  // Every step before the collective read is agreed, though each rank looks at the same file: one that failed
  // on some ranks only (HDF5 out of memory there) would leave them waiting in the file's close, which is
  // collective, while the others wait in the read.
  Dataset dataset;
  AxisOrder order = AxisOrder::xyz;
  on_every_rank(comm_, [&] {
    KOLMO_REQUIRE(slab.size() >= layout.real_size(), where + ": the slab holds " +
                                                         std::to_string(slab.size()) + " values, it needs " +
                                                         std::to_string(layout.real_size()));
    KOLMO_REQUIRE(has_dataset(name), path_.string() + ": no dataset '" + name + "'");
    try {
      dataset = open_dataset(file_.get(), name);
      Type type(KOLMO_CHECK_HDF5(H5Dget_type(dataset.get())));
      const H5T_class_t type_class = KOLMO_CHECK_HDF5(H5Tget_class(type.get()));
      KOLMO_REQUIRE(type_class == H5T_FLOAT || type_class == H5T_INTEGER, "not a real-valued array");
      order = axis_order_of(file_.get());
      const auto stored = stored_shape(layout.global(), order);
      const std::vector<hsize_t> expected(stored.begin(), stored.end());
      const std::vector<hsize_t> shape = dataset_shape(dataset.get());
      KOLMO_REQUIRE(shape == expected, "shape " + shape_text(shape) + ", expected the grid " +
                                           shape_text(expected) + " (axis order " + axis_order_name(order) +
                                           ", slowest first)");
    } catch (const Error& error) {
      throw Error(where + ": " + error.what());
    }
  });
  try {
    read_slab(dataset.get(), order, layout, slab.data(), comm_);
  } catch (const Error& error) {
    throw Error(where + ": " + error.what());
  }
}

template void FieldReader::read<float>(const std::string&, const fft::SlabLayout&, std::span<float>) const;
template void FieldReader::read<double>(const std::string&, const fft::SlabLayout&, std::span<double>) const;

}  // namespace kolmo::io
