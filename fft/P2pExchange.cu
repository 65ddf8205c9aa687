// The copy-engine exchange inside a node (fft.exchange: p2p), as cuFFTXt moves data between the GPUs of one
// process: each rank copies its chunks with cudaMemcpyAsync straight into its peers' receive memory, mapped
// into its address space by CUDA IPC, and CUDA IPC events say when the data have landed. No kernels (the copy
// engines move the bytes) and no staging through the host.
//
// Which memory peers write into. A peer keeps what it has mapped until the exchange is destroyed (opening a
// mapping costs far more than a transform's messages), and CUDA IPC makes freeing memory that another
// process has mapped undefined. So peers write only into memory that outlives the exchange: buffers the
// caller promised to keep (keep_receive_buffer: SlabFFT's scratch slab, where every forward transform
// receives), and otherwise (SlabFFT's backward receives into the caller's output) a landing buffer the
// exchange allocates on first need, max_bytes long, from which finish copies into recv. Each rank numbers the
// memory it exports; the sender opens (peer, number) once.
//
// The protocol of piece j (start(j), then finish(j)), on every rank; per piece slot j each rank has an IPC
// event ready[j] and, per peer q, sent[j][q]:
//   start  1. Record ready[j] on the device's stream: my send data for j are complete, and nothing I queued
//             before still reads or writes the memory where I receive j.
//          2. Send every peer where its chunk goes (with ready[j]'s handle); receive the same from each.
//          3. For each peer q, on a copy stream of q's: wait for my ready[j] and q's ready[j], copy my chunk
//             into q's memory, record sent[j][q]; then send q the message "sent[j][q] recorded".
//   finish 4. Receive every peer's message of 3; make the device's stream wait for each peer's sent[j][me]
//             (their data have landed here) and for my own sent[j][q] (my copies have read my send region);
//             from the landing buffer, copy into recv.
// Why that is safe:
// - A stream that waits on an event waits for the event's last record made before the wait was called, in
//   whichever process made it. The messages order those calls: q waits on my ready[j] after my message of 2,
//   which I send after recording it; I wait on q's sent[j][me] after q's message of 3, sent after the record.
// - Nothing is overwritten early: q writes where I receive j only after my ready[j] of the same round, which
//   completes after everything my stream was given before start(j), including the reads of what arrived in
//   the previous round (the x transforms, the unpacking, the copy out of the landing buffer). My send region
//   may change only after finish(j), which orders my stream after my copies.
// - No event is recorded again before its waiters have waited on this round's record: q records ready[j]
//   again only in its next start(j), after its finish(j), which needs my message of 3, sent after my copy
//   stream was told to wait on it; q records sent[j][me] again only after my next message of 2 for j, which I
//   send after my finish(j) (the Exchange contract: a piece is finished before it starts again), where my
//   stream was told to wait on it. Messages between two ranks keep their order (MPI does not overtake), so
//   rounds never mix.
// - Host waits cannot deadlock: every wait a stream is given is on a record already made, so all queued work
//   completes without further host action.
// - Destruction: a peer's stream may still wait on my events (undefined once destroyed), and peers map my
//   memory. So the destructor waits for its own streams, closes its mappings, and waits for every rank (a
//   barrier) before destroying events and freeing the landing buffer; SlabFFT destroys its exchange before
//   its scratch slab. Destruction is collective, like construction; unwinding from an exception it skips the
//   barrier (the other ranks may never come: the job is ending).
#include <cuda.h>  // driver API types only: the one driver function is found at run time, nothing links libcuda

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Communicator.hpp"
#include "core/CudaCheck.hpp"
#include "core/CudaCopies.hpp"
#include "core/CudaEvent.hpp"
#include "core/Error.hpp"
#include "core/UniqueHandle.hpp"
#include "fft/Exchange.hpp"

