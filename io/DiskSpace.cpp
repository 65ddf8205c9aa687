#include "io/DiskSpace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/Error.hpp"

namespace kolmo::io {

namespace {

// A file descriptor closed on every path out.
class Descriptor {
 public:
  Descriptor(const std::filesystem::path& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC)) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Whether errno says that this file system cannot preallocate (as opposed to: it has no room).
bool reservation_unsupported(int error) {
  return error == EOPNOTSUPP || error == ENOSYS || error == EINVAL;
}

}  // namespace

bool reserve_space(const std::filesystem::path& path, std::uintmax_t offset, std::uintmax_t bytes) {
#ifdef FALLOC_FL_KEEP_SIZE
  if (bytes == 0) return true;
  Descriptor file(path, O_WRONLY);
  KOLMO_REQUIRE(file.get() >= 0, std::string("cannot open it to reserve space: ") + std::strerror(errno));
  int status = 0;
  do {
    status =
        ::fallocate(file.get(), FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(bytes));
  } while (status != 0 && errno == EINTR);
  if (status == 0) return true;
  const int error = errno;
  if (reservation_unsupported(error)) return false;
  // A failed reservation may have kept part of the space: give it back.
  release_unreserved_tail(path);
  throw Error("cannot reserve the " + describe_bytes(bytes) +
              " it needs on its device: " + std::strerror(error));
#else
  (void)path, (void)offset, (void)bytes;
  return false;
#endif
}

void release_unreserved_tail(const std::filesystem::path& path) {
  Descriptor file(path, O_WRONLY);
  if (file.get() < 0) return;
  const off_t size = ::lseek(file.get(), 0, SEEK_END);
  if (size < 0) return;
  // Truncating to the same size frees preallocated blocks past the end on ext4 and tmpfs; punching a hole
  // there does it on XFS. Both are best effort: the file's content is not affected either way.
  if (::ftruncate(file.get(), size) != 0) return;
#ifdef FALLOC_FL_PUNCH_HOLE
  (void)::fallocate(file.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, size, off_t(1) << 40);
#endif
}

std::uintmax_t file_size_or_zero(const std::filesystem::path& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

std::string describe_bytes(std::uintmax_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%ju bytes", bytes);
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace kolmo::io
