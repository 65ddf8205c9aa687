// The state of a run in one line, <output directory>/status, for users and job scripts that cannot trust the
// exit status: MPICH's mpiexec may exit 0 when its ranks were stopped by a signal (and exited 130).
//
// Contract: write_run_status(directory, text, comm) replaces <directory>/status with the line text, on rank 0
// of comm only (not collective), through status.tmp and a rename, so a reader sees the old line or the new
// one. Best effort: a status that cannot be written (a full disk) is skipped, never fails the run. The lines:
//   running: step S, t = T                             the time loop started from step S
//   finished: step S, t = T                            the run reached its end
//   stopped by a signal: step S, t = T; ...            a checkpoint was written; continue with --restart
//   stopped by a signal: the Poisson problem ...       a Poisson run stopped before writing its solution
//   stopped: interrupted twice at step S, t = T; ...   a second signal ended the run at once, writing no
//                                                      checkpoint (app/StopRequest.hpp writes this line)
//   failed: <the error message>                        the run stopped with an error
// "running" in the directory of a job that has ended means it was killed (SIGKILL, MPI_Abort, a lost node).
#pragma once

#include <mpi.h>

#include <filesystem>
#include <string>

namespace kolmo::app {

void write_run_status(const std::filesystem::path& directory, const std::string& text, MPI_Comm comm);

// "step 12, t = 0.375"
std::string step_and_time(long step, double time);

}  // namespace kolmo::app
