// The all-to-all on its own (fft/Exchange.hpp): every rank's chunk for every peer arrives whole and where the
// chunk table says, for uneven chunk sizes (empty ones included), in one run and in pieces started together
// and finished in reverse order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "fft/Exchange.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;

namespace {

// The 8-byte word number i of the chunk that rank `from` sends to rank `to` in piece `piece`.
std::uint64_t word(int from, int to, int piece, std::size_t i) {
  return (std::uint64_t(from) << 48) | (std::uint64_t(to) << 40) | (std::uint64_t(piece) << 32) | i;
}

// Uneven sizes: (from + 2 to + piece) mod 4 words, so some chunks are empty.
std::size_t words(int from, int to, int piece) {
  return static_cast<std::size_t>((from + 2 * to + piece) % 4);
}

// Piece `piece` of `pieces`: chunks laid out piece after piece, peer after peer, on both sides.
Chunks piece_table(int rank, int ranks, int piece, int pieces) {
  Chunks c;
  for (auto* v : {&c.send_offset, &c.send_bytes, &c.recv_offset, &c.recv_bytes}) v->resize(ranks);
  std::size_t send = 0, recv = 0;
  for (int j = 0; j < pieces; ++j)
    for (int q = 0; q < ranks; ++q) {
      if (j == piece) {
        c.send_offset[q] = send * 8;
        c.send_bytes[q] = words(rank, q, j) * 8;
        c.recv_offset[q] = recv * 8;
        c.recv_bytes[q] = words(q, rank, j) * 8;
      }
      send += words(rank, q, j);
      recv += words(q, rank, j);
    }
  return c;
}

// keep: the receive buffer is declared kept (Exchange::keep_receive_buffer): p2p then writes into it
// directly.
// max_message_bytes: isend_irecv's largest message (make_exchange; 0: MPI's).
void check_exchange(const std::shared_ptr<Device>& device, ExchangeMethod method, int pieces,
                    bool keep = false, std::size_t max_message_bytes = 0) {
  const int rank = kolmo::testing::world_rank(), ranks = kolmo::testing::world_size();
  std::vector<Chunks> tables;
  for (int j = 0; j < pieces; ++j) tables.push_back(piece_table(rank, ranks, j, pieces));
  std::vector<std::uint64_t> send_words, expected;
  for (int j = 0; j < pieces; ++j)
    for (int q = 0; q < ranks; ++q) {
      for (std::size_t i = 0; i < words(rank, q, j); ++i) send_words.push_back(word(rank, q, j, i));
      for (std::size_t i = 0; i < words(q, rank, j); ++i) expected.push_back(word(q, rank, j, i));
    }
  const std::size_t bytes = 8 * std::max(send_words.size(), expected.size()) + 8;
  auto exchange = make_exchange(method, MPI_COMM_WORLD, device, false, bytes, max_message_bytes);
  Buffer<std::uint64_t> send(device, send_words.size() + 1), recv(device, expected.size() + 1);
  if (keep) exchange->keep_receive_buffer(recv.data(), recv.bytes());
  send.assign_from_host(send_words);
  recv.fill_zero();
  if (pieces == 1) {
    exchange->run(send.data(), recv.data(), tables[0]);
  } else {
    for (int j = 0; j < pieces; ++j) exchange->start(send.data(), recv.data(), tables[j], j);
    for (int j = pieces - 1; j >= 0; --j) exchange->finish(j);
  }
  auto got = recv.host_copy();
  got.resize(expected.size());
  CHECK(kolmo::testing::global_max(got == expected ? 0.0 : 1.0) == 0.0);
}

}  // namespace

TEST_CASE("the all-to-all delivers every chunk where the table says, whole or in pieces", "[fft]") {
  auto host = Device::create(Backend::host);
  for (auto method : {ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv})
    for (int pieces : {1, 3}) {
      INFO("method " << to_string(method) << ", " << pieces << " piece(s)");
      check_exchange(host, method, pieces);
    }
}

// MPI counts in int: isend_irecv sends a chunk above 16 GiB in several messages. The same code path with
// messages of 8 and 16 bytes, chunks of up to 24 bytes.
TEST_CASE("isend_irecv sends a chunk larger than its largest message in several, each in its place",
          "[fft]") {
  auto host = Device::create(Backend::host);
  for (std::size_t message : {8, 16})
    for (int pieces : {1, 3}) {
      INFO("messages of " << message << " bytes, " << pieces << " piece(s)");
      check_exchange(host, ExchangeMethod::isend_irecv, pieces, false, message);
    }
}

TEST_CASE("the p2p exchange is refused on the host backend, by every rank alike", "[fft]") {
  CHECK(parse_exchange("p2p") == ExchangeMethod::p2p);
  CHECK(to_string(ExchangeMethod::p2p) == "p2p");
  auto host = Device::create(Backend::host);
  std::string message;
  try {
    make_exchange(ExchangeMethod::p2p, MPI_COMM_WORLD, host, false, 64);
  } catch (const Error& e) {
    message = e.what();
  }
  INFO(message);
  const bool refused = message == "exchange method p2p needs the cuda backend (backend is host)";
  CHECK(kolmo::testing::global_max(refused ? 0.0 : 1.0) == 0.0);
  // automatic never picks it there
  CHECK(resolve(ExchangeMethod::automatic, *host, MPI_COMM_WORLD) == ExchangeMethod::isend_irecv);
}

