#include "io/Checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/Error.hpp"
#include "io/BlockTransfer.hpp"
#include "io/Collective.hpp"
#include "io/Hdf5.hpp"
#include "io/ParallelFile.hpp"
#include "io/Resampling.hpp"
#include "io/RunIdentity.hpp"

namespace kolmo::io {

namespace {

// Complex<Real> as the HDF5 compound {r, i}, the layout h5py maps to numpy complex.
template <class Real>
Type complex_type() {
  Type type(KOLMO_CHECK_HDF5(H5Tcreate(H5T_COMPOUND, sizeof(Complex<Real>))));
  KOLMO_CHECK_HDF5(H5Tinsert(type.get(), "r", offsetof(Complex<Real>, re), native_type<Real>()));
  KOLMO_CHECK_HDF5(H5Tinsert(type.get(), "i", offsetof(Complex<Real>, im), native_type<Real>()));
  return type;
}

std::vector<hsize_t> spectral_shape(const std::array<long, 3>& grid) {
  return {hsize_t(grid[0]), hsize_t(grid[1]), hsize_t(grid[2] / 2 + 1)};
}

// The ky planes [y_offset, y_offset + y_count) of every kx and kz.
Block spectral_block(const std::array<long, 3>& grid, long y_offset, long y_count) {
  return Block{{0, hsize_t(y_offset), 0}, {hsize_t(grid[0]), hsize_t(y_count), hsize_t(grid[2] / 2 + 1)}};
}

Block spectral_block(const fft::SlabLayout& layout) {
  return spectral_block(layout.global(), layout.y_offset(), layout.y_count());
}

// Chunks of one ky plane (so any decomposition over ky writes and reads whole chunks) and as many kx as fill
// about kChunkBytes: big enough for few index entries, small enough that a transfer call split at chunk
// boundaries stays well under MPI-IO's 2 GiB.
constexpr std::size_t kChunkBytes = std::size_t(1) << 20;

template <class Real>
std::vector<hsize_t> spectral_chunk(const std::array<long, 3>& grid) {
  const hsize_t nzc = hsize_t(grid[2] / 2 + 1);
  const hsize_t kx = std::clamp<hsize_t>(kChunkBytes / (nzc * sizeof(Complex<Real>)), 1, hsize_t(grid[0]));
  return {kx, 1, nzc};
}

template <class Named>
void check_sizes(const fft::SlabLayout& layout, const std::vector<Named>& datasets) {
  for (std::size_t i = 0; i < datasets.size(); ++i) {
    const auto& d = datasets[i];
    KOLMO_REQUIRE(d.modes.size() >= layout.spectral_size(),
                  d.name + " has " + std::to_string(d.modes.size()) + " values, the spectral slab needs " +
                      std::to_string(layout.spectral_size()));
    for (std::size_t j = 0; j < i; ++j)
      KOLMO_REQUIRE(datasets[j].name != d.name, "two datasets are named " + d.name);
  }
}

// The layout and the datasets' sizes, checked on every rank before the file is touched; errors name path.
template <class Named>
void check_datasets(const std::filesystem::path& path, const fft::SlabLayout& layout,
                    const std::vector<Named>& datasets, MPI_Comm comm) {
  on_every_rank(comm, [&] {
    try {
      check_layout_matches(layout, comm);
      check_sizes(layout, datasets);
    } catch (const Error& error) {
      throw Error(path.string() + ": " + error.what());
    }
  });
}

template <class Named, class Span>
std::vector<Named> velocity_named(const std::array<Span, 3>& velocity) {
  std::vector<Named> named;
  for (int c = 0; c < 3; ++c) named.push_back({kVelocityComponents[c], velocity[c]});
  return named;
}

// A directory named where a checkpoint file belongs (--checkpoint runs/x/checkpoints, or the run's own
// directory): which file to give instead, the newest checkpoint in it or in its checkpoints/ folder, or the
// option that finds it.
std::string not_a_file(const std::filesystem::path& directory) {
  std::string text = "checkpoint " + directory.string() + " is a directory, not a checkpoint file: ";
  for (const auto& folder : {directory, directory / "checkpoints"})
    for (const auto& file : {checkpoint_path(folder), previous_checkpoint_path(folder)})
      if (std::filesystem::is_regular_file(file))
        return text + "give the newest checkpoint in it, " + file.string() +
               ", or --restart to continue the run of output.directory from its newest";
  return text + "it holds no checkpoint.h5: give a checkpoint file, or --restart to continue the run of " +
         "output.directory";
}

void check_exists(const std::filesystem::path& path, MPI_Comm comm) {
  on_root(comm, [&] {
    KOLMO_REQUIRE(!std::filesystem::is_directory(path), not_a_file(path));
    KOLMO_REQUIRE(std::filesystem::is_regular_file(path), "checkpoint " + path.string() + " does not exist");
    KOLMO_REQUIRE(H5Fis_hdf5(path.c_str()) > 0, "checkpoint " + path.string() + " is not an HDF5 file");
  });
}

bool exists_on_root(const std::filesystem::path& path, MPI_Comm comm) {
  int rank = 0, found = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) found = std::filesystem::is_regular_file(path) ? 1 : 0;
  KOLMO_CHECK_MPI(MPI_Bcast(&found, 1, MPI_INT, 0, comm));
  return found != 0;
}

CheckpointInfo read_info(hid_t file) {
  CheckpointInfo info;
  info.time = read_double_attribute(file, "time");
  info.step = read_int_attribute(file, "step");
  info.dt = read_double_attribute(file, "dt");
  info.grid = read_long3_attribute(file, "grid");
  info.box = read_double3_attribute(file, "box");
  info.viscosity = read_double_attribute(file, "viscosity");
  info.rng_state = read_uint_attribute(file, "rng_state");
  info.precision = read_string_attribute(file, "precision");
  info.code_version = read_string_attribute(file, "code_version");
  info.run = run_identity(file);
  info.configuration = has_attribute(file, kConfigurationAttribute)
                           ? read_string_attribute(file, kConfigurationAttribute)
                           : std::string();
  return info;
}

std::string grid_text(const std::array<long, 3>& grid) {
  return std::to_string(grid[0]) + " x " + std::to_string(grid[1]) + " x " + std::to_string(grid[2]);
}

// What the datasets must look like; the dataset's own type, so checking reads convert nothing. Local.
Type checked_spectral_dataset(hid_t dataset, const std::array<long, 3>& grid) {
  const std::vector<hsize_t> expected = spectral_shape(grid);
  const std::vector<hsize_t> shape = dataset_shape(dataset);
  KOLMO_REQUIRE(shape == expected, "shape " + shape_text(shape) + ", expected " + shape_text(expected));
  Type stored(KOLMO_CHECK_HDF5(H5Dget_type(dataset)));
  KOLMO_REQUIRE(KOLMO_CHECK_HDF5(H5Tget_class(stored.get())) == H5T_COMPOUND,
                "not a complex {r, i} compound");
  return stored;
}

// Opens a checkpoint, reads its attributes, checks that its grid is `grid` (or, with no grid given, takes
// the file's own) and its datasets' shapes, then calls transfer(dataset, its stored type, index, name, grid)
// for each of the named datasets (with no names given: the velocity's and every other dataset the file
// holds). Collective; errors throw kolmo::Error naming the file (and dataset) on every rank.
using Transfer = std::function<void(hid_t dataset, hid_t stored_type, std::size_t index,
                                    const std::string& name, const std::array<long, 3>& grid)>;

CheckpointInfo read_through(const std::filesystem::path& path, const std::optional<std::array<long, 3>>& grid,
                            const std::vector<std::string>& given_names, MPI_Comm comm,
                            const Transfer& transfer) {
  check_exists(path, comm);
  std::string dataset_name;
  try {
    File file = open_parallel(path, comm);
    CheckpointInfo info;
    on_every_rank(comm, [&] {
      info = read_info(file.get());
      KOLMO_REQUIRE(!grid || info.grid == *grid, "grid " + grid_text(info.grid) + " differs from the run's " +
                                                     grid_text(grid.value_or(info.grid)));
      KOLMO_REQUIRE(info.precision == "single" || info.precision == "double",
                    "precision '" + info.precision + "' is neither single nor double");
    });
    std::vector<std::string> names = given_names;
    if (names.empty()) {
      names.assign(kVelocityComponents.begin(), kVelocityComponents.end());
      on_every_rank(comm, [&] {
        for (const std::string& name : dataset_names(file.get()))
          if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      });
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      dataset_name = names[i];
      Dataset dataset;
      Type stored;
      on_every_rank(comm, [&] {
        dataset = open_dataset(file.get(), names[i]);
        stored = checked_spectral_dataset(dataset.get(), info.grid);
      });
      transfer(dataset.get(), stored.get(), i, names[i], info.grid);
    }
    return info;
  } catch (const Error& error) {
    throw Error(path.string() + (dataset_name.empty() ? "" : " dataset '" + dataset_name + "'") + ": " +
                error.what());
  }
}

// What the pass that verifies a checkpoint reads into the run's memory (choose_restart_checkpoint with
// targets): where the file's grid is `grid`, dataset names[i] through read(dataset, i); where it is another,
// through resample(dataset, file's grid, i), which reads every chunk and returns the dataset's mean square;
// collectively. The other datasets are only checked (and, on another grid, summed: stored_mean_square); with
// no names, all are.
struct RestartRead {
  std::array<long, 3> grid{};
  std::vector<std::string> names;
  std::function<void(hid_t dataset, std::size_t index)> read;
  std::function<double(hid_t dataset, const std::array<long, 3>& file, std::size_t index)> resample;
};

// What stored_mean_square below reads per call (the verifying pass where it only checks): 16 chunks of about
// 1 MiB. A whole ky plane of the file's grid, as one call read before, held two planes per rank that the
// memory estimate, which knows the run's grid only, does not count: a checkpoint of 4096 x 2 x 4096
// continued on 16 x 2 x 16 peaked at 292 MiB per rank, estimated 96 MiB (67 MiB so).
constexpr std::size_t kVerifyBytesPerCall = std::size_t(16) << 20;

// How often the half axis's mode kz of a grid of nz counts in a sum over all modes (Parseval): twice where
// it stands for its conjugate too, once for kz = 0 and the Nyquist kz.
double parseval_weight(long kz, long nz) {
  return kz == 0 || 2 * kz == nz ? 1.0 : 2.0;
}

// <|q|^2> of one dataset on its own grid, over all its modes (parseval_weight), read in Real and summed in
// double: every chunk read once (its checksums verified), one ky plane at a time (a chunk holds one ky plane)
// through a buffer of kVerifyBytesPerCall, each rank its even share of the planes (the first ranks hold the
// most, the others join their last calls with nothing); every rank gets the sum.
template <class Real>
double mean_square_in(hid_t dataset, const std::array<long, 3>& grid, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  const Type type = complex_type<Real>();
  const long nzc = grid[2] / 2 + 1;
  double sum = 0;
  const TakeRows add = [&](const void* rows, hsize_t count) {
    const auto* values = static_cast<const Complex<Real>*>(rows);
    for (long a = 0; a < long(count); ++a)
      for (long c = 0; c < nzc; ++c)
        sum += parseval_weight(c, grid[2]) * norm2_in_double(values[std::size_t(a * nzc + c)]);
  };
  const fft::Split ky{grid[1], ranks};
  const BlockReader reader(dataset, comm);
  for (long j = 0; j < ky.count(0); ++j) {
    const bool mine = j < ky.count(rank);
    const Block plane = spectral_block(grid, ky.offset(rank) + (mine ? j : 0), mine ? 1 : 0);
    reader.read_through(type.get(), plane, kVerifyBytesPerCall, add);
  }
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  return sum;
}

// mean_square_in the precision the dataset stores (stored: its type), so that reading converts nothing.
double stored_mean_square(hid_t dataset, hid_t stored, const std::array<long, 3>& grid, MPI_Comm comm) {
  return KOLMO_CHECK_HDF5(H5Tget_size(stored)) <= sizeof(Complex<float>)
             ? mean_square_in<float>(dataset, grid, comm)
             : mean_square_in<double>(dataset, grid, comm);
}

// One dataset of a file on the grid `file` placed onto the layout's grid (read_checkpoint_resampled) in
// `modes`, this rank's spectral slab, through `box` (the caller's, kept for the datasets that follow: sized
// once, not allocated and zeroed again for each; its errors name it, the caller's the file and dataset).
// square, where given: the file's mean square <|q|^2> over all its modes (parseval_weight), summed in double
// as they are read, the same on every rank; the read then takes every chunk of the file, those that hold no
// mode the layout takes shared evenly among the ranks, so that it verifies the file too. Collective.
template <class Real>
void resample_dataset(hid_t dataset, const std::array<long, 3>& file, const fft::SlabLayout& layout,
                      Complex<Real>* modes, std::vector<Complex<Real>>& box, MPI_Comm comm,
                      double* square_out) {
  const Type type = complex_type<Real>();
  const std::array<long, 3> run = layout.global();
  const long y_first = layout.y_offset(), y_end = y_first + layout.y_count(), nzc = layout.nzc();
  const bool summed = square_out != nullptr;
  double square = 0;
  std::fill(modes, modes + layout.spectral_size(), Complex<Real>{});
  // Each of the file's chunks (kx rows of one ky plane) is read once, by one read, whose values go to every
  // segment that takes them (a split Nyquist mode to both its places): a read is a piece of the file's kx
  // rows that ends on a chunk's end, times a group of this rank's file ky planes (those some y segment
  // carries into this rank's planes, and where summed its share of those none does), times the kz that some
  // segment takes (where summed, all). Its buffer holds kVerifyBytesPerCall, or one chunk's rows of one ky
  // plane where that is more (about 1 MiB, kolmo's chunks), but no more ky planes than the file has: within
  // the program's allowance of app/MemoryEstimate.hpp, which knows the run's grid only. It held an eighth of
  // this rank's slab where that was more, which the estimate did not count (a restart of 256^3 onto 384^3 on
  // one rank: 57 MB more, its peak 77 MiB higher, no faster: 8.3-8.8 s against 7.8-8.3). Pieces of an
  // eighth of the run's kx planes each, not ending on chunks, read a file of 32 x 24 x 32 doubles onto 64 x
  // 30 x 40 4.1 times (a ky plane's one chunk spans 4 pieces), one of 256 x 23 x 32 onto 16 x 12 x 8 3.8
  // times (8 pieces of its kx ends), the Nyquist ky plane once per y segment that takes it; and a file finer
  // along some axis was read once more for its sum.
  const std::vector<AxisSegment> xs = full_axis_segments(file[0], run[0]),
                                 ys = full_axis_segments(file[1], run[1]),
                                 zs = half_axis_segments(file[2], run[2]);
  const auto z_span = file_ranges(zs);  // one range: the kz segments start at 0 and follow one another
  const long z_first = summed ? 0 : z_span.front()[0],
             z_width = summed ? file[2] / 2 + 1 : z_span.back()[1] - z_first;
  std::vector<AxisSegment> mine;  // the y segments' parts that land in this rank's planes
  for (const AxisSegment& y : ys) {
    const long first = std::max(y.run, y_first), end = std::min(y.run + y.count, y_end);
    if (first < end) mine.push_back({y.file + first - y.run, first, end - first, y.scale});
  }
  // The file's ky planes this rank reads, each with its weight in the sum: those it places, weighted by the
  // scales of its segments that take them (a split Nyquist plane's halves may lie on two ranks), and where
  // summed its even share of those no segment takes, weighted 1.
  std::vector<double> weight(std::size_t(file[1]), 0.0);
  for (const AxisSegment& y : mine)
    for (long j = y.file; j < y.file + y.count; ++j) weight[std::size_t(j)] += y.scale;
  if (summed) {
    std::vector<long> untaken;
    std::vector<bool> taken(std::size_t(file[1]), false);
    for (const auto& range : file_ranges(ys))
      for (long j = range[0]; j < range[1]; ++j) taken[std::size_t(j)] = true;
    for (long j = 0; j < file[1]; ++j)
      if (!taken[std::size_t(j)]) untaken.push_back(j);
    int ranks = 1, rank = 0;
    KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
    KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    const fft::Split share{long(untaken.size()), ranks};
    for (long u = share.offset(rank); u < share.offset(rank) + share.count(rank); ++u)
      weight[std::size_t(untaken[std::size_t(u)])] = 1.0;
  }
  const BlockReader reader(dataset, comm);
  const long chunk = long(reader.chunk_rows());
  const long budget = std::max(chunk * z_width, long(kVerifyBytesPerCall / sizeof(Complex<Real>)));
  // The kx rows of a read: the same on every rank (the file and the grids set them), so that every rank
  // makes as many reads of a group (a budget of this rank's slab took an agreement among ranks, without
  // which unequal slabs made unequal numbers of collective reads: a hang).
  const long rows =
      std::min(std::max(chunk, budget / z_width / chunk * chunk), (file[0] + chunk - 1) / chunk * chunk);
  const long group = std::min(file[1], std::max(1L, budget / (rows * z_width)));
  // The reads of ky planes: groups of at most `group` consecutive planes, as many on every rank (each read is
  // collective); a rank with fewer reads nothing in the rest.
  std::vector<std::array<long, 2>> groups;
  for (long j = 0; j < file[1];) {
    if (weight[std::size_t(j)] == 0) {
      ++j;
      continue;
    }
    const long first = j;
    while (j < file[1] && weight[std::size_t(j)] != 0 && j - first < group) ++j;
    groups.push_back({first, j});
  }
  long reads = long(groups.size());
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &reads, 1, MPI_LONG, MPI_MAX, comm));
  groups.resize(std::size_t(reads), {0, 0});
  resize_on_every_rank(
      comm, box, std::size_t(std::min(rows, file[0]) * group * z_width),
      summed ? "the buffer that verifies and resamples its chunks" : "the buffer that resamples its chunks");
  // The kx ranges read: where summed, all; else the file's that some segment takes (two on a file finer
  // along x), joined where the rows dropped between them begin and end in one chunk, which is then read
  // once, not once for each.
  std::vector<std::array<long, 2>> x_ranges;
  for (const auto& range : summed ? std::vector<std::array<long, 2>>{{0, file[0]}} : file_ranges(xs))
    if (!x_ranges.empty() && x_ranges.back()[1] / chunk == range[0] / chunk)
      x_ranges.back()[1] = range[1];
    else
      x_ranges.push_back(range);
  for (const auto& planes : groups)
    for (const auto& range : x_ranges)
      for (long f0 = range[0], f1 = 0; f0 < range[1]; f0 = f1) {
        f1 = std::min(range[1], f0 / chunk * chunk + rows);  // ends where a chunk does, or where the range
        const long count = planes[1] - planes[0];
        const Block block = count == 0 ? Block{{0, 0, 0}, {0, 0, 0}}
                                       : Block{{hsize_t(f0), hsize_t(planes[0]), hsize_t(z_first)},
                                               {hsize_t(f1 - f0), hsize_t(count), hsize_t(z_width)}};
        reader.read(type.get(), block, box.data());
        for (long f = f0; summed && f < f1; ++f)
          for (long j = planes[0]; j < planes[1]; ++j)
            for (long c = 0; c < z_width; ++c)
              square += weight[std::size_t(j)] * parseval_weight(c, file[2]) *
                        norm2_in_double(box[std::size_t(((f - f0) * count + j - planes[0]) * z_width + c)]);
        for (const AxisSegment& x : xs)
          for (long f = std::max(f0, x.file); count > 0 && f < std::min(f1, x.file + x.count); ++f)
            for (long j = planes[0]; j < planes[1]; ++j)
              for (const AxisSegment& y : mine) {
                if (j < y.file || j >= y.file + y.count) continue;
                for (const AxisSegment& z : zs) {
                  const Real scale = Real(x.scale * y.scale * z.scale);
                  const long from = ((f - f0) * count + j - planes[0]) * z_width + z.file - z_first,
                             to = ((x.run + f - x.file) * layout.y_count() + y.run + j - y.file - y_first) *
                                      nzc +
                                  z.run;
                  for (long c = 0; c < z.count; ++c) {
                    const Complex<Real> value = box[std::size_t(from + c)];
                    modes[std::size_t(to + c)] = {value.re * scale, value.im * scale};
                  }
                }
              }
      }
  if (summed) {
    KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &square, 1, MPI_DOUBLE, MPI_SUM, comm));
    *square_out = square;
  }
}

