// Small text files kept between runs in the user's cache (FFTW's wisdom, fft/FftwWisdom.hpp; the timed route
// choices, fft/RouteChoices.hpp), read whole and replaced whole.
//
// Contract:
// - read_cache_file(file): its content, or "" when it does not exist or cannot be read.
// - write_cache_file(file, text, what): writes text to file through a temporary file beside it and a rename,
//   so that a reader never sees half of it, creating its directory where needed. Returns a line for reports:
//   "<what> saved to <file>", or "could not write <what> <file>" (not fatal: the caller goes on without it).
#pragma once

#include <string>

namespace kolmo::fft {

std::string read_cache_file(const std::string& file);
std::string write_cache_file(const std::string& file, const std::string& text, const std::string& what);

}  // namespace kolmo::fft