TEST_CASE("GPU: the all-to-all delivers every chunk, whole or in pieces", "[fft][gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("exchange on the GPU");
  if (!gpu) return;
  // p2p works between ranks sharing a GPU too (CUDA IPC between processes on one device), which lets one GPU
  // test it.
  std::vector<ExchangeMethod> methods{ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv,
                                      ExchangeMethod::p2p};
  if (nccl_usable(MPI_COMM_WORLD)) methods.push_back(ExchangeMethod::nccl);
  for (auto method : methods)
    for (int pieces : {1, 3}) {
      INFO("method " << to_string(method) << ", " << pieces << " piece(s)");
      check_exchange(gpu, method, pieces);
      if (method == ExchangeMethod::p2p) check_exchange(gpu, method, pieces, true);
    }
}

TEST_CASE("GPU: peer access is checked, and automatic does not pick p2p before it is timed", "[fft][gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("choice of the exchange");
  if (!gpu) return;
  const PeerAccess peers = check_peer_access(MPI_COMM_WORLD, *gpu);
  // Ranks take GPU (node rank mod count), so they share one exactly when there are more ranks than GPUs.
  CHECK(peers.shared_gpus == (node_size(MPI_COMM_WORLD) > cuda_device_count()));
  const ExchangeMethod chosen = resolve(ExchangeMethod::automatic, *gpu, MPI_COMM_WORLD);
  CHECK(chosen == (nccl_usable(MPI_COMM_WORLD) ? ExchangeMethod::nccl : ExchangeMethod::isend_irecv));
}

// Rounds of one p2p exchange, each round's words different, while the ranks take turns to be slow: the slow
// rank's stream is busy when its peers are ready to write the next round, and when its own copies would
// start. A receive buffer overwritten before its owner has read the previous round, or read before the data
// have landed, shows as a word of the wrong round in the history of what each round delivered.
TEST_CASE("GPU: p2p rounds never overwrite what a peer has not read, nor read before it landed",
          "[fft][gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("p2p rounds");
  if (!gpu) return;
  const int rank = kolmo::testing::world_rank(), ranks = kolmo::testing::world_size();
  constexpr int kRounds = 6;
  for (bool keep : {true, false}) {
    for (int pieces : {1, 2}) {
      // Round r goes as piece j of a table of `pieces`; its words carry r where the piece number was.
      std::vector<std::vector<std::uint64_t>> sent(kRounds), expected(kRounds);
      for (int r = 0; r < kRounds; ++r)
        for (int j = 0; j < pieces; ++j)
          for (int q = 0; q < ranks; ++q) {
            for (std::size_t i = 0; i < words(rank, q, j); ++i) sent[r].push_back(word(rank, q, r, i));
            for (std::size_t i = 0; i < words(q, rank, j); ++i) expected[r].push_back(word(q, rank, r, i));
          }
      const std::size_t send_words = sent[0].size() + 1, recv_words = expected[0].size() + 1;
      auto exchange = make_exchange(ExchangeMethod::p2p, MPI_COMM_WORLD, gpu, false, 8 * recv_words + 8);
      // Every round's send data in place before the first round: nothing in the loop waits for the GPU.
      std::vector<std::uint64_t> all_sent;
      for (int r = 0; r < kRounds; ++r) {
        sent[r].resize(send_words);
        all_sent.insert(all_sent.end(), sent[r].begin(), sent[r].end());
      }
      Buffer<std::uint64_t> send(gpu, all_sent.size()), recv(gpu, recv_words),
          history(gpu, kRounds * recv_words), busy(gpu, std::size_t(8) << 20);
      if (keep) exchange->keep_receive_buffer(recv.data(), recv.bytes());
      send.assign_from_host(all_sent);
      for (int r = 0; r < kRounds; ++r) {
        const std::uint64_t* round_send = send.data() + r * send_words;
        for (int j = 0; j < pieces; ++j)
          exchange->start(round_send, recv.data(), piece_table(rank, ranks, j, pieces), j);
        for (int j = 0; j < pieces; ++j) exchange->finish(j);
        // About a millisecond of memory traffic on the slow rank, then the round is read.
        if (r % ranks == rank)
          for (int k = 0; k < 32; ++k) busy.fill_zero();
        gpu->copy(history.data() + r * recv_words, recv.data(), recv.bytes());
      }
      auto got = history.host_copy();
      bool all_right = true;
      for (int r = 0; r < kRounds; ++r)
        all_right =
            all_right && std::equal(expected[r].begin(), expected[r].end(), got.begin() + r * recv_words);
      INFO("kept receive buffer " << keep << ", " << pieces << " piece(s)");
      CHECK(kolmo::testing::global_max(all_right ? 0.0 : 1.0) == 0.0);
    }
  }
}
