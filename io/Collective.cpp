#include "io/Collective.hpp"

#include <cmath>
#include <exception>

#include "core/Error.hpp"
#include "io/DiskSpace.hpp"

namespace kolmo::io {

namespace {

template <class Real>
bool finite(Real value) {
  return std::isfinite(value);
}
template <class Real>
bool finite(const Complex<Real>& value) {
  return std::isfinite(value.re) && std::isfinite(value.im);
}

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

template <class T>
long long count_non_finite(std::span<const T> values, MPI_Comm comm) {
  long long local = 0, total = 0;
  for (const T& value : values) local += finite(value) ? 0 : 1;
  KOLMO_CHECK_MPI(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  return total;
}
template long long count_non_finite<float>(std::span<const float>, MPI_Comm);
template long long count_non_finite<double>(std::span<const double>, MPI_Comm);
template long long count_non_finite<Complex<float>>(std::span<const Complex<float>>, MPI_Comm);
template long long count_non_finite<Complex<double>>(std::span<const Complex<double>>, MPI_Comm);

std::string out_of_memory(MPI_Comm comm, std::uintmax_t bytes, const std::string& what) {
  int rank = 0;
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  return "out of memory: rank " + std::to_string(rank) + " cannot allocate " + describe_bytes(bytes) +
         " for " + what;
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
