// Checkpoints: bit-exact round trip, re-reading under another decomposition, and the rename protocol that
// keeps a complete checkpoint through a kill at any moment.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/BuildIdentity.hpp"
#include "io/Checkpoint.hpp"
#include "io/Hdf5.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::error_message;
using kolmo::testing::every_rank_failed_with;
using kolmo::testing::global_max;
using kolmo::testing::spectral_value;

namespace {

const std::array<long, 3> kGrid{8, 10,
                                6};  // Nz/2 + 1 = 4 kz modes; 10 ky planes split unevenly on 3 and 4 ranks

template <class Real>
struct Velocity {
  std::array<std::vector<Complex<Real>>, 3> components;

  Velocity(const fft::SlabLayout& layout, long seed, std::size_t extra = 0) {
    for (int c = 0; c < 3; ++c) {
      auto& values = components[c];
      values.assign(layout.spectral_size() + extra, Complex<Real>(Real(-9), Real(-9)));
      for (long i = 0; i < layout.nx(); ++i)
        for (long j = 0; j < layout.y_count(); ++j)
          for (long k = 0; k < layout.nzc(); ++k) {
            const auto value = spectral_value(i, layout.y_offset() + j, k, c, seed);
            values[static_cast<std::size_t>((i * layout.y_count() + j) * layout.nzc() + k)] =
                Complex<Real>(static_cast<Real>(value.re), static_cast<Real>(value.im));
          }
    }
  }
  static Velocity empty(const fft::SlabLayout& layout) {
    Velocity v(layout, 0);
    for (auto& values : v.components)
      for (auto& value : values) value = Complex<Real>(std::numeric_limits<Real>::quiet_NaN(), Real(0));
    return v;
  }
  VelocityModes<Real> view() const { return {components[0], components[1], components[2]}; }
  VelocityTargets<Real> targets() { return {components[0], components[1], components[2]}; }
};

// Values of the slab that differ bit for bit from the test function with this seed.
template <class Real>
long mismatches(const fft::SlabLayout& layout, const Velocity<Real>& velocity, long seed) {
  const Velocity<Real> expected(layout, seed);
  long wrong = 0;
  for (int c = 0; c < 3; ++c)
    for (std::size_t m = 0; m < layout.spectral_size(); ++m)
      if (std::memcmp(&velocity.components[c][m], &expected.components[c][m], sizeof(Complex<Real>)) != 0)
        ++wrong;
  return wrong;
}

CheckpointInfo test_info(long step) {
  CheckpointInfo info;
  info.time = 0.01 * double(step);
  info.step = step;
  info.dt = 1.0 / 1024;
  info.box = {6.5, 6.25, 3.0};
  info.viscosity = 0.002;
  info.rng_state = 0xDEADBEEFCAFEF00DULL + std::uint64_t(step);
  return info;
}

// Two checkpoints in dir, one after the other: checkpoint.prev.h5 then holds step 100 (the field of seed 1),
// checkpoint.h5 step 200 (seed 2).
void write_two_checkpoints(const std::filesystem::path& dir, const fft::SlabLayout& layout) {
  write_checkpoint<double>(dir, test_info(100), layout, Velocity<double>(layout, 1).view(), MPI_COMM_WORLD);
  write_checkpoint<double>(dir, test_info(200), layout, Velocity<double>(layout, 2).view(), MPI_COMM_WORLD);
}

// A sub-communicator of the first `ranks` ranks (MPI_COMM_NULL elsewhere).
MPI_Comm first_ranks(int ranks) {
  MPI_Comm comm = MPI_COMM_NULL;
  const int rank = kolmo::testing::world_rank();
  MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &comm);
  return comm;
}

// Reads the checkpoint at path on comm and counts values differing from the function with seed.
template <class Real>
double read_and_count(const std::filesystem::path& path, MPI_Comm comm, long seed,
                      CheckpointInfo* info = nullptr, fft::SpectralSplit split = fft::SpectralSplit::even) {
  if (comm == MPI_COMM_NULL) return 0;
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const fft::SlabLayout layout(kGrid, ranks, rank, split);
  auto back = Velocity<Real>::empty(layout);
  const CheckpointInfo read = read_checkpoint<Real>(path, layout, back.targets(), comm);
  if (info != nullptr) *info = read;
  return double(mismatches(layout, back, seed));
}

}  // namespace

TEST_CASE("a checkpoint written with one spectral split reads back bit for bit with the other", "[io]") {
  // Checkpoints hold the global spectrum: the ky planes a rank holds (fft.spectral_split) only choose its
  // hyperslab. kGrid's 10 ky planes keep 7 (0-3, 7-9): the kept-row split differs from the even one on 2 to
  // 4 ranks.
  using Split = fft::SpectralSplit;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  for (Split written : {Split::even, Split::kept_rows}) {
    const Split read = written == Split::even ? Split::kept_rows : Split::even;
    INFO("written with " << fft::to_string(written) << ", read with " << fft::to_string(read));
    kolmo::testing::TemporaryDirectory directory;
    const fft::SlabLayout layout(kGrid, ranks, rank, written);
    const auto path = write_checkpoint<double>(directory.path(), test_info(7), layout,
                                               Velocity<double>(layout, 11).view(), MPI_COMM_WORLD);
    CHECK(global_max(read_and_count<double>(path, MPI_COMM_WORLD, 11, nullptr, read)) == 0);
    CHECK(global_max(read_and_count<float>(path, MPI_COMM_WORLD, 11, nullptr, read)) == 0);
  }
}

