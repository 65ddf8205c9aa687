// The NCCL exchange: grouped ncclSend/ncclRecv per peer on the device's stream, nothing staged, no host sync.
// The communicator is bootstrapped through MPI (rank 0 makes the unique id and broadcasts it).
#include <nccl.h>

#include "core/CudaCheck.hpp"
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
    KOLMO_CHECK_NCCL(ncclCommInitRank(&comm_, size_, id, rank_));
  }
  ~NcclExchange() override {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  ExchangeMethod method() const override { return ExchangeMethod::nccl; }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    auto stream = static_cast<cudaStream_t>(device_->stream());
    const char* s = static_cast<const char*>(send);
    char* r = static_cast<char*>(recv);
    device_->copy(r + chunks.recv_offset[rank_], s + chunks.send_offset[rank_], chunks.send_bytes[rank_]);
    KOLMO_CHECK_NCCL(ncclGroupStart());
    for (int step = 1; step < size_; ++step) {
      int to = (rank_ + step) % size_, from = (rank_ + size_ - step) % size_;
      KOLMO_CHECK_NCCL(
          ncclSend(s + chunks.send_offset[to], chunks.send_bytes[to], ncclChar, to, comm_, stream));
      KOLMO_CHECK_NCCL(
          ncclRecv(r + chunks.recv_offset[from], chunks.recv_bytes[from], ncclChar, from, comm_, stream));
    }
    KOLMO_CHECK_NCCL(ncclGroupEnd());
  }

 private:
  std::shared_ptr<Device> device_;
  int rank_ = 0, size_ = 1;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

bool nccl_compiled() {
  return true;
}

std::unique_ptr<Exchange> make_nccl_exchange(MPI_Comm comm, const std::shared_ptr<Device>& device) {
  return std::make_unique<NcclExchange>(comm, device);
}

}  // namespace kolmo::fft
