#include "io/Hdf5.hpp"

#include <algorithm>

#include "core/BuildIdentity.hpp"

namespace kolmo::io {

namespace {

// Collects "function: description" for each level of HDF5's error stack, outermost (the API call) first.
herr_t collect_error(unsigned /*level*/, const H5E_error2_t* error, void* messages) {
  std::string text = error->desc != nullptr ? error->desc : "";
  static_cast<std::vector<std::string>*>(messages)->push_back(text);
  return 0;
}

Dataspace scalar_space() {
  return Dataspace(KOLMO_CHECK_HDF5(H5Screate(H5S_SCALAR)));
}

Dataspace vector_space(hsize_t n) {
  return Dataspace(KOLMO_CHECK_HDF5(H5Screate_simple(1, &n, nullptr)));
}

// A fresh attribute: an existing one of the same name is replaced (its type or size may differ).
Attribute create_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t space) {
  if (has_attribute(object, name)) KOLMO_CHECK_HDF5(H5Adelete(object, name.c_str()));
  return Attribute(
      KOLMO_CHECK_HDF5(H5Acreate2(object, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT)));
}

Attribute open_attribute(hid_t object, const std::string& name, hssize_t expected_values) {
  if (!has_attribute(object, name)) throw Error("missing attribute '" + name + "'");
  Attribute attribute(KOLMO_CHECK_HDF5(H5Aopen(object, name.c_str(), H5P_DEFAULT)));
  Dataspace space(KOLMO_CHECK_HDF5(H5Aget_space(attribute.get())));
  hssize_t values = KOLMO_CHECK_HDF5(H5Sget_simple_extent_npoints(space.get()));
  if (expected_values > 0 && values != expected_values)
    throw Error("attribute '" + name + "' holds " + std::to_string(values) + " values, expected " +
                std::to_string(expected_values));
  return attribute;
}

template <class T>
void write_scalar(hid_t object, const std::string& name, hid_t file_type, T value) {
  Dataspace space = scalar_space();
  Attribute attribute = create_attribute(object, name, file_type, space.get());
  KOLMO_CHECK_HDF5(H5Awrite(attribute.get(), native_type<T>(), &value));
}

template <class T>
T read_scalar(hid_t object, const std::string& name) {
  Attribute attribute = open_attribute(object, name, 1);
  T value{};
  KOLMO_CHECK_HDF5(H5Aread(attribute.get(), native_type<T>(), &value));
  return value;
}

}  // namespace

std::string hdf5_error_reason() {
  std::vector<std::string> messages;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &messages);
  H5Eclear2(H5E_DEFAULT);
  std::erase_if(messages, [](const std::string& message) { return message.empty(); });
  if (messages.empty()) return {};
  // The outermost message says what failed, the innermost why.
  std::string reason = messages.front();
  if (messages.size() > 1 && messages.back() != messages.front()) reason += " (" + messages.back() + ")";
  // MPI-IO's error strings span lines; kolmo's messages are one line.
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  return reason;
}

void hdf5_fail(const char* file, int line) {
  std::string reason = hdf5_error_reason();
  if (reason.empty())
    reason = "an HDF5 call failed without saying why (internal: " + std::string(file) + ":" +
             std::to_string(line) + ")";
  throw Error(reason);
}

void silence_hdf5_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string code_version() {
  return build_identity();
}

namespace {

PropertyList parallel_access(MPI_Comm comm, FileFormat format = FileFormat::compatible) {
  PropertyList access(KOLMO_CHECK_HDF5(H5Pcreate(H5P_FILE_ACCESS)));
  KOLMO_CHECK_HDF5(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL));
  // Closing the file closes whatever is still open in it, so a file is complete once H5Fclose returns.
  KOLMO_CHECK_HDF5(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG));
  // Both bounds pinned: a newer library must still write what HDF5 1.10 reads.
  if (format == FileFormat::checksummed)
    KOLMO_CHECK_HDF5(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V110, H5F_LIBVER_V110));
  return access;
}

