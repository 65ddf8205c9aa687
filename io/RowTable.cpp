#include "io/RowTable.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/Error.hpp"
#include "io/Collective.hpp"
#include "io/DiskSpace.hpp"

namespace kolmo::io {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kMissingInteger = -1;
// Room for the metadata an append may add (chunk index nodes, object header updates), above the chunks.
constexpr std::uintmax_t kMetadataRoom = std::uintmax_t(256) << 10;

hid_t stored_type(const Column& column) {
  return column.integer ? H5T_STD_I64LE : H5T_IEEE_F64LE;
}

// The extent [rows] or [rows][width] of a column holding the given rows.
std::vector<hsize_t> extent(const Column& column, hsize_t rows) {
  if (column.width == 0) return {rows};
  return {rows, column.width};
}

// About 8 KiB chunks: rows are tiny and appended one at a time.
std::vector<hsize_t> chunk_of(const Column& column) {
  return extent(column, std::max<hsize_t>(1, 1024 / std::max<hsize_t>(1, column.width)));
}

std::uintmax_t chunk_bytes(const Column& column) {
  std::uintmax_t values = 1;
  for (hsize_t size : chunk_of(column)) values *= size;
  return values * sizeof(double);
}

Dataset create_column(hid_t file, const Column& column) {
  const std::vector<hsize_t> start = extent(column, 0);
  std::vector<hsize_t> maximum = start;
  maximum[0] = H5S_UNLIMITED;
  const std::vector<hsize_t> chunk = chunk_of(column);
  Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(int(start.size()), start.data(), maximum.data())));
  PropertyList creation(KOLMO_CHECK_HDF5(H5Pcreate(H5P_DATASET_CREATE)));
  KOLMO_CHECK_HDF5(H5Pset_chunk(creation.get(), int(chunk.size()), chunk.data()));
  KOLMO_CHECK_HDF5(H5Pset_fletcher32(creation.get()));
  if (column.integer)
    KOLMO_CHECK_HDF5(H5Pset_fill_value(creation.get(), H5T_NATIVE_INT64, &kMissingInteger));
  else
    KOLMO_CHECK_HDF5(H5Pset_fill_value(creation.get(), H5T_NATIVE_DOUBLE, &kMissing));
  return Dataset(KOLMO_CHECK_HDF5(H5Dcreate2(file, column.name.c_str(), stored_type(column), space.get(),
                                             H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
}

// Fills in the column an existing dataset describes; false if it is not extendible (a fixed dataset like /k).
bool describes_column(hid_t dataset, Column& column) {
  Dataspace space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
  const int rank = KOLMO_CHECK_HDF5(H5Sget_simple_extent_ndims(space.get()));
  if (rank < 1 || rank > 2) return false;
  hsize_t dims[2] = {0, 0}, maximum[2] = {0, 0};
  KOLMO_CHECK_HDF5(H5Sget_simple_extent_dims(space.get(), dims, maximum));
  if (maximum[0] != H5S_UNLIMITED) return false;
  column.width = rank == 2 ? dims[1] : 0;
  Type type(KOLMO_CHECK_HDF5(H5Dget_type(dataset)));
  column.integer = KOLMO_CHECK_HDF5(H5Tget_class(type.get())) == H5T_INTEGER;
  return true;
}

hsize_t rows_of(hid_t dataset) {
  return dataset_shape(dataset).at(0);
}

herr_t collect_name(hid_t /*group*/, const char* name, const H5L_info_t* /*info*/, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

void check_column_name(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  KOLMO_REQUIRE(plain, "column name '" + name + "' must be letters, digits and underscores");
}

}  // namespace

RowTable::RowTable(const std::filesystem::path& path, std::vector<Column> columns, Opening opening,
                   MPI_Comm comm, const std::function<void(hid_t, bool)>& prepare)
    : path_(path), columns_(std::move(columns)), requested_(columns_.size()), comm_(comm) {
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm_, &rank_));
  on_root(comm_, [&] {
    try {
      open_on_root(opening, prepare);
    } catch (const Error& error) {
      datasets_.clear();
      file_ = File();
      throw Error(path_.string() + ": " + error.what());
    }
  });
  broadcast_rows();
}

void RowTable::open_on_root(Opening opening, const std::function<void(hid_t, bool)>& prepare) {
  for (const auto& column : columns_) check_column_name(column.name);
  const bool resume = opening == Opening::resume && std::filesystem::exists(path_);
  if (resume) {
    KOLMO_REQUIRE(H5Fis_hdf5(path_.c_str()) > 0, "not an HDF5 file");
    file_ = open_serial(path_, true);
  } else {
    file_ = create_serial(path_);
  }
  reserve_room();
  if (prepare) prepare(file_.get(), !resume);

  std::vector<bool> existed;
  for (auto& column : columns_) {
    existed.push_back(resume && has_link(file_.get(), column.name));
    if (existed.back()) {
      Dataset dataset = open_dataset(file_.get(), column.name);
      Column found{column.name};
      KOLMO_REQUIRE(
          describes_column(dataset.get(), found) && found.width == column.width,
          "dataset '" + column.name + "' has shape " + shape_text(dataset_shape(dataset.get())) +
              ", expected an extendible " +
              (column.width == 0 ? std::string("[rows]") : "[rows][" + std::to_string(column.width) + "]"));
      datasets_.push_back(std::move(dataset));
    } else {
      datasets_.push_back(create_column(file_.get(), column));
    }
  }
  hsize_t rows = 0;
  if (resume) {
    adopt_other_columns();
    existed.resize(columns_.size(), true);
    // The shortest old column says how many rows are complete (a kill may have cut an append short); new
    // columns are padded up to it.
    rows = std::numeric_limits<hsize_t>::max();
    bool any = false;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (existed[c]) {
        rows = std::min(rows, rows_of(datasets_[c].get()));
        any = true;
      }
    if (!any) rows = 0;
    resize_all(rows);
  }
  rows_ = static_cast<long>(rows);
  KOLMO_CHECK_HDF5(H5Fflush(file_.get(), H5F_SCOPE_LOCAL));
}

