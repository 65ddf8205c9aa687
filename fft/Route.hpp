// A route: the steps of one kind of transform, chosen and bound once at SlabFFT's construction and walked in
// order by one loop (SlabFFT::walk), as heFFTe's fft3d walks its executors and reshapes.
//
// Contract: Route<In, Out> is a transform from In (the caller's input) to Out (its output): forward
// Route<Real, Complex<Real>>, backward Route<Complex<Real>, Real>. Each step queues its work on the device's
// stream when run(in, out) is called with the transform's own arguments; every other buffer (scratch slabs,
// executors, chunk tables) was bound when the step was made. phase is what a profile counts the step as.
// fused: the route packs in cuFFT's kernels (FftOptions::pack_in_ffts).
//
// A forward transform on several ranks by copies, for example, is
//   planes (in -> scratch) | pack (scratch -> out) | own_chunk, exchange (out -> scratch) | x (scratch ->
//   out)
// and on one rank planes | x; SlabFFT.cpp assembles the others.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "fft/SlabFFT.hpp"

namespace kolmo::fft {

template <class In, class Out>
struct Route {
  struct Step {
    Phase phase;
    std::function<void(const In*, Out*)> run;
  };
  std::vector<Step> steps;
  bool fused = false;

  void add(Phase phase, std::function<void(const In*, Out*)> run) {
    steps.push_back({phase, std::move(run)});
  }
};

}  // namespace kolmo::fft
