// The all-to-all on its own (fft/Exchange.hpp): every rank's chunk for every peer arrives whole and where the
// chunk table says, for uneven chunk sizes (empty ones included), in one run and in pieces started together
// and finished in reverse order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/Buffer.hpp"
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

void check_exchange(const std::shared_ptr<Device>& device, ExchangeMethod method, int pieces) {
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
  auto exchange = make_exchange(method, MPI_COMM_WORLD, device, false, bytes);
  Buffer<std::uint64_t> send(device, send_words.size() + 1), recv(device, expected.size() + 1);
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

TEST_CASE("GPU: the all-to-all delivers every chunk, whole or in pieces", "[fft][gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("exchange on the GPU");
  if (!gpu) return;
  std::vector<ExchangeMethod> methods{ExchangeMethod::isend_irecv, ExchangeMethod::alltoallv};
  if (nccl_usable(MPI_COMM_WORLD)) methods.push_back(ExchangeMethod::nccl);
  for (auto method : methods)
    for (int pieces : {1, 3}) {
      INFO("method " << to_string(method) << ", " << pieces << " piece(s)");
      check_exchange(gpu, method, pieces);
    }
}
