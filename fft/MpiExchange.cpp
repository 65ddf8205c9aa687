// The MPI exchange methods: chunked MPI_Isend/MPI_Irecv and a plain MPI_Alltoallv baseline, with staging
// through pinned host memory for GPU buffers when the MPI is not CUDA-aware.
#include <algorithm>
#include <climits>

#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/Exchange.hpp"

namespace kolmo::fft {

std::string to_string(ExchangeMethod method) {
  switch (method) {
    case ExchangeMethod::automatic:
      return "auto";
    case ExchangeMethod::isend_irecv:
      return "isend_irecv";
    case ExchangeMethod::alltoallv:
      return "alltoallv";
    case ExchangeMethod::nccl:
      return "nccl";
    case ExchangeMethod::p2p:
      return "p2p";
    case ExchangeMethod::loopback:
      return "loopback";
  }
  return "?";
}

ExchangeMethod parse_exchange(const std::string& name) {
  for (auto method : {ExchangeMethod::automatic, ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv,
                      ExchangeMethod::nccl, ExchangeMethod::p2p})
    if (name == to_string(method)) return method;
  throw Error("unknown exchange method '" + name + "' (expected auto, isend_irecv, alltoallv, nccl or p2p)");
}

bool nccl_usable(MPI_Comm comm) {
  int mine = nccl_compiled() && node_size(comm) <= cuda_device_count() ? 1 : 0, all = 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  return all == 1;
}

ExchangeMethod resolve(ExchangeMethod method, const Device& device, MPI_Comm comm) {
  if (method != ExchangeMethod::automatic) return method;
  if (device.backend() != Backend::cuda) return ExchangeMethod::isend_irecv;
  // One node, a GPU per rank, peer access between them: the copy engines, as cuFFTXt does (and the strided
  // route, which needs no packing). Ranks sharing a GPU go through NCCL where it works, else MPI.
  int ranks = 1;
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
  if (ranks > 1) {
    const PeerAccess peers = check_peer_access(comm, device);
    if (peers.refusal.empty() && !peers.shared_gpus) return ExchangeMethod::p2p;
  }
  return nccl_usable(comm) ? ExchangeMethod::nccl : ExchangeMethod::isend_irecv;
}

namespace {

// MPI handles may outlive MPI (a static or late-destroyed object): free them only while MPI runs.
void free_while_mpi_runs(MPI_Datatype type) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Type_free(&type);
}
using Datatype = UniqueHandle<MPI_Datatype, free_while_mpi_runs>;

// Chunks are whole complex values, so 8 bytes is a unit of every chunk; counting in units keeps MPI's int
// counts valid up to 16 GiB per message. Larger chunks go in several messages (isend_irecv), each at most
// kMaxMessageBytes.
constexpr std::size_t kUnit = 8;
constexpr std::size_t kMaxMessageBytes = std::size_t(INT_MAX) * kUnit;

int units(std::size_t bytes) {
  if (bytes % kUnit != 0) throw Error("internal: exchange chunk of " + std::to_string(bytes) + " bytes");
  if (bytes / kUnit > static_cast<std::size_t>(INT_MAX))
    throw Error("exchange chunk of " + std::to_string(bytes) + " bytes is larger than MPI can count");
  return static_cast<int>(bytes / kUnit);
}

// The MPI datatype of strided blocks of one chunk, from the buffer's start: each block a vector of slices of
// a vector of rows (MPI's datatype engine packs them, or copies them straight where it can).
Datatype blocks_type(const std::vector<Block>& blocks) {
  std::vector<Datatype> parts;
  std::vector<MPI_Datatype> types;
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  for (const Block& b : blocks) {
    if (b.bytes() == 0) continue;
    if (b.width > static_cast<std::size_t>(INT_MAX) || b.rows > static_cast<std::size_t>(INT_MAX) ||
        b.slices > static_cast<std::size_t>(INT_MAX))
      throw Error("exchange block of " + std::to_string(b.bytes()) + " bytes is larger than MPI can count");
    MPI_Datatype rows = MPI_DATATYPE_NULL, box = MPI_DATATYPE_NULL;
    KOLMO_CHECK_MPI(MPI_Type_create_hvector(static_cast<int>(b.rows), static_cast<int>(b.width),
                                            static_cast<MPI_Aint>(b.pitch), MPI_BYTE, &rows));
    parts.emplace_back(rows);
    KOLMO_CHECK_MPI(MPI_Type_create_hvector(static_cast<int>(b.slices), 1,
                                            static_cast<MPI_Aint>(b.pitch * b.slice_rows), rows, &box));
    parts.emplace_back(box);
    types.push_back(box);
    lengths.push_back(1);
    displacements.push_back(static_cast<MPI_Aint>(b.offset));
  }
  MPI_Datatype chunk = MPI_DATATYPE_NULL;
  KOLMO_CHECK_MPI(MPI_Type_create_struct(static_cast<int>(types.size()), lengths.data(), displacements.data(),
                                         types.data(), &chunk));
  KOLMO_CHECK_MPI(MPI_Type_commit(&chunk));
  return Datatype(chunk);
}

// Pinned (or plain) host memory for staging, released on destruction.
class Staging {
 public:
  Staging(Backend backend, std::size_t bytes) : backend_(backend) {
    if (bytes > 0) data_ = static_cast<char*>(allocate_staging(backend, bytes));
  }
  ~Staging() {
    if (data_ != nullptr) release_staging(backend_, data_);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  char* data() { return data_; }

 private:
  Backend backend_;
  char* data_ = nullptr;
};

class MpiExchange final : public Exchange {
 public:
  MpiExchange(ExchangeMethod method, MPI_Comm comm, const std::shared_ptr<Device>& device, bool cuda_aware,
              std::size_t max_bytes, std::size_t max_message_bytes)
      : method_(method),
        comm_(comm),
        device_(device),
        max_message_bytes_(max_message_bytes == 0 ? kMaxMessageBytes : max_message_bytes) {
    if (max_message_bytes_ % kUnit != 0 || max_message_bytes_ > kMaxMessageBytes)
      throw Error("internal: exchange messages of " + std::to_string(max_message_bytes_) + " bytes");
    KOLMO_CHECK_MPI(MPI_Comm_rank(comm_, &rank_));
    KOLMO_CHECK_MPI(MPI_Comm_size(comm_, &size_));
    MPI_Datatype unit = MPI_DATATYPE_NULL;
    KOLMO_CHECK_MPI(MPI_Type_contiguous(static_cast<int>(kUnit), MPI_BYTE, &unit));
    KOLMO_CHECK_MPI(MPI_Type_commit(&unit));
    unit_ = Datatype(unit);
    staged_ = device->backend() == Backend::cuda && !cuda_aware;
    if (staged_) {
      send_stage_ = std::make_unique<Staging>(Backend::cuda, max_bytes);
      recv_stage_ = std::make_unique<Staging>(Backend::cuda, max_bytes);
    }
  }

