// Several fields transformed at once, in lanes: each lane a SlabFFT of the same problem on a stream of its
// own, so that one field's passes run beside another's. A rank's share of a transform over P GPUs is small
// (one field of a rank of 8 at 512^3 is 64 planes and 44 kept ky planes), and its passes then cost more per
// column than the one GPU's, from their ramps and tails; with two or three fields in flight they fill each
// other's: on one H200 every rank timed of 2, 4 and 8 at 512^3 took 0.97-1.04 of its share, where one field
// alone took up to 1.21 (docs/results/fields_in_flight_h200.log; README: "One rank's share").
//
// Contract:
// - TransformLanes<Real>(first, lanes): lane 0 is `first`, the caller's transform, on its device; lanes 1 to
//   lanes - 1 are SlabFFTs constructed as first was (its grid, communicator and options) on siblings of its
//   device (core/Device.hpp: the same GPU, a stream each). Collective over first's communicator, as SlabFFT's
//   construction is; every rank asks for the same count. lanes < 1 throws kolmo::Error on every rank, and so
//   does lanes > 1 with the nccl exchange across ranks (NCCL's communicators, one a lane, may deadlock when
//   their collectives run at once: NCCL's guide, "Using multiple NCCL communicators concurrently").
// - automatic_lanes(backend, ranks, exchange): the count that pays, 3 (a vector field's components) on
//   several GPU ranks whose exchange needs no kernel of its own and no host waiting on the device (p2p
//   inside a node; loopback, the emulated ranks of benchmarks), 1 elsewhere: one GPU gains 3 % for a slab
//   of memory a lane, the host runs lanes one after another, and exchanges by MPI make the host wait for
//   each lane's device work in turn. TransformLanes::automatic_lanes(first) is that count for first.
// - forward(fields, modes), backward(fields, modes): field f, {in, out} as SlabFFT::forward and ::backward
//   take them, goes to lane f mod lanes. The lanes start after everything queued on first's device before
//   the call, and what is queued there after it waits for all of them (events on a GPU), so that callers
//   see one stream as with SlabFFT. The fields run at once: no field's in or out may overlap another
//   field's (each may be in place). Results are each lane's SlabFFT's, the same transform as first's up to
//   the choices each lane's construction timed (equal bit for bit where the choices are kept,
//   FftOptions::route_choices_directory).
// - row_split(): first's split at the rows (SlabFFT::row_split; null where it has none), whose rows() and
//   twiddles() are every lane's. backward_to_rows(slabs), forward_from_rows(slabs): RowSplit's calls of
//   each slab, in the lanes as the transforms go (slab f to lane f mod lanes), where first has a split
//   (an internal error otherwise); no slab may overlap another.
// - workspace_bytes(): what the lanes beyond the first hold on the device (SlabFFT::workspace_bytes each).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "SlabFFT.hpp"

namespace kolmo::fft {

int automatic_lanes(Backend backend, int ranks, ExchangeMethod exchange);

template <class Real>
class TransformLanes {
 public:
  using C = Complex<Real>;

  TransformLanes(SlabFFT<Real>& first, int lanes);
  ~TransformLanes();
  TransformLanes(const TransformLanes&) = delete;
  TransformLanes& operator=(const TransformLanes&) = delete;

  static int automatic_lanes(const SlabFFT<Real>& first);

  int lanes() const { return static_cast<int>(others_.size()) + 1; }
  std::size_t workspace_bytes() const;

  void forward(const std::vector<std::pair<const Real*, C*>>& fields, Modes modes = Modes::all);
  void backward(const std::vector<std::pair<const C*, Real*>>& fields, Modes modes = Modes::all);

  RowSplit<Real>* row_split() const { return first_.row_split(); }
  void backward_to_rows(const std::vector<C*>& slabs);
  void forward_from_rows(const std::vector<C*>& slabs);

 private:
  SlabFFT<Real>& lane(std::size_t f) { return f % lanes() == 0 ? first_ : *others_[f % lanes() - 1]; }
  // Each field's transform on its lane, between the fork from first's device and the join back to it.
  template <class Run>
  void in_lanes(std::size_t fields, Run run);

  SlabFFT<Real>& first_;
  std::vector<std::unique_ptr<SlabFFT<Real>>> others_;
};

}  // namespace kolmo::fft
