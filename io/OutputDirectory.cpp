#include "io/OutputDirectory.hpp"

#include <algorithm>
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

void prepare_output_directory(const std::filesystem::path& directory, ExistingOutput existing,
                              MPI_Comm comm) {
  on_root(comm, [&] {
    const OutputPaths paths = output_paths(directory);
    KOLMO_REQUIRE(!std::filesystem::exists(directory) || std::filesystem::is_directory(directory),
                  "output directory " + directory.string() + " exists and is not a directory");
    const auto earlier = kolmo_output_files(directory);
    if (!earlier.empty() && existing == ExistingOutput::refuse)
      throw Error(
          "output directory " + directory.string() + " already holds kolmo output (" +
          earlier.front().string() +
          (earlier.size() > 1 ? " and " + std::to_string(earlier.size() - 1) + " more" : std::string()) +
          "): choose another directory or allow overwriting");
    if (existing == ExistingOutput::replace)
      for (const auto& file : earlier) {
        std::error_code error;
        std::filesystem::remove(directory / file, error);
        KOLMO_REQUIRE(!error, "cannot remove " + (directory / file).string() + ": " + error.message());
      }
    for (const auto& folder : {paths.root, paths.fields, paths.checkpoints}) {
      std::error_code error;
      std::filesystem::create_directories(folder, error);
      KOLMO_REQUIRE(!error, "cannot create output directory " + folder.string() + ": " + error.message());
    }
  });
}

}  // namespace kolmo::io