PropertyList serial_access() {
  PropertyList access(KOLMO_CHECK_HDF5(H5Pcreate(H5P_FILE_ACCESS)));
  KOLMO_CHECK_HDF5(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG));
  return access;
}

}  // namespace

File create_parallel(const std::filesystem::path& path, MPI_Comm comm, FileFormat format) {
  silence_hdf5_errors();
  PropertyList access = parallel_access(comm, format);
  return File(KOLMO_CHECK_HDF5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get())));
}

File open_parallel(const std::filesystem::path& path, MPI_Comm comm, bool writable) {
  silence_hdf5_errors();
  PropertyList access = parallel_access(comm);
  return File(
      KOLMO_CHECK_HDF5(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, access.get())));
}

File create_serial(const std::filesystem::path& path) {
  silence_hdf5_errors();
  PropertyList access = serial_access();
  return File(KOLMO_CHECK_HDF5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get())));
}

File open_serial(const std::filesystem::path& path, bool writable) {
  silence_hdf5_errors();
  PropertyList access = serial_access();
  return File(
      KOLMO_CHECK_HDF5(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, access.get())));
}

PropertyList collective_transfer() {
  PropertyList transfer(KOLMO_CHECK_HDF5(H5Pcreate(H5P_DATASET_XFER)));
  KOLMO_CHECK_HDF5(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE));
  return transfer;
}

// H5Lexists fails, rather than says no, on a path through a group that is missing ("a/b/f" without a) or
// through a dataset: each component is looked up in turn, and every one but the last must lead on.
bool has_link(hid_t location, const std::string& name) {
  for (std::size_t end = name.find('/', 1);; end = name.find('/', end + 1)) {
    const std::string part = name.substr(0, end);
    if (KOLMO_CHECK_HDF5(H5Lexists(location, part.c_str(), H5P_DEFAULT)) <= 0) return false;
    if (end == std::string::npos) return true;
    if (is_dataset(location, part)) return false;  // a dataset holds no links
  }
}

// Opening the object tells datasets from groups the same way in HDF5 1.10, 1.12 and 1.14.
bool is_dataset(hid_t location, const std::string& name) {
  hid_t object = H5Oopen(location, name.c_str(), H5P_DEFAULT);
  if (object < 0) return false;
  const bool dataset = H5Iget_type(object) == H5I_DATASET;
  H5Oclose(object);
  return dataset;
}

namespace {

herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* /*info*/, void* names) {
  if (is_dataset(group, name)) static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

}  // namespace

std::vector<std::string> dataset_names(hid_t group) {
  std::vector<std::string> names;
  KOLMO_CHECK_HDF5(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_dataset, &names));
  std::sort(names.begin(), names.end());
  return names;
}

bool has_attribute(hid_t object, const std::string& name) {
  return KOLMO_CHECK_HDF5(H5Aexists(object, name.c_str())) > 0;
}

Dataset open_dataset(hid_t location, const std::string& name) {
  if (!has_link(location, name)) throw Error("no dataset '" + name + "'");
  return Dataset(KOLMO_CHECK_HDF5(H5Dopen2(location, name.c_str(), H5P_DEFAULT)));
}

std::vector<hsize_t> dataset_shape(hid_t dataset) {
  Dataspace space(KOLMO_CHECK_HDF5(H5Dget_space(dataset)));
  int rank = KOLMO_CHECK_HDF5(H5Sget_simple_extent_ndims(space.get()));
  std::vector<hsize_t> shape(static_cast<std::size_t>(rank));
  if (rank > 0) KOLMO_CHECK_HDF5(H5Sget_simple_extent_dims(space.get(), shape.data(), nullptr));
  return shape;
}

std::string shape_text(const std::vector<hsize_t>& shape) {
  if (shape.empty()) return "a scalar";
  std::string text;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) text += " x ";
    text += std::to_string(shape[d]);
  }
  return text;
}