// Why path cannot be restarted from ("" if it can): read_through on the file's own grid and every dataset
// (the velocity's and the scalars'), reading every chunk once (its checksums verified): into the run's
// memory where `into` takes the dataset (resampled where the file's grid is not into's), else through
// stored_mean_square's buffer; where the file's grid is not into's, each dataset's mean square is kept in
// found.stored_mean_squares. found.read: every dataset went into `into`, and it took all it names.
std::string why_unusable(const std::filesystem::path& path, MPI_Comm comm, const RestartRead& into,
                         RestartCheckpoint& found) {
  found.read = false;
  found.stored_mean_squares.clear();
  try {
    std::size_t taken = 0;
    bool only_checked = false;
    found.info = read_through(path, std::nullopt, {}, comm,
                              [&](hid_t dataset, hid_t stored, std::size_t, const std::string& name,
                                  const std::array<long, 3>& grid) {
                                const auto target = std::find(into.names.begin(), into.names.end(), name);
                                const auto index = std::size_t(target - into.names.begin());
                                // A file's dataset names differ, and so do the targets': each is taken once.
                                if (target != into.names.end() && grid == into.grid) {
                                  into.read(dataset, index);
                                  ++taken;
                                  return;
                                }
                                if (target != into.names.end() && into.resample) {
                                  found.stored_mean_squares[name] = into.resample(dataset, grid, index);
                                  ++taken;
                                  return;
                                }
                                only_checked = true;
                                const double square = stored_mean_square(dataset, stored, grid, comm);
                                if (grid != into.grid) found.stored_mean_squares[name] = square;
                              });
    // A file some writer left open (HDF5's consistency flags set, as a process killed while it held the file
    // open for writing leaves it) opens through MPI-IO but not serially, as the restart's own look at its
    // datasets opens it: such a file is not used, and the previous checkpoint is.
    on_root(comm, [&] {
      try {
        (void)open_serial(path);
      } catch (const Error& error) {
        throw Error(path.string() + ": " + error.what());
      }
    });
    found.read = !only_checked && taken == into.names.size();
    return {};
  } catch (const Error& error) {
    return error.what();
  }
}

}  // namespace