TEMPLATE_TEST_CASE("checkpoints round-trip bit for bit and re-read on other rank counts", "[io]", float,
                   double) {
  using Real = TestType;
  using Other = std::conditional_t<std::is_same_v<Real, float>, double, float>;
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const Velocity<Real> velocity(layout, 3, 5);  // buffers larger than the slab, as SlabFFT's are

  const auto path =
      write_checkpoint<Real>(directory.path(), test_info(400), layout, velocity.view(), MPI_COMM_WORLD);
  CHECK(path == directory.path() / "checkpoint.h5");

  CheckpointInfo info;
  CHECK(global_max(read_and_count<Real>(path, MPI_COMM_WORLD, 3, &info)) == 0);
  const CheckpointInfo expected = test_info(400);
  CHECK(info.time == expected.time);
  CHECK(info.step == 400);
  CHECK(info.dt == expected.dt);
  CHECK(info.box == expected.box);
  CHECK(info.viscosity == expected.viscosity);
  CHECK(info.rng_state == expected.rng_state);
  CHECK(info.grid == kGrid);
  CHECK(info.precision == precision_name<Real>());
  CHECK(info.code_version == build_identity());
  CHECK(info.code_version.rfind(KOLMO_VERSION, 0) == 0);  // the version first, then the commit
  CHECK(choose_restart_checkpoint(directory.path(), {}, MPI_COMM_WORLD).info.rng_state == expected.rng_state);

  // Fewer readers than writers: each reads a wider ky range of the global array.
  MPI_Comm fewer = first_ranks(std::max(1, ranks - 1));
  CHECK(global_max(read_and_count<Real>(path, fewer, 3)) == 0);
  // The other precision: the test values are exact in both.
  CHECK(global_max(read_and_count<Other>(path, fewer, 3)) == 0);

  // More readers than writers: written by the sub-communicator, read by all.
  double wrong = 0;
  const auto smaller_run = directory.path() / "smaller";
  if (fewer != MPI_COMM_NULL) {
    int sub_ranks = 1, sub_rank = 0;
    MPI_Comm_size(fewer, &sub_ranks);
    MPI_Comm_rank(fewer, &sub_rank);
    const fft::SlabLayout small(kGrid, sub_ranks, sub_rank);
    write_checkpoint<Real>(smaller_run, test_info(500), small, Velocity<Real>(small, 5).view(), fewer);
    MPI_Comm_free(&fewer);
  }
  wrong += read_and_count<Real>(checkpoint_path(smaller_run), MPI_COMM_WORLD, 5);
  CHECK(global_max(wrong) == 0);

  // An independent look: rank 0 reads u_hat whole with plain HDF5 as {r, i} doubles.
  wrong = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    const auto all = kolmo::testing::read_whole_complex(path, "u_hat", shape);
    if (shape != std::vector<hsize_t>{8, 10, 4}) wrong += 1;
    for (long i = 0; i < 8 && wrong == 0; ++i)
      for (long j = 0; j < 10; ++j)
        for (long k = 0; k < 4; ++k) {
          const auto value = all[static_cast<std::size_t>((i * 10 + j) * 4 + k)];
          const auto exact = spectral_value(i, j, k, 0, 3);
          if (value.re != double(Real(exact.re)) || value.im != double(Real(exact.im))) wrong += 1;
        }
  }
  CHECK(global_max(wrong) == 0);
}

TEST_CASE("a checkpoint keeps the configuration it was written with; one without it reads as before",
          "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();
  // Longer than HDF5's 64 KiB for an attribute kept in its object's header: a configuration of many scalars
  // must not fail the checkpoint.
  CheckpointInfo info = test_info(100);
  info.configuration = "physics: {viscosity: 0.002}\ntime: {dt: 0.001}\n";
  while (info.configuration.size() < 100000) info.configuration += "# a comment line of the configuration\n";
  const auto path =
      write_checkpoint<double>(dir, info, layout, Velocity<double>(layout, 1).view(), MPI_COMM_WORLD);
  CheckpointInfo read;
  CHECK(global_max(read_and_count<double>(path, MPI_COMM_WORLD, 1, &read)) == 0);
  CHECK(read.configuration == info.configuration);
  CHECK(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).info.configuration == info.configuration);
  // An attribute, not a dataset: the checkpoint's datasets are its fields alone (a restart refuses any
  // other).
  double others = 0;
  if (rank == 0) {
    const File file = open_serial(path);
    others = dataset_names(file.get()) == std::vector<std::string>{"u_hat", "v_hat", "w_hat"} ? 0 : 1;
  }
  CHECK(global_max(others) == 0);

  // As kolmo wrote checkpoints before it stored the configuration: written without one, and one whose
  // attribute is deleted. Both read and restart as before, with no configuration.
  write_checkpoint<double>(dir, test_info(200), layout, Velocity<double>(layout, 2).view(), MPI_COMM_WORLD);
  if (rank == 0) {
    const File file = open_serial(previous_checkpoint_path(dir), true);
    KOLMO_CHECK_HDF5(H5Adelete(file.get(), kConfigurationAttribute));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const auto& old : {checkpoint_path(dir), previous_checkpoint_path(dir)}) {
    INFO(old.string());
    read.configuration = "not read";
    CHECK(global_max(read_and_count<double>(old, MPI_COMM_WORLD, old == path ? 2 : 1, &read)) == 0);
    CHECK(read.configuration.empty());
    auto back = Velocity<double>::empty(layout);
    std::vector<SpectralTarget<double>> targets;
    for (int c = 0; c < 3; ++c) targets.push_back({kVelocityComponents[c], back.components[c]});
    const RestartCheckpoint chosen =
        choose_restart_checkpoint<double>(dir, old, layout, targets, MPI_COMM_WORLD);
    CHECK(chosen.read);
    CHECK(chosen.note.empty());
    CHECK(chosen.info.configuration.empty());
    CHECK(global_max(double(mismatches(layout, back, old == path ? 2 : 1))) == 0);
  }
  CHECK(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).path == checkpoint_path(dir));
}

