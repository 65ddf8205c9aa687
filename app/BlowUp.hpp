// When a Navier-Stokes run has blown up, judged every step from what the CFL pass measures anyway
// (NavierStokes::velocity_scan(): the largest |u|/dx + |v|/dy + |w|/dz and the energy), and which time
// steps are refused or warned about before a run starts.
//
// Contract:
// - growth_per_step(config, dt, rate, frequency): the largest factor by which one step multiplies a Fourier
//   mode of the linearised equations, with the flow's fastest point (rate = max |u|/dx + |v|/dy + |w|/dz)
//   frozen and uniform, over every kept mode it can advect and with viscous damping included: max over s in
//   (0, 1] of |R(i s y)| exp(-nu dt s^2 k^2), where R is the integrator's stability polynomial, y = dt (rate
//   max_d(dx_d k_max,d) + frequency) bounds |k.u| dt over the kept modes (k_max,d the largest kept
//   wavenumber along axis d) plus the explicit linear terms' rate (frequency: rotation's and buoyancy's
//   frequency bound and the forcing's rate, counted on the imaginary axis like the waves they mostly are),
//   and k^2 = min_d k_max,d^2 is the least damping a mode advected that fast can have. The integrating
//   factor makes the step of such a mode exactly R(-i k.u dt) exp(-nu k^2 dt).
// - A state is blown up when (BlowUpCheck::problem), for every step:
//     1. the velocity is not finite (the scan's rate is infinite), or a passive scalar is not (its variance,
//        one reduction a step, is not finite). Passive scalars do not act on the velocity, so the velocity's
//        checks never see them: rk3 at a fixed step far past diffusive_step_limit made a scalar of
//        diffusivity 1000 NaN in its first step while u stayed sound, and the run ended "done" with NaN in
//        its series, dumps and checkpoint;
//     2. its energy exceeds what the forcing can have injected: 1.1 times E(t0) + P (t - t0) for band forcing
//        and linear forcing with power P, E(t0) exp(2 A (t - t0)) for linear forcing with coefficient A,
//        E(t0) without forcing; or, in one step, 1.01 times the previous step's energy plus the step's
//        injection. The nonlinear term conserves the energy of the dealiased (Galerkin) system and viscosity
//        only removes it, so no solution exceeds these bounds at any resolution; a stable time integration
//        follows them up to its truncation error, far below the margins. The per-step bound catches a late
//        blow-up long before the energy could climb back to the start's. An unstable step makes the
//        energy grow geometrically, so it crosses either bound within a step or two of taking over.
//        With a Boussinesq buoyancy the energy is E + <b^2> / (2 |N2|) (the caller adds the second part):
//        conserved by buoyancy for N2 > 0, so the bounds hold as they are; for N2 < 0 (convection) it grows
//        at most as exp(4 sqrt(|N2|) t) (dE/dt <= <w b> and d<b^2>/2/dt <= |N2| <w b>, with
//        |<w b>| <= sqrt(2 E <b^2>)), and the bounds carry that factor. Rotation does no work;
//     3. a passive scalar's variance V = <theta^2> exceeds what its start and its mean gradient G allow, with
//        the same margins: 1.1 times (sqrt(V(t0)) + |G| I(t))^2 over the run, I the integral of sqrt(2 E)
//        since t0, and 1.01 times (sqrt(V_prev) + |G| sqrt(2 E_step) h)^2 in a step of length h. Advection
//        conserves V in the dealiased system (u solenoidal), diffusion only removes it, and the mean
//        gradient's production -2 <theta u.G> is at most 2 |G| sqrt(2 E V), so d sqrt(V)/dt <= |G| sqrt(2 E).
//        E over a step is taken as 1.01 times the larger of its ends' energies (the energy checked in 2,
//        which bounds the kinetic energy), I summed from those. Without a mean gradient V may only fall: rk3
//        at a fixed step past diffusive_step_limit made a scalar of diffusivity 80 (16^3) grow by 1e7 a step
//        to 1e222 in 40 steps, and the run ended "done". Mean squares within 1e3 of the smallest normal
//        numbers (a decaying scalar's, in the end) are not judged: their round-off is not relative.
//   The check also remembers the step S from which the energy (or a scalar's variance) has exceeded the run
//   bound itself (E(t0) without forcing; no margin: a value no solution has), and the message names it: the
//   checkpoints and field dumps from S on hold a growing state, which a continued run would take up. A weak
//   instability passes the margin long after S, with checkpoints written in between: rk2 at a fixed CFL
//   number of 2.4 (18 x 20 x 14, nu = 1e-4, an unforced random flow) grew the energy by 0.6-0.8 % every step
//   from the first and was stopped at step 13, past two checkpoints of that growth. A stretch above the
//   bound that ends (round-off, or a stable step's truncation error at the bound) is forgotten: S starts the
//   last one; of several quantities above their bounds, the earliest S counts.
//   The message names the newest checkpoint (told by BlowUpCheck::checkpoint_kept) and advises continuing
//   from it (--restart) only when it is from before S (or no S is known: the per-step criterion caught the
//   growth below the run bound); else from checkpoint.prev.h5 if that one is (--checkpoint with its path),
//   else a new run (output.overwrite). After a restart the check starts from the state continued from, the
//   run's newest checkpoint: the bound and S are relative to that state, which is not judged again.
//   The CFL number is not a criterion during the run: it bounds the growth of the worst case (a uniform
//   flow at the fastest point's velocity), which real flows stay well below. Measured: the Taylor-Green
//   vortex at Re 400 on 32^3 runs with a fixed step to t = 30 at CFL numbers up to 2.0 (rk2), 3.4 (rk3) and
//   4.0 (rk4), where the worst case grows 3, 9 and 19-fold per step already at the start; a CFL criterion
//   would stop such sound runs.
// - check_start(config, rate, frequency): before a run with a fixed step, an error text (the run is refused
//   before anything is written) when its CFL number dt (rate + frequency), the one the run prints, is far
//   beyond the integrator's stability limit: y above 3 times the limit of the worst case on the imaginary
//   axis (sqrt(3) for rk3, 2 sqrt(2) for rk4, in units of |k.u| dt; rk2, whose region holds no part of the
//   axis, gets rk3's); a warning text when growth_per_step exceeds 1.01; else empty texts. The same
//   Taylor-Green runs blow up from starting CFL numbers of 1.5 (rk2), 2.3 (rk3) and 2.8 (rk4), 1.7, 2.6
//   and 1.9 times that limit (and are stopped by the energy criterion within 8 to 16 steps), so the refusal
//   catches only steps no flow takes. Whatever the step, it refuses a velocity that may overflow the
//   precision: where U^2 k_max N^3 (U the largest component, at most rate times the coarsest spacing; k_max
//   the largest kept |k|; N^3 the points), a bound on the nonlinear term's forward transform, passes the
//   largest number (3.4e38 in single precision). The first step would give infinities, reported as a blow-up
//   with advice on the step that cannot help.
//   Before a run with an adaptive step, a warning text when the CFL number it keeps, time.cfl, lets the
//   integrator amplify the worst case by more than 1.01 per step: growth_per_step with the step time.cfl /
//   (rate + frequency) that the start's velocity gets (y = time.cfl (rate scale + frequency) / (rate +
//   frequency)), naming a time.cfl within the stability limit that would not warn (for rk2, whose worst case
//   grows at any step, the largest for which only viscosity keeps it below 1.01) and the other integrators
//   that take time.cfl without a warning. time.max_dt and the diffusive limit, which may hold the step below
//   that while the flow is slow, are not counted: a flow that speeds up leaves them behind. A warning only,
//   as for a fixed step: the measured runs above keep such CFL numbers. rk2 at time.cfl 1.95 (the flow
//   above, whose worst case then grows 6.8-fold a step) made the energy grow from the first step, and the
//   run was stopped at step 48; rk2 at the default 0.5 is warned about too (1.09 there; 0.28 would not be).
// - diffusive_step_limit(config): the largest step h for which no stage of the integrator multiplies a mode
//   by more than e through its integrating factor run backward: D k_max^2 s h <= 1, with D the largest
//   diffusivity (viscosity, the scalars', the resistivity), k_max^2 the largest kept |k|^2 and s of
//   solver::backward_factor_fraction (rk3 1/2, lsrk4 0.0185); infinite for rk2, rk4 and lsrk3. An adaptive
//   step stays below it. Without it a decaying flow's CFL step grows without end, and rk3 blew up once
//   exp(D k_max^2 h / 2) outgrew the decay (a 16^3 run at nu = 0.01 near t = 960); a typical DNS, where
//   nu k_max^2 dt ~ CFL u_eta / u, never meets it. check_start warns about a fixed step beyond it.
// - Every text is one line naming the step, the time and the keys to change.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/Config.hpp"

