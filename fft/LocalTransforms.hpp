// The backend of SlabFFT's local FFTs: a factory of executors (fft/Executors.hpp), one per plan shape.
//
// Contract: made once for a layout (for cuFFT: one work area that every plan shares, since they never run at
// the same time); every executor it makes lives no longer than it.
// - planes(count): the plane transforms of `count` consecutive yz planes (the slab, or a piece of it), out of
//   place; backward may overwrite its input. CUDA: cuFFT's 2D plans, or kolmo's row and column FFTs where
//   they take Nz and Ny and a timing finds them faster, per direction.
// - x_slab(), x_kept(): the x transforms of the spectral slab's columns and of the compact slab's
// (dealiased).
// - x_run(first, count): the x transforms of the columns [first, first + count) of each [ky][kz] plane of
//   the spectral slab (column = local ky * nzc + kz), for the runs of layout.kept_column_runs() (one rank's
//   dealiasing, the strided route's across ranks).
// - x_masked() (one rank): the x transforms with the 2/3 mask inside the library's kernels (cuFFT callbacks);
//   nullptr where there are none (the host; cuFFT refused them).
// - pruned_planes(count, forward_runs), pruned_x() (CUDA): the pruned dealiased route's executors (one
//   rank's, and the strided route's across ranks, whole or in pieces): the plane transforms of `count`
//   consecutive planes, the x transforms of the slab. forward_runs false: no route will run the planes'
//   forward (the placing planes take it), which is then made without a timing of its groups. Planes: the
//   transforms along z of every row and kolmo's column FFTs along y of the kept kz columns only
//   (fft/ColumnFft.hpp; forward writes only the kept ky of them, backward reads only those and overwrites
//   its input). Along z, where Nz is a power of two from 16 to 4096, kolmo's row FFTs (fft/RowFft.hpp):
//   forward writes only the kept kz modes, backward reads only those; otherwise cuFFT's 1D transforms, which
//   write all Nz/2 + 1 modes, and backward then writes zeros to the dropped kz columns, which they read.
//   x: the column FFTs along x of the kept (ky, kz) columns only, out of place (input intact) or in place,
//   the other columns of out left as they are. nullptr where there are none (the host, Nx or Ny not a power
//   of two from 8 to 2048).
// - placing_planes(dealiased, arrived) (CUDA, several ranks): the strided route's plane transforms by
//   kolmo's column FFTs along y, which place the rank's own ky rows themselves, so that the route copies no
//   own chunk: forward writes the planes [x][y][kz] to out, except the own ky rows, which go to their places
//   in the spectral slab `arrived` [kx][ky][kz] (fixed when made: where the x transforms read); backward
//   reads the own rows from the spectral slab that its out holds (where the x transforms left them) and the
//   others from in. Full: every mode (cuFFT's 1D transforms along z); dealiased: the pruned planes' modes.
//   nullptr where there are none (the host, one rank, a rank of no x plane, Ny not a length the column FFTs
//   take; dealiased: nor Nx).
// - placing_x(planes) (CUDA, where placing_planes(true, ...) exists): the dealiased route's x transforms
//   (pruned_x) whose backward stores the rank's own ky rows of its x planes (the kx of its x planes) to their
//   places in the planes [x][y][kz] at `planes` (fixed when made: where the plane transforms read), the rest
//   to out; forward as pruned_x. The strided route's dealiased backward transforms then read every row from
//   the planes, and their plane transforms are the pruned ones. nullptr where there are none.
// - row_split(exchange) (CUDA): the pruned route split at its rows along z (fft/RowSplit.hpp), with no
//   exchange on one rank, across ranks with the RowExchange SlabFFT gives (its places_own_rows only where
//   placing_x exists); nullptr where the pruned route has no row FFTs (Nz not a power of two from 16 to
//   4096) or the exchange does not match the rank count.
// - enable_fused(send, receive): names the two slabs the fused executors use, once; false where there are
//   none (the host, one rank, slabs too large for the callbacks' 32-bit offsets). Then fused_planes(route,
//   forward, own_direct) and fused_x(route, forward, own_direct, &own_placed) make the executors of one
//   direction of a route (FusedRoute); nullptr where cuFFT refuses them (fused_refusal() says what it
//   refused). own_direct matters forward only: the plane executor puts the own chunk where the x executor
//   reads what arrived, or (false: in place, where that slab holds the planes' work) packed with the others.
//   The forward x executor without own_direct reads it there; nullptr where there is none (the route then
//   copies the own chunk and takes the one with own_direct). own_placed: whether the backward x executor
//   puts the rank's own chunk where the plane executor reads it.
//   full_chunks_by_columns(): whether FusedRoute::full's plane transforms store the chunks by kolmo's
//   column FFTs (CUDA: where they take Ny) rather than by cuFFT's callbacks, which cost more
//   (FftOptions::realigned_planes automatic takes that route only then).
// - x_faster_in_place(): whether the spectral slab's x transforms run faster in place (in == out) than out
//   of place, so that routes arrange their buffers for it (FFTW: yes, by 1.5-6 x; cuFFT: no).
// - settle_plans(comm): collective over the transform's ranks, once all executors are made (the end of
//   SlabFFT's constructor). FFTW: where plans were measured, every rank makes them again from the wisdom the
//   file then holds, so that ranks with the same problem and later runs that load the file plan alike (runs
//   repeat bit for bit), and the choices go to the wisdom file. Nothing to do for cuFFT.
//   planning_report() says how plans were made (FFTW), or in how many groups the plane transforms run
//   (cuFFT; FftOptions::plane_groups), with the times that chose them.
// - work_bytes(): bytes of work space (0 for FFTW; for CUDA the shared cuFFT work area, the dealiasing mask
//   and the row and column FFTs' twiddle tables).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

