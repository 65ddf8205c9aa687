// Datasets that grow together, one row per record: the machinery under SeriesFile and SpectraFile.
//
// Contract:
// - A table is an HDF5 file whose columns are extendible, chunked datasets of equal length: 1D [rows] for one
//   value per row (width 0) or 2D [rows][width]. Columns flagged integer are stored as int64 (step), the
//   others as float64. Columns this code creates carry HDF5's Fletcher-32 checksum per chunk, so a changed
//   bit in a stored row fails any read of it (HDF5, h5py) instead of reading back a wrong value; columns of
//   files written before kolmo did this stay without (HDF5 fixes a dataset's filters when it is created).
// - Only rank 0 of comm opens the file (serial HDF5); the other ranks hold no handle. Every member function
//   is still collective over comm (which must outlive the table): rank 0 works and all ranks agree on the
//   outcome, so an error throws kolmo::Error, naming the file, on every rank. Only rank 0's row values are
//   written.
// - Opening::create starts an empty file (replacing one). Opening::resume continues an existing file (or
//   creates it): requested columns missing from it are created, padded with NaN (integers: -1) for the
//   earlier rows; extendible datasets of the file that were not requested are kept in step by padding them
//   the same way; if a kill left columns of unequal length, all are cut to the shortest. A requested column
//   whose width differs from the file's is an error.
// - append() adds one row to every column and flushes the file, so a killed run keeps every appended row.
// - A full disk: before HDF5 writes anything, opening and append() reserve room on disk past the file's end
//   for the next rows (DiskSpace.hpp: two chunks of every column and the metadata's growth), so a disk
//   without room fails there, with one kolmo::Error naming the file, and the file keeps every earlier row
//   and closes cleanly. The destructor gives back what is left of the reservation.
// - truncate_after_step(step) drops the rows from the first one whose "step" column exceeds step, or holds
//   the fill value -1 (a row a kill cut short before its step was written), on (restart).
// - prepare(file, created), if given, runs on rank 0 right after opening, for fixed datasets such as /k.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "io/Hdf5.hpp"

namespace kolmo::io {

enum class Opening { create, resume };

struct Column {
  std::string name;
  hsize_t width = 0;  // 0: one value per row
  bool integer = false;
};

class RowTable {
 public:
  RowTable(const std::filesystem::path& path, std::vector<Column> columns, Opening opening, MPI_Comm comm,
           const std::function<void(hid_t file, bool created)>& prepare = {});

  ~RowTable();
  RowTable(const RowTable&) = delete;
  RowTable& operator=(const RowTable&) = delete;

  const std::filesystem::path& path() const { return path_; }
  long rows() const { return rows_; }

  // One span per requested column, in the order given to the constructor: 1 value, or width values.
  void append(const std::vector<std::span<const double>>& row);
  void truncate_after_step(long step);

 private:
  void open_on_root(Opening opening, const std::function<void(hid_t, bool)>& prepare);
  void adopt_other_columns();
  void resize_all(hsize_t rows);
  void broadcast_rows();
  void reserve_room();

  std::filesystem::path path_;
  std::vector<Column> columns_;  // the requested ones, then the file's others
  std::size_t requested_ = 0;
  MPI_Comm comm_;
  int rank_ = 0;
  long rows_ = 0;
  File file_;                      // rank 0 only
  std::vector<Dataset> datasets_;  // rank 0 only, one per column
};

}  // namespace kolmo::io
