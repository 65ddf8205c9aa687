#include "io/FieldFile.hpp"

#include <cctype>
#include <cstdio>
#include <set>

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"
#include "io/ParallelFile.hpp"
#include "io/Xdmf.hpp"

namespace kolmo::io {

std::string field_file_name(long step) {
  char name[64];
  std::snprintf(name, sizeof name, "fields_%06ld.h5", step);
  return name;
}

namespace {

// Dataset names become HDF5 paths and XML text: keep them plain.
void check_dataset_name(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  KOLMO_REQUIRE(plain, "field name '" + name + "' must be letters, digits and underscores");
}

template <class Real>
void check_fields(const fft::SlabLayout& layout, const std::vector<NamedSlab<Real>>& fields, MPI_Comm comm) {
  check_layout_matches(layout, comm);
  std::set<std::string> seen;
  for (const auto& field : fields) {
    check_dataset_name(field.name);
    KOLMO_REQUIRE(seen.insert(field.name).second, "field '" + field.name + "' given twice");
    KOLMO_REQUIRE(field.slab.size() >= layout.real_size(),
                  "field '" + field.name + "' has " + std::to_string(field.slab.size()) + " values on rank " +
                      std::to_string(layout.rank()) + ", its slab needs " +
                      std::to_string(layout.real_size()));
  }
}

}  // namespace

template <class Real>
std::filesystem::path write_field_file(const std::filesystem::path& directory, const FieldInfo& info,
                                       const fft::SlabLayout& layout,
                                       const std::vector<NamedSlab<Real>>& fields, MPI_Comm comm) {
  const std::filesystem::path path = directory / field_file_name(info.step);
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  std::filesystem::path xdmf_path = path;
  xdmf_path.replace_extension(".xmf");

  on_every_rank(comm, [&] {
    try {
      check_fields(layout, fields, comm);
    } catch (const Error& error) {
      throw Error(path.string() + ": " + error.what());
    }
  });

  const auto grid = layout.global();
  write_parallel_file(temporary, comm, [&](File& file, std::string& dataset_name) {
    write_attribute(file.get(), "time", info.time);
    write_attribute(file.get(), "step", std::int64_t{info.step});
    write_attribute(file.get(), "grid", grid);
    write_attribute(file.get(), "box", info.box);
    write_attribute(file.get(), "viscosity", info.viscosity);
    write_attribute(file.get(), "code_version", code_version());
    write_attribute(file.get(), "precision", std::string(precision_name<Real>()));

    const std::vector<hsize_t> shape(grid.begin(), grid.end());
    Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(3, shape.data(), nullptr)));
    PropertyList creation = unfilled_datasets();
    const Block block{{hsize_t(layout.x_offset()), 0, 0},
                      {hsize_t(layout.x_count()), hsize_t(layout.ny()), hsize_t(layout.nz())}};
    for (const auto& field : fields) {
      dataset_name = field.name;
      Dataset dataset(KOLMO_CHECK_HDF5(H5Dcreate2(file.get(), field.name.c_str(), native_type<Real>(),
                                                  space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
      write_block(dataset.get(), native_type<Real>(), block, field.slab.data(), comm);
    }
  });

  on_root(comm, [&] {
    rename_or_throw(temporary, path);
    XdmfFields xdmf{path.filename().string(), grid, info.box, info.time, {}, int(sizeof(Real))};
    for (const auto& field : fields) xdmf.datasets.push_back(field.name);
    write_field_xdmf(xdmf_path, xdmf);
  });
  return path;
}

template std::filesystem::path write_field_file<float>(const std::filesystem::path&, const FieldInfo&,
                                                       const fft::SlabLayout&,
                                                       const std::vector<NamedSlab<float>>&, MPI_Comm);
template std::filesystem::path write_field_file<double>(const std::filesystem::path&, const FieldInfo&,
                                                        const fft::SlabLayout&,
                                                        const std::vector<NamedSlab<double>>&, MPI_Comm);

}  // namespace kolmo::io
