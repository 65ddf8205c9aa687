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

namespace kolmo::tools {

// The peer on several GPUs: cuFFTXt, one process driving GPUs 0..gpus-1 (cufftXtSetGPUs), in-place R2C then
// C2R on the library's own multi-GPU layout. Milliseconds per pair, one entry per repetition.
std::vector<double> time_cufftxt_3d(std::array<long, 3> n, bool double_precision, int gpus, int warmup,
                                    int repetitions);

}  // namespace kolmo::tools
