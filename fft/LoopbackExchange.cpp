// The all-to-all of emulated ranks (fft/Exchange.hpp, loopback): every chunk goes to this rank itself, as
// device copies of the same sizes, so that one device does one rank's complete work of a transform over
// several ranks.
#include <algorithm>

#include "fft/Exchange.hpp"

namespace kolmo::fft {

namespace {

class LoopbackExchange final : public Exchange {
 public:
  explicit LoopbackExchange(const std::shared_ptr<Device>& device) : device_(device) {}

  ExchangeMethod method() const override { return ExchangeMethod::loopback; }

  void run(const void* send, void* recv, const Chunks& chunks) override {
    const char* from = static_cast<const char*>(send);
    char* to = static_cast<char*>(recv);
    for (std::size_t q = 0; q < chunks.recv_bytes.size(); ++q) {
      const std::size_t bytes = std::min(chunks.send_bytes[q], chunks.recv_bytes[q]);
      device_->copy(to + chunks.recv_offset[q], from + chunks.send_offset[q], bytes);
      if (chunks.recv_bytes[q] > bytes)
        device_->fill_zero(to + chunks.recv_offset[q] + bytes, chunks.recv_bytes[q] - bytes);
    }
  }

 private:
  std::shared_ptr<Device> device_;
};

}  // namespace

std::unique_ptr<Exchange> make_loopback_exchange(const std::shared_ptr<Device>& device) {
  return std::make_unique<LoopbackExchange>(device);
}

}  // namespace kolmo::fft
