#include "io/FieldFile.hpp"

#include <cctype>
#include <cstdio>
#include <set>

#include "core/Error.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"
#include "io/ParallelFile.hpp"
#include "io/SlabTransfer.hpp"
#include "io/TextFile.hpp"
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
  std::filesystem::path xdmf_path = path;
  xdmf_path.replace_extension(".xmf");

  on_every_rank(comm, [&] {
    try {
      check_fields(layout, fields, comm);
    } catch (const Error& error) {
      throw Error(path.string() + ": " + error.what());
    }
  });

  // A fields/ folder removed during a run (to make room, say) is made again, as checkpoints/ is: the dumps
  // after it are not lost with the run.
  on_root(comm, [&] { std::filesystem::create_directories(directory); });

  const auto grid = layout.global();
  const std::uintmax_t values = std::uintmax_t(grid[0]) * grid[1] * grid[2];
  // Contiguous, without checksums: HDF5's Fletcher32 filter would make a dump 1.7 to 2.9 times slower to
  // write (measured; see the header), for files that a restart never reads.
  const FileContent content{fields.size() * values * sizeof(Real), 0, FileFormat::compatible};
  write_parallel_file(path, comm, content, [&](File& file, std::string& dataset_name) {
    write_attribute(file.get(), "time", info.time);
    write_attribute(file.get(), "step", std::int64_t{info.step});
    write_attribute(file.get(), "grid", grid);
    write_attribute(file.get(), "box", info.box);
    write_attribute(file.get(), "viscosity", info.viscosity);
    if (info.shift) write_attribute(file.get(), "shift", *info.shift);
    write_attribute(file.get(), "code_version", code_version());
    write_attribute(file.get(), "precision", std::string(precision_name<Real>()));

    // Stored x fastest, so that ParaView and VisIt put x, y, z on their X, Y, Z axes (io/Xdmf.hpp).
    write_attribute(file.get(), "axis_order", std::string(axis_order_name(AxisOrder::zyx)));
    const auto shape = stored_shape(grid, AxisOrder::zyx);
    Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(3, shape.data(), nullptr)));
    PropertyList creation = unfilled_datasets();
    for (const auto& field : fields) {
      dataset_name = field.name;
      Dataset dataset(KOLMO_CHECK_HDF5(H5Dcreate2(file.get(), field.name.c_str(), native_type<Real>(),
                                                  space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
      write_slab(dataset.get(), AxisOrder::zyx, layout, field.slab.data(), comm);
    }
  });

  // The .xmf is written before either file takes its final name, so a dump ends up whole (both files) or
  // not at all.
  on_root(comm, [&] {
    const std::filesystem::path xdmf_temporary = temporary_path(xdmf_path);
    try {
      XdmfFields xdmf{path.filename().string(), grid, info.box, info.time, {}, int(sizeof(Real))};
      for (const auto& field : fields) xdmf.datasets.push_back(field.name);
      write_text_file(xdmf_temporary, field_xdmf(xdmf));
      rename_or_throw(temporary_path(path), path);
      rename_or_throw(xdmf_temporary, xdmf_path);
    } catch (const Error& error) {
      std::error_code ignored;
      std::filesystem::remove(temporary_path(path), ignored);
      std::filesystem::remove(xdmf_temporary, ignored);
      throw Error(xdmf_path.string() + ": " + error.what());
    }
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
