// Catch2 main for kolmo's tests: MPI is initialised around the whole session. Every rank runs every test;
// tests reduce their verdicts across ranks before asserting, so all ranks agree and rank 0 reports.
// Other ranks print nothing unless something fails on them.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "core/Communicator.hpp"

int main(int argc, char** argv) {
  const kolmo::MpiRuntime mpi(argc, argv);
  const int rank = mpi.rank();
  Catch::Session session;
  int status = session.applyCommandLine(argc, argv);
  if (status == 0) {
    if (rank != 0) {
      session.configData().reporterName = "compact";
      session.configData().showSuccessfulTests = false;
    }
    status = session.run();
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
