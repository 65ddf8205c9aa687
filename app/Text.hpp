// Numbers in the kolmo command's messages and files, alone or in lists: short, and exact enough to recognise.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <string>

namespace kolmo::app {

// x with `digits` significant digits, as printf's %g: "0.001", "1.441", "3.2e+05".
inline std::string number_text(double x, int digits = 6) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// "[a, b, c]", each as number_text: grids, boxes, vectors.
template <class T, std::size_t N>
std::string list_text(const std::array<T, N>& values, int digits = 6) {
  std::string text = "[";
  for (std::size_t i = 0; i < N; ++i) text += (i ? ", " : "") + number_text(double(values[i]), digits);
  return text + "]";
}

}  // namespace kolmo::app