std::filesystem::path checkpoint_path(const std::filesystem::path& directory) {
  return directory / "checkpoint.h5";
}

std::filesystem::path previous_checkpoint_path(const std::filesystem::path& directory) {
  return directory / "checkpoint.prev.h5";
}

namespace {

// A field dump given where a checkpoint belongs: what it is, and where it serves, instead of the first
// checkpoint attribute it lacks ("missing attribute 'dt'"). A file that does not open is left to
// why_unusable's words.
void refuse_field_file(const std::filesystem::path& path, MPI_Comm comm) {
  on_root(comm, [&] {
    bool field_file = false;
    try {
      const File file = open_serial(path);
      field_file = has_link(file.get(), "u") && !has_link(file.get(), kVelocityComponents[0]);
    } catch (const Error&) {
    }
    KOLMO_REQUIRE(!field_file,
                  path.string() +
                      " is a field file (u, v, w), not a checkpoint (u_hat, v_hat, w_hat): a new "
                      "run starts from it with initial.file");
  });
}

RestartCheckpoint choose(const std::filesystem::path& directory, const std::filesystem::path& explicit_file,
                         const RestartRead& into, MPI_Comm comm) {
  RestartCheckpoint chosen;
  if (!explicit_file.empty()) {
    refuse_field_file(explicit_file, comm);
    const std::string problem = why_unusable(explicit_file, comm, into, chosen);
    KOLMO_REQUIRE(problem.empty(), problem);
    chosen.path = explicit_file;
    return chosen;
  }
  const std::filesystem::path newest = checkpoint_path(directory),
                              previous = previous_checkpoint_path(directory);
  const bool have_newest = exists_on_root(newest, comm), have_previous = exists_on_root(previous, comm);
  KOLMO_REQUIRE(have_newest || have_previous,
                "no checkpoint in " + directory.string() +
                    " (neither checkpoint.h5 nor checkpoint.prev.h5; a run writes them only where "
                    "output.checkpoint_every or output.checkpoint_wall_minutes is set)");
  std::string newest_problem = newest.string() + ": missing";
  if (have_newest) {
    newest_problem = why_unusable(newest, comm, into, chosen);
    if (newest_problem.empty()) {
      chosen.path = newest;
      return chosen;
    }
  }
  std::string previous_problem = previous.string() + ": missing";
  if (have_previous) {
    previous_problem = why_unusable(previous, comm, into, chosen);
    if (previous_problem.empty()) {
      chosen.path = previous;
      chosen.note = "cannot restart from " + newest_problem + "; restarting from the previous checkpoint, " +
                    previous.string() + " (step " + std::to_string(chosen.info.step) + ")";
      return chosen;
    }
  }
  throw Error("no usable checkpoint: " + newest_problem + "; " + previous_problem);
}

}  // namespace

