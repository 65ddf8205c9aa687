#include "app/RunStatus.hpp"

#include <cstdio>
#include <fstream>
#include <system_error>

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
  char text[64];
  std::snprintf(text, sizeof text, "step %ld, t = %.10g", step, time);
  return text;
}

}  // namespace kolmo::app
