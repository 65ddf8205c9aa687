// How a kernel depends on the kernel before it on its stream (core/DependentLaunch.cuh says what each field
// does and when it is safe): plain data, so that host code may pass it to the launches of fft/RowFft.hpp and
// fft/ColumnFft.hpp.
#pragma once

namespace kolmo {

struct Dependence {
  bool waits = true;            // waits for the kernel before it (the default, always safe)
  bool releases_early = false;  // lets the next kernel start once all its blocks have started
};

}  // namespace kolmo
