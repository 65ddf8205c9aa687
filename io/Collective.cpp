#include "io/Collective.hpp"

#include <exception>

#include "core/Error.hpp"

namespace kolmo::io {

namespace {

std::string error_of(const std::function<void()>& work) {
  try {
    work();
  } catch (const std::exception& error) {
    std::string message = error.what();
    return message.empty() ? "unknown error" : message;
  }
  return {};
}

}  // namespace

void agree(MPI_Comm comm, const std::string& local_error) {
  int rank = 0, size = 1;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &size));
  int mine = local_error.empty() ? size : rank, first = size;
  KOLMO_CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int length = static_cast<int>(local_error.size());
  KOLMO_CHECK_MPI(MPI_Bcast(&length, 1, MPI_INT, first, comm));
  std::string message = rank == first ? local_error : std::string(static_cast<std::size_t>(length), ' ');
  KOLMO_CHECK_MPI(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm));
  throw Error(message);
}

void on_root(MPI_Comm comm, const std::function<void()>& work) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  agree(comm, rank == 0 ? error_of(work) : std::string());
}

void on_every_rank(MPI_Comm comm, const std::function<void()>& work) {
  agree(comm, error_of(work));
}

std::string text_of_root(std::string text, MPI_Comm comm) {
  int length = static_cast<int>(text.size());
  KOLMO_CHECK_MPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text.resize(static_cast<std::size_t>(length));
  KOLMO_CHECK_MPI(MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm));
  return text;
}

void check_layout_matches(const fft::SlabLayout& layout, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
  KOLMO_REQUIRE(layout.ranks() == ranks && layout.rank() == rank,
                "the slab layout is for rank " + std::to_string(layout.rank()) + " of " +
                    std::to_string(layout.ranks()) + ", the communicator has rank " + std::to_string(rank) +
                    " of " + std::to_string(ranks));
}

}  // namespace kolmo::io
