// Strided copies by a kernel (core/StridedCopy.hpp).
#include <algorithm>
#include <cstdint>

#include "core/CudaCheck.hpp"
#include "core/DependentLaunch.cuh"
#include "core/StridedCopy.hpp"

namespace kolmo {

namespace {

// Line l (row l mod rows of slice l / rows) is `units` values of type Unit; threadIdx.x runs along a line,
// threadIdx.y over the block's lines (several where lines are short).
template <class Unit>
__global__ void strided_copy_kernel(char* dst, std::size_t dpitch, std::size_t drows, const char* src,
                                    std::size_t spitch, std::size_t srows, std::size_t units,
                                    std::size_t rows, std::size_t lines) {
  wait_for_previous_kernel();
  for (std::size_t line = std::size_t(blockIdx.y) * blockDim.y + threadIdx.y; line < lines;
       line += std::size_t(gridDim.y) * blockDim.y) {
    const std::size_t row = line % rows, slice = line / rows;
    const Unit* from = reinterpret_cast<const Unit*>(src + (slice * srows + row) * spitch);
    Unit* to = reinterpret_cast<Unit*>(dst + (slice * drows + row) * dpitch);
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < units;
         i += std::size_t(gridDim.x) * blockDim.x)
      to[i] = from[i];
  }
}

template <class Unit>
void launch(cudaStream_t stream, void* dst, std::size_t dpitch, std::size_t drows, const void* src,
            std::size_t spitch, std::size_t srows, std::size_t width, std::size_t rows, std::size_t depth) {
  constexpr std::size_t threads = 256, grid_limit = 65535;
  const std::size_t units = width / sizeof(Unit), lines = rows * depth;
  // A line's threads: its units rounded up to whole warps, at most a block; short lines share a block.
  const std::size_t along = std::min(threads, (units + 31) / 32 * 32), across = threads / along;
  const dim3 block{unsigned(along), unsigned(across)};
  const dim3 grid{unsigned(std::min(grid_limit, (units + along - 1) / along)),
                  unsigned(std::min(grid_limit, (lines + across - 1) / across))};
  launch_dependent(strided_copy_kernel<Unit>, grid, block, 0, stream, static_cast<char*>(dst), dpitch, drows,
                   static_cast<const char*>(src), spitch, srows, units, rows, lines);
}

}  // namespace

void strided_copy(cudaStream_t stream, void* dst, std::size_t dpitch, std::size_t drows, const void* src,
                  std::size_t spitch, std::size_t srows, std::size_t width, std::size_t rows,
                  std::size_t depth) {
  if (width == 0 || rows == 0 || depth == 0) return;
  const std::uintptr_t all =
      reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) | dpitch | spitch | width;
  if (all % 16 == 0) return launch<int4>(stream, dst, dpitch, drows, src, spitch, srows, width, rows, depth);
  if (all % 8 == 0) return launch<int2>(stream, dst, dpitch, drows, src, spitch, srows, width, rows, depth);
  if (all % 4 == 0) return launch<int>(stream, dst, dpitch, drows, src, spitch, srows, width, rows, depth);
  if (all % 2 == 0) return launch<short>(stream, dst, dpitch, drows, src, spitch, srows, width, rows, depth);
  launch<char>(stream, dst, dpitch, drows, src, spitch, srows, width, rows, depth);
}

}  // namespace kolmo
