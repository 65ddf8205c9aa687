#include "app/RunStatus.hpp"

#include <fstream>
#include <system_error>

#include "app/Text.hpp"

namespace kolmo::app {

void write_run_status(const std::filesystem::path& directory, const std::string& text, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  const std::filesystem::path path = directory / "status", temporary = directory / "status.tmp";
  {
    std::ofstream file(temporary);
    file << text << '\n';
    file.close();
    if (!file) return;
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
}

std::string step_and_time(long step, double time) {
  return "step " + std::to_string(step) + ", t = " + number_text(time, 10);
}

}  // namespace kolmo::app
