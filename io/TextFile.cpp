#include "io/TextFile.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/Error.hpp"
#include "io/ParallelFile.hpp"

namespace kolmo::io {

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  // C stdio rather than iostreams: errno then tells why a write or close failed.
  std::FILE* file = std::fopen(path.c_str(), "wb");
  KOLMO_REQUIRE(file != nullptr, std::string("cannot create it: ") + std::strerror(errno));
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  int error = written ? 0 : errno;
  // fclose flushes the buffer: a full disk often shows only here.
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (!written && error == 0) error = EIO;
  KOLMO_REQUIRE(error == 0, std::string("cannot write it: ") + std::strerror(error));
}

void replace_text_file(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = temporary_path(path);
  try {
    write_text_file(temporary, text);
    rename_or_throw(temporary, path);
  } catch (const Error& error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw Error(path.string() + ": " + error.what());
  }
}

}  // namespace kolmo::io
