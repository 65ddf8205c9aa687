// Numbers in the kolmo command's messages and files: short, and exact enough to recognise.
#pragma once

#include <cstdio>
#include <string>

namespace kolmo::app {

// x with `digits` significant digits, as printf's %g: "0.001", "1.441", "3.2e+05".
inline std::string number_text(double x, int digits = 6) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

}  // namespace kolmo::app
