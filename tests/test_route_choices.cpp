// The choices a construction makes by timing, kept between runs (fft/RouteChoices.hpp): a later construction
// of the same problem adopts them without timing, follows the file rather than its own timing, and times
// anew where the file is damaged, lacks a rank's choices or holds another problem's. On the host the pieces
// of the exchange are such a choice (FftOptions::exchange_pieces 0): on 2 to 4 ranks, and on one process as
// rank 0 of 2 emulated ranks (whose strided route is timed too).
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fft/RouteChoices.hpp"
#include "fft/SlabFFT.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::testing::global_max;
using kolmo::testing::TemporaryDirectory;
using kolmo::testing::world_rank;
using kolmo::testing::world_size;

namespace {

const std::array<long, 3> kGrid{12, 10, 9};  // uneven slabs on 3 and 4 ranks

FftOptions timed_options(const std::string& directory) {
  FftOptions options;
  options.exchange_pieces = 0;
  options.route_choices_directory = directory;
  if (world_size() == 1) options.emulated_ranks = 2;
  return options;
}

bool everywhere(bool verdict) {
  return global_max(verdict ? 0.0 : 1.0) == 0.0;
}

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Rank 0 rewrites the file, each line through edit(line, index); every rank waits for it.
template <class Edit>
void rewrite(const std::string& file, Edit edit) {
  if (world_rank() == 0) {
    std::istringstream lines(read(file));
    std::string text;
    int index = 0;
    for (std::string line; std::getline(lines, line); ++index) text += edit(line, index) + "\n";
    std::ofstream(file) << text;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The choice kept under "pieces full" in a line, and the line with it replaced.
int full_pieces_choice(const std::string& line) {
  const auto at = line.find("pieces full=");
  return at == std::string::npos ? -1 : std::stoi(line.substr(at + 12));
}
std::string with_full_pieces(const std::string& line, const std::string& choice) {
  const auto at = line.find("pieces full=") + 12, slash = line.find('/', at);
  return line.substr(0, at) + choice + line.substr(slash);
}

}  // namespace

TEST_CASE("choices made by timing are kept in the cache and adopted by a later construction", "[fft]") {
  TemporaryDirectory directory;
  const std::string file = (directory.path() / "route-choices").string();
  auto host = Device::create(Backend::host);
  const FftOptions options = timed_options(directory.path().string());

  SlabFFT<double> first(kGrid, MPI_COMM_WORLD, host, options);
  INFO(first.route_choices_report() + " | " + first.exchange_pieces_report());
  CHECK(everywhere(first.route_choices_report() == "route choices timed; route choices saved to " + file));
  const std::string kept = read(file);
  // One line a rank, each holding the pieces' choices.
  const int ranks = world_size();
  CHECK(everywhere(std::count(kept.begin(), kept.end(), '\n') == ranks));
  CHECK(everywhere(full_pieces_choice(kept) >= 0));

  // The same problem again: adopted, nothing timed, the same choices.
  SlabFFT<double> second(kGrid, MPI_COMM_WORLD, host, options);
  INFO(second.route_choices_report() + " | " + second.exchange_pieces_report());
  CHECK(everywhere(second.route_choices_report().rfind("route choices adopted from " + file, 0) == 0));
  CHECK(everywhere(second.exchange_pieces_report().find("kept") != std::string::npos));
  for (Modes modes : {Modes::all, Modes::dealiased}) {
    CHECK(everywhere(second.exchange_pieces(modes) == first.exchange_pieces(modes)));
    CHECK(everywhere(second.strided(modes) == first.strided(modes)));
  }
  CHECK(everywhere(read(file) == kept));

  // The file decides, not a timing: another count of pieces for full transforms, taken as kept.
  const int before = full_pieces_choice(kept), forced = before == 0 ? 1 : 0;
  rewrite(file, [&](const std::string& line, int) { return with_full_pieces(line, std::to_string(forced)); });
  SlabFFT<double> forced_fft(kGrid, MPI_COMM_WORLD, host, options);
  INFO(forced_fft.exchange_pieces_report());
  CHECK(everywhere(forced_fft.exchange_pieces(Modes::all) == 1 << forced));
  CHECK(everywhere(forced_fft.exchange_pieces(Modes::dealiased) == first.exchange_pieces(Modes::dealiased)));

  // One rank's line damaged (a choice past its candidates): no rank adopts, all time, the file is whole
  // again.
  rewrite(file, [&](const std::string& line, int index) {
    return index == ranks - 1 ? with_full_pieces(line, "99") : line;
  });
  SlabFFT<double> damaged(kGrid, MPI_COMM_WORLD, host, options);
  INFO(damaged.route_choices_report());
  CHECK(everywhere(damaged.route_choices_report().rfind("route choices timed", 0) == 0));
  CHECK(everywhere(read(file).find("=99/") == std::string::npos));

  // One rank's line missing: the same.
  rewrite(file,
          [&](const std::string& line, int index) { return index == ranks - 1 ? std::string() : line; });
  SlabFFT<double> missing(kGrid, MPI_COMM_WORLD, host, options);
  INFO(missing.route_choices_report());
  CHECK(everywhere(missing.route_choices_report().rfind("route choices timed", 0) == 0));
  const std::string whole = read(file);
  CHECK(everywhere(std::count(whole.begin(), whole.end(), '\n') == ranks));

  // Another problem (single precision) is timed and kept beside the first, whose lines stay.
  SlabFFT<float> single(kGrid, MPI_COMM_WORLD, host, options);
  INFO(single.route_choices_report());
  CHECK(everywhere(single.route_choices_report().rfind("route choices timed", 0) == 0));
  const std::string both = read(file);
  CHECK(everywhere(std::count(both.begin(), both.end(), '\n') == 2 * ranks));
  SlabFFT<double> again(kGrid, MPI_COMM_WORLD, host, options);
  CHECK(everywhere(again.route_choices_report().rfind("route choices adopted", 0) == 0));
}

TEST_CASE("without a cache directory every construction times its choices and keeps none", "[fft]") {
  FftOptions options = timed_options("");
  auto host = Device::create(Backend::host);
  SlabFFT<double> fft(kGrid, MPI_COMM_WORLD, host, options);
  INFO(fft.route_choices_report());
  CHECK(everywhere(fft.route_choices_report() == "route choices timed (kept nowhere)"));
  // Nothing timed (pieces asked for by count, one rank): nothing to say.
  options.exchange_pieces = 1;
  options.emulated_ranks = 0;
  options.strided_exchange = StridedExchange::never;
  SlabFFT<double> asked(kGrid, MPI_COMM_WORLD, host, options);
  CHECK(everywhere(asked.route_choices_report().empty()));
}

TEST_CASE("the cache keeps the problems written last, this one among them, and drops older ones", "[fft]") {
  TemporaryDirectory directory;
  const std::string file = route_choices_file(directory.path().string());
  // 70 other problems, two lines each (ranks 0 and 1), problem 0 written first.
  if (world_rank() == 0) {
    std::ofstream out(file);
    for (int p = 0; p < 70; ++p)
      for (int rank : {0, 1}) out << "old problem " << p << '\t' << rank << "\tpieces full=1/3;\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  RouteChoices choices(file, "this problem", MPI_COMM_WORLD);
  CHECK(!choices.adopted());
  choices.record("pieces full", 3, 2);
  choices.settle();

  std::vector<std::string> problems;  // each problem once, in the file's order
  int this_problems_lines = 0;
  std::istringstream lines(read(file));
  for (std::string line; std::getline(lines, line);) {
    const std::string problem = line.substr(0, line.find('\t'));
    if (problems.empty() || problems.back() != problem) problems.push_back(problem);
    if (problem == "this problem") ++this_problems_lines;
  }
  // 63 others (the newest, 7 to 69, in order), then this one with a line for every rank.
  REQUIRE(problems.size() == 64);
  CHECK(problems.front() == "old problem 7");
  CHECK(problems[62] == "old problem 69");
  CHECK(problems.back() == "this problem");
  CHECK(this_problems_lines == world_size());
  // A later construction of the problem adopts what was kept.
  RouteChoices later(file, "this problem", MPI_COMM_WORLD);
  CHECK(later.adopted());
  CHECK(later.kept("pieces full", 3) == 2);
}

TEST_CASE("GPU: a later construction adopts every timed choice and transforms bit for bit alike", "[gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("route choices on a GPU");
  if (!gpu) return;
  // Each rank constructs alone (MPI_COMM_SELF), so each keeps its choices in a directory of its own: in a
  // shared one, a rank's first construction could adopt what another rank had just saved.
  TemporaryDirectory directory(MPI_COMM_SELF);
  const std::array<long, 3> n{64, 64, 64};
  // One GPU (the dealiasing way, plane groups and kernels) and rank 0 of 2 emulated ranks (the strided route,
  // the own rows, pieces).
  for (int emulated : {0, 2}) {
    FftOptions options;
    options.route_choices_directory = directory.path().string();
    options.emulated_ranks = emulated;
    options.exchange_pieces = emulated > 0 ? 0 : 1;
    auto transform = [&](SlabFFT<double>& fft, Modes modes) {
      auto data = fft.make_real();
      std::vector<double> f(2 * fft.layout().alloc_complex(), 0.0);
      for (std::size_t i = 0; i < f.size(); ++i) f[i] = kolmo::testing::random_value(long(i), 1, 2);
      data.assign_from_host(f);
      auto spectral = fft.make_spectral();
      fft.forward(data.data(), spectral.data(), modes);
      fft.backward(spectral.data(), data.data(), modes);
      std::vector<double> back(fft.layout().real_size());
      gpu->copy_to_host(back.data(), data.data(), back.size() * sizeof(double));
      return back;
    };
    SlabFFT<double> first(n, MPI_COMM_SELF, gpu, options);
    SlabFFT<double> second(n, MPI_COMM_SELF, gpu, options);
    INFO("emulated ranks " << emulated << ": " << first.route_choices_report() << " | "
                           << second.route_choices_report() << " | " << second.planning_report() << " | "
                           << second.dealiasing_report() << " | " << second.strided_report());
    CHECK(first.route_choices_report().rfind("route choices timed; route choices saved", 0) == 0);
    CHECK(second.route_choices_report().rfind("route choices adopted", 0) == 0);
    CHECK(second.planning_report().find(" ms") == std::string::npos);  // no plane groups timed
    for (Modes modes : {Modes::all, Modes::dealiased}) {
      CHECK(second.exchange_pieces(modes) == first.exchange_pieces(modes));
      CHECK(second.strided(modes) == first.strided(modes));
      CHECK(transform(first, modes) == transform(second, modes));
    }
  }
}
