// Measured FFTW plans kept between runs (FFTW's wisdom, in a file) and agreed on by the ranks of a transform
// (internal to the host backend, fft/HostTransforms.cpp).
//
// Contract, for Real = float or double (FFTW keeps one wisdom per precision); every function takes
// fftw_planner_lock() itself, so callers must not hold it:
// - wisdom_file<Real>(directory): directory/fftw-<float|double>.wisdom ("" for an empty directory).
// - load_wisdom<Real>(directory): the first call in a process for a file imports it into FFTW's wisdom, if it
//   exists; later calls do nothing. A file FFTW cannot read (damaged, or written by another FFTW build) is
//   ignored, and the plans are measured anew. Returns what happened, for reports.
// - share_wisdom<Real>(comm): collective. Every rank leaves with the same wisdom, the union of all ranks':
//   where ranks measured the same problem differently, the lowest rank's choice. Plans made afterwards from
//   wisdom are then alike on all ranks with the same problem, and in later runs that load the file.
// - save_wisdom<Real>(directory, comm): on rank 0 of comm (other ranks return at once), merges the file's
// present content under its own
//   (its entries win) and rewrites the file, through a temporary file and a rename so that a reader never
//   sees half of it, when that adds anything. A directory that cannot be written is reported, not fatal.
//   Two runs saving at the same moment may lose each other's new entries (measured again later).
#pragma once

#include <mpi.h>

#include <string>

namespace kolmo::fft {

template <class Real>
std::string wisdom_file(const std::string& directory);
template <class Real>
std::string load_wisdom(const std::string& directory);
template <class Real>
void share_wisdom(MPI_Comm comm);
template <class Real>
std::string save_wisdom(const std::string& directory, MPI_Comm comm);

}  // namespace kolmo::fft
