// A run's output directory: where each file goes, and the guard that keeps a run from overwriting another's.
//
// Contract:
// - Layout (shared with tools/kolmo_post.py):
//     <dir>/config.yaml               the resolved configuration
//     <dir>/series.h5                 SeriesFile
//     <dir>/spectra.h5                SpectraFile
//     <dir>/fields/fields_NNNNNN.h5   field dumps (+ .xmf)
//     <dir>/checkpoints/checkpoint.h5 (+ checkpoint.prev.h5)
// - kolmo output means: series.h5, spectra.h5, fields/fields_*.{h5,xmf} and checkpoints/checkpoint*.h5, with
//   their .tmp leftovers. Other files (a config the user put there, notes) are never looked at or removed.
// - prepare_output_directory() is collective over comm; rank 0 works, every rank gets the same outcome. It
//   creates the directory and takes its lock (flock, exclusive, on the directory itself): a directory whose
//   lock another process holds, another run starting or going there, is refused (one line, "in use"), so
//   that of two runs started at once into one directory only one gets it. The lock is held by the returned
//   DirectoryLock (rank 0's; the others' are empty): keep it for the run's life. (A file system without
//   flock grants it silently.) Then it creates the subfolders the run writes into (Subfolders: fields/, and
//   checkpoints/ unless the run writes none, as a Poisson run), refuses (one line, "not writable") any of
//   those folders and the directory itself that the run could not create files in, and:
//     ExistingOutput::refuse   throws kolmo::Error (one line naming the directory and a file found) if the
//                              directory holds kolmo output;
//     ExistingOutput::replace  removes the earlier kolmo output (only the files listed above), so no
//                              stale dump of a longer earlier run is mistaken for this run's;
//     ExistingOutput::keep     keeps everything (a restart continuing its own run).
//   Every refusal ends with `sources`, the caller's words for where the directory's path came from (a run
//   passes io::sources_text(config, {"output.directory"}): " (output.directory from run.yaml:12)"), so
//   that one met only here (the directory changed after kolmo check's look) names the key and its source as
//   the configuration's refusals do; empty, nothing is added. Call it before writing anything.
// - remove_field_dumps_after(fields, step, comm), collective likewise: a restart continuing its own run from
//   a checkpoint at step removes the dumps fields_NNNNNN.{h5,xmf} of later steps (a killed run's, or the rest
//   of a history restarted from an earlier checkpoint), as the series are cut there; returns how many steps'
//   dumps it removed.
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/UniqueHandle.hpp"

namespace kolmo::io {

struct OutputPaths {
  std::filesystem::path root, config, series, spectra, fields, checkpoints;
};

OutputPaths output_paths(const std::filesystem::path& directory);

// The kolmo output files in directory (paths relative to it, sorted); empty if there are none or no
// directory.
std::vector<std::filesystem::path> kolmo_output_files(const std::filesystem::path& directory);
// "<directory> already holds kolmo output (<the first file> and N more)", or "" when it holds none: the
// refusal's words, which the run and kolmo check each end with their advice.
std::string earlier_output(const std::filesystem::path& directory);

enum class ExistingOutput { refuse, replace, keep };

// The subfolders a run writes into: a Navier-Stokes run's field dumps and checkpoints, or a Poisson run's
// solution, a field file, alone (a checkpoints/ it never fills would only puzzle its user).
enum class Subfolders { fields, fields_and_checkpoints };

// The open directory whose flock marks a run's output as taken; closing it releases the lock.
using DirectoryLock = UniqueHandle<int, ::close>;

[[nodiscard]] DirectoryLock prepare_output_directory(
    const std::filesystem::path& directory, ExistingOutput existing, MPI_Comm comm,
    Subfolders subfolders = Subfolders::fields_and_checkpoints, const std::string& sources = "");

long remove_field_dumps_after(const std::filesystem::path& fields, long step, MPI_Comm comm);

// Why directory could not take a run's output ("" if it could), changing nothing: a run still going holds its
// series.h5 or the directory's lock (whatever output.overwrite says), it or one of the subfolders the run
// writes into exists and is no directory or not writable, or the nearest existing folder above it is no
// directory or not writable (also for root: a kernel file system such as /proc or /sys takes no files). Lets
// kolmo check say what the run would meet.
std::string output_directory_problem(const std::filesystem::path& directory,
                                     Subfolders subfolders = Subfolders::fields_and_checkpoints);

// overwrite = false refuses existing output, true replaces it.
[[nodiscard]] inline DirectoryLock prepare_output_directory(
    const std::filesystem::path& directory, bool overwrite, MPI_Comm comm,
    Subfolders subfolders = Subfolders::fields_and_checkpoints, const std::string& sources = "") {
  return prepare_output_directory(directory, overwrite ? ExistingOutput::replace : ExistingOutput::refuse,
                                  comm, subfolders, sources);
}

}  // namespace kolmo::io
