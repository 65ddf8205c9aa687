// Series and spectra files: appending, closing, reopening and appending again keeps every row in order; a
// restart truncates rows after its step; a kill mid-append is repaired on reopening.
#include <catch2/catch.hpp>
#include <cmath>

#include "io/Hdf5.hpp"
#include "io/SeriesFile.hpp"
#include "io/SpectraFile.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::global_max;

namespace {

const std::vector<std::string> kColumns{"time", "step", "energy"};

double energy(long row) {
  return 1.0 / (1.0 + double(row));
}

std::vector<double> series_row(long row) {
  return {0.5 * double(row), 10.0 * double(row), energy(row)};
}

template <class T>
std::vector<T> column(const std::filesystem::path& path, const std::string& name,
                      std::vector<hsize_t>& shape) {
  return kolmo::testing::read_whole_dataset<T>(
      path, name, shape, std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64);
}

// Row i of a spectrum: a function of shell and row, exact in double.
std::vector<double> spectrum(int which, long row, std::size_t shells) {
  std::vector<double> values(shells);
  for (std::size_t s = 0; s < shells; ++s) values[s] = double(which) * 1000 + double(row) * 10 + double(s);
  return values;
}

// What a kill in the middle of an append leaves: the named columns grown to `rows` rows (the new ones hold
// the fill values), nothing written into them. Rank 0 does it; every rank waits for it.
void lengthen(const std::filesystem::path& path, std::initializer_list<const char*> names, hsize_t rows) {
  if (kolmo::testing::world_rank() == 0) {
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    for (const char* name : names) {
      hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
      H5Dset_extent(dataset, &rows);
      H5Dclose(dataset);
    }
    H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

TEST_CASE("series files keep every row across reopening, truncate for restarts and survive a cut append",
          "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int rank = kolmo::testing::world_rank();
  const auto path = directory.path() / "series.h5";

  {
    SeriesFile series(path, kColumns, Opening::create, MPI_COMM_WORLD);
    for (long row = 0; row < 5; ++row) series.append(series_row(row));
    CHECK(series.rows() == 5);
  }
  {
    SeriesFile series(path, kColumns, Opening::resume, MPI_COMM_WORLD);
    CHECK(series.rows() == 5);
    for (long row = 5; row < 8; ++row) series.append(series_row(row));
    CHECK(series.rows() == 8);
  }
  double wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    const auto time = column<double>(path, "time", shape);
    wrong += shape == std::vector<hsize_t>{8} ? 0 : 1;
    const auto step = column<std::int64_t>(path, "step", shape);
    wrong += shape == std::vector<hsize_t>{8} ? 0 : 1;
    const auto e = column<double>(path, "energy", shape);
    wrong += shape == std::vector<hsize_t>{8} ? 0 : 1;
    for (long row = 0; row < 8 && wrong == 0; ++row)
      if (time[row] != 0.5 * double(row) || step[row] != 10 * row || e[row] != energy(row)) wrong += 1;
  }
  CHECK(global_max(wrong) == 0);

  // A restart from step 30 with one more column: rows after step 30 go, the new column is NaN before.
  {
    SeriesFile series(path, {"time", "step", "energy", "dissipation"}, Opening::resume, MPI_COMM_WORLD);
    series.truncate_after_step(35);
    CHECK(series.rows() == 4);
    series.append(std::vector<double>{2.0, 40.0, 0.125, 0.75});
    CHECK(series.rows() == 5);
  }
  wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    const auto step = column<std::int64_t>(path, "step", shape);
    wrong += step == std::vector<std::int64_t>{0, 10, 20, 30, 40} ? 0 : 1;
    const auto e = column<double>(path, "energy", shape);
    wrong += shape == std::vector<hsize_t>{5} && e[3] == energy(3) && e[4] == 0.125 ? 0 : 1;
    const auto dissipation = column<double>(path, "dissipation", shape);
    wrong += shape == std::vector<hsize_t>{5} ? 0 : 1;
    for (long row = 0; row < 4 && wrong == 0; ++row) wrong += std::isnan(dissipation[row]) ? 0 : 1;
    if (wrong == 0) wrong += dissipation[4] == 0.75 ? 0 : 1;
  }
  CHECK(global_max(wrong) == 0);

  // A run resumed without 'dissipation' keeps that column in step (padded with NaN).
  {
    SeriesFile series(path, kColumns, Opening::resume, MPI_COMM_WORLD);
    series.append(series_row(5));
    CHECK(series.rows() == 6);
  }
  // A kill between extending two columns: one column is a row longer. Reopening cuts it back.
  lengthen(path, {"energy"}, 7);
  {
    SeriesFile series(path, kColumns, Opening::resume, MPI_COMM_WORLD);
    CHECK(series.rows() == 6);
    series.append(series_row(6));
  }
  wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    for (const char* name : {"time", "energy", "dissipation"}) {
      const auto values = column<double>(path, name, shape);
      wrong += shape == std::vector<hsize_t>{7} ? 0 : 1;
      if (std::string(name) == "energy" && shape.size() == 1) wrong += values[6] == energy(6) ? 0 : 1;
      if (std::string(name) == "dissipation" && shape.size() == 1)
        wrong += std::isnan(values[5]) && std::isnan(values[6]) ? 0 : 1;
    }
    const auto step = column<std::int64_t>(path, "step", shape);
    wrong += step == std::vector<std::int64_t>{0, 10, 20, 30, 40, 50, 60} ? 0 : 1;
  }
  CHECK(global_max(wrong) == 0);

