// The choices a transform's construction makes by timing (one GPU's dealiasing way, the strided route and the
// own rows, the exchange's pieces, the plane groups and kernels), kept between runs as FFTW keeps its wisdom,
// so that later runs of the same problem on the same kind of device, restarts among them, make the same
// choices and repeat bit for bit: two candidates within the timings' noise otherwise flip between runs, and
// routes of other kernels round otherwise (2 ranks on one H200: two fresh runs differed by 2e-16 in dt after
// 2 steps, docs/results/route_choices_h200.log). Internal to SlabFFT (fft/SlabFFT.cpp) and the GPU backend.
//
// Contract:
// - RouteChoices(file, problem, comm): collective over comm. problem names what the choices depend on (the
//   grid, the ranks, precision, options, the device's model, its libraries' versions): the same string on
//   every rank of one problem
//   for choices that ranks make together. Rank 0 reads file ("": none, every choice is timed) and every rank
//   takes the choices kept for (problem, its rank); only if every rank finds them do all adopt them (ranks
//   time collectively, so all adopt or none do). A file that cannot be read, or lines it cannot parse, are
//   as none.
// - kept(name, count): when adopted, the choice kept under name among count candidates (0 <= choice <
//   count); nullopt when not adopted, when name is not kept, or was kept with another count (the candidates
//   changed: the caller times it anew). A name once recorded in this object is kept for the rest of its
//   construction, adopted or not: the same decision made again (the same executor for another route) takes
//   the first choice without another timing.
// - record(name, count, choice): a choice made by timing, named as kept() reads it. Names hold no ';', '=',
//   '/', tab or newline (throws kolmo::Error otherwise).
// - settle(): collective. Where any rank recorded a new choice, rank 0 rewrites file with every rank's
//   choices for this problem, replacing the lines it held for it, through a temporary file and a rename;
//   the file keeps the 64 problems written last (this one last among them), dropping older ones, so that
//   it stays small however many builds, grids and options share it. A file that cannot be written is
//   reported, not fatal. report() says what happened: adopted from the file (no timing), or timed and kept
//   there, or timed (no file).
#pragma once

#include <mpi.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace kolmo::fft {

class RouteChoices {
 public:
  RouteChoices(std::string file, std::string problem, MPI_Comm comm);

  std::optional<int> kept(const std::string& name, int count) const;
  void record(const std::string& name, int count, int choice);
  void settle();
  bool adopted() const { return adopted_; }
  const std::string& report() const { return report_; }

 private:
  std::string file_, problem_;
  MPI_Comm comm_;
  int rank_ = 0;
  bool adopted_ = false, recorded_ = false;
  std::map<std::string, std::pair<int, int>> choices_;  // name -> (count, choice)
  std::string report_;
};

// The file in a cache directory ("" for none).
std::string route_choices_file(const std::string& directory);

}  // namespace kolmo::fft
