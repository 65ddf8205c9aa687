// kolmo error handling.
//
// Contract: every failure the user can cause (bad configuration, impossible grid, missing file) is thrown as
// kolmo::Error with one line that names the offending key, size or file. Failures of the libraries underneath
// (MPI, CUDA, cuFFT, NCCL, FFTW, HDF5) are checked at every call through the KOLMO_CHECK_* macros, which add
// the call and the source location. Programs catch kolmo::Error at the top, print what() and exit non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace kolmo {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Where a library call failed, for the message: "MPI_Isend failed at fft/MpiExchange.cpp:42: <reason>".
[[noreturn]] void fail_at(const char* what, const char* file, int line, const std::string& reason);

}  // namespace kolmo

#define KOLMO_REQUIRE(condition, message)            \
  do {                                               \
    if (!(condition)) throw ::kolmo::Error(message); \
  } while (0)

// MPI: the error class string comes from MPI_Error_string.
#define KOLMO_CHECK_MPI(call)                                                                    \
  do {                                                                                           \
    int kolmo_mpi_status_ = (call);                                                              \
    if (kolmo_mpi_status_ != 0) ::kolmo::mpi_fail(#call, __FILE__, __LINE__, kolmo_mpi_status_); \
  } while (0)

namespace kolmo {
[[noreturn]] void mpi_fail(const char* what, const char* file, int line, int status);
}
