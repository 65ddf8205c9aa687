#include "tests/io/IoTestSupport.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <utility>

#include "core/Error.hpp"
#include "tests/TestSupport.hpp"

namespace kolmo::testing {

template <class T>
std::vector<T> read_whole_dataset(const std::filesystem::path& file, const std::string& name,
                                  std::vector<hsize_t>& shape, hid_t memory_type) {
  shape.clear();
  std::vector<T> values;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return values;
  hid_t dataset = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  if (dataset >= 0) {
    hid_t space = H5Dget_space(dataset);
    int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    std::size_t count = 1;
    for (hsize_t d : dims) count *= d;
    values.resize(count);
    if (H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0)
      shape = dims;
    else
      values.clear();
    H5Sclose(space);
    H5Dclose(dataset);
  }
  H5Fclose(f);
  return values;
}

template std::vector<float> read_whole_dataset<float>(const std::filesystem::path&, const std::string&,
                                                      std::vector<hsize_t>&, hid_t);
template std::vector<double> read_whole_dataset<double>(const std::filesystem::path&, const std::string&,
                                                        std::vector<hsize_t>&, hid_t);
template std::vector<std::int64_t> read_whole_dataset<std::int64_t>(const std::filesystem::path&,
                                                                    const std::string&, std::vector<hsize_t>&,
                                                                    hid_t);
template std::vector<Complex<double>> read_whole_dataset<Complex<double>>(const std::filesystem::path&,
                                                                          const std::string&,
                                                                          std::vector<hsize_t>&, hid_t);

std::vector<Complex<double>> read_whole_complex(const std::filesystem::path& file, const std::string& name,
                                                std::vector<hsize_t>& shape) {
  hid_t complex = H5Tcreate(H5T_COMPOUND, sizeof(Complex<double>));
  H5Tinsert(complex, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(complex, "i", sizeof(double), H5T_NATIVE_DOUBLE);
  auto values = read_whole_dataset<Complex<double>>(file, name, shape, complex);
  H5Tclose(complex);
  return values;
}

namespace {

// Runs damage on rank 0 and tells every rank whether it succeeded.
bool on_rank_zero(const std::function<bool()>& damage) {
  int done = world_rank() == 0 && damage() ? 1 : 0;
  MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return done != 0;
}

// Flips one bit of the byte at offset, in place.
bool flip_bit_at(const std::filesystem::path& file, std::uintmax_t offset) {
  std::fstream bytes(file, std::ios::in | std::ios::out | std::ios::binary);
  char byte = 0;
  bytes.seekg(static_cast<std::streamoff>(offset));
  if (!bytes.read(&byte, 1)) return false;
  byte = static_cast<char>(byte ^ 0x10);
  bytes.seekp(static_cast<std::streamoff>(offset));
  return static_cast<bool>(bytes.write(&byte, 1));
}

}  // namespace

namespace {

// The file address and stored size of the chunk of dataset name whose offset is chunk_offset, found with
// plain HDF5's H5Dget_chunk_info; address HADDR_UNDEF where there is none.
std::pair<haddr_t, hsize_t> chunk_place(const std::filesystem::path& file, const std::string& name,
                                        const std::vector<hsize_t>& chunk_offset) {
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {address, size};
  hid_t dataset = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  // HDF5 1.10 takes no H5S_ALL here: the whole dataspace.
  hid_t space = dataset >= 0 ? H5Dget_space(dataset) : -1;
  hsize_t chunks = 0;
  if (space >= 0 && H5Dget_num_chunks(dataset, space, &chunks) >= 0)
    for (hsize_t i = 0; i < chunks && address == HADDR_UNDEF; ++i) {
      std::vector<hsize_t> offset(chunk_offset.size());
      unsigned mask = 0;
      haddr_t at = HADDR_UNDEF;
      hsize_t bytes = 0;
      if (H5Dget_chunk_info(dataset, space, i, offset.data(), &mask, &at, &bytes) >= 0 &&
          offset == chunk_offset) {
        address = at;
        size = bytes;
      }
    }
  if (space >= 0) H5Sclose(space);
  if (dataset >= 0) H5Dclose(dataset);
  H5Fclose(f);
  return {address, size};
}

}  // namespace

bool flip_bit_in_chunk(const std::filesystem::path& file, const std::string& name,
                       const std::vector<hsize_t>& chunk_offset) {
  return on_rank_zero([&] {
    const auto [address, size] = chunk_place(file, name, chunk_offset);
    return address != HADDR_UNDEF && flip_bit_at(file, address + size / 2);
  });
}

bool fill_with_ones_in_chunk(const std::filesystem::path& file, const std::string& name,
                             const std::vector<hsize_t>& chunk_offset, std::uintmax_t first,
                             std::uintmax_t count) {
  return on_rank_zero([&] {
    const auto [address, size] = chunk_place(file, name, chunk_offset);
    if (address == HADDR_UNDEF || first + count > size) return false;
    std::fstream bytes(file, std::ios::in | std::ios::out | std::ios::binary);
    bytes.seekp(static_cast<std::streamoff>(address + first));
    const std::string ones(count, static_cast<char>(0xff));
    return static_cast<bool>(bytes.write(ones.data(), static_cast<std::streamsize>(count)));
  });
}

bool flip_bit_in_value(const std::filesystem::path& file, double value) {
  return on_rank_zero([&] {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string pattern(reinterpret_cast<const char*>(&value), sizeof value);
    const std::size_t at = bytes.find(pattern);
    return at != std::string::npos && flip_bit_at(file, at + 3);
  });
}

bool cut_file(const std::filesystem::path& file, double fraction) {
  return on_rank_zero([&] {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (error) return false;
    std::filesystem::resize_file(file, static_cast<std::uintmax_t>(fraction * static_cast<double>(size)),
                                 error);
    return !error;
  });
}

std::string error_message(const std::function<void()>& work) {
  try {
    work();
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

bool every_rank_failed_with(const std::string& message, const std::vector<std::string>& parts,
                            MPI_Comm comm) {
  bool good = !message.empty() && message.find('\n') == std::string::npos;
  for (const auto& part : parts) good = good && message.find(part) != std::string::npos;
  if (!good) std::printf("rank %d: unexpected error message: '%s'\n", world_rank(), message.c_str());
  return global_max(good ? 0.0 : 1.0, comm) == 0.0;
}

}  // namespace kolmo::testing
