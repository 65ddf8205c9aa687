// The NCCL exchange: grouped ncclSend/ncclRecv per peer on the device's stream (pipelined pieces: on a stream
// of its own), nothing staged, no host sync.
// The communicator is bootstrapped through MPI (rank 0 makes the unique id and broadcasts it).
#include <nccl.h>

#include <string>
#include <vector>

#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/Exchange.hpp"

#define KOLMO_CHECK_NCCL(call)                                                             \
  do {                                                                                     \
    ncclResult_t kolmo_nccl_status_ = (call);                                              \
    if (kolmo_nccl_status_ != ncclSuccess)                                                 \
      ::kolmo::fail_at(#call, __FILE__, __LINE__, ncclGetErrorString(kolmo_nccl_status_)); \
  } while (0)

namespace kolmo::fft {

namespace {

class NcclExchange final : public Exchange {
 public:
  NcclExchange(MPI_Comm comm, const std::shared_ptr<Device>& device) : device_(device) {
    KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &rank_));
    KOLMO_CHECK_MPI(MPI_Comm_size(comm, &size_));
    ncclUniqueId id{};
    if (rank_ == 0) KOLMO_CHECK_NCCL(ncclGetUniqueId(&id));
    KOLMO_CHECK_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
    KOLMO_CHECK_CUDA(cudaSetDevice(device->index()));
    ncclComm_t comm_here = nullptr;
    KOLMO_CHECK_NCCL(ncclCommInitRank(&comm_here, size_, id, rank_));
    comm_ = NcclComm(comm_here);
  }
  ExchangeMethod method() const override { return ExchangeMethod::nccl; }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    exchange(send, recv, chunks, static_cast<cudaStream_t>(device_->stream()));
  }

  // Pieces go through a stream of NCCL's own, so that the device's stream computes meanwhile: the exchange
  // waits for what the device's stream has queued, and the device's stream waits for the exchange only at
  // finish.
  void start(const void* send, void* recv, const Chunks& chunks, int piece) override {
    auto compute = static_cast<cudaStream_t>(device_->stream());
    if (!stream_) {
      // The highest priority: NCCL's kernels start as soon as their data are ready, rather than queueing
      // behind the FFT kernels that fill the GPU meanwhile.
      int least = 0, greatest = 0;
      KOLMO_CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      cudaStream_t stream = nullptr;
      KOLMO_CHECK_CUDA(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
      stream_ = Stream(stream);
      ready_ = new_event(cudaEventDisableTiming);
    }
    while (static_cast<int>(done_.size()) <= piece) done_.push_back(new_event(cudaEventDisableTiming));
    KOLMO_CHECK_CUDA(cudaEventRecord(ready_.get(), compute));
    KOLMO_CHECK_CUDA(cudaStreamWaitEvent(stream_.get(), ready_.get(), 0));
    exchange(send, recv, chunks, stream_.get());
    KOLMO_CHECK_CUDA(cudaEventRecord(done_[piece].get(), stream_.get()));
  }
  void finish(int piece) override {
    if (piece >= static_cast<int>(done_.size()))
      throw Error("internal: exchange piece " + std::to_string(piece) + " finished but not started");
    KOLMO_CHECK_CUDA(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(device_->stream()), done_[piece].get(), 0));
  }

 private:
  void exchange(const void* send, void* recv, const Chunks& chunks, cudaStream_t stream) {
    const char* s = static_cast<const char*>(send);
    char* r = static_cast<char*>(recv);
    KOLMO_CHECK_CUDA(cudaMemcpyAsync(r + chunks.recv_offset[rank_], s + chunks.send_offset[rank_],
                                     chunks.send_bytes[rank_], cudaMemcpyDeviceToDevice, stream));
    KOLMO_CHECK_NCCL(ncclGroupStart());
    for (int step = 1; step < size_; ++step) {
      int to = (rank_ + step) % size_, from = (rank_ + size_ - step) % size_;
      KOLMO_CHECK_NCCL(
          ncclSend(s + chunks.send_offset[to], chunks.send_bytes[to], ncclChar, to, comm_.get(), stream));
      KOLMO_CHECK_NCCL(ncclRecv(r + chunks.recv_offset[from], chunks.recv_bytes[from], ncclChar, from,
                                comm_.get(), stream));
    }
    KOLMO_CHECK_NCCL(ncclGroupEnd());
  }

  using NcclComm = UniqueHandle<ncclComm_t, ncclCommDestroy>;
  using Stream = UniqueHandle<cudaStream_t, cudaStreamDestroy>;

  std::shared_ptr<Device> device_;
  int rank_ = 0, size_ = 1;
  // Pipelined pieces only: NCCL's stream, the event it waits on, one completion event per piece.
  Stream stream_;
  Event ready_;
  std::vector<Event> done_;
  NcclComm comm_;  // declared last, destroyed first: before the stream and events its work used
};

}  // namespace

bool nccl_compiled() {
  return true;
}

std::unique_ptr<Exchange> make_nccl_exchange(MPI_Comm comm, const std::shared_ptr<Device>& device) {
  return std::make_unique<NcclExchange>(comm, device);
}

}  // namespace kolmo::fft
