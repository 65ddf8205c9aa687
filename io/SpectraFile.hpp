// Shell spectra over a run (spectra.h5): /k, and one growing [time][shell] dataset per named spectrum.
//
// Contract:
// - The file holds /k (the shells' wavenumbers, fixed), extendible /time (float64) and /step (int64), and one
//   extendible float64 dataset [n_times][n_shells] per named spectrum (energy_spectrum, transfer, flux, ...).
//   append() adds one time to all of them together and flushes.
// - Collective over comm (which must outlive the object), rank 0 writes, errors on every rank naming the
//   file: as SeriesFile (see there and RowTable.hpp), including Opening::resume, truncate_after_step() and
//   the checksums of every dataset (/k's too).
// - On resume the file's /k must equal the given k (same length, values within 1e-12 relative).
#pragma once

#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/RowTable.hpp"

namespace kolmo::io {

class SpectraFile {
 public:
  SpectraFile(const std::filesystem::path& path, std::vector<double> k, std::vector<std::string> spectra,
              Opening opening, MPI_Comm comm);

  const std::vector<double>& k() const { return k_; }
  const std::vector<std::string>& spectra() const { return spectra_; }
  long rows() const { return table_.rows(); }
  // spectra[i] holds k().size() values of the i-th named spectrum.
  void append(double time, long step, const std::vector<std::vector<double>>& spectra);
  void truncate_after_step(long step) { table_.truncate_after_step(step); }

 private:
  std::vector<double> k_;
  std::vector<std::string> spectra_;
  RowTable table_;
};

}  // namespace kolmo::io
