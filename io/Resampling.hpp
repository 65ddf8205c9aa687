// Which Fourier modes of a field on one grid become which on another: a run started (or continued) on a finer
// or coarser grid than its checkpoint's, by spectral interpolation. The field is the trigonometric
// interpolant of its grid values, so a finer grid gets the same field exactly (zero padding), and a coarser
// one keeps the modes it can hold (truncation).
//
// Contract, per axis (file length F, run length R; index i holds wavenumber i for i <= N/2, i - N above, the
// half axis z holding kz = 0 ... N/2 only):
// - F = R: every mode, as stored.
// - otherwise the wavenumbers |k| <= (min(F, R) - 1) / 2 go to the same wavenumber;
// - a finer grid (R > F, F even) also gets the file's Nyquist mode k = F/2, which on the file's grid is
//   k = -F/2 as well: half of it goes to +F/2 and half to -F/2 (along z, where -F/2 is the conjugate that
//   the half axis does not store, half to kz = F/2), so that the run's field is the real interpolant,
//   cos(F x / 2) for the Nyquist mode, and takes the same values at the file's points;
// - a coarser grid (R < F) holds nothing at its own Nyquist index R/2 (R even): the file's modes +R/2 and
//   -R/2 both fold onto it, and one of them alone would make it neither.
// The mapping is odd in k (k and -k alike), so Hermitian symmetry, and with it a real field, is kept. Modes
// of a run's grid that no segment reaches are zero.
// - full_axis_segments(F, R) along x and y; half_axis_segments(F, R) along z. Each AxisSegment copies the
//   file's indices [file, file + count) to the run's [run, run + count), times scale (1, or 1/2 for each
//   half of a split Nyquist mode). The segments of an axis do not overlap in the run's indices.
#pragma once

#include <array>
#include <vector>

namespace kolmo::io {

struct AxisSegment {
  long file = 0;
  long run = 0;
  long count = 0;
  double scale = 1;
};

std::vector<AxisSegment> full_axis_segments(long file_n, long run_n);
std::vector<AxisSegment> half_axis_segments(long file_n, long run_n);

// The file's indices that some of the segments read, as ranges [first, end) in increasing order, those that
// touch or overlap merged: what a reader takes from the file once for all the segments.
std::vector<std::array<long, 2>> file_ranges(std::vector<AxisSegment> segments);

}  // namespace kolmo::io