TEST_CASE("a killed checkpoint writer leaves the last complete checkpoint readable", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();

  write_two_checkpoints(dir, layout);
  CheckpointInfo info;
  CHECK(global_max(read_and_count<double>(checkpoint_path(dir), MPI_COMM_WORLD, 2, &info)) == 0);
  CHECK(info.step == 200);
  CHECK(global_max(read_and_count<double>(previous_checkpoint_path(dir), MPI_COMM_WORLD, 1, &info)) == 0);
  CHECK(info.step == 100);

  // A writer killed while writing leaves a partial checkpoint.h5.tmp: half of a real checkpoint's bytes.
  if (rank == 0) {
    std::ifstream whole(checkpoint_path(dir), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
    std::ofstream partial(dir / "checkpoint.h5.tmp", std::ios::binary);
    partial.write(bytes.data(), std::streamsize(bytes.size() / 2));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).path == checkpoint_path(dir));
  CHECK(global_max(read_and_count<double>(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).path,
                                          MPI_COMM_WORLD, 2)) == 0);

  // Killed between the two renames: checkpoint.h5 already moved to checkpoint.prev.h5, the new one still
  // .tmp.
  if (rank == 0) std::filesystem::rename(checkpoint_path(dir), previous_checkpoint_path(dir));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).path == previous_checkpoint_path(dir));
  CHECK(global_max(read_and_count<double>(choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD).path,
                                          MPI_COMM_WORLD, 2, &info)) == 0);
  CHECK(info.step == 200);

  // The next write replaces the stale .tmp and leaves the newest earlier checkpoint as checkpoint.prev.h5.
  write_checkpoint<double>(dir, test_info(300), layout, Velocity<double>(layout, 4).view(), MPI_COMM_WORLD);
  CHECK(global_max(read_and_count<double>(checkpoint_path(dir), MPI_COMM_WORLD, 4, &info)) == 0);
  CHECK(info.step == 300);
  CHECK(global_max(read_and_count<double>(previous_checkpoint_path(dir), MPI_COMM_WORLD, 2, &info)) == 0);
  CHECK(info.step == 200);
  CHECK(global_max(std::filesystem::exists(dir / "checkpoint.h5.tmp") ? 1 : 0) == 0);
}

TEST_CASE("a flipped bit in a checkpoint's data fails its checksum on every rank; restarts fall back",
          "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();
  const auto newest = checkpoint_path(dir), previous = previous_checkpoint_path(dir);
  write_two_checkpoints(dir, layout);

  // The last ky plane's chunk: only the last rank reads it, so the others must learn of its failure.
  REQUIRE(kolmo::testing::flip_bit_in_chunk(newest, "v_hat", {0, hsize_t(kGrid[1] - 1), 0}));
  CHECK(every_rank_failed_with(error_message([&] { read_and_count<double>(newest, MPI_COMM_WORLD, 2); }),
                               {newest.string(), "'v_hat'", "Fletcher32 checksum"}));

  const RestartCheckpoint chosen = choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD);
  CHECK(chosen.path == previous);
  CHECK(chosen.info.step == 100);
  CHECK(every_rank_failed_with(chosen.note, {newest.string(), "'v_hat'", "Fletcher32", previous.string()}));
  CHECK(global_max(read_and_count<double>(chosen.path, MPI_COMM_WORLD, 1)) == 0);

  // A file named on the command line has no fallback.
  CHECK(every_rank_failed_with(error_message([&] { choose_restart_checkpoint(dir, newest, MPI_COMM_WORLD); }),
                               {newest.string(), "Fletcher32"}));

  // Both damaged: one line naming both, and why.
  REQUIRE(kolmo::testing::flip_bit_in_chunk(previous, "u_hat", {0, 0, 0}));
  CHECK(every_rank_failed_with(
      error_message([&] { choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD); }),
      {"no usable checkpoint", newest.string(), previous.string(), "'u_hat'", "'v_hat'"}));
}

namespace {

// In dir, checkpoint.prev.h5 (step 100, seed 1) and checkpoint.h5 (step 200, seed 2) whose u_hat at
// (kx, 0, 0) is zero, its bytes then set to all ones (kx row kx of the chunk of ky plane 0, which holds all
// of kGrid's kx rows): whether that was done.
bool write_newest_with_nan_past_checksum(const std::filesystem::path& dir, const fft::SlabLayout& layout,
                                         long kx) {
  write_checkpoint<double>(dir, test_info(100), layout, Velocity<double>(layout, 1).view(), MPI_COMM_WORLD);
  Velocity<double> with_zero(layout, 2);
  const long nzc = layout.nzc();
  if (layout.y_offset() == 0 && layout.y_count() > 0)
    with_zero.components[0][std::size_t(kx * layout.y_count() * nzc)] = Complex<double>(0.0, 0.0);
  write_checkpoint<double>(dir, test_info(200), layout, with_zero.view(), MPI_COMM_WORLD);
  return kolmo::testing::fill_with_ones_in_chunk(checkpoint_path(dir), "u_hat", {0, 0, 0},
                                                 kx * nzc * sizeof(Complex<double>), sizeof(Complex<double>));
}

}  // namespace

