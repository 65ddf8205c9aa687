// The all-to-all of emulated ranks (fft/Exchange.hpp, loopback): every chunk goes to this rank itself, as
// device copies of the same sizes, so that one device does one rank's complete work of a transform over
// several ranks. Strided chunks go block by block.
#include <algorithm>

#include "fft/Exchange.hpp"

namespace kolmo::fft {

namespace {

class LoopbackExchange final : public Exchange {
 public:
  LoopbackExchange(const std::shared_ptr<Device>& device, bool moves) : device_(device), moves_(moves) {}

  ExchangeMethod method() const override { return ExchangeMethod::loopback; }

  bool moves_blocks() const override { return true; }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    if (!moves_) return;
    const char* from = static_cast<const char*>(send);
    char* to = static_cast<char*>(recv);
    if (chunks.strided()) {
      for (std::size_t q = 0; q < chunks.recv_blocks.size(); ++q)
        run_blocks(from, chunks.send_blocks[q], to, chunks.recv_blocks[q]);
      return;
    }
    for (std::size_t q = 0; q < chunks.recv_bytes.size(); ++q) {
      const std::size_t bytes = std::min(chunks.send_bytes[q], chunks.recv_bytes[q]);
      device_->copy(to + chunks.recv_offset[q], from + chunks.send_offset[q], bytes);
      if (chunks.recv_bytes[q] > bytes)
        device_->fill_zero(to + chunks.recv_offset[q] + bytes, chunks.recv_bytes[q] - bytes);
    }
  }

 private:
  // Strided chunks: block k sent to q goes to block k received from q, as far as their extents overlap;
  // where they differ (uneven slabs) the received blocks are zeroed first.
  void run_blocks(const char* send, const std::vector<Block>& out, char* recv, const std::vector<Block>& in) {
    auto same = [](const Block& a, const Block& b) {
      return a.width == b.width && a.rows == b.rows && a.slices == b.slices;
    };
    bool equal = out.size() == in.size();
    for (std::size_t k = 0; equal && k < in.size(); ++k) equal = same(out[k], in[k]);
    if (!equal)
      for (const Block& b : in)
        for (std::size_t s = 0; s < b.slices; ++s)
          device_->fill_zero_2d(recv + b.offset + s * b.slice_rows * b.pitch, b.pitch, b.width, b.rows);
    for (std::size_t k = 0; k < std::min(out.size(), in.size()); ++k) {
      Block from = out[k], to = in[k];
      from.width = to.width = std::min(from.width, to.width);
      from.rows = to.rows = std::min(from.rows, to.rows);
      from.slices = to.slices = std::min(from.slices, to.slices);
      copy_block(*device_, recv, to, send, from);
    }
  }

  std::shared_ptr<Device> device_;
  bool moves_;
};

}  // namespace

std::unique_ptr<Exchange> make_loopback_exchange(const std::shared_ptr<Device>& device, bool moves) {
  return std::make_unique<LoopbackExchange>(device, moves);
}

}  // namespace kolmo::fft