namespace kolmo::fft {

namespace {

// Event (core/CudaEvent.hpp) owns this rank's events and the peers' opened IPC events alike.
using Stream = UniqueHandle<cudaStream_t, cudaStreamDestroy>;
using Mapping = UniqueHandle<void*, cudaIpcCloseMemHandle>;  // a peer's allocation opened here

Event interprocess_event() {
  return new_event(cudaEventInterprocess | cudaEventDisableTiming);
}

cudaIpcEventHandle_t handle_of(const Event& event) {
  cudaIpcEventHandle_t handle{};
  KOLMO_CHECK_CUDA(cudaIpcGetEventHandle(&handle, event.get()));
  return handle;
}

Event open_event(const cudaIpcEventHandle_t& handle) {
  cudaEvent_t event = nullptr;
  KOLMO_CHECK_CUDA(cudaIpcOpenEventHandle(&event, handle));
  return Event(event);
}

// Memory this rank lets its peers write into: a kept receive buffer or the landing buffer.
struct Exported {
  const char* start;  // the buffer
  std::size_t bytes;
  const char* allocation;  // the cudaMalloc allocation holding it, which the handle maps
  cudaIpcMemHandle_t handle;
};

// Strided chunks have at most this many blocks per peer (the kept ky modes of a rank form at most two runs).
constexpr int kMaxBlocks = 2;

// The receiver's word to one sender, per piece and round.
struct Destination {
  cudaIpcMemHandle_t memory;   // the allocation to write into
  cudaIpcEventHandle_t ready;  // the receiver's ready[j]
  int number;                  // the receiver's number for that memory; -1: nothing to receive
  std::uint64_t offset;        // where the chunk goes, from the allocation's start
  std::uint64_t bytes;         // the chunk's size, as the receiver expects it
  int block_count;             // strided chunks: the blocks it lands in, offsets from the allocation's start
  Block blocks[kMaxBlocks];
};

// Block `from` of src into block `to` of dst (peer memory mapped here, or this GPU's) on a copy stream.
void copy_block_on(cudaStream_t stream, char* dst, const Block& to, const char* src, const Block& from) {
  copy_3d_on(stream, dst + to.offset, to.pitch, to.slice_rows, src + from.offset, from.pitch, from.slice_rows,
             from.width, from.rows, from.slices);
}

// One piece slot: this rank's events, the messages of the round in flight, the peers' events opened here.
struct Slot {
  Event ready;
  cudaIpcEventHandle_t ready_handle{};
  std::vector<Event> sent;  // by destination peer
  std::vector<cudaIpcEventHandle_t> sent_handle, peer_sent_handle;
  std::vector<Destination> to_peer, from_peer;
  std::vector<MPI_Request> arrivals, departures;  // peers' messages of step 3; every message this rank sent
  std::vector<Event> peer_ready, peer_sent;
  char* copy_out = nullptr;  // recv, when this round lands in the landing buffer
  Chunks chunks;
  bool active = false;
};

class P2pExchange final : public Exchange {
 public:
  P2pExchange(MPI_Comm comm, const std::shared_ptr<Device>& device, std::size_t max_bytes)
      : comm_(comm), device_(device), max_bytes_(max_bytes) {
    KOLMO_CHECK_CUDA(cudaSetDevice(device->index()));
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    KOLMO_CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &function, 12000,
                                                      cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw Error("exchange method p2p: the CUDA driver has no cuMemGetAddressRange");
    address_range_ = reinterpret_cast<AddressRange>(function);
    copy_streams_.resize(comm_.size());
    opened_.resize(comm_.size());
    for (int q = 0; q < comm_.size(); ++q)
      if (q != comm_.rank()) {
        cudaStream_t stream = nullptr;
        KOLMO_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        copy_streams_[q] = Stream(stream);
      }
  }

  ~P2pExchange() override {
    if (slots_.empty()) return;  // no round ran: no event was shared, no memory mapped
    cudaStreamSynchronize(compute());
    for (const Stream& stream : copy_streams_)
      if (stream.get() != nullptr) cudaStreamSynchronize(stream.get());
    opened_.clear();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && std::uncaught_exceptions() == 0) MPI_Barrier(comm_.get());
  }

  ExchangeMethod method() const override { return ExchangeMethod::p2p; }
  bool moves_blocks() const override { return true; }

  void keep_receive_buffer(void* buffer, std::size_t bytes) override {
    if (comm_.size() > 1 && bytes > 0) export_memory(static_cast<char*>(buffer), bytes);
  }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    start(send, recv, chunks, 0);
    finish(0);
  }

