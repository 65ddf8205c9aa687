// Catch2 main for kolmo's tests: MPI is initialised around the whole session. Every rank runs every test;
// tests reduce their verdicts across ranks before asserting, so all ranks agree and rank 0 reports.
// Other ranks print nothing unless something fails on them. A test case that stops early on some ranks (an
// exception, a failed REQUIRE) would leave the others waiting forever in its collective calls, so on several
// ranks such a stop aborts the whole job, after Catch2 has reported it.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "core/Communicator.hpp"

namespace {

class StopAbortsTheJob : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  bool assertionEnded(Catch::AssertionStats const& stats) override {
    const Catch::AssertionResult& result = stats.assertionResult;
    const bool continues =
        (result.m_info.resultDisposition & Catch::ResultDisposition::ContinueOnFailure) != 0;
    if (!result.isOk() && (!continues || result.getResultType() == Catch::ResultWas::ThrewException ||
                           result.getResultType() == Catch::ResultWas::FatalErrorCondition))
      stopped_ = true;
    return true;
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    int ranks = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!stopped_ || ranks == 1) return;
    std::fflush(stdout);
    std::fprintf(
        stderr,
        "rank %d: test case \"%s\" stopped early here; aborting the job, since the other ranks would "
        "wait for this one forever\n",
        rank, stats.testInfo.name.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

 private:
  bool stopped_ = false;
};

}  // namespace

CATCH_REGISTER_LISTENER(StopAbortsTheJob)

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