  ExchangeMethod method() const override { return method_; }
  // Strided chunks by MPI datatypes, on the host (GPU memory would go through staging or a CUDA-aware MPI's
  // datatype engine, neither measured).
  bool moves_blocks() const override {
    return method_ == ExchangeMethod::isend_irecv && device_->backend() == Backend::host;
  }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    start(send, recv, chunks, 0);
    finish(0);
  }

  void start(const void* send, void* recv, const Chunks& chunks, int piece) override {
    if (piece >= static_cast<int>(pending_.size())) pending_.resize(piece + 1);
    Pending& pending = pending_[piece];
    if (pending.active) throw Error("internal: exchange piece " + std::to_string(piece) + " started twice");
    const char* send_bytes = static_cast<const char*>(send);
    char* recv_bytes = static_cast<char*>(recv);
    if (chunks.strided() && !moves_blocks())
      throw Error("internal: exchange method " + to_string(method_) + " was given strided chunks");
    // The own chunk never leaves the device.
    copy_own_chunk(*device_, recv_bytes, send_bytes, chunks, rank_);
    const char* mpi_send = send_bytes;
    char* mpi_recv = recv_bytes;
    if (staged_) {
      // Staging buffers mirror the device buffers offset for offset, so pieces in flight never share bytes.
      for (int q = 0; q < size_; ++q)
        if (q != rank_)
          device_->copy(send_stage_->data() + chunks.send_offset[q], send_bytes + chunks.send_offset[q],
                        chunks.send_bytes[q]);
      mpi_send = send_stage_->data();
      mpi_recv = recv_stage_->data();
    }
    // MPI reads the send buffer now: whatever the stream wrote there must be complete.
    device_->synchronize();
    pending.active = true;
    pending.recv = recv_bytes;
    pending.chunks = chunks;
    if (method_ == ExchangeMethod::alltoallv)
      alltoallv(mpi_send, mpi_recv, chunks);
    else if (chunks.strided())
      post_blocks(mpi_send, mpi_recv, chunks, piece, pending);
    else
      post(mpi_send, mpi_recv, chunks, piece, pending.requests);
    // Earlier pieces advance while this rank computes (MPI progresses mostly inside MPI calls).
    for (auto& earlier : pending_)
      if (earlier.active && !earlier.requests.empty()) {
        int done = 0;
        KOLMO_CHECK_MPI(MPI_Testall(static_cast<int>(earlier.requests.size()), earlier.requests.data(), &done,
                                    MPI_STATUSES_IGNORE));
      }
  }

