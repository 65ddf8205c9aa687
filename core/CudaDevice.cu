// The CUDA Device: one GPU, one non-blocking stream, cudaMalloc'd memory.
#include <cuda_runtime.h>

#include <memory>

#include "core/CudaCheck.hpp"
#include "core/CudaEvent.hpp"
#include "core/Device.hpp"
#include "core/StridedCopy.hpp"
#include "core/UniqueHandle.hpp"

namespace kolmo {

namespace {

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int index) : index_(index) {
    KOLMO_CHECK_CUDA(cudaSetDevice(index_));
    cudaStream_t stream = nullptr;
    KOLMO_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    stream_ = UniqueHandle<cudaStream_t, cudaStreamDestroy>(stream);
  }

  Backend backend() const override { return Backend::cuda; }
  std::string name() const override { return model() + " (GPU " + std::to_string(index_) + ")"; }
  std::string model() const override {
    cudaDeviceProp properties{};
    KOLMO_CHECK_CUDA(cudaGetDeviceProperties(&properties, index_));
    return properties.name;
  }
  std::size_t available_bytes() const override {
    std::size_t free = 0, total = 0;
    KOLMO_CHECK_CUDA(cudaSetDevice(index_));
    KOLMO_CHECK_CUDA(cudaMemGetInfo(&free, &total));
    return free;
  }
  void* allocate(std::size_t bytes) override {
    void* pointer = nullptr;
    cudaError_t status = cudaMalloc(&pointer, bytes);
    if (status != cudaSuccess)
      throw Error("GPU " + std::to_string(index_) + ": cannot allocate " + std::to_string(bytes) +
                  " bytes: " + cudaGetErrorString(status));
    return pointer;
  }
  void release(void* pointer) noexcept override { cudaFree(pointer); }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    KOLMO_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_.get()));
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows) override {
    strided_copy(stream_.get(), dst, dpitch, rows, src, spitch, rows, width, rows, 1);
  }
  void copy_3d(void* dst, std::size_t dpitch, std::size_t drows, const void* src, std::size_t spitch,
               std::size_t srows, std::size_t width, std::size_t rows, std::size_t depth) override {
    strided_copy(stream_.get(), dst, dpitch, drows, src, spitch, srows, width, rows, depth);
  }
  void fill_zero(void* dst, std::size_t bytes) override {
    KOLMO_CHECK_CUDA(cudaMemsetAsync(dst, 0, bytes, stream_.get()));
  }
  void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) override {
    if (rows == 0 || width == 0) return;
    KOLMO_CHECK_CUDA(cudaMemset2DAsync(dst, pitch, 0, width, rows, stream_.get()));
  }
  void copy_to_host(void* host, const void* src, std::size_t bytes) override {
    KOLMO_CHECK_CUDA(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDefault, stream_.get()));
    synchronize();
  }
  void copy_from_host(void* dst, const void* host, std::size_t bytes) override {
    KOLMO_CHECK_CUDA(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyDefault, stream_.get()));
    synchronize();
  }
  void synchronize() override { KOLMO_CHECK_CUDA(cudaStreamSynchronize(stream_.get())); }
  void* stream() const override { return stream_.get(); }
  int index() const override { return index_; }
  std::shared_ptr<Device> sibling() const override { return std::make_shared<CudaDevice>(index_); }
  void wait_for(Device& other) override {
    if (other.stream() == stream() || other.stream() == nullptr) return;  // itself, or the host: done
    // An event of its own each time: destroying it right after the wait is legal (CUDA frees it once the
    // wait has passed), and ordering a few transforms' forks and joins costs microseconds.
    const Event done = new_event(cudaEventDisableTiming);
    KOLMO_CHECK_CUDA(cudaEventRecord(done.get(), static_cast<cudaStream_t>(other.stream())));
    KOLMO_CHECK_CUDA(cudaStreamWaitEvent(stream_.get(), done.get()));
  }

 private:
  int index_;
  UniqueHandle<cudaStream_t, cudaStreamDestroy> stream_;
};

}  // namespace

bool cuda_compiled() {
  return true;
}

int cuda_device_count() {
  int count = 0;
  // No driver or no GPU is not an error here: the host backend takes over.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::shared_ptr<Device> make_cuda_device(int node_rank) {
  return std::make_shared<CudaDevice>(node_rank % cuda_device_count());
}

void* host_aligned_allocate(std::size_t bytes);

void* allocate_staging(Backend backend, std::size_t bytes) {
  if (backend != Backend::cuda) return host_aligned_allocate(bytes);
  void* pointer = nullptr;
  KOLMO_CHECK_CUDA(cudaMallocHost(&pointer, bytes));
  return pointer;
}

void release_staging(Backend backend, void* pointer) noexcept {
  if (backend == Backend::cuda)
    cudaFreeHost(pointer);
  else
    std::free(pointer);
}

}  // namespace kolmo
