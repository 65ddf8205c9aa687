// Keeping the ranks of a communicator in step when something fails on some of them only.
//
// Contract: both functions are collective over comm. agree() takes each rank's verdict (an empty string when
// it succeeded, else its error message) and, if any rank failed, throws on every rank the kolmo::Error of the
// lowest failing rank, so all ranks leave together instead of hanging in the next collective call.
// on_root() runs work on rank 0 only (file renames, small serial files) and then agrees on its outcome.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "fft/SlabLayout.hpp"

namespace kolmo::io {

void agree(MPI_Comm comm, const std::string& local_error);

void on_root(MPI_Comm comm, const std::function<void()>& work);

// Runs work on every rank and agrees on the outcome (for local steps that may fail on some ranks only).
void on_every_rank(MPI_Comm comm, const std::function<void()>& work);

// Local check (not collective): layout describes this rank of comm; throws kolmo::Error naming both
// otherwise.
void check_layout_matches(const fft::SlabLayout& layout, MPI_Comm comm);

}  // namespace kolmo::io
