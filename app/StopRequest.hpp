// Ctrl-C and SIGTERM during a run: the first signal asks the run to stop cleanly (write a checkpoint and
// exit); a second one, 0.1 s or more after it, ends the process at once, writing nothing of the run's state
// (one sooner is the first's copy: GNU timeout signals kolmo, or mpiexec, and then its process group; batch
// systems signal every process of a job step, mpiexec too, which forwards its copy): a checkpoint being
// written is left as checkpoint.h5.tmp, which nothing reads, and checkpoint.h5 and checkpoint.prev.h5 stay as
// they were. Before it ends, rank 0 says so in one line on stderr and, while a run has described what the
// second signal leaves (describe_second_stop), puts that line in <dir>/status, through a temporary file and a
// rename (a reader sees the old line or the new one, never part of one). SIGPIPE (the reader of its output
// gone: kolmo run | head) asks for the same clean stop, however often it comes: each line printed after it
// raises it again.
// Under MPICH's mpiexec only the signals mpiexec forwards reach the ranks (hydra starts each in a session of
// its own): it forwards every SIGTERM, but its second SIGINT (Ctrl-C) is its own force abort, SIGKILL to
// every rank, which no handler sees; status then keeps its running line, which names the newest checkpoint,
// as after any kill (tests/app/test_runs.py checks both).
//
// Contract: install_stop_handlers(comm) once at start; rank 0 of comm is the one that speaks. stop_requested
// (comm) is collective and returns the same answer on every rank (any rank that saw a signal stops them all),
// so every rank leaves the time loop at the same step. second_stop_directory(directory) (once, before the
// first description; not collective, on every rank: only rank 0 keeps it) names the run's directory;
// describe_second_stop(line) (likewise) makes line what a second signal writes to <directory>/status and
// stderr from then on; a run keeps it current as it goes (its step, its newest checkpoint) and calls
// forget_second_stop() before it writes a final status (finished, stopped, failed), which a second signal
// then leaves as it is. The paths and the line are rendered here, outside the handler, which only copies
// bytes with async-signal-safe calls (open, write, close, rename, unlink); a directory or line too long for
// its buffer is forgotten instead (the second signal then says only that it stopped at once).
#pragma once

#include <mpi.h>

#include <filesystem>
#include <string>

namespace kolmo::app {

void install_stop_handlers(MPI_Comm comm);
bool stop_requested(MPI_Comm comm);
void second_stop_directory(const std::filesystem::path& directory);
void describe_second_stop(const std::string& line);
void forget_second_stop();

}  // namespace kolmo::app