  void start(const void* send, void* recv, const Chunks& chunks, int piece) override {
    const int me = comm_.rank(), ranks = comm_.size();
    const char* from = static_cast<const char*>(send);
    char* to = static_cast<char*>(recv);
    if (ranks == 1) {
      copy_own_chunk(*device_, to, from, chunks, me);
      return;
    }
    Slot& slot = slot_of(piece);
    if (slot.active) throw Error("internal: exchange piece " + std::to_string(piece) + " started twice");
    slot.active = true;
    // 1. When ready fires, the send data are complete and the last use of where this round lands is over.
    KOLMO_CHECK_CUDA(cudaEventRecord(slot.ready.get(), compute()));
    copy_own_chunk(*device_, to, from, chunks, me);
    // 2. Where each peer's chunk goes, both ways.
    address(slot, to, chunks);
    const int tag = 2 * piece;
    std::vector<MPI_Request> destinations;
    slot.departures.clear();
    for (int q = 0; q < ranks; ++q)
      if (q != me) {
        destinations.emplace_back();
        KOLMO_CHECK_MPI(MPI_Irecv(&slot.from_peer[q], sizeof(Destination), MPI_BYTE, q, tag, comm_.get(),
                                  &destinations.back()));
        slot.departures.emplace_back();
        KOLMO_CHECK_MPI(MPI_Isend(&slot.to_peer[q], sizeof(Destination), MPI_BYTE, q, tag, comm_.get(),
                                  &slot.departures.back()));
      }
    KOLMO_CHECK_MPI(
        MPI_Waitall(static_cast<int>(destinations.size()), destinations.data(), MPI_STATUSES_IGNORE));
    // 3. The copies, one stream per peer so that the copy engines work side by side.
    slot.arrivals.clear();
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      const Destination& where = slot.from_peer[q];
      if (where.bytes != chunks.send_bytes[q])
        throw Error("internal: p2p exchange: rank " + std::to_string(q) + " expects " +
                    std::to_string(where.bytes) + " bytes, this rank sends " +
                    std::to_string(chunks.send_bytes[q]));
      if (slot.peer_ready[q].get() == nullptr) slot.peer_ready[q] = open_event(where.ready);
      cudaStream_t stream = copy_streams_[q].get();
      KOLMO_CHECK_CUDA(cudaStreamWaitEvent(stream, slot.ready.get(), 0));
      KOLMO_CHECK_CUDA(cudaStreamWaitEvent(stream, slot.peer_ready[q].get(), 0));
      if (where.bytes > 0 && chunks.strided()) {
        const std::vector<Block>& mine = chunks.send_blocks[q];
        if (where.block_count != static_cast<int>(mine.size()))
          throw Error("internal: p2p exchange: rank " + std::to_string(q) + " receives " +
                      std::to_string(where.block_count) + " blocks, this rank sends " +
                      std::to_string(mine.size()));
        for (std::size_t k = 0; k < mine.size(); ++k)
          if (mine[k].bytes() > 0) copy_block_on(stream, mapped(q, where), where.blocks[k], from, mine[k]);
      } else if (where.bytes > 0) {
        KOLMO_CHECK_CUDA(cudaMemcpyAsync(mapped(q, where) + where.offset, from + chunks.send_offset[q],
                                         where.bytes, cudaMemcpyDefault, stream));
      }
      KOLMO_CHECK_CUDA(cudaEventRecord(slot.sent[q].get(), stream));
      slot.departures.emplace_back();
      KOLMO_CHECK_MPI(MPI_Isend(&slot.sent_handle[q], sizeof(cudaIpcEventHandle_t), MPI_BYTE, q, tag + 1,
                                comm_.get(), &slot.departures.back()));
      slot.arrivals.emplace_back();
      KOLMO_CHECK_MPI(MPI_Irecv(&slot.peer_sent_handle[q], sizeof(cudaIpcEventHandle_t), MPI_BYTE, q, tag + 1,
                                comm_.get(), &slot.arrivals.back()));
    }
  }

  void finish(int piece) override {
    const int me = comm_.rank(), ranks = comm_.size();
    if (ranks == 1) return;
    if (piece >= static_cast<int>(slots_.size()) || !slots_[piece]->active)
      throw Error("internal: exchange piece " + std::to_string(piece) + " finished but not started");
    Slot& slot = *slots_[piece];
    // 4. Every peer has recorded its sent event of this round: the device's stream waits for them.
    KOLMO_CHECK_MPI(
        MPI_Waitall(static_cast<int>(slot.arrivals.size()), slot.arrivals.data(), MPI_STATUSES_IGNORE));
    for (int q = 0; q < ranks; ++q)
      if (q != me) {
        if (slot.peer_sent[q].get() == nullptr) slot.peer_sent[q] = open_event(slot.peer_sent_handle[q]);
        KOLMO_CHECK_CUDA(cudaStreamWaitEvent(compute(), slot.peer_sent[q].get(), 0));
        KOLMO_CHECK_CUDA(cudaStreamWaitEvent(compute(), slot.sent[q].get(), 0));
      }
    if (slot.copy_out != nullptr)
      for (int q = 0; q < ranks; ++q) {
        if (q == me) continue;
        if (!slot.chunks.strided())
          device_->copy(slot.copy_out + slot.chunks.recv_offset[q],
                        landing_.data() + slot.chunks.recv_offset[q], slot.chunks.recv_bytes[q]);
        else
          for (const Block& block : slot.chunks.recv_blocks[q])
            copy_block(*device_, slot.copy_out, block, landing_.data(), block);
      }
    // Small messages, received by now or soon: every peer posted its receives in its start(j).
    KOLMO_CHECK_MPI(
        MPI_Waitall(static_cast<int>(slot.departures.size()), slot.departures.data(), MPI_STATUSES_IGNORE));
    slot.active = false;
  }

 private:
  using AddressRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);

  cudaStream_t compute() const { return static_cast<cudaStream_t>(device_->stream()); }

  Slot& slot_of(int piece) {
    const int ranks = comm_.size();
    while (static_cast<int>(slots_.size()) <= piece) {
      auto slot = std::make_unique<Slot>();
      slot->ready = interprocess_event();
      slot->ready_handle = handle_of(slot->ready);
      slot->sent.resize(ranks);
      slot->sent_handle.resize(ranks);
      for (int q = 0; q < ranks; ++q)
        if (q != comm_.rank()) {
          slot->sent[q] = interprocess_event();
          slot->sent_handle[q] = handle_of(slot->sent[q]);
        }
      slot->peer_sent_handle.resize(ranks);
      slot->to_peer.resize(ranks);
      slot->from_peer.resize(ranks);
      slot->peer_ready.resize(ranks);
      slot->peer_sent.resize(ranks);
      slots_.push_back(std::move(slot));
    }
    return *slots_[piece];
  }

  // Exports [start, start + bytes) to the peers; returns its number.
  int export_memory(char* start, std::size_t bytes) {
    CUdeviceptr allocation = 0;
    std::size_t size = 0;
    if (address_range_(&allocation, &size, reinterpret_cast<CUdeviceptr>(start)) != CUDA_SUCCESS)
      throw Error("exchange method p2p: a receive buffer is not GPU memory from cudaMalloc");
    cudaIpcMemHandle_t handle{};
    KOLMO_CHECK_CUDA(cudaIpcGetMemHandle(&handle, reinterpret_cast<void*>(allocation)));
    exported_.push_back(Exported{start, bytes, reinterpret_cast<const char*>(allocation), handle});
    return static_cast<int>(exported_.size()) - 1;
  }

  // Fills slot.to_peer: where each peer's chunk goes, in recv if it is kept, else in the landing buffer.
  void address(Slot& slot, char* recv, const Chunks& chunks) {
    const int me = comm_.rank();
    std::size_t end = 0;  // of what arrives from peers, from recv
    for (int q = 0; q < comm_.size(); ++q) {
      if (q == me) continue;
      if (chunks.strided()) {
        if (chunks.recv_blocks[q].size() > static_cast<std::size_t>(kMaxBlocks))
          throw Error("internal: p2p exchange: more than " + std::to_string(kMaxBlocks) + " blocks a chunk");
        for (const Block& block : chunks.recv_blocks[q])
          if (block.bytes() > 0) end = std::max(end, block.end());
      } else if (chunks.recv_bytes[q] > 0) {
        end = std::max(end, chunks.recv_offset[q] + chunks.recv_bytes[q]);
      }
    }
    int number = -1;
    for (std::size_t k = 0; k < exported_.size() && end > 0; ++k)
      if (exported_[k].start <= recv && recv + end <= exported_[k].start + exported_[k].bytes &&
          exported_[k].start != landing_.data())
        number = static_cast<int>(k);
    char* target = recv;
    slot.copy_out = nullptr;
    if (end > 0 && number < 0) {
      if (end > max_bytes_)
        throw Error("internal: p2p exchange receives " + std::to_string(end) + " bytes, more than the " +
                    std::to_string(max_bytes_) + " it was made for");
      if (landing_.size() == 0) {
        landing_ = Buffer<char>(device_, max_bytes_);
        landing_number_ = export_memory(landing_.data(), landing_.bytes());
      }
      number = landing_number_;
      target = landing_.data();
      slot.copy_out = recv;
      slot.chunks = chunks;
    }
    for (int q = 0; q < comm_.size(); ++q) {
      if (q == me) continue;
      Destination& where = slot.to_peer[q];
      where = Destination{};
      where.ready = slot.ready_handle;
      where.bytes = chunks.recv_bytes[q];
      if (number < 0 || chunks.recv_bytes[q] == 0) {
        where.number = -1;
        continue;
      }
      where.memory = exported_[number].handle;
      where.number = number;
      const auto base = static_cast<std::uint64_t>(target - exported_[number].allocation);
      where.offset = base + chunks.recv_offset[q];
      if (chunks.strided()) {
        where.block_count = static_cast<int>(chunks.recv_blocks[q].size());
        for (int k = 0; k < where.block_count; ++k) {
          where.blocks[k] = chunks.recv_blocks[q][k];
          where.blocks[k].offset += base;
        }
      }
    }
  }

  // Peer q's memory where.number, mapped here.
  char* mapped(int q, const Destination& where) {
    std::vector<Mapping>& open = opened_[q];
    if (where.number < 0)
      throw Error("internal: p2p exchange: rank " + std::to_string(q) + " gave no memory");
    if (static_cast<int>(open.size()) <= where.number) open.resize(where.number + 1);
    if (open[where.number].get() == nullptr) {
      void* base = nullptr;
      KOLMO_CHECK_CUDA(cudaIpcOpenMemHandle(&base, where.memory, cudaIpcMemLazyEnablePeerAccess));
      open[where.number] = Mapping(base);
    }
    return static_cast<char*>(open[where.number].get());
  }

  Communicator comm_;  // a duplicate: these messages never meet anyone else's
  std::shared_ptr<Device> device_;
  std::size_t max_bytes_;
  AddressRange address_range_ = nullptr;
  std::vector<Stream> copy_streams_;          // by destination peer (none for this rank)
  std::vector<std::unique_ptr<Slot>> slots_;  // by piece; never moved, MPI holds their addresses
  std::vector<Exported> exported_;            // by number
  Buffer<char> landing_;
  int landing_number_ = -1;
  std::vector<std::vector<Mapping>> opened_;  // by peer, then by the peer's number
};

}  // namespace