  void finish(int piece) override {
    if (piece >= static_cast<int>(pending_.size()) || !pending_[piece].active)
      throw Error("internal: exchange piece " + std::to_string(piece) + " finished but not started");
    Pending& pending = pending_[piece];
    KOLMO_CHECK_MPI(
        MPI_Waitall(static_cast<int>(pending.requests.size()), pending.requests.data(), MPI_STATUSES_IGNORE));
    pending.requests.clear();
    pending.types.clear();
    pending.active = false;
    if (staged_)
      for (int q = 0; q < size_; ++q)
        if (q != rank_)
          device_->copy(pending.recv + pending.chunks.recv_offset[q],
                        recv_stage_->data() + pending.chunks.recv_offset[q], pending.chunks.recv_bytes[q]);
  }

 private:
  // One piece's exchange in flight.
  struct Pending {
    bool active = false;
    std::vector<MPI_Request> requests;
    char* recv = nullptr;
    Chunks chunks;
    std::vector<Datatype> types;  // of strided chunks, kept until their requests complete
  };

  // Strided chunks: one message per peer, of a datatype made of its blocks.
  void post_blocks(const char* send, char* recv, const Chunks& chunks, int tag, Pending& pending) {
    for (int step = 1; step < size_; ++step) {
      const int q = (rank_ + size_ - step) % size_;
      pending.types.push_back(blocks_type(chunks.recv_blocks[q]));
      pending.requests.emplace_back();
      KOLMO_CHECK_MPI(
          MPI_Irecv(recv, 1, pending.types.back().get(), q, tag, comm_, &pending.requests.back()));
    }
    for (int step = 1; step < size_; ++step) {
      const int q = (rank_ + step) % size_;
      pending.types.push_back(blocks_type(chunks.send_blocks[q]));
      pending.requests.emplace_back();
      KOLMO_CHECK_MPI(
          MPI_Isend(send, 1, pending.types.back().get(), q, tag, comm_, &pending.requests.back()));
    }
  }

  // A chunk's messages, in order: [offset, offset + bytes) in pieces of at most max_message_bytes_ (one
  // message, maybe empty, where it fits). Both sides cut a chunk alike, and MPI delivers the messages of one
  // sender, tag and communicator in the order they were posted, so each lands in its own piece.
  template <class Post>
  void each_message(std::size_t offset, std::size_t bytes, Post post) const {
    std::size_t done = 0;
    do {
      const std::size_t piece = std::min(bytes - done, max_message_bytes_);
      post(offset + done, units(piece));
      done += piece;
    } while (done < bytes);
  }

  void post(const char* send, char* recv, const Chunks& chunks, int tag, std::vector<MPI_Request>& requests) {
    requests.reserve(2 * size_);
    // Peers in the order rank+1, rank+2, ...: each rank starts with a different partner, spreading the load.
    for (int step = 1; step < size_; ++step) {
      int q = (rank_ + size_ - step) % size_;
      each_message(chunks.recv_offset[q], chunks.recv_bytes[q], [&](std::size_t offset, int count) {
        requests.emplace_back();
        KOLMO_CHECK_MPI(MPI_Irecv(recv + offset, count, unit_.get(), q, tag, comm_, &requests.back()));
      });
    }
    for (int step = 1; step < size_; ++step) {
      int q = (rank_ + step) % size_;
      each_message(chunks.send_offset[q], chunks.send_bytes[q], [&](std::size_t offset, int count) {
        requests.emplace_back();
        KOLMO_CHECK_MPI(MPI_Isend(send + offset, count, unit_.get(), q, tag, comm_, &requests.back()));
      });
    }
  }

