// Measured FFTW plans kept between runs (FFTW's wisdom, in a file) and agreed on by the ranks of a transform
// (internal to the host backend, fft/HostTransforms.cpp).
//
// Contract, for Real = float or double (FFTW keeps one wisdom per precision); every function takes
// fftw_planner_lock() itself, so callers must not hold it:
// - wisdom_file<Real>(directory): directory/fftw-<float|double>.wisdom ("" for an empty directory).
// - load_wisdom<Real>(directory): the first call in a process for a file imports it into FFTW's wisdom, if it
//   exists; later calls do nothing. A file FFTW cannot read (damaged, or written by another FFTW build) is
//   ignored, and the plans are measured anew. Returns what happened, for reports.
// - settle_wisdom<Real>(directory, comm): collective. Every rank leaves with the wisdom that the file holds
//   now, and nothing else: the union of the file's entries and all ranks', where they differ the lowest
//   rank's choice over higher ranks' over the file's. Plans made afterwards from this wisdom are the same on
//   all ranks with the same problem, and the same as in later runs that load the file (plans made while
//   measuring may not be: FFTW_MEASURE picks among near ties at random, and a rank's own choice may differ
//   from the lowest rank's). Rank 0 rewrites the file (directory "": none) when that adds anything, through
//   a temporary file and a rename so that a reader never sees half of it; a directory that cannot be written
//   is reported, not fatal. Two runs settling at the same moment may lose each other's new entries
//   (measured again later). Returns what happened to the file, on rank 0 ("" on the others).
#pragma once

#include <mpi.h>

#include <string>

namespace kolmo::fft {

template <class Real>
std::string wisdom_file(const std::string& directory);
template <class Real>
std::string load_wisdom(const std::string& directory);
template <class Real>
std::string settle_wisdom(const std::string& directory, MPI_Comm comm);

}  // namespace kolmo::fft