PeerAccess check_peer_access(MPI_Comm comm, const Device& device) {
  int ranks = 1, me = 0;
  KOLMO_CHECK_MPI(MPI_Comm_size(comm, &ranks));
  KOLMO_CHECK_MPI(MPI_Comm_rank(comm, &me));
  // What each rank can tell alone, agreed on first: the GPUs are compared only where all ranks have one.
  int obstacle = device.backend() != Backend::cuda ? 2 : node_size(comm) < ranks ? 1 : 0;
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &obstacle, 1, MPI_INT, MPI_MAX, comm));
  if (obstacle == 2) return {"exchange method p2p needs the cuda backend (backend is host)"};
  if (obstacle == 1)
    return {"exchange method p2p needs all ranks on one node (CUDA IPC), but they span several: use nccl"};
  constexpr int kBusId = 32;
  std::vector<char> buses(static_cast<std::size_t>(kBusId) * ranks, '\0');
  char mine[kBusId] = {};
  KOLMO_CHECK_CUDA(cudaDeviceGetPCIBusId(mine, kBusId - 1, device.index()));
  KOLMO_CHECK_MPI(MPI_Allgather(mine, kBusId, MPI_CHAR, buses.data(), kBusId, MPI_CHAR, comm));
  int verdict[2] = {0, 0};  // {some pair lacks peer access, some ranks share a GPU}
  for (int q = 0; q < ranks; ++q) {
    const char* theirs = &buses[static_cast<std::size_t>(kBusId) * q];
    if (std::strncmp(theirs, mine, kBusId) == 0) {
      // The same GPU: IPC between processes on one device needs no peer access.
      if (q != me) verdict[1] = 1;
      continue;
    }
    int index = -1, can_access = 0;
    if (cudaDeviceGetByPCIBusId(&index, theirs) != cudaSuccess) {
      cudaGetLastError();  // the peer's GPU is hidden from this process (CUDA_VISIBLE_DEVICES)
      verdict[0] = 1;
      continue;
    }
    KOLMO_CHECK_CUDA(cudaDeviceCanAccessPeer(&can_access, device.index(), index));
    if (!can_access) verdict[0] = 1;
  }
  KOLMO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, verdict, 2, MPI_INT, MPI_MAX, comm));
  if (verdict[0])
    return {"exchange method p2p needs peer access between the ranks' GPUs, which some pair lacks: use nccl",
            verdict[1] == 1};
  return {"", verdict[1] == 1};
}

std::unique_ptr<Exchange> make_p2p_exchange(MPI_Comm comm, const std::shared_ptr<Device>& device,
                                            std::size_t max_bytes) {
  return std::make_unique<P2pExchange>(comm, device, max_bytes);
}

}  // namespace kolmo::fft
