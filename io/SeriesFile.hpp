// The time series of a run's scalar diagnostics (series.h5): one growing 1D dataset per quantity.
//
// Contract:
// - The file holds one extendible float64 dataset per named column (time, step, dt, energy, dissipation,
//   ...), all of equal length; the column "step" is stored as int64. Row i of every column is the i-th
//   append. Each is checksummed (RowTable.hpp).
// - Collective over comm (which must outlive the object): all ranks construct it and call append() and
//   truncate_after_step() together; rank 0 alone opens the file and writes its own row values (the others'
//   are ignored), then every rank agrees on the outcome, so an error throws on all ranks, naming the file.
// - append() flushes the file, so a run killed at any moment keeps every completed append.
// - Opening::create starts a new file, replacing any. Opening::resume continues an existing file (creating it
//   if absent; new columns are padded with NaN, see RowTable.hpp); call truncate_after_step(restart step) to
//   drop rows written after the checkpoint the run restarts from.
// - run, if not empty, is the identity of the run the series belongs to, kept as the root attribute run
//   (io/RunIdentity.hpp, which reads it): written when the file is created, and into a resumed file that has
//   none.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "io/RowTable.hpp"

namespace kolmo::io {

class SeriesFile {
 public:
  SeriesFile(const std::filesystem::path& path, std::vector<std::string> columns, Opening opening,
             MPI_Comm comm, const std::string& run = {});

  const std::vector<std::string>& columns() const { return columns_; }
  long rows() const { return table_.rows(); }
  // One value per column, in the constructor's order.
  void append(std::span<const double> values);
  void truncate_after_step(long step) { table_.truncate_after_step(step); }

 private:
  std::vector<std::string> columns_;
  RowTable table_;
};

}  // namespace kolmo::io
