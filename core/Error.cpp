#include "core/Error.hpp"

#include <mpi.h>

namespace kolmo {

void fail_at(const char* what, const char* file, int line, const std::string& reason) {
  throw Error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " + reason);
}

void mpi_fail(const char* what, const char* file, int line, int status) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(status, text, &length) != MPI_SUCCESS) length = 0;
  fail_at(what, file, line, length > 0 ? std::string(text, length) : "MPI error " + std::to_string(status));
}

}  // namespace kolmo