TEST_CASE("a checkpoint whose zero mode reads as NaN past its checksum is unusable; restarts fall back",
          "[io]") {
  // Fletcher-32 sums 16-bit words modulo 65535, so 0x0000 and 0xffff count alike: bytes of all ones over a
  // zero mode (the solver's checkpoints hold many, the modes the 2/3 rule drops) keep the chunk's checksum,
  // and the value reads as NaN. Found by the output audit: such a checkpoint.h5 stopped the restart ("1 value
  // is NaN or infinite") where a checksum failure falls back to checkpoint.prev.h5.
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();
  const auto newest = checkpoint_path(dir), previous = previous_checkpoint_path(dir);
  REQUIRE(write_newest_with_nan_past_checksum(dir, layout, 0));
  // Plain HDF5 reads it without a checksum error, as NaN: the damage the checksums miss.
  double unseen = 0;
  if (rank == 0) {
    std::vector<hsize_t> shape;
    const auto all = kolmo::testing::read_whole_complex(newest, "u_hat", shape);
    unseen = !all.empty() && std::isnan(all[0].re) && std::isnan(all[0].im) ? 1 : 0;
  }
  REQUIRE(global_max(unseen) == 1);

  auto back = Velocity<double>::empty(layout);
  std::vector<SpectralTarget<double>> targets;
  for (int c = 0; c < 3; ++c) targets.push_back({kVelocityComponents[std::size_t(c)], back.components[c]});
  const RestartCheckpoint chosen =
      choose_restart_checkpoint<double>(dir, {}, layout, targets, MPI_COMM_WORLD);
  CHECK(chosen.path == previous);
  CHECK(chosen.info.step == 100);
  CHECK(every_rank_failed_with(
      chosen.note, {newest.string(), "'u_hat'", "1 value is NaN or infinite", previous.string()}));
  if (!chosen.read) read_checkpoint<double>(chosen.path, layout, back.targets(), MPI_COMM_WORLD);
  CHECK(global_max(double(mismatches(layout, back, 1))) == 0);

  // A file named on the command line has no fallback: it is refused, named.
  CHECK(every_rank_failed_with(
      error_message([&] { choose_restart_checkpoint<double>(dir, newest, layout, targets, MPI_COMM_WORLD); }),
      {newest.string(), "'u_hat'", "NaN or infinite"}));
}

TEST_CASE("a truncated checkpoint or one with a damaged attribute falls back to the previous one", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  for (const char* damage : {"cut", "attribute"}) {
    const auto dir = directory.path() / damage;
    const auto newest = checkpoint_path(dir), previous = previous_checkpoint_path(dir);
    write_checkpoint<double>(dir, test_info(100), layout, Velocity<double>(layout, 1).view(), MPI_COMM_WORLD);
    CheckpointInfo info = test_info(200);
    info.viscosity = 0.0123456789;  // bytes found nowhere else in the file
    write_checkpoint<double>(dir, info, layout, Velocity<double>(layout, 2).view(), MPI_COMM_WORLD);
    // The attributes live in the root group's object header, which the HDF5 1.10 format checksums.
    if (std::string(damage) == "cut")
      REQUIRE(kolmo::testing::cut_file(newest, 0.6));
    else
      REQUIRE(kolmo::testing::flip_bit_in_value(newest, info.viscosity));
    const RestartCheckpoint chosen = choose_restart_checkpoint(dir, {}, MPI_COMM_WORLD);
    INFO(damage << ": " << chosen.note);
    CHECK(chosen.path == previous);
    CHECK(every_rank_failed_with(chosen.note, {newest.string(), previous.string()}));
    CHECK(global_max(read_and_count<double>(chosen.path, MPI_COMM_WORLD, 1)) == 0);
  }
}

namespace {

// The bytes this process has read through read() and pread() (/proc/self/io's rchar, from the kernel), or -1
// where that is not to be had.
double bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  double value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return -1;
}

// The bytes all ranks read while work ran.
template <class Work>
double bytes_read_by(Work work) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double before = bytes_read_so_far();
  work();
  const double after = bytes_read_so_far();
  return kolmo::testing::global_sum(before < 0 || after < 0 ? -1e30 : after - before);
}

// The datasets of a checkpoint of the velocity and a scalar "s".
template <class Real>
std::vector<SpectralDataset<Real>> velocity_and_scalar(const Velocity<Real>& velocity,
                                                       const Velocity<Real>& scalar) {
  std::vector<SpectralDataset<Real>> datasets;
  for (int c = 0; c < 3; ++c) datasets.push_back({kVelocityComponents[c], velocity.components[c]});
  datasets.push_back({checkpoint_dataset("s"), scalar.components[0]});
  return datasets;
}

// Each dataset's mean square as numpy would sum it from the file: every stored mode, the kz that stand for
// their conjugates twice (not kz = 0, nor the Nyquist kz).
template <class Real>
std::vector<double> mean_squares(const fft::SlabLayout& layout,
                                 const std::vector<SpectralDataset<Real>>& datasets) {
  std::vector<double> sums;
  for (const auto& dataset : datasets) {
    double sum = 0;
    for (long i = 0; i < layout.nx(); ++i)
      for (long j = 0; j < layout.y_count(); ++j)
        for (long k = 0; k < layout.nzc(); ++k) {
          const auto value = dataset.modes[std::size_t((i * layout.y_count() + j) * layout.nzc() + k)];
          const double re = double(value.re), im = double(value.im);
          sum += (k == 0 || 2 * k == layout.nz() ? 1.0 : 2.0) * (re * re + im * im);
        }
    sums.push_back(kolmo::testing::global_sum(sum));
  }
  return sums;
}

