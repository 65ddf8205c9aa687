// Collective block transfers split into many MPI-IO calls land where a serial reader expects them.
#include <catch2/catch.hpp>

#include "fft/SlabLayout.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Hdf5.hpp"
#include "io/ParallelFile.hpp"
#include "io/SlabTransfer.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::global_max;

namespace {

// This rank's slab [x][y][z] of the test function.
std::vector<double> test_slab(const fft::SlabLayout& layout) {
  const auto n = layout.global();
  std::vector<double> slab(layout.real_size());
  for (long i = 0; i < layout.x_count(); ++i)
    for (long j = 0; j < n[1]; ++j)
      for (long k = 0; k < n[2]; ++k)
        slab[static_cast<std::size_t>((i * n[1] + j) * n[2] + k)] =
            kolmo::testing::real_value(layout.x_offset() + i, j, k, 0, n);
  return slab;
}

}  // namespace

TEST_CASE("block transfers split into small calls place every plane, chunked or not", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const std::array<long, 3> n{11, 6, 5};
  const fft::SlabLayout layout(n, kolmo::testing::world_size(), kolmo::testing::world_rank());
  const std::vector<double> slab = test_slab(layout);

  const auto path = directory.path() / "blocks.h5";
  const Block block{{hsize_t(layout.x_offset()), 0, 0},
                    {hsize_t(layout.x_count()), hsize_t(n[1]), hsize_t(n[2])}};
  const std::size_t plane_bytes = sizeof(double) * n[1] * n[2];
  // Contiguous, and in checksummed chunks of 3 planes shared by neighbouring ranks: one plane per call (less
  // than a chunk: calls split chunks), and 4 planes per call (rounded down to whole chunks).
  const bool chunked = GENERATE(false, true);
  const std::size_t limit = GENERATE_COPY(std::size_t(1), std::size_t(4)) * plane_bytes;
  {
    File file = create_parallel(path, MPI_COMM_WORLD);
    const hsize_t shape[3] = {hsize_t(n[0]), hsize_t(n[1]), hsize_t(n[2])};
    Dataspace space(H5Screate_simple(3, shape, nullptr));
    PropertyList creation = chunked ? checksummed_datasets({3, hsize_t(n[1]), hsize_t(n[2])})
                                    : PropertyList(H5Pcreate(H5P_DATASET_CREATE));
    Dataset dataset(H5Dcreate2(file.get(), "f", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, creation.get(),
                               H5P_DEFAULT));
    // Ranks with fewer planes join the last calls with empty selections.
    write_block(dataset.get(), H5T_NATIVE_DOUBLE, block, slab.data(), MPI_COMM_WORLD, limit);
    file.close();
  }

  double wrong = 0;
  if (kolmo::testing::world_rank() == 0) {
    std::vector<hsize_t> shape;
    const auto all = kolmo::testing::read_whole_dataset<double>(path, "f", shape, H5T_NATIVE_DOUBLE);
    wrong = shape == std::vector<hsize_t>{hsize_t(n[0]), hsize_t(n[1]), hsize_t(n[2])} ? 0 : 1;
    for (long x = 0; x < n[0] && wrong == 0; ++x)
      for (long y = 0; y < n[1]; ++y)
        for (long z = 0; z < n[2]; ++z)
          if (all[static_cast<std::size_t>((x * n[1] + y) * n[2] + z)] !=
              kolmo::testing::real_value(x, y, z, 0, n))
            ++wrong;
  }
  CHECK(global_max(wrong) == 0);

  // Read back two planes per call (and half a plane's limit, which still moves one plane per call).
  for (std::size_t read_limit : {2 * plane_bytes, plane_bytes / 2}) {
    std::vector<double> back(slab.size(), -1);
    {
      File file = open_parallel(path, MPI_COMM_WORLD);
      Dataset dataset = open_dataset(file.get(), "f");
      BlockReader(dataset.get(), MPI_COMM_WORLD).read(H5T_NATIVE_DOUBLE, block, back.data(), read_limit);
    }
    CHECK(global_max(back == slab ? 0 : 1) == 0);
    // Through a buffer of that limit: every plane handed on once, in order, no call more than the limit's
    // planes (one where a plane outweighs it).
    std::vector<double> through;
    hsize_t most = 0;
    {
      File file = open_parallel(path, MPI_COMM_WORLD);
      Dataset dataset = open_dataset(file.get(), "f");
      BlockReader(dataset.get(), MPI_COMM_WORLD)
          .read_through(H5T_NATIVE_DOUBLE, block, read_limit, [&](const void* planes, hsize_t count) {
            const auto* values = static_cast<const double*>(planes);
            through.insert(through.end(), values, values + count * n[1] * n[2]);
            most = std::max(most, count);
          });
    }
    CHECK(global_max(through == slab ? 0 : 1) == 0);
    CHECK(global_max(double(most)) == double(std::max<std::size_t>(1, read_limit / plane_bytes)));
  }
}

