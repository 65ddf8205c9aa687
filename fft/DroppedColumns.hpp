// Zeroing what the 2/3 rule drops from one rank's planes [x][y][kz], after x transforms of the kept ky rows
// alone (the one-rank dealiased backward transform of SlabFFT).
//
// Contract: zero_dropped_columns(device, layout, planes), for a one-rank layout, sets to zero every value of
// the planes whose ky or kz the 2/3 rule drops (SlabLayout::kept) and leaves the others; asynchronous on the
// device's stream.
#pragma once

#include "core/Complex.hpp"
#include "core/Device.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

template <class Real>
void zero_dropped_columns(Device& device, const SlabLayout& layout, Complex<Real>* planes);

}  // namespace kolmo::fft
