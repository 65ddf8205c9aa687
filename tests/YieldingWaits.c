/* Blocking MPI calls that give the processor away while they wait, for tests with more ranks than cores.
 *
 * Contract: preloaded into every rank of a test (LD_PRELOAD; kolmo_mpi_tests in CMakeLists.txt does it), this
 * library replaces the blocking collectives and waits that kolmo, HDF5 and the tests call by their
 * nonblocking forms completed in a loop of MPI_Test and sched_yield. Results and matching are those of the
 * blocking calls: every rank preloads the same library, so a collective is nonblocking on all ranks of a
 * communicator or on none, and the MPI standard lets nonblocking collectives complete in any order of tests.
 *
 * Why: CI and this project's machines have 2 cores while the MPI tests run on up to 4 ranks. MPICH's ch4
 * device polls without yielding while it waits, so a waiting rank holds a core for its whole scheduler slice
 * while the rank it waits for is not running: each collective then costs several slices (measured: the
 * checkpoint tests on 3 ranks of 2 cores spent about 30 ms a collective, 16.8 s for one test case; 3.0 s with
 * these waits). Only the tests use it; kolmo itself keeps MPI's own waits, which are faster when every rank
 * has its core. */
#include <mpi.h>
#include <sched.h>

static int complete(MPI_Request* request, MPI_Status* status, int started) {
  if (started != MPI_SUCCESS) return started;
  for (;;) {
    int done = 0;
    const int result = PMPI_Test(request, &done, status);
    if (result != MPI_SUCCESS || done) return result;
    sched_yield();
  }
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return complete(request, status, MPI_SUCCESS);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  for (;;) {
    int done = 0;
    const int result = PMPI_Testall(count, requests, &done, statuses);
    if (result != MPI_SUCCESS || done) return result;
    sched_yield();
  }
}

int MPI_Barrier(MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE, PMPI_Ibarrier(comm, &r));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE, PMPI_Ibcast(buffer, count, type, root, comm, &r));
}

int MPI_Reduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE, PMPI_Ireduce(send, receive, count, type, op, root, comm, &r));
}

int MPI_Allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE, PMPI_Iallreduce(send, receive, count, type, op, comm, &r));
}

int MPI_Gather(const void* send, int send_count, MPI_Datatype send_type, void* receive, int receive_count,
               MPI_Datatype receive_type, int root, MPI_Comm comm) {
  MPI_Request r;
  return complete(
      &r, MPI_STATUS_IGNORE,
      PMPI_Igather(send, send_count, send_type, receive, receive_count, receive_type, root, comm, &r));
}

int MPI_Gatherv(const void* send, int send_count, MPI_Datatype send_type, void* receive,
                const int receive_counts[], const int displacements[], MPI_Datatype receive_type, int root,
                MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE,
                  PMPI_Igatherv(send, send_count, send_type, receive, receive_counts, displacements,
                                receive_type, root, comm, &r));
}

int MPI_Allgather(const void* send, int send_count, MPI_Datatype send_type, void* receive, int receive_count,
                  MPI_Datatype receive_type, MPI_Comm comm) {
  MPI_Request r;
  return complete(
      &r, MPI_STATUS_IGNORE,
      PMPI_Iallgather(send, send_count, send_type, receive, receive_count, receive_type, comm, &r));
}

int MPI_Allgatherv(const void* send, int send_count, MPI_Datatype send_type, void* receive,
                   const int receive_counts[], const int displacements[], MPI_Datatype receive_type,
                   MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE,
                  PMPI_Iallgatherv(send, send_count, send_type, receive, receive_counts, displacements,
                                   receive_type, comm, &r));
}

int MPI_Alltoallv(const void* send, const int send_counts[], const int send_displacements[],
                  MPI_Datatype send_type, void* receive, const int receive_counts[],
                  const int receive_displacements[], MPI_Datatype receive_type, MPI_Comm comm) {
  MPI_Request r;
  return complete(&r, MPI_STATUS_IGNORE,
                  PMPI_Ialltoallv(send, send_counts, send_displacements, send_type, receive, receive_counts,
                                  receive_displacements, receive_type, comm, &r));
}
