// The output schedule's decisions (app/Schedule.hpp), without a run or a clock: the simulation-time cadence
// and the wall-clock checkpoints.
#include <catch2/catch.hpp>
#include <cmath>

#include "app/Schedule.hpp"

using namespace kolmo::app;

TEST_CASE("the wall-clock interval of checkpoints counts from the last checkpoint of any kind", "[app]") {
  WallClockCheckpoints wall(1.0);  // a minute
  CHECK_FALSE(wall.due(59.9));
  CHECK(wall.due(60));
  // A checkpoint for the simulation-time cadence (output.checkpoint_every) 58 s in, just before the minute
  // ran out: the next one by the wall clock comes a minute after it, not at once (there had been two, a step
  // apart, of almost the same state).
  wall.written(58);
  CHECK_FALSE(wall.due(60));
  CHECK_FALSE(wall.due(117.9));
  CHECK(wall.due(118));
  // One by the wall clock itself restarts the interval likewise.
  wall.written(118.5);
  CHECK_FALSE(wall.due(178));
  CHECK(wall.due(178.5));
  // output.checkpoint_wall_minutes: 0 asks for none.
  WallClockCheckpoints none(0);
  CHECK_FALSE(none.due(1e9));
}

TEST_CASE("an output interval is due at the first step that reaches each multiple, once", "[app]") {
  const double tolerance = clock_tolerance(1.0, 1000, 1e-3);
  CHECK(tolerance == 1e-12);  // 1000 steps gather less than 1e-12 of t
  CHECK(reaches(0.2 - 1e-14, 0.2, tolerance));
  CHECK_FALSE(reaches(0.2 - 1e-9, 0.2, tolerance));
  // Just short of a multiple that the step reached within the round-off: that multiple is done, the next due.
  CHECK(next_multiple(0.6 - 1e-15, 0.2, tolerance) == Approx(0.8));
  CHECK(next_multiple(0.5, 0.2, tolerance) == Approx(0.6));
  CHECK(std::isinf(next_multiple(0.5, 0, tolerance)));
}