// A checkpoint of the velocity and a scalar "s" on `grid` (test values from `seed` on) written into
// `directory`: its path, its size in bytes, and its datasets' names and mean squares as numpy would sum them.
struct CheckpointOnDisk {
  std::filesystem::path path;
  double bytes = 0;
  std::vector<std::string> names;
  std::vector<double> mean_squares;
};
template <class Stored>
CheckpointOnDisk write_velocity_and_scalar(const std::filesystem::path& directory,
                                           const std::array<long, 3>& grid, int seed) {
  const fft::SlabLayout layout(grid, kolmo::testing::world_size(), kolmo::testing::world_rank());
  const Velocity<Stored> velocity(layout, seed), scalar(layout, seed + 1);
  const std::vector<SpectralDataset<Stored>> datasets = velocity_and_scalar(velocity, scalar);
  CheckpointOnDisk written;
  written.path = write_checkpoint<Stored>(directory, test_info(1), layout, datasets, MPI_COMM_WORLD);
  written.bytes = double(std::filesystem::file_size(written.path));
  for (const auto& dataset : datasets) written.names.push_back(dataset.name);
  written.mean_squares = mean_squares(layout, datasets);
  return written;
}

// The mean squares a restart's choosing pass kept: numpy's sums, and bit for bit those that
// read_checkpoint_resampled gave (resampled_sums), the same on every rank.
void check_stored_mean_squares(const RestartCheckpoint& chosen, const CheckpointOnDisk& written,
                               const std::vector<double>& resampled_sums) {
  REQUIRE(chosen.stored_mean_squares.size() == written.names.size());
  REQUIRE(resampled_sums.size() == written.names.size());
  for (std::size_t d = 0; d < written.names.size(); ++d) {
    INFO(written.names[d] << ": numpy's sum " << written.mean_squares[d]);
    const auto found = chosen.stored_mean_squares.find(written.names[d]);
    REQUIRE(found != chosen.stored_mean_squares.end());
    CHECK(std::fabs(found->second / written.mean_squares[d] - 1) < 1e-11);
    CHECK(found->second == resampled_sums[d]);
    CHECK(global_max(found->second) == -global_max(-found->second));
  }
}

// Whether two slabs hold the same values, bit for bit.
template <class Real>
bool same_values(const std::vector<Complex<Real>>& a, const std::vector<Complex<Real>>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(),
      [](const Complex<Real>& x, const Complex<Real>& y) { return x.re == y.re && x.im == y.im; });
}
template <class Real>
bool same_values(const Velocity<Real>& a, const Velocity<Real>& b) {
  for (int c = 0; c < 3; ++c)
    if (!same_values(a.components[c], b.components[c])) return false;
  return true;
}

template <class Real>
std::vector<SpectralTarget<Real>> targets_of(Velocity<Real>& velocity,
                                             std::vector<Complex<Real>>* scalar = nullptr) {
  std::vector<SpectralTarget<Real>> targets;
  for (int c = 0; c < 3; ++c) targets.push_back({kVelocityComponents[c], velocity.components[c]});
  if (scalar != nullptr) targets.push_back({checkpoint_dataset("s"), *scalar});
  return targets;
}

}  // namespace

TEMPLATE_TEST_CASE("a restart reads its checkpoint's fields in the pass that verifies it", "[io]", float,
                   double) {
  using Real = TestType;
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();
  write_two_checkpoints(dir, layout);

  // The fields of the newest, bit for bit (in either precision: the test values are exact in both).
  auto back = Velocity<Real>::empty(layout);
  RestartCheckpoint chosen =
      choose_restart_checkpoint<Real>(dir, {}, layout, targets_of(back), MPI_COMM_WORLD);
  CHECK(chosen.path == checkpoint_path(dir));
  CHECK(chosen.info.step == 200);
  CHECK(chosen.read);
  CHECK(global_max(double(mismatches(layout, back, 2))) == 0);

  // Fields the file lacks (a scalar) or holds beyond the targets: nothing is said to be read; the file is
  // still verified and chosen (the caller refuses it).
  std::vector<Complex<Real>> scalar(layout.spectral_size());
  back = Velocity<Real>::empty(layout);
  chosen = choose_restart_checkpoint<Real>(dir, {}, layout, targets_of(back, &scalar), MPI_COMM_WORLD);
  CHECK(chosen.path == checkpoint_path(dir));
  CHECK_FALSE(chosen.read);
  // Another grid, coarser or finer: the fields are read resampled, as read_checkpoint_resampled places them.
  for (const std::array<long, 3>& grid : {std::array<long, 3>{8, 10, 4}, std::array<long, 3>{8, 10, 8}}) {
    INFO("onto " << grid[0] << " x " << grid[1] << " x " << grid[2]);
    const fft::SlabLayout other(grid, ranks, rank);
    auto chosen_fields = Velocity<Real>::empty(other), resampled = Velocity<Real>::empty(other);
    chosen = choose_restart_checkpoint<Real>(dir, {}, other, targets_of(chosen_fields), MPI_COMM_WORLD);
    CHECK(chosen.info.grid == kGrid);
    CHECK(chosen.read);
    read_checkpoint_resampled<Real>(checkpoint_path(dir), other, targets_of(resampled), MPI_COMM_WORLD);
    CHECK(global_max(same_values(chosen_fields, resampled) ? 0.0 : 1.0) == 0);
  }
  const auto with_scalar = dir / "with_scalar";
  const Velocity<double> written(layout, 3);
  std::vector<SpectralDataset<double>> datasets;
  for (int c = 0; c < 3; ++c) datasets.push_back({kVelocityComponents[c], written.components[c]});
  datasets.push_back({checkpoint_dataset("s"), written.components[0]});
  write_checkpoint<double>(with_scalar, test_info(300), layout, datasets, MPI_COMM_WORLD);
  chosen = choose_restart_checkpoint<Real>(with_scalar, {}, layout, targets_of(back), MPI_COMM_WORLD);
  CHECK(chosen.info.step == 300);
  CHECK_FALSE(chosen.read);
  back = Velocity<Real>::empty(layout);
  chosen =
      choose_restart_checkpoint<Real>(with_scalar, {}, layout, targets_of(back, &scalar), MPI_COMM_WORLD);
  CHECK(chosen.read);
  CHECK(global_max(double(mismatches(layout, back, 3))) == 0);

  // A damaged newest checkpoint: the fields are the previous one's, whatever the failed pass left in them.
  REQUIRE(kolmo::testing::flip_bit_in_chunk(checkpoint_path(dir), "w_hat", {0, hsize_t(kGrid[1] - 1), 0}));
  back = Velocity<Real>::empty(layout);
  chosen = choose_restart_checkpoint<Real>(dir, {}, layout, targets_of(back), MPI_COMM_WORLD);
  CHECK(chosen.path == previous_checkpoint_path(dir));
  CHECK(chosen.read);
  CHECK(every_rank_failed_with(chosen.note, {checkpoint_path(dir).string(), "'w_hat'", "Fletcher32"}));
  CHECK(global_max(double(mismatches(layout, back, 1))) == 0);
}

