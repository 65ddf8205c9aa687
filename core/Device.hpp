// Where one rank's data live and how they move: host memory (OpenMP) or one CUDA GPU (one stream).
//
// Contract:
// - Backend::host always exists. Backend::cuda exists when kolmo was built with CUDA (KOLMO_HAVE_CUDA) and
// the
//   process sees a GPU; Device::create(Backend::cuda) throws kolmo::Error otherwise.
// - A Device owns one CUDA stream. Everything kolmo does on a device (FFTs, exchanges, pointwise kernels) is
//   ordered on that stream, so callers never synchronise between kolmo calls; synchronize() waits for all of
//   it.
// - Copies are asynchronous on the device's stream; copy_to_host / copy_from_host return when the data have
//   arrived (they synchronise), because the host is about to read or the source is about to change.
//   copy_2d and copy_3d take memory the device addresses (on a GPU: its own, a peer's with peer access,
//   pinned host memory), not overlapping; a GPU runs them as a kernel (core/StridedCopy.hpp).
// - sibling() is another Device on the same GPU with a stream of its own, for work that runs beside this
//   one's (several transforms in flight, fft/TransformLanes.hpp); memory either allocates serves both.
//   wait_for(other) orders them: what is queued here afterwards waits for everything queued on other so far.
//   On the host a sibling is another host Device, and waiting is nothing: every call has finished when it
//   returns.
// - With several ranks on a node, each rank takes GPU (node-local rank mod GPU count).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace kolmo {

enum class Backend { host, cuda };

std::string to_string(Backend backend);
// "host", "cpu" -> host; "cuda", "gpu" -> cuda. Throws kolmo::Error naming the text otherwise.
Backend parse_backend(const std::string& name);

// True when this build contains the CUDA backend.
bool cuda_compiled();
// GPUs this process can use; 0 when built without CUDA or when no GPU or driver is present.
int cuda_device_count();

class Device {
 public:
  // node_rank picks the GPU (node_rank mod count); ignored for the host.
  static std::shared_ptr<Device> create(Backend backend, int node_rank = 0);
  // cuda when a GPU is usable, host otherwise.
  static Backend automatic();

  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  virtual Backend backend() const = 0;
  // A human-readable name: "host (2 OpenMP threads)", "NVIDIA H100 80GB HBM3 (GPU 0)".
  virtual std::string name() const = 0;
  // The model alone (a GPU's name without its index), for what depends on the kind of device: timings.
  virtual std::string model() const { return name(); }

  // Bytes this device can still allocate, shared by every process using it: a GPU's free memory
  // (cudaMemGetInfo), or for the host the node's MemAvailable from /proc/meminfo (0 where unknown).
  virtual std::size_t available_bytes() const = 0;

  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* pointer) noexcept = 0;

  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // rows rows of width bytes each, from src with pitch spitch to dst with pitch dpitch.
  virtual void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                       std::size_t rows) = 0;
  // depth slices of rows rows of width bytes: a slice of src is srows rows of spitch bytes, of dst drows rows
  // of dpitch bytes (a box cut out of, or put into, a larger 3D array).
  virtual void copy_3d(void* dst, std::size_t dpitch, std::size_t drows, const void* src, std::size_t spitch,
                       std::size_t srows, std::size_t width, std::size_t rows, std::size_t depth) = 0;
  virtual void fill_zero(void* dst, std::size_t bytes) = 0;
  // rows rows of width bytes each, pitch bytes apart, set to zero.
  virtual void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) = 0;
  virtual void copy_to_host(void* host, const void* src, std::size_t bytes) = 0;
  virtual void copy_from_host(void* dst, const void* host, std::size_t bytes) = 0;
  virtual void synchronize() = 0;
  virtual std::shared_ptr<Device> sibling() const = 0;
  virtual void wait_for(Device& other) = 0;

  // The CUDA stream (cudaStream_t) as an opaque pointer; nullptr for the host.
  virtual void* stream() const { return nullptr; }
  // GPU index for CUDA devices, -1 for the host.
  virtual int index() const { return -1; }

 protected:
  Device() = default;
};

// Pinned host memory when the device is a GPU (fast staging), ordinary aligned memory otherwise.
void* allocate_staging(Backend backend, std::size_t bytes);
void release_staging(Backend backend, void* pointer) noexcept;

}  // namespace kolmo