void write_attribute(hid_t object, const std::string& name, double value) {
  write_scalar(object, name, H5T_IEEE_F64LE, value);
}
void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  write_scalar(object, name, H5T_STD_I64LE, value);
}
void write_attribute(hid_t object, const std::string& name, std::uint64_t value) {
  write_scalar(object, name, H5T_STD_U64LE, value);
}

void write_attribute(hid_t object, const std::string& name, const std::array<long, 3>& values) {
  Dataspace space = vector_space(3);
  Attribute attribute = create_attribute(object, name, H5T_STD_I64LE, space.get());
  KOLMO_CHECK_HDF5(H5Awrite(attribute.get(), H5T_NATIVE_LONG, values.data()));
}

void write_attribute(hid_t object, const std::string& name, const std::array<double, 3>& values) {
  Dataspace space = vector_space(3);
  Attribute attribute = create_attribute(object, name, H5T_IEEE_F64LE, space.get());
  KOLMO_CHECK_HDF5(H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, values.data()));
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Type type(KOLMO_CHECK_HDF5(H5Tcopy(H5T_C_S1)));
  KOLMO_CHECK_HDF5(H5Tset_size(type.get(), H5T_VARIABLE));
  KOLMO_CHECK_HDF5(H5Tset_cset(type.get(), H5T_CSET_UTF8));
  Dataspace space = scalar_space();
  Attribute attribute = create_attribute(object, name, type.get(), space.get());
  const char* text = value.c_str();
  KOLMO_CHECK_HDF5(H5Awrite(attribute.get(), type.get(), &text));
}

double read_double_attribute(hid_t object, const std::string& name) {
  return read_scalar<double>(object, name);
}
std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  return read_scalar<std::int64_t>(object, name);
}
std::uint64_t read_uint_attribute(hid_t object, const std::string& name) {
  return read_scalar<std::uint64_t>(object, name);
}

std::array<long, 3> read_long3_attribute(hid_t object, const std::string& name) {
  Attribute attribute = open_attribute(object, name, 3);
  std::array<long, 3> values{};
  KOLMO_CHECK_HDF5(H5Aread(attribute.get(), H5T_NATIVE_LONG, values.data()));
  return values;
}

std::array<double, 3> read_double3_attribute(hid_t object, const std::string& name) {
  Attribute attribute = open_attribute(object, name, 3);
  std::array<double, 3> values{};
  KOLMO_CHECK_HDF5(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()));
  return values;
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  Attribute attribute = open_attribute(object, name, 1);
  Type type(KOLMO_CHECK_HDF5(H5Aget_type(attribute.get())));
  if (KOLMO_CHECK_HDF5(H5Tget_class(type.get())) != H5T_STRING)
    throw Error("attribute '" + name + "' is not a string");
  if (KOLMO_CHECK_HDF5(H5Tis_variable_str(type.get())) > 0) {
    // In the file's character set: HDF5 converts none into another, and h5py writes a str as UTF-8.
    Type memory(KOLMO_CHECK_HDF5(H5Tcopy(H5T_C_S1)));
    KOLMO_CHECK_HDF5(H5Tset_size(memory.get(), H5T_VARIABLE));
    KOLMO_CHECK_HDF5(H5Tset_cset(memory.get(), KOLMO_CHECK_HDF5(H5Tget_cset(type.get()))));
    char* text = nullptr;
    KOLMO_CHECK_HDF5(H5Aread(attribute.get(), memory.get(), &text));
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  std::size_t size = H5Tget_size(type.get());
  std::string buffer(size, '\0');
  KOLMO_CHECK_HDF5(H5Aread(attribute.get(), type.get(), buffer.data()));
  return buffer.substr(0, std::min(buffer.find('\0'), buffer.size()));
}

}  // namespace kolmo::io
