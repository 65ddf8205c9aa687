// The chunk tables of the all-to-all (fft/Exchange.hpp): totals, and the copy of one strided block.
#include "core/Error.hpp"
#include "fft/Exchange.hpp"

namespace kolmo::fft {

std::size_t Chunks::total_send() const {
  std::size_t total = 0;
  for (auto b : send_bytes) total += b;
  return total;
}

std::size_t Chunks::total_recv() const {
  std::size_t total = 0;
  for (auto b : recv_bytes) total += b;
  return total;
}

void copy_block(Device& device, char* dst, const Block& to, const char* src, const Block& from) {
  device.copy_3d(dst + to.offset, to.pitch, to.slice_rows, src + from.offset, from.pitch, from.slice_rows,
                 from.width, from.rows, from.slices);
}

void copy_own_chunk(Device& device, char* recv, const char* send, const Chunks& chunks, int me) {
  if (!chunks.strided()) {
    device.copy(recv + chunks.recv_offset[me], send + chunks.send_offset[me], chunks.send_bytes[me]);
    return;
  }
  const auto& from = chunks.send_blocks[me];
  const auto& to = chunks.recv_blocks[me];
  if (from.size() != to.size()) throw Error("internal: the own chunk's blocks differ in number");
  for (std::size_t k = 0; k < from.size(); ++k) copy_block(device, recv, to[k], send, from[k]);
}

}  // namespace kolmo::fft
