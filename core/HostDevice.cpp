// The host Device: aligned heap memory, OpenMP copies, nothing asynchronous.
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "core/Device.hpp"
#include "core/Error.hpp"

namespace kolmo {

namespace {

// 64 bytes: a cache line, and enough for every SIMD width FFTW uses.
constexpr std::size_t kAlignment = 64;

void* aligned_allocate(std::size_t bytes) {
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* pointer = std::aligned_alloc(kAlignment, rounded);
  if (pointer == nullptr) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  return pointer;
}

class HostDevice final : public Device {
 public:
  Backend backend() const override { return Backend::host; }
  std::string name() const override {
    return "host (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
  }
  std::size_t available_bytes() const override {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
      if (key == "MemAvailable:") return kib * 1024;
    return 0;
  }
  void* allocate(std::size_t bytes) override { return aligned_allocate(bytes); }
  void release(void* pointer) noexcept override { std::free(pointer); }

  void copy(void* dst, const void* src, std::size_t bytes) override {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    // Large copies in parallel: one thread does not saturate memory bandwidth.
    const std::size_t block = 1 << 20;
    const long blocks = static_cast<long>((bytes + block - 1) / block);
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; ++b) {
      std::size_t begin = static_cast<std::size_t>(b) * block;
      std::memcpy(d + begin, s + begin, std::min(block, bytes - begin));
    }
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows) override {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#pragma omp parallel for schedule(static)
    for (long r = 0; r < static_cast<long>(rows); ++r) std::memcpy(d + r * dpitch, s + r * spitch, width);
  }
  void copy_3d(void* dst, std::size_t dpitch, std::size_t drows, const void* src, std::size_t spitch,
               std::size_t srows, std::size_t width, std::size_t rows, std::size_t depth) override {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#pragma omp parallel for collapse(2) schedule(static)
    for (long z = 0; z < static_cast<long>(depth); ++z)
      for (long r = 0; r < static_cast<long>(rows); ++r)
        std::memcpy(d + (z * drows + r) * dpitch, s + (z * srows + r) * spitch, width);
  }
  void fill_zero(void* dst, std::size_t bytes) override {
    std::memset(dst, 0, bytes);
  }
  void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) override {
    auto* d = static_cast<char*>(dst);
#pragma omp parallel for schedule(static)
    for (long r = 0; r < static_cast<long>(rows); ++r) std::memset(d + r * pitch, 0, width);
  }
  void copy_to_host(void* host, const void* src, std::size_t bytes) override {
    copy(host, src, bytes);
  }
  void copy_from_host(void* dst, const void* host, std::size_t bytes) override {
    copy(dst, host, bytes);
  }
  void synchronize() override {}
  std::shared_ptr<Device> sibling() const override {
    return std::make_shared<HostDevice>();
  }
  void wait_for(Device&) override {}
};

}  // namespace

std::string to_string(Backend backend) {
  return backend == Backend::cuda ? "cuda" : "host";
}

Backend parse_backend(const std::string& name) {
  if (name == "host" || name == "cpu") return Backend::host;
  if (name == "cuda" || name == "gpu") return Backend::cuda;
  throw Error("unknown backend '" + name + "' (expected host or cuda)");
}

Backend Device::automatic() {
  return cuda_device_count() > 0 ? Backend::cuda : Backend::host;
}

std::shared_ptr<Device> make_host_device() {
  return std::make_shared<HostDevice>();
}
std::shared_ptr<Device> make_cuda_device(int node_rank);  // CudaDevice.cu, or the stub below

std::shared_ptr<Device> Device::create(Backend backend, int node_rank) {
  if (backend == Backend::host) return make_host_device();
  if (!cuda_compiled())
    throw Error("backend: cuda, but kolmo was built without CUDA (auto or host run on the CPU)");
  if (cuda_device_count() == 0)
    throw Error("backend: cuda, but no GPU is visible to this process (auto or host run on the CPU)");
  return make_cuda_device(node_rank);
}

void* host_aligned_allocate(std::size_t bytes) {
  return aligned_allocate(bytes);
}

}  // namespace kolmo

#if !defined(KOLMO_HAVE_CUDA)
namespace kolmo {
bool cuda_compiled() {
  return false;
}
int cuda_device_count() {
  return 0;
}
std::shared_ptr<Device> make_cuda_device(int) {
  throw Error("kolmo was built without CUDA");
}
void* allocate_staging(Backend, std::size_t bytes) {
  return host_aligned_allocate(bytes);
}
void release_staging(Backend, void* pointer) noexcept {
  std::free(pointer);
}
}  // namespace kolmo
#endif
