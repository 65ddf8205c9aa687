#include "io/OutputDirectory.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string>
#include <system_error>

#include "core/Error.hpp"
#include "io/Collective.hpp"

namespace kolmo::io {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool ends_with_any(const std::string& text, std::initializer_list<const char*> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](const char* suffix) {
    const std::string s = suffix;
    return text.size() >= s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0;
  });
}

// Whether name, a file directly in <dir>/<folder>, is kolmo output.
bool is_kolmo_output(const std::string& folder, const std::string& name) {
  if (folder.empty())
    return name == "series.h5" || name == "spectra.h5" || name == "series.h5.tmp" || name == "spectra.h5.tmp";
  if (folder == "fields") return starts_with(name, "fields_") && ends_with_any(name, {".h5", ".xmf", ".tmp"});
  if (folder == "checkpoints") return starts_with(name, "checkpoint") && ends_with_any(name, {".h5", ".tmp"});
  return false;
}

// Whether folder lies on one of the kernel's pseudo file systems, which hold no files of ours.
bool on_kernel_file_system(const std::filesystem::path& folder) {
  struct statfs about {};
  if (::statfs(folder.c_str(), &about) != 0) return false;
  switch (static_cast<unsigned long>(about.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case PSTOREFS_MAGIC:
    case BPF_FS_MAGIC:
      return true;
    default:
      return false;
  }
}

// Whether the caller may create files in folder: its rights and read-only file systems (access), and the
// kernel's own file systems, which take no files but pass access() for root (/proc, /sys). Looking only, so
// that a refused run changes nothing (not even a folder's time).
bool writable(const std::filesystem::path& folder) {
  return ::access(folder.c_str(), W_OK | X_OK) == 0 && !on_kernel_file_system(folder);
}

// The folders a run creates files in: the directory itself and the subfolders it writes into.
std::vector<std::filesystem::path> run_folders(const OutputPaths& paths, Subfolders subfolders) {
  std::vector<std::filesystem::path> folders{paths.root, paths.fields};
  if (subfolders == Subfolders::fields_and_checkpoints) folders.push_back(paths.checkpoints);
  return folders;
}

}  // namespace

OutputPaths output_paths(const std::filesystem::path& directory) {
  return OutputPaths{directory,
                     directory / "config.yaml",
                     directory / "series.h5",
                     directory / "spectra.h5",
                     directory / "fields",
                     directory / "checkpoints"};
}

