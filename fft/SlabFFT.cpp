#include "fft/SlabFFT.hpp"

#include "core/Error.hpp"

namespace kolmo::fft {

namespace {

SlabLayout layout_for(std::array<long, 3> n, const Communicator& comm) {
  return SlabLayout(n, comm.size(), comm.rank());
}

}  // namespace

template <class Real>
SlabFFT<Real>::SlabFFT(std::array<long, 3> n, MPI_Comm comm, std::shared_ptr<Device> device, FftOptions options)
    : comm_(comm), device_(std::move(device)), options_(options), layout_(layout_for(n, comm_)) {
  // The layout has been validated above, identically on every rank; only now is anything allocated.
#if defined(KOLMO_HAVE_CUDA)
  if (device_->backend() == Backend::cuda) transforms_ = make_cuda_transforms<Real>(layout_, device_);
#endif
  if (!transforms_) transforms_ = make_host_transforms<Real>(layout_);
  const int p = layout_.ranks();
  for (Chunks* chunks : {&forward_chunks_, &backward_chunks_})
    for (auto* v : {&chunks->send_offset, &chunks->send_bytes, &chunks->recv_offset, &chunks->recv_bytes})
      v->resize(p);
  for (int q = 0; q < p; ++q) {
    // Forward: out of the packed buffer [q][x][y in q][kz], into the kx-major spectral slab.
    forward_chunks_.send_offset[q] = layout_.packed_offset(q) * sizeof(C);
    forward_chunks_.send_bytes[q] = layout_.packed_count(q) * sizeof(C);
    forward_chunks_.recv_offset[q] = layout_.spectral_chunk_offset(q) * sizeof(C);
    forward_chunks_.recv_bytes[q] = layout_.spectral_chunk_count(q) * sizeof(C);
  }
  // Backward is the same exchange reversed.
  backward_chunks_ = {forward_chunks_.recv_offset, forward_chunks_.recv_bytes, forward_chunks_.send_offset,
                      forward_chunks_.send_bytes};
  const std::size_t max_bytes = layout_.alloc_complex() * sizeof(C);
  exchange_ = make_exchange(options_.exchange, comm_.get(), device_, options_.cuda_aware_mpi, max_bytes);
  scratch_ = Buffer<C>(device_, layout_.alloc_complex());
}

template <class Real>
SlabFFT<Real>::~SlabFFT() = default;

template <class Real>
std::size_t SlabFFT<Real>::workspace_bytes() const {
  return scratch_.bytes() + transforms_->work_bytes();
}

template <class Real>
template <class Phase>
void SlabFFT<Real>::timed(double PhaseTimes::*slot, Phase phase) {
  if (!options_.profile) {
    phase();
    return;
  }
  device_->synchronize();
  const double start = MPI_Wtime();
  phase();
  device_->synchronize();
  times_.*slot += MPI_Wtime() - start;
}

template <class Real>
void SlabFFT<Real>::pack(const C* planes, C* packed) {
  // planes is [x][y][kz]; peer q's rows y in its range, for every x, become one contiguous block.
  const std::size_t row = layout_.ny() * layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    const std::size_t width = layout_.y_count(q) * layout_.nzc() * sizeof(C);
    device_->copy_2d(packed + layout_.packed_offset(q), width, planes + layout_.y_offset(q) * layout_.nzc(), row,
                     width, layout_.x_count());
  }
}

template <class Real>
void SlabFFT<Real>::unpack(const C* packed, C* planes) {
  const std::size_t row = layout_.ny() * layout_.nzc() * sizeof(C);
  for (int q = 0; q < layout_.ranks(); ++q) {
    const std::size_t width = layout_.y_count(q) * layout_.nzc() * sizeof(C);
    device_->copy_2d(planes + layout_.y_offset(q) * layout_.nzc(), row, packed + layout_.packed_offset(q), width,
                     width, layout_.x_count());
  }
}

template <class Real>
void SlabFFT<Real>::forward(const Real* in, C* out) {
  C* scratch = scratch_.data();
  // Buffers alternate between scratch and out, so in == out (in place) needs nothing special: in is read only
  // by the first step.
  timed(&PhaseTimes::compute, [&] { transforms_->forward_planes(in, scratch); });
  if (layout_.ranks() == 1) {
    timed(&PhaseTimes::compute, [&] { transforms_->forward_x(scratch, out); });
  } else {
    timed(&PhaseTimes::compute, [&] { pack(scratch, out); });
    timed(&PhaseTimes::communication, [&] { exchange_->run(out, scratch, forward_chunks_); });
    timed(&PhaseTimes::compute, [&] { transforms_->forward_x(scratch, out); });
  }
  ++times_.transforms;
}

template <class Real>
void SlabFFT<Real>::backward(const C* in, Real* out) {
  C* scratch = scratch_.data();
  timed(&PhaseTimes::compute, [&] { transforms_->backward_x(in, scratch); });
  if (layout_.ranks() > 1) {
    C* packed = reinterpret_cast<C*>(out);
    timed(&PhaseTimes::communication, [&] { exchange_->run(scratch, packed, backward_chunks_); });
    timed(&PhaseTimes::compute, [&] { unpack(packed, scratch); });
  }
  timed(&PhaseTimes::compute, [&] { transforms_->backward_planes(scratch, out); });
  ++times_.transforms;
}

template class SlabFFT<float>;
template class SlabFFT<double>;

}  // namespace kolmo::fft