#include "../core/Complex.hpp"
#include "../core/Device.hpp"
#include "../core/Error.hpp"
#include "RowSplit.hpp"
#include "SlabLayout.hpp"

namespace kolmo::fft {

class RouteChoices;

// How FFTW chooses its algorithms (host backend): by timing them (measure: FFTW_MEASURE) or by its
// heuristics (estimate: FFTW_ESTIMATE, instant and the same in every run, but up to 2 x slower above 64^3);
// automatic measures grids of at least kMeasuredPoints points, below which measuring takes longer than the
// transforms of a whole run would save.
enum class FftwPlanning { automatic, estimate, measure };
constexpr long kMeasuredPoints = 1L << 16;

template <class Real>
class PlaneTransform;
template <class Real>
class XTransform;

// How several GPU ranks pack in the transforms' kernels: full or dealiased transforms whose plane transforms
// store and load the chunks packed as SlabLayout says ([q][x][y of q][kz], dealiased only the kept modes; by
// kolmo's column FFTs where they take Ny, dealiased also Nx, by cuFFT's callbacks otherwise), or full
// transforms with realigned planes ([ky][x][kz], cuFFT's advanced layout: each chunk [y of q][x][kz]) and x
// transforms that load and store the chunks (kolmo's column FFTs where they take Nx, the callbacks
// otherwise).
enum class FusedRoute { full, dealiased, full_realigned };

template <class Real>
class LocalTransforms {
 public:
  using C = Complex<Real>;
  virtual ~LocalTransforms() = default;
  virtual std::unique_ptr<PlaneTransform<Real>> planes(long count) = 0;
  virtual std::unique_ptr<XTransform<Real>> x_slab() = 0;
  virtual std::unique_ptr<XTransform<Real>> x_kept() = 0;
  virtual std::unique_ptr<XTransform<Real>> x_run(long first, long count) = 0;
  virtual std::unique_ptr<XTransform<Real>> x_masked() { return nullptr; }
  virtual std::unique_ptr<PlaneTransform<Real>> pruned_planes(long /*count*/, bool /*forward_runs*/) {
    return nullptr;
  }
  virtual std::unique_ptr<XTransform<Real>> pruned_x() { return nullptr; }
  virtual std::unique_ptr<PlaneTransform<Real>> placing_planes(bool /*dealiased*/, C* /*arrived*/) {
    return nullptr;
  }
  virtual std::unique_ptr<XTransform<Real>> placing_x(C* /*planes*/) { return nullptr; }
  virtual std::unique_ptr<RowSplit<Real>> row_split(RowExchange<Real> /*exchange*/) { return nullptr; }
  virtual bool enable_fused(C* /*send*/, C* /*receive*/) { return false; }
  virtual std::unique_ptr<PlaneTransform<Real>> fused_planes(FusedRoute, bool /*forward*/,
                                                             bool /*own_direct*/) {
    return nullptr;
  }
  virtual std::unique_ptr<XTransform<Real>> fused_x(FusedRoute, bool /*forward*/, bool /*own_direct*/,
                                                    bool* /*own_placed*/) {
    return nullptr;
  }
  virtual std::string fused_refusal() const { return {}; }
  virtual bool full_chunks_by_columns() const { return false; }
  virtual bool x_faster_in_place() const { return false; }
  virtual void settle_plans(MPI_Comm) {}
  virtual std::string planning_report() const { return ""; }
  virtual std::size_t work_bytes() const = 0;
};

// wisdom_directory: where measured plans are kept between runs (fft/FftwWisdom.hpp); "" for nowhere.
template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_host_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device,
                                                            FftwPlanning planning,
                                                            const std::string& wisdom_directory);
// plane_groups: FftOptions::plane_groups. choices: where the timed choices of plane groups and kernels are
// kept and adopted (fft/RouteChoices.hpp; it outlives the backend's construction of executors; null: timed).
template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_cuda_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device,
                                                            int plane_groups, RouteChoices* choices);
// The largest cuFFT work area the slab's plane and x transforms of this layout ask for, by cuFFT's own
// sizing (cufftGetSizeMany64: nothing is planned or allocated): for memory estimates before a run, since at
// some sizes it is a whole slab (1080^3 single: 4.7 GiB). CUDA builds only, with a current device.
template <class Real>
std::size_t cuda_work_bytes(const SlabLayout& layout);
// The libraries' versions, for what depends on them (the timed route choices, fft/RouteChoices.hpp):
// "cuFFT 12000, driver 13000" (CUDA builds only), "fftw-3.3.10".
std::string cuda_library_versions();
std::string fftw_library_version();

}  // namespace kolmo::fft