  void alltoallv(const char* send, char* recv, const Chunks& chunks) {
    std::vector<int> send_counts(size_), send_displs(size_), recv_counts(size_), recv_displs(size_);
    // MPI_Alltoallv takes int counts and displacements: chunks that end past 16 GiB cannot be named.
    auto count = [&](std::size_t bytes, std::size_t offset, int q) {
      if ((offset + bytes) / kUnit > static_cast<std::size_t>(INT_MAX))
        throw Error("exchange method alltoallv: the chunk of rank " + std::to_string(q) + " (" +
                    std::to_string(bytes) + " bytes at byte " + std::to_string(offset) +
                    ") ends past the 16 GiB that MPI_Alltoallv's int counts and displacements reach; "
                    "isend_irecv or nccl moves it");
      return units(bytes);
    };
    for (int q = 0; q < size_; ++q) {
      const int sent = count(chunks.send_bytes[q], chunks.send_offset[q], q),
                received = count(chunks.recv_bytes[q], chunks.recv_offset[q], q);
      // The own chunk was copied already: MPI moves nothing for it.
      send_counts[q] = q == rank_ ? 0 : sent;
      recv_counts[q] = q == rank_ ? 0 : received;
      send_displs[q] = units(chunks.send_offset[q]);
      recv_displs[q] = units(chunks.recv_offset[q]);
    }
    KOLMO_CHECK_MPI(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), unit_.get(), recv,
                                  recv_counts.data(), recv_displs.data(), unit_.get(), comm_));
  }

  ExchangeMethod method_;
  MPI_Comm comm_;
  std::shared_ptr<Device> device_;
  std::size_t max_message_bytes_;
  int rank_ = 0, size_ = 1;
  Datatype unit_;
  bool staged_ = false;
  std::unique_ptr<Staging> send_stage_, recv_stage_;
  std::vector<Pending> pending_;  // by piece
};

}  // namespace

std::unique_ptr<Exchange> make_nccl_exchange(MPI_Comm comm, const std::shared_ptr<Device>& device);
std::unique_ptr<Exchange> make_p2p_exchange(MPI_Comm comm, const std::shared_ptr<Device>& device,
                                            std::size_t max_bytes);

std::unique_ptr<Exchange> make_exchange(ExchangeMethod method, MPI_Comm comm,
                                        const std::shared_ptr<Device>& device, bool cuda_aware_mpi,
                                        std::size_t max_bytes, std::size_t max_message_bytes) {
  if (method == ExchangeMethod::p2p) {
    // Every rank gets the same verdict, so all fail together.
    const PeerAccess peers = check_peer_access(comm, *device);
    if (!peers.refusal.empty()) throw Error(peers.refusal);
  }
  method = resolve(method, *device, comm);
  if (method == ExchangeMethod::p2p) return make_p2p_exchange(comm, device, max_bytes);
  if (method == ExchangeMethod::nccl) {
    if (device->backend() != Backend::cuda)
      throw Error("exchange method nccl needs the cuda backend (backend is " + to_string(device->backend()) +
                  ")");
    if (!nccl_compiled()) throw Error("exchange method nccl requested, but kolmo was built without NCCL");
    if (!nccl_usable(comm))
      throw Error("exchange method nccl needs one GPU per rank, but " + std::to_string(node_size(comm)) +
                  " ranks share " + std::to_string(cuda_device_count()) +
                  " GPU(s) on a node: use fewer ranks or an MPI exchange");
    return make_nccl_exchange(comm, device);
  }
  return std::make_unique<MpiExchange>(method, comm, device, cuda_aware_mpi, max_bytes, max_message_bytes);
}

}  // namespace kolmo::fft

#if !defined(KOLMO_HAVE_NCCL)
namespace kolmo::fft {
bool nccl_compiled() {
  return false;
}
std::unique_ptr<Exchange> make_nccl_exchange(MPI_Comm, const std::shared_ptr<Device>&) {
  throw Error("kolmo was built without NCCL");
}
}  // namespace kolmo::fft
#endif

#if !defined(KOLMO_HAVE_CUDA)
namespace kolmo::fft {
// Without CUDA every device is the host's.
PeerAccess check_peer_access(MPI_Comm, const Device& device) {
  return {"exchange method p2p needs the cuda backend (backend is " + to_string(device.backend()) + ")",
          false};
}
std::unique_ptr<Exchange> make_p2p_exchange(MPI_Comm, const std::shared_ptr<Device>&, std::size_t) {
  throw Error("kolmo was built without CUDA");
}
}  // namespace kolmo::fft
#endif