namespace kolmo::app {

double growth_per_step(const io::RunConfig& config, double dt, double rate, double frequency = 0);
double diffusive_step_limit(const io::RunConfig& config);

struct StartVerdict {
  std::string error;    // refuse the run
  std::string warning;  // run, but say so
};
StartVerdict check_start(const io::RunConfig& config, double rate, double frequency = 0);

class BlowUpCheck {
 public:
  // The state the run starts from (or continues from, after a restart): its time, its energy and the
  // variances <theta^2> of its passive scalars (physics.scalars, in their order: the solver's first scalars).
  BlowUpCheck(const io::RunConfig& config, double start_time, double start_energy,
              const std::vector<double>& start_variances);

  // The most energy the forcing can add to `energy` in `elapsed` time.
  double energy_bound(double energy, double elapsed) const;
  // The run's checkpoints/ holds the state after `step` as its newest checkpoint (checkpoint.h5), and the
  // newest before as checkpoint.prev.h5: after each checkpoint written, and at a restart in place, for the
  // checkpoint it continues from. A run that starts anew (an initial condition, or another run's checkpoint)
  // has none until it writes one.
  void checkpoint_kept(long step, double time);
  // Why the state after step `step` (at time; rate and energy from velocity_scan(); the passive scalars'
  // variances as at the start) must neither be written nor continued, or nothing when it is healthy (then it
  // is the previous state of the next call). Called before anything of the state is written, which the text
  // says, with the checkpoint to continue from.
  std::optional<std::string> problem(long step, double time, double rate, double energy,
                                     const std::vector<double>& variances);

 private:
  struct Moment {
    long step;
    double time;
  };
  // A mean square with bounds over the run and per step: the energy, or a passive scalar's variance.
  struct Watched {
    std::string what;     // "its energy", "the variance of scalar 'c'"
    std::string allowed;  // what bounds it over the run, "the start and the forcing"
    std::string adder;    // what may add to it in a step, "the forcing"
    double start = 0, previous = 0;
    std::optional<Moment> above_since;  // S: the first step of the last stretch above the run bound
  };
  // Why `value` breaks its bounds, or nothing; keeps `watched.above_since`.
  std::optional<std::string> exceeds(Watched& watched, const Moment& now, double value, double run_bound,
                                     double step_bound) const;
  std::string blown_up(const Moment& now, const std::string& why) const;

  const io::RunConfig& config_;
  double start_time_, previous_time_;
  double floor_;  // mean squares at or below it are round-off near the precision's smallest numbers
  Watched energy_;
  std::vector<Watched> scalars_;  // physics.scalars' variances
  double stirring_ = 0;           // I: the integral of sqrt(2 E) since the start, an upper bound
  std::optional<Moment> newest_checkpoint_, previous_checkpoint_;
};

}  // namespace kolmo::app
