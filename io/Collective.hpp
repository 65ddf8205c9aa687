// Keeping the ranks of a communicator in step when something fails on some of them only.
//
// Contract: every function but check_layout_matches is collective over comm. agree() takes each rank's
// verdict (an empty string when it succeeded, else its error message) and, if any rank failed, throws on
// every rank the kolmo::Error of the lowest failing rank, so all ranks leave together instead of hanging in
// the next collective call. on_root() runs work on rank 0 only (file renames, small serial files) and then
// agrees on its outcome. text_of_root() gives every rank rank 0's text (each rank passes its own; only rank
// 0's is read), for ranks to adopt it or compare theirs with it. count_non_finite() gives every rank the
// number of values, over all ranks, that are NaN or infinite (a complex value counts once where either part
// is), so that a check of values each rank holds a share of refuses on every rank or on none; real and
// complex values of either precision.
#pragma once

#include <mpi.h>

#include <functional>
#include <span>
#include <string>

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

// Local check (not collective): layout describes this rank of comm; throws kolmo::Error naming both
// otherwise.
void check_layout_matches(const fft::SlabLayout& layout, MPI_Comm comm);

}  // namespace kolmo::io
