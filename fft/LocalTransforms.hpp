// The FFTs one rank does on its own memory, the backend-specific half of SlabFFT.
//
// Contract: made once for a layout (plans, and for cuFFT one shared work area); all calls are out of place
// and asynchronous on the device's stream. Unnormalised: forward uses exp(-i k x), backward exp(+i k x).
// - forward_planes: real slab [x][y][z] -> [x][y][kz] (2D R2C on each yz plane). Leaves its input intact.
// - backward_planes: [x][y][kz] -> [x][y][z] (2D C2R). Overwrites its input.
// - make_piece_plans(planes), then forward_planes_piece / backward_planes_piece(in, out, planes): the same
//   plane transforms on `planes` consecutive yz planes (a piece of the slab, for exchanges in pieces); in
//   and out point at the piece's first plane. Calling them for a count without plans is an internal error.
// - forward_x / backward_x: 1D C2C along kx on the spectral slab [kx][ky][kz]. Out of place they leave their
//   input intact; in place (in == out) only where x_faster_in_place().
// - forward_x_kept / backward_x_kept: the same on the compact slab [kx][kept ky][kept kz] of dealiased
//   transforms; in place (in == out) or out of place.
// - x_faster_in_place(): whether the x transforms run faster in place (in == out) than out of place, so that
//   callers arrange their buffers for it (FFTW: yes, by 1.5-6 x; cuFFT: no).
// - forward_x_columns / backward_x_columns(in, out, first, count) (one rank only): forward_x / backward_x
//   on the columns [first, first + count) of each [ky][kz] plane alone (column = ky * nzc + kz); the other
//   columns of out are left as they are. Out of place, or in place where x_faster_in_place(). Made for the
//   runs of layout.kept_column_runs();
//   another count is an internal error.
// - settle_plans(comm): collective over the transform's ranks, once all plans are made (the end of SlabFFT's
//   constructor). FFTW: where plans were measured, every rank makes them again from the wisdom the file then
//   holds, so that ranks with the same problem and later runs that load the file plan alike (runs repeat
//   bit for bit), and the choices go to the wisdom file. Nothing to do for cuFFT.
//   planning_report() says how plans were made (empty for cuFFT).
// - has_masked(), forward_x_masked, backward_x_masked, backward_planes_masked: the same steps with the
// 2/3-rule
//   mask on (ky, kz) inside the library's own kernels (cuFFT callbacks; CUDA on one rank, when cuFFT took
//   them). The masked backward steps read only kept columns and count the others as zero; the masked forward
//   x transform writes zeros to them. Out of place. Where has_masked() is false, calling them is an internal
//   error.
// - Several ranks (CUDA, SlabFFT with FftOptions::pack_in_ffts): transforms that write the exchange's chunks
//   and read what it received in their own kernels (cuFFT callbacks, fft/ChunkRoutes.hpp), by one of three
//   routes (FusedRoute): full or dealiased transforms with the callbacks in the plane transforms (chunks
//   packed as SlabLayout says, [q][x][y of q][kz], dealiased only the kept modes), or full transforms with
//   realigned planes ([ky][x][kz], cuFFT's advanced layout: each chunk [y of q][x][kz]) and the callbacks in
//   the x transforms. enable_fused(send, receive) names the two slabs they use, once (false where there are
//   none: the host, one rank, slabs too large for the callbacks' 32-bit offsets); fused_ready(route,
//   forward, own_direct) makes the plans of one direction on first use (false if cuFFT refuses them;
//   fused_refusal() says what it refused). Then:
//   forward_planes_to_chunks(in, work, route, own_direct): 2D R2C of the slab; each peer's chunk lands in
//     `send`; this rank's own chunk too, or with own_direct (plane callbacks) where the x transforms read it
//     in `receive`. `work` (a slab, not the input; unused by realigned planes) holds cuFFT's intermediate
//     planes and is overwritten.
//   forward_x_from_chunks(out, route): the x transforms of what arrived (and realigned: of the own chunk in
//     `send`) into the spectral slab out (dealiased: its kept modes only).
//   backward_x_to_chunks(in, route): the x transforms of the spectral slab in (dealiased: its kept modes
//     only) into the peers' chunks in `send`; returns whether this rank's own chunk went straight to where
//     the plane transforms read it in `receive` (else it is in `send` with the others).
//   backward_planes_from_chunks(out, route): the 2D C2R of the planes that `receive` holds (dealiased: the
//     other modes count as zero) into the real slab out; overwrites `send` (realigned: `receive`).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

