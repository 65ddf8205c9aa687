// Disk space reservations: a reservation allocates without changing the file, and what kolmo writes stays
// within what it reserved (beyond it a full disk could still meet HDF5's close; see io/DiskSpace.hpp).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "io/Checkpoint.hpp"
#include "io/DiskSpace.hpp"
#include "io/FieldFile.hpp"
#include "io/ParallelFile.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::global_max;

namespace {

std::uintmax_t allocated_bytes(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? std::uintmax_t(info.st_blocks) * 512 : 0;
}

// Chunks of a dataset, counted from its chunk shape by plain HDF5 (no kolmo code).
std::uintmax_t chunks_of(const std::filesystem::path& file, const char* name) {
  std::uintmax_t chunks = 0;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t dataset = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t creation = H5Dget_create_plist(dataset);
  hid_t space = H5Dget_space(dataset);
  hsize_t chunk[3] = {1, 1, 1}, dims[3] = {0, 0, 0};
  if (H5Pget_chunk(creation, 3, chunk) == 3 && H5Sget_simple_extent_dims(space, dims, nullptr) == 3) {
    chunks = 1;
    for (int d = 0; d < 3; ++d) chunks *= (dims[d] + chunk[d] - 1) / chunk[d];
  }
  H5Sclose(space);
  H5Pclose(creation);
  H5Dclose(dataset);
  H5Fclose(f);
  return chunks;
}

}  // namespace

TEST_CASE("a reservation allocates past the end without changing the file, and is given back", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  if (kolmo::testing::world_rank() != 0) return;  // local functions: one process is enough
  const auto path = directory.path() / "file";
  std::ofstream(path) << "twelve bytes";
  const std::uintmax_t bytes = std::uintmax_t(3) << 20;
  if (!reserve_space(path, file_size_or_zero(path), bytes)) {
    WARN("this file system cannot reserve space (no fallocate): nothing to check");
    return;
  }
  CHECK(file_size_or_zero(path) == 12);
  CHECK(allocated_bytes(path) >= bytes);
  std::ifstream in(path);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) ==
        "twelve bytes");
  release_unreserved_tail(path);
  CHECK(file_size_or_zero(path) == 12);
  CHECK(allocated_bytes(path) < bytes);
}

TEST_CASE("field files and checkpoints stay within the space reserved for them", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  // Many tiny chunks (64 planes of 4 values), few big ones, and odd shapes.
  for (const std::array<long, 3> grid : {std::array<long, 3>{64, 4, 2}, {12, 10, 9}, {8, 96, 94}}) {
    const fft::SlabLayout layout(grid, ranks, rank);
    std::vector<double> slab(layout.real_size(), 0.5);
    std::vector<NamedSlab<double>> fields{{"u", slab}, {"v", slab}, {"w", slab}};
    const auto dump = write_field_file<double>(directory.path(), FieldInfo{0, grid[1], {1, 1, 1}, 0.1},
                                               layout, fields, MPI_COMM_WORLD);
    std::vector<Complex<double>> spectral(layout.spectral_size(), Complex<double>(1, -1));
    const auto checkpoint =
        write_checkpoint<double>(directory.path() / std::to_string(grid[1]), CheckpointInfo{}, layout,
                                 {spectral, spectral, spectral}, MPI_COMM_WORLD);
    double outside = 0;
    if (rank == 0) {
      const std::uintmax_t values = std::uintmax_t(grid[0]) * grid[1] * grid[2];
      const std::uintmax_t modes = std::uintmax_t(grid[0]) * grid[1] * (grid[2] / 2 + 1);
      const std::uintmax_t dump_reserved =
          reserved_bytes(3 * values * sizeof(double), 3 * chunks_of(dump, "u"));
      const std::uintmax_t checkpoint_reserved =
          reserved_bytes(3 * modes * sizeof(Complex<double>), 3 * chunks_of(checkpoint, "u_hat"));
      INFO("grid " << grid[0] << " x " << grid[1] << " x " << grid[2] << ": dump " << file_size_or_zero(dump)
                   << " of " << dump_reserved << " bytes, checkpoint " << file_size_or_zero(checkpoint)
                   << " of " << checkpoint_reserved);
      CHECK(file_size_or_zero(dump) <= dump_reserved);
      CHECK(file_size_or_zero(checkpoint) <= checkpoint_reserved);
      outside =
          file_size_or_zero(dump) > dump_reserved || file_size_or_zero(checkpoint) > checkpoint_reserved;
    }
    CHECK(global_max(outside) == 0);
  }
}
