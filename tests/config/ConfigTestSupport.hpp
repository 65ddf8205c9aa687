// Helpers for the configuration tests: where the source tree is, temporary files, and error messages.
//
// The configuration tests do no MPI communication: every rank loads the same files and reaches the same
// verdicts on its own, so nothing can diverge and hang; temporary files carry the process id, so ranks never
// write the same file.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/Error.hpp"

namespace kolmo::testing {

inline std::filesystem::path source_dir() {
  return KOLMO_SOURCE_DIR;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A file in the temporary directory, unique to this process, removed when the object goes.
class TemporaryFile {
 public:
  TemporaryFile(const std::string& name, const std::string& contents) {
    path_ = std::filesystem::temp_directory_path() /
            ("kolmo_config_test_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(path_) << contents;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// The message of the kolmo::Error that action throws, or "" when it throws none.
template <class Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace kolmo::testing
