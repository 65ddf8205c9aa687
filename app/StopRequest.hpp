// Ctrl-C and SIGTERM during a run: the first signal asks the run to stop cleanly (write a checkpoint and
// exit); a second one ends the process at once. SIGPIPE (the reader of its output gone: kolmo run | head)
// asks for the same clean stop, however often it comes: each line printed after it raises it again.
//
// Contract: install_stop_handlers() once at start; stop_requested(comm) is collective and returns the same
// answer on every rank (any rank that saw a signal stops them all), so every rank leaves the time loop at the
// same step.
#pragma once

#include <mpi.h>

namespace kolmo::app {

void install_stop_handlers();
bool stop_requested(MPI_Comm comm);

}  // namespace kolmo::app
