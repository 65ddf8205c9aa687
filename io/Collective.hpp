// Keeping the ranks of a communicator in step when something fails on some of them only.
//
// Contract: every function but check_layout_matches and out_of_memory is collective over comm. agree() takes
// each rank's verdict (an empty string when it succeeded, else its error message) and, if any rank failed,
// throws on every rank the kolmo::Error of the lowest failing rank, so all ranks leave together instead of
// hanging in the next collective call. on_root() runs work on rank 0 only (file renames, small serial files)
// and then agrees on its outcome. text_of_root() gives every rank rank 0's text (each rank passes its own;
// only rank 0's is read), for ranks to adopt it or compare theirs with it. count_non_finite() gives every
// rank the number of values, over all ranks, that are NaN or infinite (a complex value counts once where
// either part is), so that a check of values each rank holds a share of refuses on every rank or on none;
// real and complex values of either precision. resize_on_every_rank() allocates a vector on every rank and
// agrees on the outcome.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "core/Complex.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::io {

void agree(MPI_Comm comm, const std::string& local_error);

void on_root(MPI_Comm comm, const std::function<void()>& work);

// Runs work on every rank and agrees on the outcome (for local steps that may fail on some ranks only).
void on_every_rank(MPI_Comm comm, const std::function<void()>& work);

std::string text_of_root(std::string text, MPI_Comm comm);

// T: float, double, Complex<float>, Complex<double>.
template <class T>
long long count_non_finite(std::span<const T> values, MPI_Comm comm);

// "out of memory: rank R cannot allocate <bytes> for <what>" (R: this rank of comm; not collective).
std::string out_of_memory(MPI_Comm comm, std::uintmax_t bytes, const std::string& what);

// Resizes vector to size values on every rank and agrees on the outcome. Memory may run out on some ranks
// only (the slabs of uneven splits differ, a node may be shared): a rank whose std::bad_alloc went its own
// way would leave the others waiting in the next collective call, and where a parallel file is open it would
// itself wait for ever in that file's close, which is collective too, before kolmo's last resort could end
// the job. So every rank throws out_of_memory()'s line of the lowest rank that failed.
template <class T>
void resize_on_every_rank(MPI_Comm comm, std::vector<T>& vector, std::size_t size, const std::string& what) {
  std::string error;
  try {
    vector.resize(size);
  } catch (const std::bad_alloc&) {
    error = out_of_memory(comm, std::uintmax_t(size) * sizeof(T), what);
  } catch (const std::exception& failure) {  // std::length_error: more than a vector holds
    error = what + ": " + failure.what();
  }
  agree(comm, error);
}

// Local check (not collective): layout describes this rank of comm; throws kolmo::Error naming both
// otherwise.
void check_layout_matches(const fft::SlabLayout& layout, MPI_Comm comm);

}  // namespace kolmo::io
