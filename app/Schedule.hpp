// When a Navier-Stokes run writes its outputs: the simulation-time cadence (output.fields_every,
// spectra_every, checkpoint_every, and time.t_end) and the wall-clock one of checkpoints
// (output.checkpoint_wall_minutes). Decisions only, from numbers the caller gives: no clock is read here, so
// that they can be tested without waiting for one.
//
// Contract:
// - clock_tolerance(t, steps, dt): how far short of a target time (a multiple of an output interval,
//   time.t_end) the clock may stop and the step still reach it: the round-off the clock has gathered. It adds
//   each step's dt to t (NavierStokes::step), each sum rounded by up to half an ulp of t, so after n steps t
//   may miss the sum of the steps by n / 2 ulps of t: 1e5 steps of 1e-3 miss it by 5e-11, beyond the fixed
//   1e-12 of t once allowed (outputs came a step late, and such a run ended with a step of 3e-11 after the
//   one that reached t_end). At most a hundredth of the step, so that a step stretched to end on t_end stays
//   within a percent of its length; at least 1e-12 of t.
// - reaches(t, target, tolerance): whether a step that ended at time t reached target.
// - next_multiple(t, interval, tolerance): the next simulation time at which an output with this interval is
//   due after time t (infinity for an interval <= 0): the first multiple that t does not reach, by the same
//   test (reaches) as the one that found the output due. (Another test here, as before, could take a multiple
//   just written for one not yet reached: once the tolerance exceeded 1e-9 of the interval, which a run of
//   more than 1000 intervals and 1e4 steps meets, that multiple was written again at the next step.) An
//   interval below t's precision gives t: due every step.
// - WallClockCheckpoints(minutes): a checkpoint is due once `minutes` of wall-clock time have passed since
//   the last checkpoint of any kind (or since the run started, before the first): one written for the
//   simulation-time cadence (output.checkpoint_every) counts as well, so that one written just before the
//   wall interval ran out is not followed by a second at once, of almost the same state (the interval once
//   counted from the last wall-clock checkpoint only). minutes <= 0: never due. Times are seconds since the
//   run started. Ranks must agree on a checkpoint: the caller takes rank 0's due() for all (MPI_Bcast), and
//   every rank tells written() of each checkpoint, so that rank 0's record is right.
#pragma once

namespace kolmo::app {

double clock_tolerance(double t, long steps, double dt);
bool reaches(double t, double target, double tolerance);
double next_multiple(double t, double interval, double tolerance);

class WallClockCheckpoints {
 public:
  explicit WallClockCheckpoints(double minutes) : interval_(minutes > 0 ? 60 * minutes : 0) {}

  // Whether a checkpoint is due at `elapsed` seconds of the run.
  bool due(double elapsed) const { return interval_ > 0 && elapsed - last_ >= interval_; }
  // A checkpoint, of any kind, was written at `elapsed` seconds: the interval starts again from there.
  void written(double elapsed) { last_ = elapsed; }

 private:
  double interval_;  // seconds; 0: no wall-clock checkpoints
  double last_ = 0;  // when the last checkpoint was written (the run's start before the first)
};

}  // namespace kolmo::app
