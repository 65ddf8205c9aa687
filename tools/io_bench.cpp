// Benchmark of what checksums cost when writing: the median time of kolmo's checkpoint write (Fletcher32
// chunks, HDF5 1.10 format) against the same velocity written contiguous without checksums (the layout
// before), and of kolmo's field dump (contiguous, no checksums) against the same fields in one-plane chunks
// with Fletcher32 (the alternative not taken), each pair timed in the same run, alternating, after a warm-up.
//
//   mpiexec -n 2 kolmo_io_bench --n 192 --directory /dev/shm --repeats 7
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Checkpoint.hpp"
#include "io/Collective.hpp"
#include "io/FieldFile.hpp"
#include "io/ParallelFile.hpp"
#include "tools/BenchSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;

using kolmo::tools::at_least_one;
using kolmo::tools::median;

namespace {

double seconds(const std::function<void()>& work) {
  KOLMO_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const double start = MPI_Wtime();
  work();
  KOLMO_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  return MPI_Wtime() - start;
}

// Three datasets of type in the given layout, each rank writing its block, through kolmo's collective
// transfers (the peers differ from kolmo's writers only in the dataset creation properties and format).
void write_peer(const std::filesystem::path& path, hid_t type, const std::vector<hsize_t>& shape,
                const Block& block, const void* data, const PropertyList& creation, FileFormat format) {
  File file = create_parallel(path, MPI_COMM_WORLD, format);
  Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(3, shape.data(), nullptr)));
  for (const char* name : {"a", "b", "c"}) {
    Dataset dataset(KOLMO_CHECK_HDF5(
        H5Dcreate2(file.get(), name, type, space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
    write_block(dataset.get(), type, block, data, MPI_COMM_WORLD);
  }
  file.close();
}

void report(const char* what, const char* kolmo, double kolmo_time, const char* peer, double peer_time) {
  std::printf("%-11s kolmo (%s) %.3f s, peer (%s) %.3f s, ratio kolmo/peer %.2f\n", what, kolmo, kolmo_time,
              peer, peer_time, kolmo_time / peer_time);
}

}  // namespace

int main(int argc, char** argv) {
  const MpiRuntime mpi(argc, argv);
  long n = 128;
  int repeats = 7;
  std::string directory = "/dev/shm";
  CLI::App app{"kolmo_io_bench: the cost of checksums in checkpoints and field dumps"};
  app.add_option("--n", n, "grid points per side");
  app.add_option("--directory", directory,
                 "where to write (tmpfs shows the CPU cost, a disk the whole cost)");
  app.add_option("--repeats", repeats, "timed writes of each kind (after one warm-up)")
      ->check(at_least_one<int>());
  CLI11_PARSE(app, argc, argv);
  std::filesystem::path where;  // the scratch directory, once rank 0 has made it
  try {
    const fft::SlabLayout layout({n, n, n}, mpi.size(), mpi.rank());
    long id = getpid();  // rank 0's, so that every rank names the same directory
    KOLMO_CHECK_MPI(MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    const std::filesystem::path scratch =
        std::filesystem::path(directory) / ("kolmo_io_bench_" + std::to_string(id));
    // Rank 0 makes the directory, and all stop together when it cannot (the others waiting for it in a
    // barrier would hang).
    io::on_root(MPI_COMM_WORLD, [&] {
      std::error_code error;
      std::filesystem::create_directories(scratch, error);
      if (error)
        throw Error("--directory " + directory + ": cannot create " + scratch.string() + ": " +
                    error.message());
    });
    where = scratch;

    std::vector<Complex<double>> spectral(layout.spectral_size());
    for (std::size_t i = 0; i < spectral.size(); ++i)
      spectral[i] = Complex<double>(1e-3 * double(i % 9973), -1.0);
    std::vector<double> real(layout.real_size());
    for (std::size_t i = 0; i < real.size(); ++i) real[i] = 1e-3 * double(i % 9973);

    Type complex(KOLMO_CHECK_HDF5(H5Tcreate(H5T_COMPOUND, sizeof(Complex<double>))));
    KOLMO_CHECK_HDF5(H5Tinsert(complex.get(), "r", 0, H5T_NATIVE_DOUBLE));
    KOLMO_CHECK_HDF5(H5Tinsert(complex.get(), "i", sizeof(double), H5T_NATIVE_DOUBLE));
    const std::vector<hsize_t> spectral_shape{hsize_t(n), hsize_t(n), hsize_t(n / 2 + 1)};
    const Block spectral_block{{0, hsize_t(layout.y_offset()), 0},
                               {hsize_t(n), hsize_t(layout.y_count()), hsize_t(n / 2 + 1)}};
    const std::vector<hsize_t> real_shape{hsize_t(n), hsize_t(n), hsize_t(n)};
    const Block real_block{{hsize_t(layout.x_offset()), 0, 0},
                           {hsize_t(layout.x_count()), hsize_t(n), hsize_t(n)}};

    std::vector<double> checkpoint, contiguous, dump, chunked;
    for (int r = -1; r < repeats; ++r) {
      const double times[4] = {
          seconds([&] {
            write_checkpoint<double>(where, CheckpointInfo{}, layout, {spectral, spectral, spectral},
                                     MPI_COMM_WORLD);
          }),
          seconds([&] {
            write_peer(where / "peer.h5", complex.get(), spectral_shape, spectral_block, spectral.data(),
                       unfilled_datasets(), FileFormat::compatible);
          }),
          seconds([&] {
            write_field_file<double>(where, FieldInfo{}, layout, {{"u", real}, {"v", real}, {"w", real}},
                                     MPI_COMM_WORLD);
          }),
          seconds([&] {
            write_peer(where / "peer.h5", H5T_NATIVE_DOUBLE, real_shape, real_block, real.data(),
                       checksummed_datasets({1, hsize_t(n), hsize_t(n)}), FileFormat::compatible);
          })};
      if (r < 0) continue;
      checkpoint.push_back(times[0]);
      contiguous.push_back(times[1]);
      dump.push_back(times[2]);
      chunked.push_back(times[3]);
    }
    if (mpi.rank() == 0) {
      std::printf("%ld^3 doubles on %d rank(s) in %s, medians of %d writes\n", n, mpi.size(),
                  directory.c_str(), repeats);
      report("checkpoint", "Fletcher32 chunks", median(checkpoint), "contiguous, no checksums",
             median(contiguous));
      report("field dump", "contiguous, no checksums", median(dump), "Fletcher32 plane chunks",
             median(chunked));
      std::filesystem::remove_all(where);
    }
  } catch (const std::exception& e) {
    if (mpi.rank() == 0) {
      std::fprintf(stderr, "kolmo_io_bench: %s\n", e.what());
      std::error_code ignored;  // what a failed write left (a tmpfs is memory)
      if (!where.empty()) std::filesystem::remove_all(where, ignored);
    }
    return 1;
  }
  return 0;
}