RestartCheckpoint choose_restart_checkpoint(const std::filesystem::path& directory,
                                            const std::filesystem::path& explicit_file, MPI_Comm comm) {
  return choose(directory, explicit_file, RestartRead{}, comm);
}

template <class Real>
RestartCheckpoint choose_restart_checkpoint(const std::filesystem::path& directory,
                                            const std::filesystem::path& explicit_file,
                                            const fft::SlabLayout& layout,
                                            const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm) {
  check_datasets(explicit_file.empty() ? checkpoint_path(directory) : explicit_file, layout, targets, comm);
  RestartRead into;
  into.grid = layout.global();
  for (const auto& target : targets) into.names.push_back(target.name);
  const Type type = complex_type<Real>();
  // Damage the checksums cannot see reads as values no run writes: Fletcher-32 sums 16-bit words modulo
  // 65535, so a zero word turned to 0xffff (bytes of all ones over the zero modes the 2/3 rule leaves) keeps
  // its chunk's checksum, and the value reads as NaN. Such a file is unusable like one that fails its
  // checksum, so that a restart falls back to the previous checkpoint.
  auto require_finite = [&](std::size_t i) {
    const long long total =
        count_non_finite<Complex<Real>>(targets[i].modes.first(layout.spectral_size()), comm);
    KOLMO_REQUIRE(total == 0, std::to_string(total) + (total == 1 ? " value is" : " values are") +
                                  " NaN or infinite (damage its checksums do not detect)");
  };
  into.read = [&](hid_t dataset, std::size_t i) {
    BlockReader(dataset, comm).read(type.get(), spectral_block(layout), targets[i].modes.data());
    require_finite(i);
  };
  // Onto another grid the resampling reads every chunk, and sums the mean square as it goes: a restart onto
  // any grid reads the file in one pass. A value that is not finite in a mode the run drops makes the sum so.
  std::vector<Complex<Real>> box;
  into.resample = [&](hid_t dataset, const std::array<long, 3>& file, std::size_t i) {
    double square = 0;
    resample_dataset<Real>(dataset, file, layout, targets[i].modes.data(), box, comm, &square);
    require_finite(i);
    KOLMO_REQUIRE(std::isfinite(square),
                  "its modes hold NaN or infinite values where grid.n drops them "
                  "(damage its checksums do not detect)");
    return square;
  };
  return choose(directory, explicit_file, into, comm);
}

