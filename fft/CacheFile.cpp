#include "fft/CacheFile.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kolmo::fft {

std::string read_cache_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string write_cache_file(const std::string& file, const std::string& text, const std::string& what) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), error);
  const std::string temporary = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::filesystem::remove(temporary, error);
      return "could not write " + what + " " + file;
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return "could not write " + what + " " + file;
  }
  return what + " saved to " + file;
}

}  // namespace kolmo::fft
