// The all-to-all of a slab transform: every rank sends one chunk to every other rank and receives one from
// each.
//
// Contract:
// - run(send, recv, chunks) sends bytes [send_offset[q], +send_bytes[q]) of send to rank q and receives rank
//   q's chunk into [recv_offset[q], +recv_bytes[q]) of recv, for every q. The rank's own chunk is copied
//   locally on the device, never through MPI or NCCL. send and recv are device memory of the Device and must
//   not overlap. When run returns, recv may be used by later work on the device's stream.
// - Methods: isend_irecv (default for MPI: chunked MPI_Isend/MPI_Irecv), alltoallv (one MPI_Alltoallv, a
//   baseline), nccl (grouped ncclSend/ncclRecv on the device's stream; CUDA backend only), p2p (copy-engine
//   copies straight into the peers' receive buffers through CUDA IPC, fft/P2pExchange.cu; CUDA backend, all
//   ranks on one node, peer access between their GPUs; its construction and destruction are collective).
//   automatic: on the CUDA backend p2p where all ranks are on one node, each with a GPU of its own and peer
//   access between them (untimed against NCCL on several GPUs so far: none were lent), else nccl where NCCL
//   is usable, else isend_irecv; isend_irecv on the host.
// - Strided chunks (Chunks with blocks) are taken by methods whose moves_blocks() says so.
// - For GPU buffers the MPI methods stage through pinned host memory unless the MPI is declared CUDA-aware,
//   in which case device pointers go to MPI directly.
// - Pipelined use (SlabFFT with several exchange pieces): start(send, recv, chunks, piece) posts one piece's
//   exchange once the work queued so far on the device's stream is done, and returns; finish(piece) makes
//   the device's later work wait for that piece's data, sent and received. Pieces 0, 1, ... are started in
//   that order by every rank, and each started piece is finished before it is started again. The send and
//   receive regions of pieces in flight must not be touched by other work until finished. By default start
//   runs the whole exchange and finish does nothing (correct, without overlap); isend_irecv and nccl
//   overlap: MPI requests stay open, NCCL works on a stream of its own ordered by events, p2p copies on
//   streams of their own.
// - loopback (make_loopback_exchange, for emulated ranks: SlabFFT with FftOptions::emulated_ranks, which
//   refuses it as FftOptions::exchange otherwise): one process stands for one rank of several and sends
//   every chunk to itself. The own chunk arrives as in a real exchange; in place of the chunk that peer q
//   would send, the receive region of q gets this rank's chunk for q (its first min(send, receive) bytes, the
//   rest zero): the same bytes moved on the device, of values that are this rank's own. Made with moves =
//   false, it moves nothing (FftOptions::emulated_exchange_moves: timing the computation alone).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../core/Device.hpp"

namespace kolmo::fft {

enum class ExchangeMethod { automatic, isend_irecv, alltoallv, nccl, p2p, loopback };

std::string to_string(ExchangeMethod method);
// "auto", "isend_irecv", "alltoallv", "nccl", "p2p" (loopback is not chosen by name); throws kolmo::Error
// naming the text otherwise.
ExchangeMethod parse_exchange(const std::string& name);
// automatic -> the method it stands for (see the contract above); others unchanged. Collective over comm.
ExchangeMethod resolve(ExchangeMethod method, const Device& device, MPI_Comm comm);
bool nccl_compiled();
// NCCL is built in and every rank of comm has a GPU of its own (NCCL refuses two ranks on one GPU).
// Collective over comm.
bool nccl_usable(MPI_Comm comm);
// Whether p2p can run on comm with these devices: refusal is "" when it can, else one line saying why, the
// same on every rank; shared_gpus: some ranks share a GPU (p2p still works, through one GPU's memory).
// Collective over comm.
struct PeerAccess {
  std::string refusal;
  bool shared_gpus = false;
};
PeerAccess check_peer_access(MPI_Comm comm, const Device& device);

// A box of a 3D array of bytes [slice][row][byte]: `slices` slices of `rows` rows of `width` bytes from
// `offset`, rows `pitch` bytes apart, slices `slice_rows` rows apart.
struct Block {
  std::size_t offset = 0, width = 0, rows = 1, slices = 1, pitch = 0, slice_rows = 1;
  std::size_t bytes() const { return width * rows * slices; }
  std::size_t end() const {
    return bytes() == 0 ? offset : offset + ((slices - 1) * slice_rows + rows - 1) * pitch + width;
  }
};

// Where each peer's chunk sits, in bytes. A chunk is one contiguous range, or with blocks (strided chunks:
// the exchange reads and writes the layouts of the transforms themselves, so that nothing is packed) the
// blocks send_blocks[q] of the send buffer go to peer q, where they land in that peer's recv_blocks[me]
// (block k to block k, of equal extents), and recv_blocks[q] receive what q sends; the offsets and sizes
// above still give each chunk's first byte and total bytes.
struct Chunks {
  std::vector<std::size_t> send_offset, send_bytes, recv_offset, recv_bytes;
  std::vector<std::vector<Block>> send_blocks, recv_blocks;  // by peer; empty for contiguous chunks
  std::size_t total_send() const;
  std::size_t total_recv() const;
  bool strided() const { return !send_blocks.empty(); }
  // The table of the reverse exchange: what was sent is received, and the other way round.
  Chunks reversed() const {
    return {recv_offset, recv_bytes, send_offset, send_bytes, recv_blocks, send_blocks};
  }
};

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void run(const void* send, void* recv, const Chunks& chunks) = 0;
  virtual void start(const void* send, void* recv, const Chunks& chunks, int /*piece*/) {
    run(send, recv, chunks);
  }
  virtual void finish(int /*piece*/) {}
  // A receive buffer that its owner keeps, at the same address and unfreed, until the exchange is destroyed
  // (SlabFFT's scratch slab). p2p receives straight into such buffers, and into others through memory of its
  // own and a local copy (peers map the memory they write into, and CUDA IPC forbids freeing memory that
  // others have mapped). The other methods ignore it.
  virtual void keep_receive_buffer(void* /*buffer*/, std::size_t /*bytes*/) {}
  virtual ExchangeMethod method() const = 0;
  // Whether run/start take strided chunks (Chunks::send_blocks): p2p (2D and 3D copies by the copy
  // engines), loopback, and isend_irecv on the host (MPI datatypes); the others throw kolmo::Error.
  virtual bool moves_blocks() const { return false; }
};

// Copies block `from` of src into block `to` of dst, of equal extents, on the device's stream (one 3D copy).
void copy_block(Device& device, char* dst, const Block& to, const char* src, const Block& from);
// Copies what rank `me` sends itself from send to recv (its contiguous chunk, or its blocks), on the device's
// stream.
void copy_own_chunk(Device& device, char* recv, const char* send, const Chunks& chunks, int me);

// max_bytes: the largest total send or receive the exchange will be asked for (sizes the staging buffers).
// max_message_bytes (isend_irecv; a multiple of 8): a chunk larger goes in several messages; 0: the most that
// MPI's int counts take, 16 GiB (tests give less).
std::unique_ptr<Exchange> make_exchange(ExchangeMethod method, MPI_Comm comm,
                                        const std::shared_ptr<Device>& device, bool cuda_aware_mpi,
                                        std::size_t max_bytes, std::size_t max_message_bytes = 0);
std::unique_ptr<Exchange> make_loopback_exchange(const std::shared_ptr<Device>& device, bool moves = true);

}  // namespace kolmo::fft