RowTable::~RowTable() {
  if (!file_.valid()) return;
  datasets_.clear();
  file_ = File();
  release_unreserved_tail(path_);
}

// Two chunks of every column (an append may start a chunk in each, and the next reservation comes only with
// the next append) and the metadata's growth, past the file's end.
void RowTable::reserve_room() {
  std::uintmax_t bytes = kMetadataRoom;
  for (const auto& column : columns_) bytes += 2 * chunk_bytes(column);
  reserve_space(path_, file_size_or_zero(path_), bytes);
}

void RowTable::adopt_other_columns() {
  std::vector<std::string> names;
  KOLMO_CHECK_HDF5(H5Literate(file_.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names));
  for (const auto& name : names) {
    const bool requested = std::any_of(columns_.begin(), columns_.end(),
                                       [&](const Column& column) { return column.name == name; });
    if (requested) continue;
    hid_t object = KOLMO_CHECK_HDF5(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT));
    const bool dataset = H5Iget_type(object) == H5I_DATASET;
    KOLMO_CHECK_HDF5(H5Oclose(object));
    if (!dataset) continue;
    Dataset opened = open_dataset(file_.get(), name);
    Column column{name};
    if (!describes_column(opened.get(), column)) continue;
    columns_.push_back(column);
    datasets_.push_back(std::move(opened));
  }
}

void RowTable::resize_all(hsize_t rows) {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::vector<hsize_t> size = extent(columns_[c], rows);
    KOLMO_CHECK_HDF5(H5Dset_extent(datasets_[c].get(), size.data()));
  }
}

void RowTable::broadcast_rows() {
  KOLMO_CHECK_MPI(MPI_Bcast(&rows_, 1, MPI_LONG, 0, comm_));
}

void RowTable::append(const std::vector<std::span<const double>>& row) {
  on_root(comm_, [&] {
    try {
      KOLMO_REQUIRE(row.size() == requested_, "a row needs " + std::to_string(requested_) + " columns, got " +
                                                  std::to_string(row.size()));
      for (std::size_t c = 0; c < requested_; ++c) {
        const std::size_t values = std::max<std::size_t>(1, columns_[c].width);
        KOLMO_REQUIRE(row[c].size() == values, "column '" + columns_[c].name + "' needs " +
                                                   std::to_string(values) + " values per row, got " +
                                                   std::to_string(row[c].size()));
      }
      reserve_room();
      const hsize_t at = static_cast<hsize_t>(rows_);
      resize_all(at + 1);
      for (std::size_t c = 0; c < requested_; ++c) {
        const Column& column = columns_[c];
        std::vector<hsize_t> start = extent(column, at), count = extent(column, 1);
        if (column.width > 0) start[1] = 0;
        Dataspace file_space(KOLMO_CHECK_HDF5(H5Dget_space(datasets_[c].get())));
        KOLMO_CHECK_HDF5(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                             count.data(), nullptr));
        Dataspace memory_space(KOLMO_CHECK_HDF5(H5Screate_simple(int(count.size()), count.data(), nullptr)));
        if (column.integer) {
          std::vector<std::int64_t> values(row[c].size());
          std::transform(row[c].begin(), row[c].end(), values.begin(),
                         [](double v) { return std::isfinite(v) ? std::llround(v) : kMissingInteger; });
          KOLMO_CHECK_HDF5(H5Dwrite(datasets_[c].get(), H5T_NATIVE_INT64, memory_space.get(),
                                    file_space.get(), H5P_DEFAULT, values.data()));
        } else {
          KOLMO_CHECK_HDF5(H5Dwrite(datasets_[c].get(), H5T_NATIVE_DOUBLE, memory_space.get(),
                                    file_space.get(), H5P_DEFAULT, row[c].data()));
        }
      }
      // Columns not requested keep their fill value (NaN or -1) in the new row.
      KOLMO_CHECK_HDF5(H5Fflush(file_.get(), H5F_SCOPE_LOCAL));
    } catch (const Error& error) {
      throw Error(path_.string() + ": " + error.what());
    }
  });
  ++rows_;
}

void RowTable::truncate_after_step(long step) {
  on_root(comm_, [&] {
    try {
      auto found = std::find_if(columns_.begin(), columns_.end(),
                                [](const Column& column) { return column.name == "step"; });
      KOLMO_REQUIRE(found != columns_.end(), "no 'step' column to truncate by");
      const hid_t dataset = datasets_[std::size_t(found - columns_.begin())].get();
      std::vector<std::int64_t> steps(static_cast<std::size_t>(rows_));
      if (rows_ > 0)
        KOLMO_CHECK_HDF5(H5Dread(dataset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()));
      // The first row after the step, or the first whose step was never written (the fill value, -1: an
      // append a kill cut short before its step column), and every row from it on.
      const auto first_later =
          std::find_if(steps.begin(), steps.end(), [&](std::int64_t s) { return s > step || s < 0; });
      rows_ = static_cast<long>(first_later - steps.begin());
      resize_all(static_cast<hsize_t>(rows_));
      KOLMO_CHECK_HDF5(H5Fflush(file_.get(), H5F_SCOPE_LOCAL));
    } catch (const Error& error) {
      throw Error(path_.string() + ": " + error.what());
    }
  });
  broadcast_rows();
}

}  // namespace kolmo::io
