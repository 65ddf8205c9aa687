#include "fft/RouteChoices.hpp"

#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "core/Error.hpp"
#include "fft/CacheFile.hpp"

namespace kolmo::fft {

namespace {

// The file holds one line a rank of a problem: problem TAB rank TAB name=choice/count;name=choice/count...
constexpr char kField = '\t';

// The problems whose choices the file keeps: the ones written last. Every build of kolmo and every grid,
// rank count and option set is a problem of its own, so a cache that kept them all would grow without end.
constexpr std::size_t kKeptProblems = 64;

std::string line_of(const std::string& problem, int rank,
                    const std::map<std::string, std::pair<int, int>>& all) {
  std::string line = problem + kField + std::to_string(rank) + kField;
  for (const auto& [name, entry] : all)
    line += name + "=" + std::to_string(entry.second) + "/" + std::to_string(entry.first) + ";";
  return line + "\n";
}

// The choices of a line's last field, or nullopt where it cannot be read.
std::optional<std::map<std::string, std::pair<int, int>>> parse_choices(const std::string& field) {
  std::map<std::string, std::pair<int, int>> all;
  std::istringstream in(field);
  for (std::string entry; std::getline(in, entry, ';');) {
    const auto equals = entry.find('='), slash = entry.rfind('/');
    if (equals == std::string::npos || slash == std::string::npos || slash < equals) return std::nullopt;
    try {
      const int choice = std::stoi(entry.substr(equals + 1, slash - equals - 1)),
                count = std::stoi(entry.substr(slash + 1));
      if (count < 1 || choice < 0 || choice >= count) return std::nullopt;
      all[entry.substr(0, equals)] = {count, choice};
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return all;
}

// Splits a line into problem, rank and choices; false where it is not one of the file's lines.
bool split_line(const std::string& line, std::string& problem, int& rank, std::string& choices) {
  const auto first = line.find(kField), second = line.find(kField, first + 1);
  if (first == std::string::npos || second == std::string::npos) return false;
  problem = line.substr(0, first);
  choices = line.substr(second + 1);
  try {
    rank = std::stoi(line.substr(first + 1, second - first - 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// Rank 0's string on every rank.
std::string broadcast(std::string text, MPI_Comm comm) {
  long size = static_cast<long>(text.size());
  KOLMO_CHECK_MPI(MPI_Bcast(&size, 1, MPI_LONG, 0, comm));
  text.resize(size);
  KOLMO_CHECK_MPI(MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, comm));
  return text;
}

}  // namespace

std::string route_choices_file(const std::string& directory) {
  if (directory.empty()) return "";
  return (std::filesystem::path(directory) / "route-choices").string();
}

RouteChoices::RouteChoices(std::string file, std::string problem, MPI_Comm comm)
    : file_(std::move(file)), problem_(std::move(problem)), comm_(comm) {
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm_, &rank_));
  const std::string text = broadcast(rank_ == 0 && !file_.empty() ? read_cache_file(file_) : "", comm_);
  int found = 0;
  std::istringstream lines(text);
  for (std::string line, problem_of, choices; std::getline(lines, line);) {
    int rank = -1;
    if (!split_line(line, problem_of, rank, choices) || problem_of != problem_ || rank != rank_) continue;
    if (auto parsed = parse_choices(choices)) {
      choices_ = std::move(*parsed);
      found = 1;
    }
  }
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MIN, comm_));
  adopted_ = found == 1;
  if (!adopted_) choices_.clear();
}

std::optional<int> RouteChoices::kept(const std::string& name, int count) const {
  const auto it = choices_.find(name);
  if (it == choices_.end() || it->second.first != count) return std::nullopt;
  return it->second.second;
}

void RouteChoices::record(const std::string& name, int count, int choice) {
  KOLMO_REQUIRE(name.find_first_of(";=/\t\n") == std::string::npos,
                "internal: route choice name '" + name + "' holds a separator");
  KOLMO_REQUIRE(count >= 1 && choice >= 0 && choice < count,
                "internal: route choice " + name + " out of range");
  choices_[name] = {count, choice};
  recorded_ = true;
}

void RouteChoices::settle() {
  int any = recorded_ ? 1 : 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm_));
  if (any == 0) {
    report_ = adopted_ ? "route choices adopted from " + file_ +
                             " (kept by an earlier run; delete it to time again)"
                       : "";
    return;
  }
  const std::string mine = line_of(problem_, rank_, choices_);
  int ranks = 1, length = static_cast<int>(mine.size());
  KOLMO_CHECK_MPI(MPI_Comm_size(comm_, &ranks));
  std::vector<int> lengths(rank_ == 0 ? ranks : 0), starts(rank_ == 0 ? ranks : 0);
  KOLMO_CHECK_MPI(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_));
  std::string all;
  if (rank_ == 0) {
    for (int q = 0; q < ranks; ++q) {
      starts[q] = static_cast<int>(all.size());
      all.resize(all.size() + lengths[q]);
    }
  }
  KOLMO_CHECK_MPI(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(),
                              MPI_CHAR, 0, comm_));
  std::string written;
  if (rank_ == 0 && !file_.empty()) {
    // The file's lines of other problems stay (another run may have added some meanwhile), those of the
    // kKeptProblems - 1 written last; this problem's lines go last.
    std::vector<std::pair<std::string, std::string>> others;  // (problem, line), in the file's order
    std::istringstream lines(read_cache_file(file_));
    for (std::string line, problem_of, choices; std::getline(lines, line);) {
      int rank = -1;
      if (split_line(line, problem_of, rank, choices) && problem_of != problem_)
        others.emplace_back(problem_of, line + "\n");
    }
    std::set<std::string> newest;
    for (auto other = others.rbegin(); other != others.rend() && newest.size() < kKeptProblems - 1; ++other)
      newest.insert(other->first);
    std::string kept_lines;
    for (const auto& [problem_of, line] : others)
      if (newest.count(problem_of) > 0) kept_lines += line;
    written = write_cache_file(file_, kept_lines + all, "route choices");
  }
  written = broadcast(written, comm_);
  report_ = "route choices timed" + (written.empty() ? std::string(" (kept nowhere)") : "; " + written);
}

}  // namespace kolmo::fft
