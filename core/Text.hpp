// Numbers in kolmo's messages and files, alone or in lists: short where they are read (number_text), exact
// where they must read back as they were given (exact_text).
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <string>
#include <type_traits>

namespace kolmo {

// x with `digits` significant digits, as printf's %g: "0.001", "1.441", "3.2e+05".
inline std::string number_text(double x, int digits = 6) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// x in the fewest digits that read back as x (std::to_chars): a value as the user wrote it, "1e-300", "0.1".
inline std::string exact_text(double x) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

// "[a, b, c]": integers in full, reals as number_text: grids, boxes, vectors.
template <class T, std::size_t N>
std::string list_text(const std::array<T, N>& values, int digits = 6) {
  std::string text = "[";
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += ", ";
    if constexpr (std::is_integral_v<T>)
      text += std::to_string(values[i]);
    else
      text += number_text(double(values[i]), digits);
  }
  return text + "]";
}

}  // namespace kolmo
