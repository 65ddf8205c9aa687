// The peer on the host: FFTW's own 3D R2C + C2R plan pair, threaded as kolmo's transforms are (OpenMP,
// omp_get_max_threads()), out of place, timed in the same run as kolmo's pair by tools/fft_bench.cpp.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "fft/LocalTransforms.hpp"

namespace kolmo::tools {

class FftwReference {
 public:
  // Plans the pair for the grid n (measured or estimated like kolmo's plans; measured plans are read from and
  // kept in wisdom_directory's wisdom file when one is given) on random data.
  FftwReference(std::array<long, 3> n, bool double_precision, fft::FftwPlanning planning,
                const std::string& wisdom_directory);
  ~FftwReference();
  FftwReference(const FftwReference&) = delete;
  FftwReference& operator=(const FftwReference&) = delete;
  // One forward + backward pair (the backward overwrites the spectrum, FFTW's default for C2R), in ms.
  double pair_ms();

  class Pair;

 private:
  std::unique_ptr<Pair> pair_;
};

}  // namespace kolmo::tools
