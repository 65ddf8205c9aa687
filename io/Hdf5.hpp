// Thin RAII layer over the HDF5 C library, shared by kolmo's file formats.
//
// Contract:
// - Every HDF5 id kolmo opens lives in a Handle that closes it on destruction (File, Dataset, Dataspace,
//   PropertyList, Attribute, Type, Group); handles move, never copy. close() closes early and checks the
//   result (use it where a failed close means lost data: the end of a write).
// - KOLMO_CHECK_HDF5(call) returns the call's value, or throws kolmo::Error with HDF5's own words for what
//   failed and why ("can't read data (data error detected by Fletcher32 checksum)"), on one line; callers add
//   the file. Users never see source text: only when HDF5 gave no reason does the message end with an
//   "(internal: file:line)" part. hdf5_error_reason() gives the same words without throwing (for a rank that
//   must first agree with the others). HDF5's automatic error-stack printing is switched off by
//   silence_hdf5_errors(), which every opening function here calls first.
// - Parallel files (open_parallel / create_parallel) go through MPI-IO and are collective over the
//   communicator: every rank calls the same functions in the same order, and collective_transfer() gives the
//   property list for collective reads and writes. Serial files (open_serial / create_serial) belong to one
//   process.
// - FileFormat::compatible writes HDF5's earliest format (readable by HDF5 1.8 tools such as VisIt);
//   FileFormat::checksummed writes the HDF5 1.10 format, in which every metadata block (superblock, object
//   headers with their attributes, chunk indexes) carries a checksum that HDF5 verifies on reading; HDF5 1.10
//   or newer (h5py included) reads it.
// - A failed H5Fclose cannot be repaired: HDF5 1.10 frees the file but keeps its id, and its shutdown in
//   MPI_Finalize closes that id again (a segfault); on a parallel file the ranks also end up in different
//   collective calls. Writers therefore make sure a close has nothing left to write that could fail: see
//   DiskSpace.hpp.
// - Attributes: scalars, small arrays and strings on a file or object; strings are written as variable-length
//   UTF-8, as h5py writes a Python str, so that h5py reads them back as str (a fixed-length string reads as
//   numpy bytes), and read back from fixed- or variable-length, ASCII or UTF-8 (files of kolmo before
//   2026-11-29 hold fixed-length ASCII). Reading a missing attribute throws an error naming it; the caller
//   adds the file.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/Error.hpp"

namespace kolmo::io {

// HDF5's description of the last failure on this thread ("what failed (why)"), clearing its error stack;
// empty if HDF5 recorded none.
std::string hdf5_error_reason();

// Throws kolmo::Error with hdf5_error_reason(); file and line only mark an internal fault without a reason.
[[noreturn]] void hdf5_fail(const char* file, int line);

template <class Status>
Status check_hdf5(Status status, const char* file, int line) {
  if (status < 0) hdf5_fail(file, line);
  return status;
}

}  // namespace kolmo::io

#define KOLMO_CHECK_HDF5(call) ::kolmo::io::check_hdf5((call), __FILE__, __LINE__)

namespace kolmo::io {

void silence_hdf5_errors();

// What wrote the file: this build's identity (core/BuildIdentity.hpp), written into every file.
std::string code_version();

template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() {
    if (id_ >= 0) Close(id_);
  }
  Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      if (id_ >= 0) Close(id_);
      id_ = other.id_;
      other.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void close() {
    hid_t id = id_;
    id_ = -1;
    if (id >= 0) KOLMO_CHECK_HDF5(Close(id));
  }

 private:
  hid_t id_ = -1;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using PropertyList = Handle<H5Pclose>;
using Attribute = Handle<H5Aclose>;
using Type = Handle<H5Tclose>;

// The in-memory HDF5 type of a C++ value type (not owned: predefined types need no closing).
template <class T>
hid_t native_type();
template <>
inline hid_t native_type<float>() {
  return H5T_NATIVE_FLOAT;
}
template <>
inline hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
inline hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
inline hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}

// "single" or "double": how files record the run's precision.
template <class Real>
constexpr const char* precision_name() {
  return sizeof(Real) == sizeof(float) ? "single" : "double";
}

enum class FileFormat { compatible, checksummed };

// Files. Parallel ones are collective over comm; creating truncates an existing file.
File create_parallel(const std::filesystem::path& path, MPI_Comm comm,
                     FileFormat format = FileFormat::compatible);
File open_parallel(const std::filesystem::path& path, MPI_Comm comm, bool writable = false);
File create_serial(const std::filesystem::path& path);
File open_serial(const std::filesystem::path& path, bool writable = false);

// The transfer property list for collective MPI-IO reads and writes.
PropertyList collective_transfer();

bool has_link(hid_t location, const std::string& name);
// Whether location's link `name` is a dataset (not a group), and the names of a group's datasets, sorted.
bool is_dataset(hid_t location, const std::string& name);
std::vector<std::string> dataset_names(hid_t group);
bool has_attribute(hid_t object, const std::string& name);
Dataset open_dataset(hid_t location, const std::string& name);
// The extent of a dataset's dataspace, slowest dimension first.
std::vector<hsize_t> dataset_shape(hid_t dataset);
std::string shape_text(const std::vector<hsize_t>& shape);  // "32 x 32 x 17"

// Attributes on a file (its root group) or an object.
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, std::uint64_t value);
void write_attribute(hid_t object, const std::string& name, const std::array<long, 3>& values);
void write_attribute(hid_t object, const std::string& name, const std::array<double, 3>& values);
void write_attribute(hid_t object, const std::string& name, const std::string& value);

double read_double_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
std::uint64_t read_uint_attribute(hid_t object, const std::string& name);
std::array<long, 3> read_long3_attribute(hid_t object, const std::string& name);
std::array<double, 3> read_double3_attribute(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);

}  // namespace kolmo::io