  // A kill after every column grew by a row and before its step was written: the row holds the fill values
  // (step -1). A restart cuts it with the rows after its step, so no row of step -1 stays between two others.
  lengthen(path, {"time", "step", "energy", "dissipation"}, 8);
  {
    SeriesFile series(path, kColumns, Opening::resume, MPI_COMM_WORLD);
    CHECK(series.rows() == 8);
    series.truncate_after_step(60);
    CHECK(series.rows() == 7);
    series.append(series_row(7));
  }
  wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    const auto step = column<std::int64_t>(path, "step", shape);
    wrong += step == std::vector<std::int64_t>{0, 10, 20, 30, 40, 50, 60, 70} ? 0 : 1;
    const auto time = column<double>(path, "time", shape);
    wrong += shape == std::vector<hsize_t>{8} && time[7] == 3.5 ? 0 : 1;
  }
  CHECK(global_max(wrong) == 0);

  // Opening::create starts over.
  SeriesFile fresh(path, kColumns, Opening::create, MPI_COMM_WORLD);
  CHECK(fresh.rows() == 0);
}

TEST_CASE("spectra files append spectra together with time and step, across reopening", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int rank = kolmo::testing::world_rank();
  const auto path = directory.path() / "spectra.h5";
  const std::vector<double> k{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::string> names{"energy_spectrum", "transfer", "flux"};
  auto append = [&](SpectraFile& file, long row) {
    file.append(0.25 * double(row), 100 * row,
                {spectrum(0, row, k.size()), spectrum(1, row, k.size()), spectrum(2, row, k.size())});
  };
  {
    SpectraFile spectra(path, k, names, Opening::create, MPI_COMM_WORLD);
    for (long row = 0; row < 3; ++row) append(spectra, row);
  }
  {
    SpectraFile spectra(path, k, names, Opening::resume, MPI_COMM_WORLD);
    CHECK(spectra.rows() == 3);
    for (long row = 3; row < 5; ++row) append(spectra, row);
  }
  double wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    wrong += column<double>(path, "k", shape) == k ? 0 : 1;
    const auto time = column<double>(path, "time", shape);
    wrong += time == std::vector<double>{0, 0.25, 0.5, 0.75, 1.0} ? 0 : 1;
    wrong +=
        column<std::int64_t>(path, "step", shape) == std::vector<std::int64_t>{0, 100, 200, 300, 400} ? 0 : 1;
    for (int which = 0; which < 3; ++which) {
      const auto values = column<double>(path, names[which], shape);
      if (shape != std::vector<hsize_t>{5, 8}) {
        wrong += 1;
        continue;
      }
      for (long row = 0; row < 5; ++row)
        if (!std::equal(values.begin() + row * 8, values.begin() + row * 8 + 8,
                        spectrum(which, row, 8).begin()))
          wrong += 1;
    }
  }
  CHECK(global_max(wrong) == 0);

  {
    SpectraFile spectra(path, k, names, Opening::resume, MPI_COMM_WORLD);
    spectra.truncate_after_step(250);
    CHECK(spectra.rows() == 3);
  }
  wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    column<double>(path, "flux", shape);
    wrong += shape == std::vector<hsize_t>{3, 8} ? 0 : 1;
    wrong += column<std::int64_t>(path, "step", shape) == std::vector<std::int64_t>{0, 100, 200} ? 0 : 1;
  }
  CHECK(global_max(wrong) == 0);

  // Different shells on resume: refused, naming the file.
  const std::string message = kolmo::testing::error_message([&] {
    SpectraFile(path, {1, 2, 3}, names, Opening::resume, MPI_COMM_WORLD);
  });
  CHECK(kolmo::testing::every_rank_failed_with(message, {path.string(), "'k'"}));
}

TEST_CASE("a changed bit in a stored row of a series or spectra file fails its checksum when read", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int rank = kolmo::testing::world_rank();
  const auto series_path = directory.path() / "series.h5", spectra_path = directory.path() / "spectra.h5";
  const std::vector<double> k{1, 2, 3, 4};
  {
    SeriesFile series(series_path, kColumns, Opening::create, MPI_COMM_WORLD);
    SpectraFile spectra(spectra_path, k, {"energy_spectrum"}, Opening::create, MPI_COMM_WORLD);
    for (long row = 0; row < 3; ++row) {
      series.append(series_row(row));
      spectra.append(0.5 * double(row), row, {spectrum(0, row, k.size())});
    }
  }
  // One bit of the stored bytes of energy's first chunk, of the spectrum's and of /k. Without checksums the
  // reads below would return changed values without complaint.
  REQUIRE(kolmo::testing::flip_bit_in_chunk(series_path, "energy", {0}));
  REQUIRE(kolmo::testing::flip_bit_in_chunk(spectra_path, "energy_spectrum", {0, 0}));
  REQUIRE(kolmo::testing::flip_bit_in_chunk(spectra_path, "k", {0}));
  double wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    column<double>(series_path, "energy", shape);
    wrong += shape.empty() ? 0 : 1;  // the read failed
    column<double>(spectra_path, "energy_spectrum", shape);
    wrong += shape.empty() ? 0 : 1;
    column<double>(spectra_path, "k", shape);
    wrong += shape.empty() ? 0 : 1;
    // The undamaged columns still read, whole and right.
    wrong += column<double>(series_path, "time", shape) == std::vector<double>{0, 0.5, 1.0} ? 0 : 1;
    wrong += column<double>(spectra_path, "time", shape) == std::vector<double>{0, 0.5, 1.0} ? 0 : 1;
  }
  CHECK(global_max(wrong) == 0);
}
