// Input problems give one line naming the file (and dataset) on every rank; the output directory guard
// refuses to overwrite an earlier run unless told.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fstream>

#include "io/Checkpoint.hpp"
#include "io/FieldFile.hpp"
#include "io/FieldReader.hpp"
#include "io/OutputDirectory.hpp"
#include "io/SeriesFile.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::error_message;
using kolmo::testing::every_rank_failed_with;
using kolmo::testing::global_max;

namespace {

const std::array<long, 3> kGrid{6, 5, 4};

fft::SlabLayout world_layout(const std::array<long, 3>& grid = kGrid) {
  return fft::SlabLayout(grid, kolmo::testing::world_size(), kolmo::testing::world_rank());
}

void touch(const std::filesystem::path& path) {
  if (kolmo::testing::world_rank() == 0) std::ofstream(path) << "x";
  MPI_Barrier(MPI_COMM_WORLD);
}

// Makes folder one the run cannot create files in: without the write right, or, for root, who may write
// whatever the modes say, a link to a kernel file system (/proc), which takes no files either.
void make_unwritable(const std::filesystem::path& folder) {
  if (kolmo::testing::world_rank() == 0) {
    if (::geteuid() == 0) {
      std::filesystem::remove_all(folder);
      std::filesystem::create_directory_symlink("/proc/self", folder);
    } else {
      std::filesystem::permissions(folder,
                                   std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
}  // namespace

TEST_CASE("reading fields reports a missing file, dataset or wrong shape in one line", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto layout = world_layout();
  std::vector<double> slab(layout.real_size(), 1.0);
  const auto path = write_field_file<double>(directory.path(), FieldInfo{0, 7, {1, 1, 1}, 0.1}, layout,
                                             {{"u", slab}}, MPI_COMM_WORLD);

  const auto missing = directory.path() / "nothing_here.h5";
  CHECK(every_rank_failed_with(
      error_message([&] { read_field<double>(missing, "u", layout, slab, MPI_COMM_WORLD); }),
      {missing.string(), "does not exist"}));

  touch(directory.path() / "not_hdf5.h5");
  CHECK(every_rank_failed_with(
      error_message([&] { FieldReader(directory.path() / "not_hdf5.h5", MPI_COMM_WORLD); }),
      {"not_hdf5.h5", "not an HDF5 file"}));

  CHECK(every_rank_failed_with(
      error_message([&] { read_field<double>(path, "pressure", layout, slab, MPI_COMM_WORLD); }),
      {path.string(), "'pressure'"}));
  // A dataset behind a group that is missing, or behind a dataset, is no dataset either (HDF5 itself fails
  // to look such a path up): the same line, naming it.
  for (const std::string name : {"flow/u", "u/flow"})
    CHECK(every_rank_failed_with(
        error_message([&] { read_field<double>(path, name, layout, slab, MPI_COMM_WORLD); }),
        {path.string(), "no dataset '" + name + "'"}));

  const auto other = world_layout({6, 5, 8});
  std::vector<double> bigger(other.real_size());
  CHECK(every_rank_failed_with(
      error_message([&] { read_field<double>(path, "u", other, bigger, MPI_COMM_WORLD); }),
      {path.string(), "'u'", "4 x 5 x 6", "8 x 5 x 6", "z y x"}));  // stored [Nz][Ny][Nx]

  // A slab too small for the layout is refused before any collective read.
  CHECK(every_rank_failed_with(
      error_message(
          [&] { FieldReader(path, MPI_COMM_WORLD).read<double>("u", layout, std::span<double>()); }),
      {path.string(), "'u'", "slab"}));
}

TEST_CASE("a cut field file fails to open on every rank, in HDF5's words, with no source text", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto layout = world_layout();
  std::vector<double> slab(layout.real_size(), 1.0);
  const auto path = write_field_file<double>(directory.path(), FieldInfo{0, 7, {1, 1, 1}, 0.1}, layout,
                                             {{"u", slab}}, MPI_COMM_WORLD);
  REQUIRE(kolmo::testing::cut_file(path, 0.5));
  const std::string message = error_message([&] { FieldReader(path, MPI_COMM_WORLD); });
  CHECK(every_rank_failed_with(message, {path.string(), "unable to open file", "truncated file"}));
  // What users read names no C++ (the call used to be quoted: "H5Fopen(path.c_str(), ...) failed at ...").
  const bool source_text =
      message.find("c_str") != std::string::npos || message.find(".cpp") != std::string::npos;
  CHECK(global_max(source_text ? 1 : 0) == 0);
}

TEST_CASE("reading checkpoints reports a missing file, another grid or a missing dataset", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto layout = world_layout();
  std::array<std::vector<Complex<double>>, 3> velocity;
  for (auto& c : velocity) c.assign(layout.spectral_size(), Complex<double>(1, 2));
  VelocityTargets<double> view{velocity[0], velocity[1], velocity[2]};

  CHECK(every_rank_failed_with(
      error_message([&] { choose_restart_checkpoint(directory.path(), {}, MPI_COMM_WORLD); }),
      {directory.path().string(), "no checkpoint"}));
  const auto missing = checkpoint_path(directory.path());
  CHECK(every_rank_failed_with(
      error_message([&] { read_checkpoint<double>(missing, layout, view, MPI_COMM_WORLD); }),
      {missing.string(), "does not exist"}));

  const auto path = write_checkpoint<double>(directory.path(), CheckpointInfo{}, layout,
                                             {velocity[0], velocity[1], velocity[2]}, MPI_COMM_WORLD);
  const auto other = world_layout({6, 6, 4});
  std::array<std::vector<Complex<double>>, 3> bigger;
  for (auto& c : bigger) c.assign(other.spectral_size(), Complex<double>(0, 0));
  CHECK(every_rank_failed_with(
      error_message([&] {
        read_checkpoint<double>(path, other, {bigger[0], bigger[1], bigger[2]}, MPI_COMM_WORLD);
      }),
      {path.string(), "grid 6 x 5 x 4", "6 x 6 x 4"}));

  // A field dump is not a checkpoint: the first missing attribute or dataset is named.
  std::vector<double> slab(layout.real_size(), 0.0);
  const auto fields =
      write_field_file<double>(directory.path(), FieldInfo{}, layout, {{"u_hat", slab}}, MPI_COMM_WORLD);
  CHECK(every_rank_failed_with(
      error_message([&] { read_checkpoint<double>(fields, layout, view, MPI_COMM_WORLD); }),
      {fields.string(), "'dt'"}));
}

TEST_CASE("prepare_output_directory creates the layout and refuses earlier output unless told", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto run = directory.path() / "run";

  (void)prepare_output_directory(run, false, MPI_COMM_WORLD);
  const auto paths = output_paths(run);
  CHECK(global_max(std::filesystem::is_directory(paths.fields) &&
                           std::filesystem::is_directory(paths.checkpoints)
                       ? 0
                       : 1) == 0);
  // An empty directory, or one with files of the user's own, is fine.
  touch(run / "notes.txt");
  touch(paths.config);
  (void)prepare_output_directory(run, false, MPI_COMM_WORLD);

  touch(paths.fields / "fields_000010.h5");
  touch(paths.series);
  CHECK(every_rank_failed_with(
      error_message([&] { (void)prepare_output_directory(run, false, MPI_COMM_WORLD); }),
      {run.string(), "already holds kolmo output", "fields/fields_000010.h5"}));
  CHECK(global_max(kolmo_output_files(run).size() == 2 ? 0 : 1) == 0);

  (void)prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD);
  CHECK(global_max(kolmo_output_files(run).size() == 2 ? 0 : 1) == 0);

  (void)prepare_output_directory(run, true, MPI_COMM_WORLD);
  CHECK(global_max(kolmo_output_files(run).empty() ? 0 : 1) == 0);
  CHECK(global_max(std::filesystem::exists(run / "notes.txt") && std::filesystem::exists(paths.config)
                       ? 0
                       : 1) == 0);

  // A run that writes no checkpoints (a Poisson run) gets no checkpoints/ folder.
  const auto poisson = directory.path() / "poisson";
  (void)prepare_output_directory(poisson, ExistingOutput::refuse, MPI_COMM_WORLD, Subfolders::fields);
  CHECK(global_max(std::filesystem::is_directory(output_paths(poisson).fields) &&
                           !std::filesystem::exists(output_paths(poisson).checkpoints)
                       ? 0
                       : 1) == 0);

  touch(directory.path() / "a_file");
  CHECK(every_rank_failed_with(error_message([&] {
                                 (void)prepare_output_directory(directory.path() / "a_file", false,
                                                                MPI_COMM_WORLD);
                               }),
                               {"a_file", "not a directory"}));
  // Every refusal ends with where the caller says the path came from (the run: output.directory's source),
  // as the configuration's refusals do; it had named neither the key nor its file.
  const std::string sources = " (output.directory from run.yaml:12)";
  const std::string refusal = error_message([&] {
    (void)prepare_output_directory(directory.path() / "a_file", ExistingOutput::refuse, MPI_COMM_WORLD,
                                   Subfolders::fields_and_checkpoints, sources);
  });
  CHECK(every_rank_failed_with(refusal, {"a_file exists and is not a directory" + sources}));
  touch(paths.series);
  const std::string earlier = error_message([&] {
    (void)prepare_output_directory(run, ExistingOutput::refuse, MPI_COMM_WORLD,
                                   Subfolders::fields_and_checkpoints, sources);
  });
  CHECK(every_rank_failed_with(earlier,
                               {"already holds kolmo output (series.h5)", "allow overwriting" + sources}));
}

// A folder of the output that takes no files is refused by the preparation, before anything is written, and
// kolmo check's look names it too.
TEST_CASE("an output folder that takes no files is refused before the run writes anything", "[io]") {
  for (const std::string name : {"fields", "checkpoints"}) {
    kolmo::testing::TemporaryDirectory directory;
    const auto run = directory.path() / "run";
    (void)prepare_output_directory(run, ExistingOutput::refuse, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);  // rank 0 has let the directory's lock go, which the look would see
    CHECK(global_max(output_directory_problem(run).empty() ? 0 : 1) == 0);
    make_unwritable(run / name);
    const std::string folder = (run / name).string();
    CHECK(every_rank_failed_with(
        error_message([&] { (void)prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD); }),
        {folder, "not writable"}));
    const std::string sources = " (output.directory from --set output.directory=run)";
    CHECK(every_rank_failed_with(error_message([&] {
                                   (void)prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD,
                                                                  Subfolders::fields_and_checkpoints,
                                                                  sources);
                                 }),
                                 {folder + " is not writable" + sources}));
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string problem = output_directory_problem(run);
    CHECK(global_max(problem.find(folder + " is not writable") == 0 ? 0 : 1) == 0);
    CHECK(global_max(kolmo_output_files(run).empty() ? 0 : 1) == 0);
    if (name == "checkpoints") {  // nothing to a run that writes none (a Poisson run), nor to its check
      (void)prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD, Subfolders::fields);
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK(global_max(output_directory_problem(run, Subfolders::fields).empty() ? 0 : 1) == 0);
    }
    if (kolmo::testing::world_rank() == 0 && ::geteuid() != 0)  // so that the temporary directory can go
      std::filesystem::permissions(run / name, std::filesystem::perms::owner_all);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// A path the system cannot follow (a loop of links) is named by kolmo check's look and by the preparation,
// as one line, not as the C++ library's filesystem_error.
TEST_CASE("an output directory behind a loop of links is refused, named", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto loop = directory.path() / "loop_a";
  if (kolmo::testing::world_rank() == 0) {
    std::filesystem::create_directory_symlink(directory.path() / "loop_b", loop);
    std::filesystem::create_directory_symlink(loop, directory.path() / "loop_b");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(global_max(output_directory_problem(loop).rfind(loop.string() + ": ", 0) == 0 ? 0 : 1) == 0);
  CHECK(every_rank_failed_with(
      error_message([&] { (void)prepare_output_directory(loop, ExistingOutput::refuse, MPI_COMM_WORLD); }),
      {"output directory " + loop.string() + ": "}));
}

TEST_CASE("a run's output directory is locked while it runs: a second run into it is refused", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto run = directory.path() / "run";
  {
    const DirectoryLock held = prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD);
    // Every rank is told, whatever the mode, and kolmo check's look sees it too.
    for (const ExistingOutput mode : {ExistingOutput::keep, ExistingOutput::replace, ExistingOutput::refuse})
      CHECK(every_rank_failed_with(
          error_message([&] { (void)prepare_output_directory(run, mode, MPI_COMM_WORLD); }),
          {run.string(), "is in use"}));
    CHECK(global_max(output_directory_problem(run).find("is in use") != std::string::npos ? 0 : 1) == 0);
  }
  // Released with its holder.
  const DirectoryLock again = prepare_output_directory(run, ExistingOutput::keep, MPI_COMM_WORLD);
  CHECK(global_max(kolmo::testing::world_rank() == 0 && !again ? 1 : 0) == 0);
}

TEST_CASE("series files report a column of the wrong shape", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const auto path = directory.path() / "series.h5";
  { SeriesFile(path, {"time", "step"}, Opening::create, MPI_COMM_WORLD); }
  touch(directory.path() / "broken.h5");
  CHECK(every_rank_failed_with(error_message([&] {
                                 SeriesFile(directory.path() / "broken.h5", {"time"}, Opening::resume,
                                            MPI_COMM_WORLD);
                               }),
                               {"broken.h5", "not an HDF5 file"}));
  CHECK(every_rank_failed_with(error_message([&] {
                                 SeriesFile(path, {"time", "bad name"}, Opening::resume, MPI_COMM_WORLD);
                               }),
                               {path.string(), "'bad name'"}));
}