template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout,
                                       const std::vector<SpectralDataset<Real>>& datasets, MPI_Comm comm) {
  const std::filesystem::path path = checkpoint_path(directory);
  check_datasets(path, layout, datasets, comm);
  on_root(comm, [&] { std::filesystem::create_directories(directory); });

  const std::vector<hsize_t> shape = spectral_shape(layout.global());
  const std::vector<hsize_t> chunk = spectral_chunk<Real>(layout.global());
  const std::uintmax_t chunks_per_dataset =
      ((shape[0] + chunk[0] - 1) / chunk[0]) * ((shape[1] + chunk[1] - 1) / chunk[1]);
  const std::uintmax_t count = datasets.size();
  // The configuration's text is counted with the values: the room kept for HDF5's metadata is not meant
  // for a configuration of many scalars.
  const FileContent content{
      count * shape[0] * shape[1] * shape[2] * sizeof(Complex<Real>) + info.configuration.size(),
      count * chunks_per_dataset, FileFormat::checksummed};
  write_parallel_file(path, comm, content, [&](File& file, std::string& dataset_name) {
    write_attribute(file.get(), "time", info.time);
    write_attribute(file.get(), "step", std::int64_t{info.step});
    write_attribute(file.get(), "dt", info.dt);
    write_attribute(file.get(), "grid", layout.global());
    write_attribute(file.get(), "box", info.box);
    write_attribute(file.get(), "viscosity", info.viscosity);
    write_attribute(file.get(), "rng_state", std::uint64_t{info.rng_state});
    write_attribute(file.get(), "precision", std::string(precision_name<Real>()));
    write_attribute(file.get(), "code_version", code_version());
    if (!info.run.empty()) write_run_identity(file.get(), info.run);
    if (!info.configuration.empty()) write_attribute(file.get(), kConfigurationAttribute, info.configuration);

    Dataspace space(KOLMO_CHECK_HDF5(H5Screate_simple(3, shape.data(), nullptr)));
    PropertyList creation = checksummed_datasets(chunk);
    Type type = complex_type<Real>();
    for (const auto& d : datasets) {
      dataset_name = d.name;
      Dataset dataset(KOLMO_CHECK_HDF5(H5Dcreate2(file.get(), d.name.c_str(), type.get(), space.get(),
                                                  H5P_DEFAULT, creation.get(), H5P_DEFAULT)));
      write_block(dataset.get(), type.get(), spectral_block(layout), d.modes.data(), comm);
    }
  });
  on_root(comm, [&] {
    if (std::filesystem::exists(path)) rename_or_throw(path, previous_checkpoint_path(directory));
    rename_or_throw(temporary_path(path), path);
  });
  return path;
}