TEST_CASE("slabs stored x fastest in blocks of z planes land where a serial reader expects and read back",
          "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const std::array<long, 3> n{11, 6, 5};  // uneven slabs on 2 to 4 ranks
  const fft::SlabLayout layout(n, kolmo::testing::world_size(), kolmo::testing::world_rank());
  const std::vector<double> slab = test_slab(layout);
  // One z plane per block (the smallest budget), two planes (rank 0 holds the most; the last block is
  // shorter), all at once.
  const std::size_t two_planes = 2 * sizeof(double) * std::size_t(layout.x_count(0) * n[1]);
  const std::size_t budget = GENERATE_COPY(std::size_t(1), two_planes, kTransposeBytes);

  const auto path = directory.path() / "zyx.h5";
  {
    File file = create_parallel(path, MPI_COMM_WORLD);
    const auto shape = stored_shape(n, AxisOrder::zyx);
    Dataspace space(H5Screate_simple(3, shape.data(), nullptr));
    Dataset dataset(
        H5Dcreate2(file.get(), "f", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    write_slab(dataset.get(), AxisOrder::zyx, layout, slab.data(), MPI_COMM_WORLD, budget);
    file.close();
  }

  double wrong = 0;
  if (kolmo::testing::world_rank() == 0) {
    std::vector<hsize_t> shape;
    const auto all = kolmo::testing::read_whole_dataset<double>(path, "f", shape, H5T_NATIVE_DOUBLE);
    wrong = shape == std::vector<hsize_t>{hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])} ? 0 : 1;
    for (long z = 0; z < n[2] && wrong == 0; ++z)
      for (long y = 0; y < n[1]; ++y)
        for (long x = 0; x < n[0]; ++x)
          if (all[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)] !=
              kolmo::testing::real_value(x, y, z, 0, n))
            ++wrong;
  }
  CHECK(global_max(wrong) == 0);

  // Read back on every rank, bit for bit, through the same blocks.
  std::vector<double> back(layout.real_size(), -1.0);
  {
    File file = open_parallel(path, MPI_COMM_WORLD);
    Dataset dataset = open_dataset(file.get(), "f");
    read_slab(dataset.get(), AxisOrder::zyx, layout, back.data(), MPI_COMM_WORLD, budget);
  }
  CHECK(global_max(back == slab ? 0.0 : 1.0) == 0);
}

// Another tool's file may leave chunks (or a contiguous dataset's storage) unwritten: they read as the fill
// value, 0 here. HDF5 1.10 failed a collective read of them on the ranks whose selection held one, and the
// other ranks waited in the collective call (2 ranks hung); such datasets are read independently.
TEST_CASE("a dataset with unwritten chunks reads them as zeros on every rank", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const std::array<long, 3> n{11, 6, 5};
  const fft::SlabLayout layout(n, kolmo::testing::world_size(), kolmo::testing::world_rank());
  const auto path = directory.path() / "partly_written.h5";
  // Chunks of 3 x planes: [0, 3) [3, 6) [6, 9) [9, 11); only the second and the last are written.
  auto written = [](long x) { return (x >= 3 && x < 6) || x >= 9; };
  if (kolmo::testing::world_rank() == 0) {
    File file = create_serial(path);
    const hsize_t shape[3] = {hsize_t(n[0]), hsize_t(n[1]), hsize_t(n[2])};
    Dataspace space(H5Screate_simple(3, shape, nullptr));
    PropertyList creation(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t chunk[3] = {3, hsize_t(n[1]), hsize_t(n[2])};
    H5Pset_chunk(creation.get(), 3, chunk);
    H5Pset_fletcher32(creation.get());
    Dataset chunked(H5Dcreate2(file.get(), "f", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, creation.get(),
                               H5P_DEFAULT));
    Dataset contiguous(
        H5Dcreate2(file.get(), "g", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (long first : {3L, 9L}) {
      const long planes = std::min(3L, n[0] - first);
      std::vector<double> values;
      for (long x = first; x < first + planes; ++x)
        for (long y = 0; y < n[1]; ++y)
          for (long z = 0; z < n[2]; ++z) values.push_back(kolmo::testing::real_value(x, y, z, 0, n));
      const hsize_t start[3] = {hsize_t(first), 0, 0}, count[3] = {hsize_t(planes), chunk[1], chunk[2]};
      Dataspace file_space(H5Dget_space(chunked.get()));
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
      Dataspace memory_space(H5Screate_simple(3, count, nullptr));
      REQUIRE(H5Dwrite(chunked.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                       values.data()) >= 0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  const Block block{{hsize_t(layout.x_offset()), 0, 0},
                    {hsize_t(layout.x_count()), hsize_t(n[1]), hsize_t(n[2])}};
  std::vector<double> f(layout.real_size(), -1), g(layout.real_size(), -1), through;
  {
    File file = open_parallel(path, MPI_COMM_WORLD);
    Dataset chunked = open_dataset(file.get(), "f"), contiguous = open_dataset(file.get(), "g");
    // One plane per call, so that calls of some ranks touch only unwritten chunks, of others only written
    // ones.
    const BlockReader reader(chunked.get(), MPI_COMM_WORLD);
    reader.read(H5T_NATIVE_DOUBLE, block, f.data(), sizeof(double) * n[1] * n[2]);
    BlockReader(contiguous.get(), MPI_COMM_WORLD).read(H5T_NATIVE_DOUBLE, block, g.data());
    reader.read_through(H5T_NATIVE_DOUBLE, block, sizeof(double) * n[1] * n[2],
                        [&](const void* rows, hsize_t count) {
                          const double* values = static_cast<const double*>(rows);
                          through.insert(through.end(), values, values + count * n[1] * n[2]);
                        });
  }
  long wrong = 0;
  for (long i = 0; i < layout.x_count(); ++i)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z) {
        const long x = layout.x_offset() + i;
        const std::size_t at = static_cast<std::size_t>((i * n[1] + y) * n[2] + z);
        if (f[at] != (written(x) ? kolmo::testing::real_value(x, y, z, 0, n) : 0.0) || g[at] != 0.0) ++wrong;
      }
  CHECK(global_max(wrong + (through == f ? 0 : 1)) == 0);
}
