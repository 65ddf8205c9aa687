#include "app/RunStatus.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "io/TextFile.hpp"

namespace kolmo::app {

void write_run_status(const std::filesystem::path& directory, const std::string& text, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  try {
    io::replace_text_file(directory / "status", text + '\n');
  } catch (const Error&) {
    // Best effort (a full disk): the run's own error says more than a status line could.
  }
}

std::string step_and_time(long step, double time) {
  return "step " + std::to_string(step) + ", t = " + number_text(time, 10);
}

}  // namespace kolmo::app