#include "core/Complex.hpp"
#include "core/Device.hpp"
#include "core/Error.hpp"
#include "fft/SlabLayout.hpp"

namespace kolmo::fft {

// How FFTW chooses its algorithms (host backend): by timing them (measure: FFTW_MEASURE) or by its
// heuristics (estimate: FFTW_ESTIMATE, instant and the same in every run, but up to 2 x slower above 64^3);
// automatic measures grids of at least kMeasuredPoints points, below which measuring takes longer than the
// transforms of a whole run would save.
enum class FftwPlanning { automatic, estimate, measure };
constexpr long kMeasuredPoints = 1L << 16;

enum class FusedRoute { full, dealiased, full_realigned };

template <class Real>
class LocalTransforms {
 public:
  using C = Complex<Real>;
  virtual ~LocalTransforms() = default;
  virtual void forward_planes(const Real* in, C* out) = 0;
  virtual void backward_planes(C* in, Real* out) = 0;
  virtual void make_piece_plans(long planes) = 0;
  virtual void forward_planes_piece(const Real* in, C* out, long planes) = 0;
  virtual void backward_planes_piece(C* in, Real* out, long planes) = 0;
  virtual void forward_x(const C* in, C* out) = 0;
  virtual void backward_x(const C* in, C* out) = 0;
  virtual void forward_x_kept(const C* in, C* out) = 0;
  virtual void backward_x_kept(const C* in, C* out) = 0;
  virtual void forward_x_columns(const C* in, C* out, long first, long count) = 0;
  virtual void backward_x_columns(const C* in, C* out, long first, long count) = 0;
  virtual void settle_plans(MPI_Comm) {}
  virtual bool x_faster_in_place() const { return false; }
  virtual std::string planning_report() const { return ""; }
  virtual bool has_masked() const { return false; }
  virtual void forward_x_masked(const C*, C*) { throw Error("internal: no masked transforms here"); }
  virtual void backward_x_masked(const C*, C*) { throw Error("internal: no masked transforms here"); }
  virtual void backward_planes_masked(C*, Real*) { throw Error("internal: no masked transforms here"); }
  virtual bool enable_fused(C* /*send*/, C* /*receive*/) { return false; }
  virtual bool fused_ready(FusedRoute, bool /*forward*/, bool /*own_direct*/) { return false; }
  virtual std::string fused_refusal() const { return {}; }
  virtual void forward_planes_to_chunks(const Real*, C*, FusedRoute, bool) { no_fused(); }
  virtual void forward_x_from_chunks(C*, FusedRoute) { no_fused(); }
  virtual bool backward_x_to_chunks(const C*, FusedRoute) { no_fused(); }
  virtual void backward_planes_from_chunks(Real*, FusedRoute) { no_fused(); }
  // Bytes of library work space these transforms hold (0 for FFTW, the shared cuFFT work area for CUDA).
  virtual std::size_t work_bytes() const = 0;

 private:
  [[noreturn]] static void no_fused() { throw Error("internal: no fused transforms here"); }
};

// wisdom_directory: where measured plans are kept between runs (fft/FftwWisdom.hpp); "" for nowhere.
template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_host_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device,
                                                            FftwPlanning planning,
                                                            const std::string& wisdom_directory);
template <class Real>
std::unique_ptr<LocalTransforms<Real>> make_cuda_transforms(const SlabLayout& layout,
                                                            const std::shared_ptr<Device>& device);

}  // namespace kolmo::fft
