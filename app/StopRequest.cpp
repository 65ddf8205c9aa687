#include "app/StopRequest.hpp"

#include <csignal>
#include <cstdlib>

#include "core/Error.hpp"

namespace kolmo::app {

namespace {

// A signal handler can only talk to the program through a variable of static storage: this flag is the one
// piece of global state kolmo has, and only the handler writes it.
volatile std::sig_atomic_t signals_seen = 0;

extern "C" void on_stop_signal(int signal) {
  if (signals_seen > 0) std::_Exit(128 + signal);
  signals_seen = signals_seen + 1;
}

// The reader of the run's output went away (kolmo run | head): a stop as by the first Ctrl-C, but never the
// second's end at once, since every line printed after it raises SIGPIPE again (the writes then fail
// quietly).
extern "C" void on_broken_pipe(int) {
  if (signals_seen == 0) signals_seen = 1;
}

}  // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGPIPE, on_broken_pipe);
}

bool stop_requested(MPI_Comm comm) {
  int local = signals_seen > 0 ? 1 : 0, any = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm));
  return any != 0;
}

}  // namespace kolmo::app
