#include "fft/FftwWisdom.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/Error.hpp"
#include "fft/CacheFile.hpp"
#include "fft/Fftw.hpp"

namespace kolmo::fft {

namespace {

// FFTW's wisdom as text (the caller holds the planner lock).
template <class Real>
std::string exported() {
  char* text = Fftw<Real>::export_wisdom();
  std::string wisdom = text != nullptr ? text : "";
  Fftw<Real>::free(text);
  return wisdom;
}

// Whether two wisdom texts hold the same entries (FFTW writes them in the order of its hash table).
bool same_entries(const std::string& a, const std::string& b) {
  auto lines = [](const std::string& text) {
    std::vector<std::string> all;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) all.push_back(line);
    std::sort(all.begin(), all.end());
    return all;
  };
  return lines(a) == lines(b);
}

// Writes text to file (fft/CacheFile.hpp), unless it holds the same entries as present.
std::string write_wisdom(const std::string& file, const std::string& text, const std::string& present) {
  if (same_entries(text, present)) return "wisdom " + file + " unchanged";
  return write_cache_file(file, text, "wisdom");
}

}  // namespace

template <class Real>
std::string wisdom_file(const std::string& directory) {
  if (directory.empty()) return "";
  return (std::filesystem::path(directory) / (std::string("fftw-") + Fftw<Real>::name + ".wisdom")).string();
}

template <class Real>
std::string load_wisdom(const std::string& directory) {
  const std::string file = wisdom_file<Real>(directory);
  if (file.empty()) return "no wisdom file";
  std::lock_guard<std::mutex> guard(fftw_planner_lock());
  static std::set<std::string> loaded;  // files of this precision imported by this process
  if (!loaded.insert(file).second) return "wisdom " + file + " loaded earlier";
  const std::string text = read_cache_file(file);
  if (text.empty()) return "no wisdom in " + file + " yet";
  Fftw<Real>::initialise();
  if (Fftw<Real>::import_wisdom(text.c_str()) == 0) return "wisdom " + file + " unreadable, ignored";
  return "wisdom loaded from " + file;
}

template <class Real>
std::string settle_wisdom(const std::string& directory, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
  std::lock_guard<std::mutex> guard(fftw_planner_lock());
  Fftw<Real>::initialise();
  const std::string mine = exported<Real>();
  int length = static_cast<int>(mine.size()) + 1;  // with the terminating zero
  std::vector<int> lengths(rank == 0 ? ranks : 0), starts(rank == 0 ? ranks : 0);
  KOLMO_CHECK_MPI(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  std::vector<char> all;
  if (rank == 0) {
    long total = 0;
    for (int q = 0; q < ranks; ++q) {
      starts[q] = static_cast<int>(total);
      total += lengths[q];
    }
    all.resize(total);
  }
  KOLMO_CHECK_MPI(MPI_Gatherv(mine.c_str(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(),
                              MPI_CHAR, 0, comm));
  std::string merged, report;
  if (rank == 0) {
    // Imported entries replace equal ones: the file's first (another run may have added to it meanwhile),
    // then the ranks' from the highest, so that the lowest rank's stay.
    const std::string file = wisdom_file<Real>(directory);
    const std::string present = file.empty() ? "" : read_cache_file(file);
    Fftw<Real>::forget_wisdom();
    if (!present.empty()) Fftw<Real>::import_wisdom(present.c_str());
    for (int q = ranks - 1; q >= 0; --q) Fftw<Real>::import_wisdom(all.data() + starts[q]);
    merged = exported<Real>();
    if (!file.empty()) report = write_wisdom(file, merged, present);
  }
  long size = static_cast<long>(merged.size()) + 1;
  KOLMO_CHECK_MPI(MPI_Bcast(&size, 1, MPI_LONG, 0, comm));
  merged.resize(size - 1);
  KOLMO_CHECK_MPI(MPI_Bcast(merged.data(), static_cast<int>(size), MPI_CHAR, 0, comm));
  // Every rank holds exactly what a later run loads from the file: plans made from it now are those.
  Fftw<Real>::forget_wisdom();
  Fftw<Real>::import_wisdom(merged.c_str());
  return report;
}

template std::string wisdom_file<float>(const std::string&);
template std::string wisdom_file<double>(const std::string&);
template std::string load_wisdom<float>(const std::string&);
template std::string load_wisdom<double>(const std::string&);
template std::string settle_wisdom<float>(const std::string&, MPI_Comm);
template std::string settle_wisdom<double>(const std::string&, MPI_Comm);

}  // namespace kolmo::fft
