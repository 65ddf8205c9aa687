// fft/TransformLanes.hpp: the lanes' SlabFFTs, and the fork and join around each batch of fields.
#include "fft/TransformLanes.hpp"

#include <mpi.h>

#include <string>

#include "core/Error.hpp"

namespace kolmo::fft {

namespace {

// The same count on every rank, or an error on every rank naming the range (a rank constructing more lanes
// than another would wait in a construction that the other never joins).
void require_agreement(MPI_Comm comm, int lanes) {
  int low = lanes, high = lanes;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_INT, MPI_MIN, comm));
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_INT, MPI_MAX, comm));
  if (low != high)
    throw Error("the ranks disagree on the count of transform lanes (from " + std::to_string(low) + " to " +
                std::to_string(high) + "): every rank must ask for the same");
}

// A lane's split at its rows; every lane has one where the first has (the same construction).
template <class Real>
RowSplit<Real>& split_of(SlabFFT<Real>& fft) {
  KOLMO_REQUIRE(fft.row_split(), "internal: rows of a transform that has no split at its rows");
  return *fft.row_split();
}

}  // namespace

template <class Real>
TransformLanes<Real>::TransformLanes(SlabFFT<Real>& first, int lanes) : first_(first) {
  require_agreement(first.comm(), lanes);
  KOLMO_REQUIRE(lanes >= 1, "transform lanes must be 1 or more, not " + std::to_string(lanes));
  KOLMO_REQUIRE(
      lanes == 1 || first.layout().ranks() == 1 || first.exchange_method() != ExchangeMethod::nccl,
      "transform lanes: " + std::to_string(lanes) +
          " with the nccl exchange, whose communicators (one a lane) may deadlock when used at once; "
          "use 1 lane, or the p2p exchange inside a node");
  const SlabLayout& l = first.layout();
  for (int k = 1; k < lanes; ++k)
    others_.push_back(std::make_unique<SlabFFT<Real>>(std::array<long, 3>{l.nx(), l.ny(), l.nz()},
                                                      first.comm(), first.device().sibling(),
                                                      first.options()));
}

template <class Real>
TransformLanes<Real>::~TransformLanes() = default;

int automatic_lanes(Backend backend, int ranks, ExchangeMethod exchange) {
  const bool copies_alone = exchange == ExchangeMethod::p2p || exchange == ExchangeMethod::loopback;
  return backend == Backend::cuda && ranks > 1 && copies_alone ? 3 : 1;
}

template <class Real>
int TransformLanes<Real>::automatic_lanes(const SlabFFT<Real>& first) {
  return fft::automatic_lanes(first.device().backend(), first.layout().ranks(), first.exchange_method());
}

template <class Real>
std::size_t TransformLanes<Real>::workspace_bytes() const {
  std::size_t bytes = 0;
  for (const auto& other : others_) bytes += other->workspace_bytes();
  return bytes;
}

template <class Real>
template <class Run>
void TransformLanes<Real>::in_lanes(std::size_t fields, Run run) {
  const std::size_t used = std::min<std::size_t>(fields, lanes());
  for (std::size_t k = 1; k < used; ++k) others_[k - 1]->device().wait_for(first_.device());
  for (std::size_t f = 0; f < fields; ++f) run(lane(f), f);
  for (std::size_t k = 1; k < used; ++k) first_.device().wait_for(others_[k - 1]->device());
}

template <class Real>
void TransformLanes<Real>::forward(const std::vector<std::pair<const Real*, C*>>& fields, Modes modes) {
  in_lanes(fields.size(),
           [&](SlabFFT<Real>& fft, std::size_t f) { fft.forward(fields[f].first, fields[f].second, modes); });
}

template <class Real>
void TransformLanes<Real>::backward(const std::vector<std::pair<const C*, Real*>>& fields, Modes modes) {
  in_lanes(fields.size(), [&](SlabFFT<Real>& fft, std::size_t f) {
    fft.backward(fields[f].first, fields[f].second, modes);
  });
}

template <class Real>
void TransformLanes<Real>::backward_to_rows(const std::vector<C*>& slabs) {
  in_lanes(slabs.size(),
           [&](SlabFFT<Real>& fft, std::size_t f) { split_of(fft).backward_to_rows(slabs[f]); });
}

template <class Real>
void TransformLanes<Real>::forward_from_rows(const std::vector<C*>& slabs) {
  in_lanes(slabs.size(),
           [&](SlabFFT<Real>& fft, std::size_t f) { split_of(fft).forward_from_rows(slabs[f]); });
}

template class TransformLanes<float>;
template class TransformLanes<double>;

}  // namespace kolmo::fft
