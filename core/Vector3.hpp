// Vectors of three doubles as the configuration gives them (rotation, gravity, mean gradients, fields'
// backgrounds): their length.
#pragma once

#include <array>
#include <cmath>

namespace kolmo {

// |v| without overflow or underflow on the way (std::hypot scales): [0, 0, 1e300] has length 1e300, not inf,
// and a vector of finite components has a finite length up to 1.8e308.
inline double length(const std::array<double, 3>& v) {
  return std::hypot(v[0], v[1], v[2]);
}

}  // namespace kolmo
