// Compiled by nvcc when CUDA is on (its kernel runs on either backend).
#include "fft/DroppedColumns.hpp"

#include <cstdint>

#include "core/Error.hpp"
#include "core/ParallelFor.hpp"

namespace kolmo::fft {

namespace {

// The dropped kz of the kept rows: one index per value, each row's tail padded to a power of two so that
// a shift and a mask find the value in its row. Index is 32-bit where the count allows: the division that
// finds the row's plane is the kernel's main cost on a GPU besides its writes, and a 64-bit one is several
// times slower.
template <class Index, class C>
void zero_kz_tails(Device& device, C* planes, const SlabLayout& layout) {
  const auto& runs = layout.kept_runs(0);
  const Index ny = Index(layout.ny()), nzc = Index(layout.nzc()), kept_z = Index(layout.kept_z());
  const Index tail = nzc - kept_z, kept_rows = Index(layout.kept_y_count());
  const Index first_start = Index(runs[0].start), first_count = Index(runs[0].count);
  const Index second_start = runs.size() > 1 ? Index(runs[1].start) : 0;
  int shift = 0;
  while ((Index(1) << shift) < tail) ++shift;
  const Index mask = (Index(1) << shift) - 1;
  parallel_for(
      device, (layout.nx() * long(kept_rows)) << shift, KOLMO_LAMBDA(long i) {
        const Index value = Index(i), kz = value & mask, kept_row = value >> shift;
        if (kz >= tail) return;
        const Index x = kept_row / kept_rows, j = kept_row - x * kept_rows;
        const Index y = j < first_count ? first_start + j : second_start + (j - first_count);
        planes[(std::size_t(x) * ny + y) * nzc + kept_z + kz] = C(0, 0);
      });
}

}  // namespace

template <class Real>
void zero_dropped_columns(Device& device, const SlabLayout& layout, Complex<Real>* planes) {
  using C = Complex<Real>;
  const auto& runs = layout.kept_runs(0);
  if (layout.ranks() != 1 || runs.size() > 2)
    throw Error("internal: zero_dropped_columns expects one rank's layout (at most two kept ky runs)");
  const std::size_t nzc = layout.nzc(), ny = layout.ny(), plane_bytes = ny * nzc * sizeof(C);
  // Whole dropped rows lie between the kept runs, contiguous within each plane.
  std::size_t row = 0;
  for (const auto& run : runs) {
    device.fill_zero_2d(planes + row * nzc, plane_bytes, (run.start - row) * nzc * sizeof(C), layout.nx());
    row = run.start + run.count;
  }
  device.fill_zero_2d(planes + row * nzc, plane_bytes, (ny - row) * nzc * sizeof(C), layout.nx());
  const long tail = layout.nzc() - layout.kept_z();
  if (tail == 0) return;
  // Indices run to rows x (tail rounded up to a power of two) < 2 x rows x tail.
  if (2 * layout.nx() * layout.kept_y_count() * tail <= long(UINT32_MAX))
    zero_kz_tails<std::uint32_t>(device, planes, layout);
  else
    zero_kz_tails<std::uint64_t>(device, planes, layout);
}

template void zero_dropped_columns<float>(Device&, const SlabLayout&, Complex<float>*);
template void zero_dropped_columns<double>(Device&, const SlabLayout&, Complex<double>*);

}  // namespace kolmo::fft
