// One owner for every C handle kolmo holds: cuFFT and FFTW plans, CUDA streams, events and IPC mappings,
// NCCL communicators, MPI datatypes and communicators, pinned host memory.
//
// Contract:
// - UniqueHandle<Handle, release>() owns nothing; UniqueHandle(h) owns h and calls release(h) exactly once,
//   when it is destroyed, reset or assigned over. release's result is ignored: a destructor cannot report
//   (and the handles' own libraries may already be shut down: release functions for MPI handles check
//   MPI_Finalized themselves).
// - Move-only; a moved-from owner owns nothing. get() returns the handle (Handle{} when none); the handle
//   need not differ from Handle{} (cuFFT's plans are small integers, 0 among them), ownership is recorded
//   apart.
// - Private to the library: not installed.
#pragma once

#include <utility>

namespace kolmo {

template <class Handle, auto release>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) : handle_(handle), owned_(true) {}
  ~UniqueHandle() { reset(); }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, Handle{})), owned_(std::exchange(other.owned_, false)) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
      owned_ = std::exchange(other.owned_, false);
    }
    return *this;
  }

  Handle get() const { return handle_; }
  explicit operator bool() const { return owned_; }
  void reset() {
    if (owned_) release(handle_);
    handle_ = Handle{};
    owned_ = false;
  }

 private:
  Handle handle_{};
  bool owned_ = false;
};

}  // namespace kolmo