template <class Real>
std::filesystem::path write_checkpoint(const std::filesystem::path& directory, const CheckpointInfo& info,
                                       const fft::SlabLayout& layout, const VelocityModes<Real>& velocity,
                                       MPI_Comm comm) {
  return write_checkpoint<Real>(directory, info, layout, velocity_named<SpectralDataset<Real>>(velocity),
                                comm);
}

template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm) {
  check_datasets(path, layout, targets, comm);
  std::vector<std::string> names;
  for (const auto& target : targets) names.push_back(target.name);
  Type type = complex_type<Real>();
  return read_through(
      path, layout.global(), names, comm,
      [&](hid_t dataset, hid_t, std::size_t i, const std::string&, const std::array<long, 3>&) {
        BlockReader(dataset, comm).read(type.get(), spectral_block(layout), targets[i].modes.data());
      });
}

template <class Real>
CheckpointInfo read_checkpoint_resampled(const std::filesystem::path& path, const fft::SlabLayout& layout,
                                         const std::vector<SpectralTarget<Real>>& targets, MPI_Comm comm,
                                         std::vector<double>* stored_mean_squares) {
  check_datasets(path, layout, targets, comm);
  if (stored_mean_squares != nullptr) stored_mean_squares->clear();
  std::vector<std::string> names;
  for (const auto& target : targets) names.push_back(target.name);
  Type type = complex_type<Real>();
  std::vector<Complex<Real>> box;
  return read_through(
      path, std::nullopt, names, comm,
      [&](hid_t dataset, hid_t, std::size_t i, const std::string&, const std::array<long, 3>& file) {
        Complex<Real>* modes = targets[i].modes.data();
        if (file == layout.global()) {
          BlockReader(dataset, comm).read(type.get(), spectral_block(layout), modes);
          return;
        }
        if (stored_mean_squares != nullptr) stored_mean_squares->resize(targets.size());
        resample_dataset<Real>(dataset, file, layout, modes, box, comm,
                               stored_mean_squares ? &(*stored_mean_squares)[i] : nullptr);
      });
}

