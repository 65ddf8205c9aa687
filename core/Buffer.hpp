// An owned array of T in a Device's memory (RAII).
//
// Contract: the buffer keeps its Device alive; contents are uninitialised after construction; moving
// transfers ownership (the buffer moved from is empty); size() counts elements of T. Host-side access
// (host_copy, assign_from_host) synchronises. An empty buffer (default-constructed, moved from, or of 0
// elements) has no device to speak of: every operation on it does nothing. A buffer of elements needs a
// device (kolmo::Error otherwise).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "Device.hpp"
#include "Error.hpp"

namespace kolmo {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<Device> device, std::size_t count) : device_(std::move(device)), size_(count) {
    KOLMO_REQUIRE(device_ != nullptr || size_ == 0,
                  "a buffer of elements needs a device, not a null pointer");
    if (size_ > 0) data_ = static_cast<T*>(device_->allocate(size_ * sizeof(T)));
  }
  ~Buffer() { reset(); }
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      reset();
      swap(other);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  Device& device() const { return *device_; }
  const std::shared_ptr<Device>& device_handle() const { return device_; }

  void fill_zero() {
    if (size_ > 0) device_->fill_zero(data_, bytes());
  }
  std::vector<T> host_copy() const {
    std::vector<T> host(size_);
    if (size_ > 0) device_->copy_to_host(host.data(), data_, bytes());
    return host;
  }
  // Copies host.size() elements (at most size()) to the start of the buffer.
  void assign_from_host(const std::vector<T>& host) {
    if (!host.empty()) device_->copy_from_host(data_, host.data(), std::min(host.size(), size_) * sizeof(T));
  }
  void copy_from(const Buffer& other) {
    const std::size_t count = std::min(bytes(), other.bytes());
    if (count > 0) device_->copy(data_, other.data_, count);
  }

 private:
  void reset() noexcept {
    if (data_ != nullptr) device_->release(data_);
    data_ = nullptr;
    size_ = 0;
  }
  void swap(Buffer& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

  std::shared_ptr<Device> device_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kolmo