TEST_CASE("a checkpoint whose dropped mode reads as NaN is unusable onto a coarser grid too", "[io]") {
  // The same damage as above in a mode a coarser grid drops (kx = 4 of 8, ky = kz = 0): the resampling never
  // places it, but the pass sums every mode, and the sum is NaN.
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const auto& dir = directory.path();
  const auto newest = checkpoint_path(dir), previous = previous_checkpoint_path(dir);
  REQUIRE(write_newest_with_nan_past_checksum(dir, layout, 4));

  const fft::SlabLayout coarse({4, 10, 6}, ranks, rank);
  auto back = Velocity<double>::empty(coarse);
  const RestartCheckpoint chosen =
      choose_restart_checkpoint<double>(dir, {}, coarse, targets_of(back), MPI_COMM_WORLD);
  CHECK(chosen.path == previous);
  CHECK(chosen.read);
  CHECK(every_rank_failed_with(
      chosen.note,
      {newest.string(), "'u_hat'", "NaN or infinite values where grid.n drops them", previous.string()}));
}

TEST_CASE("a restart reads its checkpoint's bytes once", "[io]") {
  // A grid whose fields outweigh the file's metadata: 64 x 48 x 17 complex doubles, 1.3 MiB a component.
  const std::array<long, 3> grid{64, 48, 32};
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(grid, ranks, rank);
  std::array<std::vector<Complex<double>>, 3> fields;
  for (auto& field : fields) field.assign(layout.spectral_size(), Complex<double>(0.5, -0.25));
  const auto path =
      write_checkpoint<double>(directory.path(), test_info(1), layout,
                               VelocityModes<double>{fields[0], fields[1], fields[2]}, MPI_COMM_WORLD);
  const double file = double(std::filesystem::file_size(path));
  std::vector<SpectralTarget<double>> targets;
  for (int c = 0; c < 3; ++c) targets.push_back({kVelocityComponents[c], fields[c]});

  bool read = false;
  const double once = bytes_read_by([&] {
    read = choose_restart_checkpoint<double>(directory.path(), {}, layout, targets, MPI_COMM_WORLD).read;
  });
  // What a restart did before: the verifying pass, then the read (the measure sees both).
  const double twice = bytes_read_by([&] {
    choose_restart_checkpoint(directory.path(), {}, MPI_COMM_WORLD);
    read_checkpoint<double>(path, layout, targets, MPI_COMM_WORLD);
  });
  INFO("file " << file << " bytes; read " << once << " in one pass, " << twice << " verifying, then reading");
  CHECK(read);
  CHECK(once >= file * 0.9);
  CHECK(once < file * 1.3);
  CHECK(twice > file * 1.8);
}