template <class Real>
CheckpointInfo read_checkpoint(const std::filesystem::path& path, const fft::SlabLayout& layout,
                               const VelocityTargets<Real>& velocity, MPI_Comm comm) {
  return read_checkpoint<Real>(path, layout, velocity_named<SpectralTarget<Real>>(velocity), comm);
}

#define KOLMO_INSTANTIATE_CHECKPOINT(Real)                                                                   \
  template std::filesystem::path write_checkpoint<Real>(                                                     \
      const std::filesystem::path&, const CheckpointInfo&, const fft::SlabLayout&,                           \
      const std::vector<SpectralDataset<Real>>&, MPI_Comm);                                                  \
  template std::filesystem::path write_checkpoint<Real>(const std::filesystem::path&, const CheckpointInfo&, \
                                                        const fft::SlabLayout&, const VelocityModes<Real>&,  \
                                                        MPI_Comm);                                           \
  template CheckpointInfo read_checkpoint<Real>(const std::filesystem::path&, const fft::SlabLayout&,        \
                                                const std::vector<SpectralTarget<Real>>&, MPI_Comm);         \
  template CheckpointInfo read_checkpoint<Real>(const std::filesystem::path&, const fft::SlabLayout&,        \
                                                const VelocityTargets<Real>&, MPI_Comm);                     \
  template CheckpointInfo read_checkpoint_resampled<Real>(                                                   \
      const std::filesystem::path&, const fft::SlabLayout&, const std::vector<SpectralTarget<Real>>&,        \
      MPI_Comm, std::vector<double>*);                                                                       \
  template RestartCheckpoint choose_restart_checkpoint<Real>(                                                \
      const std::filesystem::path&, const std::filesystem::path&, const fft::SlabLayout&,                    \
      const std::vector<SpectralTarget<Real>>&, MPI_Comm);
KOLMO_INSTANTIATE_CHECKPOINT(float)
KOLMO_INSTANTIATE_CHECKPOINT(double)
#undef KOLMO_INSTANTIATE_CHECKPOINT

}  // namespace kolmo::io
