// The peer on one GPU: cuFFT's own 3D R2C + C2R plan pair, timed in the same run as kolmo's.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace kolmo::tools {

struct ReferenceTimes {
  std::vector<double> in_place_ms, out_of_place_ms;  // one entry per repetition
};

// Times forward+backward pairs of cufftPlan3d-style plans on the current GPU. Returns empty vectors when
// built without CUDA.
ReferenceTimes time_cufft_3d(std::array<long, 3> n, bool double_precision, int warmup, int repetitions);

}  // namespace kolmo::tools