TEMPLATE_TEST_CASE(
    "a restart onto a coarser grid reads its checkpoint once, summing its mean squares as it "
    "resamples it",
    "[io]", float, double) {
  using Stored = TestType;
  // 23 ky planes, split unevenly on 2, 3 and 4 ranks; an even Nz (its Nyquist kz counts once, as kz = 0) and
  // an odd one (no Nyquist kz). The fields outweigh the file's metadata. The pass that verifies the file
  // resamples it and sums its mean squares over all its modes, those the coarse grid drops too; the code
  // before verified and summed it in one pass and resampled it in another (1.5 times the file).
  for (const std::array<long, 3>& grid :
       {std::array<long, 3>{256, 23, 32}, std::array<long, 3>{256, 23, 33}}) {
    INFO(grid[0] << " x " << grid[1] << " x " << grid[2] << " in " << precision_name<Stored>());
    kolmo::testing::TemporaryDirectory directory;
    const auto& dir = directory.path();
    const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
    const fft::SlabLayout layout(grid, ranks, rank);
    const CheckpointOnDisk written = write_velocity_and_scalar<Stored>(dir, grid, 5);

    const fft::SlabLayout coarse({16, 12, 8}, ranks, rank);
    auto back = Velocity<double>::empty(coarse), resampled = Velocity<double>::empty(coarse);
    std::vector<Complex<double>> back_scalar(coarse.spectral_size()),
        resampled_scalar(coarse.spectral_size());
    RestartCheckpoint chosen;
    const double one_pass = bytes_read_by([&] {
      chosen =
          choose_restart_checkpoint<double>(dir, {}, coarse, targets_of(back, &back_scalar), MPI_COMM_WORLD);
    });
    std::vector<double> summed;
    const double summing = bytes_read_by([&] {
      read_checkpoint_resampled<double>(written.path, coarse, targets_of(resampled, &resampled_scalar),
                                        MPI_COMM_WORLD, &summed);
    });
    const double placing = bytes_read_by([&] {
      read_checkpoint_resampled<double>(written.path, coarse, targets_of(resampled, &resampled_scalar),
                                        MPI_COMM_WORLD);
    });
    CHECK(chosen.read);
    CHECK(global_max(same_values(back, resampled) && same_values(back_scalar, resampled_scalar) ? 0.0
                                                                                                : 1.0) == 0);
    check_stored_mean_squares(chosen, written, summed);
    INFO("file " << written.bytes << " bytes; read " << one_pass << " choosing the file, " << summing
                 << " resampling and summing, " << placing << " resampling alone");
    CHECK(one_pass >= written.bytes * 0.9);
    CHECK(one_pass < written.bytes * 1.3);
    CHECK(summing < written.bytes * 1.3);
    // Without the sums the resampling reads the chunks (ky planes) that hold the 11 ky the coarse grid keeps
    // of 23, each once (0.48 times the file): the kx it keeps (|kx| <= 7 of 256) lie at both ends of one
    // chunk, read 8 times before 7d6b753 (3.8 times the file of doubles): in pieces of 2 kx rows, 4 at each
    // end.
    CHECK(placing < written.bytes * 0.6);

    // On the file's own grid the pass reads the fields instead, and sums nothing.
    auto same = Velocity<double>::empty(layout);
    std::vector<Complex<double>> same_scalar(layout.spectral_size());
    chosen =
        choose_restart_checkpoint<double>(dir, {}, layout, targets_of(same, &same_scalar), MPI_COMM_WORLD);
    CHECK(chosen.read);
    CHECK(chosen.stored_mean_squares.empty());
  }
}

TEMPLATE_TEST_CASE("a restart onto a grid no finer than its checkpoint's reads it as it resamples it", "[io]",
                   float, double) {
  using Stored = TestType;
  // A file of even lengths (its Nyquist modes split along x and y, halved along z) onto grids finer along
  // every axis; 24 ky planes onto 30, split unevenly on 4 ranks. The pass that verifies the file resamples it
  // and sums its mean squares: it reads what read_checkpoint_resampled alone reads, where the code before
  // verified the file first (one more read of it). Either reads each chunk (a ky plane, all 32 kx rows) once,
  // onto 256 kx planes and onto 64, where an eighth of the run's kx planes is 8 kx rows: the resampling's
  // pieces of that many rows read a chunk in each of 4 pieces before (4.1 times the file of doubles read as
  // doubles; a file of floats, converted, was read once: HDF5's chunk cache kept it).
  const std::array<long, 3> grid{32, 24, 32};
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const CheckpointOnDisk written = write_velocity_and_scalar<Stored>(directory.path(), grid, 9);

  for (const std::array<long, 3>& run : {std::array<long, 3>{256, 30, 40}, std::array<long, 3>{64, 30, 40}}) {
    INFO("onto " << run[0] << " x " << run[1] << " x " << run[2]);
    const fft::SlabLayout finer(run, ranks, rank);
    auto back = Velocity<double>::empty(finer), resampled = Velocity<double>::empty(finer);
    std::vector<Complex<double>> back_scalar(finer.spectral_size()), resampled_scalar(finer.spectral_size());
    RestartCheckpoint chosen;
    const double one_pass = bytes_read_by([&] {
      chosen = choose_restart_checkpoint<double>(written.path, written.path, finer,
                                                 targets_of(back, &back_scalar), MPI_COMM_WORLD);
    });
    std::vector<double> summed;
    const double resampling = bytes_read_by([&] {
      read_checkpoint_resampled<double>(written.path, finer, targets_of(resampled, &resampled_scalar),
                                        MPI_COMM_WORLD, &summed);
    });
    CHECK(chosen.read);
    CHECK(chosen.info.grid == grid);
    CHECK(global_max(same_values(back, resampled) && same_values(back_scalar, resampled_scalar) ? 0.0
                                                                                                : 1.0) == 0);
    check_stored_mean_squares(chosen, written, summed);
    INFO("file " << written.bytes << " bytes; read " << one_pass << " choosing the file, " << resampling
                 << " by read_checkpoint_resampled alone");
    CHECK(std::fabs(one_pass - resampling) < 0.2 * written.bytes);
    CHECK(one_pass < written.bytes * 1.3);
  }
}