std::vector<std::filesystem::path> kolmo_output_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> found;
  for (const std::string folder : {"", "fields", "checkpoints"}) {
    const std::filesystem::path where = folder.empty() ? directory : directory / folder;
    std::error_code error;
    if (!std::filesystem::is_directory(where, error)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(where, error)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file(error) && is_kolmo_output(folder, name))
        found.push_back(folder.empty() ? std::filesystem::path(name) : std::filesystem::path(folder) / name);
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string earlier_output(const std::filesystem::path& directory) {
  const auto files = kolmo_output_files(directory);
  if (files.empty()) return "";
  return directory.string() + " already holds kolmo output (" + files.front().string() +
         (files.size() > 1 ? " and " + std::to_string(files.size() - 1) + " more" : std::string()) + ")";
}

DirectoryLock prepare_output_directory(const std::filesystem::path& directory, ExistingOutput existing,
                                       MPI_Comm comm, Subfolders subfolders, const std::string& sources) {
  DirectoryLock lock;
  try {
    on_root(comm, [&] {
      const OutputPaths paths = output_paths(directory);
      std::error_code looked;
      const auto status = std::filesystem::status(directory, looked);
      KOLMO_REQUIRE(
          !looked || looked == std::errc::no_such_file_or_directory || looked == std::errc::not_a_directory,
          "output directory " + directory.string() + ": " + looked.message());
      KOLMO_REQUIRE(!std::filesystem::exists(status) || std::filesystem::is_directory(status),
                    "output directory " + directory.string() + " exists and is not a directory");
      // Taken before anything in it is looked at or changed: of two runs started into it at once, the second
      // stops here (its kolmo check saw the directory free, and HDF5's lock on series.h5 comes later).
      std::error_code error;
      std::filesystem::create_directories(directory, error);
      KOLMO_REQUIRE(!error, "cannot create output directory " + directory.string() + ": " + error.message());
      const int descriptor = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      KOLMO_REQUIRE(descriptor >= 0, "cannot open output directory " + directory.string() + ": " +
                                         std::generic_category().message(errno));
      lock = DirectoryLock(descriptor);
      if (::flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        throw Error("output directory " + directory.string() +
                    " is in use: another run is starting or going there");
      if (existing == ExistingOutput::refuse)
        if (const std::string earlier = earlier_output(directory); !earlier.empty())
          throw Error("output directory " + earlier + ": choose another directory or allow overwriting");
      if (existing == ExistingOutput::replace)
        for (const auto& file : kolmo_output_files(directory)) {
          std::error_code error;
          std::filesystem::remove(directory / file, error);
          KOLMO_REQUIRE(!error, "cannot remove " + (directory / file).string() + ": " + error.message());
        }
      // Every folder writable now, so that a run whose fields/ or checkpoints/ take no files stops before its
      // first step rather than at its first dump or checkpoint.
      for (const auto& folder : run_folders(paths, subfolders)) {
        std::error_code error;
        std::filesystem::create_directories(folder, error);
        KOLMO_REQUIRE(!error, "cannot create output directory " + folder.string() + ": " + error.message());
        KOLMO_REQUIRE(writable(folder), "output directory " + folder.string() + " is not writable");
      }
    });
  } catch (const Error& error) {
    throw Error(error.what() + sources);  // every refusal says where the path came from
  }
  return lock;
}

long remove_field_dumps_after(const std::filesystem::path& fields, long step, MPI_Comm comm) {
  long removed = 0;
  on_root(comm, [&] {
    std::error_code error;
    if (!std::filesystem::is_directory(fields, error)) return;
    std::vector<std::filesystem::path> later;
    for (const auto& entry : std::filesystem::directory_iterator(fields, error)) {
      const std::string name = entry.path().filename().string();
      // fields_<step>.h5 or .xmf, the step in decimal digits
      const auto dot = name.find('.');
      if (!starts_with(name, "fields_") || dot == std::string::npos || !ends_with_any(name, {".h5", ".xmf"}))
        continue;
      const std::string digits = name.substr(7, dot - 7);
      if (digits.empty() || digits.size() > 18 ||
          !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
        continue;
      if (std::stol(digits) > step) {
        later.push_back(entry.path());
        if (entry.path().extension() == ".h5") ++removed;
      }
    }
    for (const auto& path : later) {
      std::filesystem::remove(path, error);
      KOLMO_REQUIRE(!error, "cannot remove " + path.string() + ": " + error.message());
    }
  });
  KOLMO_CHECK_MPI(MPI_Bcast(&removed, 1, MPI_LONG, 0, comm));
  return removed;
}

namespace {

// Whether some process holds a lock on file: HDF5 locks the files it has open (flock), so a run still going
// holds its series.h5 all along.
bool locked(const std::filesystem::path& file) {
  const int descriptor = ::open(file.c_str(), O_RDONLY);
  if (descriptor < 0) return false;
  const bool held = ::flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(descriptor);  // and with it a lock this probe took
  return held;
}

}  // namespace

std::string output_directory_problem(const std::filesystem::path& directory, Subfolders subfolders) {
  std::error_code error;
  if (locked(output_paths(directory).series))
    return directory.string() + " is in use: a run still going holds its series.h5";
  if (locked(directory)) return directory.string() + " is in use: another run is starting or going there";
  // A path the system cannot follow (a loop of links, a name too long) is no directory to write into. (A path
  // under a file, ENOTDIR, is left to the look above it, which names the file.)
  const auto status = std::filesystem::status(directory, error);
  if (error && error != std::errc::no_such_file_or_directory && error != std::errc::not_a_directory)
    return directory.string() + ": " + error.message();
  if (std::filesystem::exists(status)) {
    // The directory and the subfolders the run writes into that exist already (fields/, checkpoints/).
    const OutputPaths paths = output_paths(directory);
    for (const auto& folder : run_folders(paths, subfolders)) {
      if (folder != paths.root && !std::filesystem::exists(folder, error)) continue;
      if (!std::filesystem::is_directory(folder, error)) return folder.string() + " is not a directory";
      if (!writable(folder)) return folder.string() + " is not writable";
    }
    return "";
  }
  // The nearest existing folder above it, where the run would create it.
  std::filesystem::path above = std::filesystem::absolute(directory, error).parent_path();
  while (!above.empty() && !std::filesystem::exists(above, error) && above != above.root_path())
    above = above.parent_path();
  if (!std::filesystem::is_directory(above, error))
    return directory.string() + " cannot be created: " + above.string() + " is not a directory";
  if (!writable(above))
    return directory.string() + " cannot be created: " + above.string() + " is not writable";
  return "";
}

}  // namespace kolmo::io