TEMPLATE_TEST_CASE(
    "a file of a grid no finer than the run's is read once, its mean squares summed as it is read", "[io]",
    float, double) {
  using Stored = TestType;
  // Files of even lengths (Nyquist modes split in two along x and y, halved along z) and of odd ones (none),
  // read onto grids finer along every axis but one; 23 and 24 ky planes split unevenly. A piece of the read
  // (an eighth of the run's kx planes) holds all of the file's kx rows, and each chunk (a ky plane) is read
  // once, the Nyquist plane too (it was read once for each of its two places before). The code before that
  // read 2 times the file here: the mean squares took a pass of their own.
  const std::array<std::array<long, 3>, 2> files{std::array<long, 3>{32, 24, 32},
                                                 std::array<long, 3>{33, 23, 33}};
  const std::array<std::array<long, 3>, 2> runs{std::array<long, 3>{256, 30, 40},
                                                std::array<long, 3>{264, 23, 36}};
  for (std::size_t g = 0; g < files.size(); ++g) {
    const auto &grid = files[g], &run = runs[g];
    INFO(grid[0] << " x " << grid[1] << " x " << grid[2] << " in " << precision_name<Stored>() << " onto "
                 << run[0] << " x " << run[1] << " x " << run[2]);
    kolmo::testing::TemporaryDirectory directory;
    const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
    const CheckpointOnDisk written = write_velocity_and_scalar<Stored>(directory.path(), grid, 7);

    const fft::SlabLayout finer(run, ranks, rank);
    auto back = Velocity<double>::empty(finer);
    std::vector<Complex<double>> back_scalar(finer.spectral_size());
    std::vector<double> summed;
    const double read = bytes_read_by([&] {
      read_checkpoint_resampled<double>(written.path, finer, targets_of(back, &back_scalar), MPI_COMM_WORLD,
                                        &summed);
    });
    REQUIRE(summed.size() == written.names.size());
    for (std::size_t d = 0; d < written.names.size(); ++d) {
      INFO(written.names[d] << ": numpy's sum " << written.mean_squares[d] << ", read " << summed[d]);
      CHECK(std::fabs(summed[d] / written.mean_squares[d] - 1) < 1e-11);
      CHECK(global_max(summed[d]) == -global_max(-summed[d]));  // the same on every rank
    }
    INFO("file " << written.bytes << " bytes; read " << read);
    CHECK(read >= written.bytes * 0.9);
    CHECK(read < written.bytes * 1.3);
  }
}

namespace {

// The wavenumber index i holds on an axis of n points.
long wavenumber_of(long i, long n) {
  return i <= n / 2 ? i : i - n;
}

// Where io/Resampling.hpp's contract takes the run's wavenumber k on an axis from, file length f, run length
// r >= f: the file's index and its factor (1, or 1/2 for a half of the file's split Nyquist mode), or
// factor 0 (nothing). Along the half axis z (half) the Nyquist mode goes to +f/2 only, halved.
std::pair<long, double> source_of(long k, long f, long r, bool half) {
  if (2 * std::abs(k) <= f - 1 || r == f) return {k < 0 ? k + f : k, 1.0};
  if (f % 2 == 0 && r > f && std::abs(k) == f / 2 && !(half && k < 0)) return {f / 2, 0.5};
  return {0, 0.0};
}

}  // namespace

TEMPLATE_TEST_CASE(
    "a checkpoint whose ky planes take several chunks is read once onto a finer grid, each mode "
    "in its place",
    "[io]", float, double) {
  using Real = TestType;
  // A ky plane of 256 x 1025 modes takes 127 kx rows a chunk in single precision, 63 in double: the chunks
  // end elsewhere than the resampling's eighths of the run's 384 kx planes (48 rows), and a rank of 3 or 4
  // holds one or two ky planes of the run's 6. Each of the file's modes holds its own wavenumbers, so that
  // each of the run's shows where it came from; the file's Nyquist kx and ky modes are split in two.
  const std::array<long, 3> grid{256, 4, 2048}, run{384, 6, 2048};
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const auto mode = [](long kx, long ky, long kz) { return Complex<Real>(Real(4 * kx + ky), Real(kz)); };
  const fft::SlabLayout written(grid, ranks, rank);
  std::vector<Complex<Real>> modes(written.spectral_size());
  for (long i = 0; i < grid[0]; ++i)
    for (long j = 0; j < written.y_count(); ++j)
      for (long k = 0; k < written.nzc(); ++k)
        modes[std::size_t((i * written.y_count() + j) * written.nzc() + k)] =
            mode(wavenumber_of(i, grid[0]), wavenumber_of(written.y_offset() + j, grid[1]), k);
  const auto path =
      write_checkpoint<Real>(directory.path(), test_info(1), written, {{"u_hat", modes}}, MPI_COMM_WORLD);
  const double file = double(std::filesystem::file_size(path));

  const fft::SlabLayout layout(run, ranks, rank);
  std::vector<Complex<Real>> back(layout.spectral_size(), Complex<Real>(Real(-7), Real(3)));
  const double read = bytes_read_by([&] {
    read_checkpoint_resampled<Real>(path, layout, {{"u_hat", back}}, MPI_COMM_WORLD);
  });
  long misplaced = 0;
  for (long i = 0; i < run[0]; ++i)
    for (long j = 0; j < layout.y_count(); ++j)
      for (long k = 0; k < layout.nzc(); ++k) {
        const auto x = source_of(wavenumber_of(i, run[0]), grid[0], run[0], false),
                   y = source_of(wavenumber_of(layout.y_offset() + j, run[1]), grid[1], run[1], false),
                   z = source_of(k, grid[2], run[2], true);
        const double scale = x.second * y.second * z.second;
        const Complex<Real> from = mode(wavenumber_of(x.first, grid[0]), wavenumber_of(y.first, grid[1]),
                                        z.first),
                            value = back[std::size_t((i * layout.y_count() + j) * layout.nzc() + k)];
        // Every value and factor is exact in either precision.
        if (double(value.re) != scale * double(from.re) || double(value.im) != scale * double(from.im))
          ++misplaced;
      }
  INFO("file " << file << " bytes; read " << read);
  CHECK(global_max(double(misplaced)) == 0);
  CHECK(read >= file * 0.9);
  CHECK(read < file * 1.3);
}
