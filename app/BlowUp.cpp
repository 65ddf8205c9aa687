#include "app/BlowUp.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <utility>
#include <vector>

#include "app/FlowFromConfig.hpp"
#include "app/RunStatus.hpp"
#include "core/Text.hpp"
#include "core/Vector3.hpp"
#include "io/Checkpoint.hpp"
#include "io/OutputDirectory.hpp"
#include "solver/Integrators.hpp"

namespace kolmo::app {

namespace {

std::string short_number(double x) {
  return number_text(x, 4);
}

// Relative room above the bounds of the energy and of the scalars' variances for the truncation error of a
// stable time integration: over the run, and in one step.
constexpr double kRunMargin = 1.1;
constexpr double kStepMargin = 1.01;
// A fixed step is refused beyond this many times the integrator's stability limit, and warned about when the
// worst case grows by more than kWarnedGrowth per step.
constexpr double kRefusedLimits = 3.0;
constexpr double kWarnedGrowth = 1.01;
// Mean squares at or below this are not judged: they hold values near the smallest normal numbers (of the
// fields' precision, or of the double they are summed in), whose relative round-off no bound can take. A
// scalar whose variance decays by diffusion alone reaches them: from 1, at diffusivity 1 and k = 1, by t =
// 350.
double round_off_floor(io::Precision precision) {
  constexpr double kRoom = 1e3;
  const double value =
      precision == io::Precision::float32 ? kRoom * double(std::numeric_limits<float>::min()) : 0.0;
  return std::max(kRoom * std::numeric_limits<double>::min(), value * value);
}

// The CFL number suggested instead: time.cfl's default.
constexpr double kSuggestedCfl = 0.5;
// The largest exponent D k^2 s h of an integrating factor run backward (diffusive_step_limit).
constexpr double kBackwardExponent = 1.0;

bool fixed_step(const io::RunConfig& config) {
  return config.time.dt.has_value();
}

// What to continue a blown-up run with.
std::string smaller_step(const io::RunConfig& config) {
  return fixed_step(config)
             ? "a smaller time.dt (now " + short_number(*config.time.dt) + ") or an adaptive step (time.cfl)"
             : "a smaller time.cfl (now " + short_number(config.time.cfl) + ")";
}

// The warnings' common part: what the worst case may do.
std::string amplification(solver::Integrator integrator, double growth) {
  return solver::to_string(integrator) + " may amplify the fastest resolved modes by up to " +
         short_number(growth) + " per step: it may blow up (kolmo stops it if it does); consider ";
}

// x rounded down to 2 significant digits: a suggested bound that its text does not round up.
double round_down(double x) {
  if (!(x > 0)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::floor(x / unit) * unit;
}

// max_d dx_d k_max,d: the CFL number times this bounds |k.u| dt over the kept modes; and min_d k_max,d^2.
std::pair<double, double> advection_scales(const io::RunConfig& config) {
  double scale = 0, k2 = std::numeric_limits<double>::infinity();
  for (int d = 0; d < 3; ++d) {
    const double dx = config.grid.box[d] / double(config.grid.n[d]);
    const double k_max = io::largest_kept_wavenumber(config.grid, d);
    scale = std::max(scale, dx * k_max);
    k2 = std::min(k2, k_max * k_max);
  }
  return {scale, k2};
}

// The end of the stability region's interval on the imaginary axis (sqrt 3 for rk3, 2 sqrt 2 for rk4), to
// 1e-3; rk2 has none and gets rk3's.
double imaginary_axis_limit(solver::Integrator integrator) {
  if (integrator == solver::Integrator::rk2) integrator = solver::Integrator::rk3;
  double y = 0;
  while (std::abs(solver::stability_function(integrator, {0.0, y + 1e-3})) <= 1 + 1e-12) y += 1e-3;
  return y;
}

// The worst case's stability limit as a CFL number.
double stability_limit(const io::RunConfig& config) {
  return imaginary_axis_limit(config.time.integrator) / advection_scales(config).first;
}

// Where the first step may overflow the precision whatever its size: the largest velocity component, at most
// the scan's rate times the coarsest spacing, beyond io::largest_safe_velocity (the nonlinear term's
// transform sums up to U^2 k_max N^3 for a coherent flow). With k_max for the flow's own
// wavenumbers the estimate is a bound, not a prediction: a Taylor-Green vortex in single precision gave
// infinities from U = 1e18 at 16^3 and 64^3 and from 3e17 at 32^3; this refuses from 9.8e16 at 16^3 and 6e15
// at 64^3. An error text, or empty.
std::string beyond_range(const io::RunConfig& config, double rate) {
  const bool single = config.precision == io::Precision::float32;
  const double largest =
      single ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  const double k2 = io::largest_kept_k2(config.grid);
  double spacing = 0, points = 1;
  for (int d = 0; d < 3; ++d) {
    spacing = std::max(spacing, config.grid.box[d] / double(config.grid.n[d]));
    points *= double(config.grid.n[d]);
  }
  const double velocity = rate * spacing;
  if (!(velocity > 0) || velocity < io::largest_safe_velocity(config.grid, config.precision)) return {};
  // In logarithms, for the message: the estimate itself may overflow a double.
  const double log_reach = 2 * std::log10(velocity) + 0.5 * std::log10(k2) + std::log10(points);
  // In MHD the scan counts the Alfven speed |B| with the flow's (B = B0 + b): name both.
  const bool mhd = config.physics.magnetic.type == io::MagneticType::mhd;
  return std::string(mhd ? "the initial velocity and magnetic field (|u| + |B| components up to about "
                         : "the initial velocity (components up to about ") +
         short_number(velocity) + ") may overflow " + (single ? "single" : "double") +
         " precision: the nonlinear term's transforms sum up to about " + "U^2 k_max N^3 = 1e" +
         std::to_string(int(std::floor(log_reach))) + ", beyond its largest number (" +
         short_number(largest) + "); use a smaller " + (mhd ? "velocity and field" : "velocity") +
         " (other units)" + (single ? " or precision: double" : "");
}

// An adaptive step's warning (check_start), or empty. time.cfl keeps the CFL number dt (rate + frequency), so
// the start's step is time.cfl / (rate + frequency).
std::string cfl_warning(const io::RunConfig& config, double rate, double frequency) {
  if (!(rate + frequency > 0)) return {};
  io::RunConfig with = config;
  auto growth = [&](solver::Integrator integrator, double cfl) {
    with.time.integrator = integrator;
    return growth_per_step(with, cfl / (rate + frequency), rate, frequency);
  };
  const solver::Integrator integrator = config.time.integrator;
  const double cfl = config.time.cfl, worst = growth(integrator, cfl);
  if (worst <= kWarnedGrowth) return {};
  // The largest CFL number within the stability limit that would not warn, by bisection (the growth does not
  // decrease with the step: a larger one reaches farther along the axis and damps each y less).
  double low = 0, high = std::min(cfl, stability_limit(config));
  if (growth(integrator, high) <= kWarnedGrowth) low = high;
  for (int i = 0; i < 40 && low < high; ++i) {
    const double middle = 0.5 * (low + high);
    (growth(integrator, middle) <= kWarnedGrowth ? low : high) = middle;
  }
  std::string instead = "time.cfl <= " + short_number(round_down(low));
  // The integrators that would take time.cfl without this warning.
  std::vector<std::string> others;
  for (const auto other : {solver::Integrator::rk2, solver::Integrator::rk3, solver::Integrator::rk4,
                           solver::Integrator::lsrk3, solver::Integrator::lsrk4})
    if (other != integrator && growth(other, cfl) <= kWarnedGrowth)
      others.push_back(solver::to_string(other));
  for (std::size_t i = 0; i < others.size(); ++i)
    instead += (i == 0 ? ", or time.integrator " : (i + 1 < others.size() ? ", " : " or ")) + others[i];
  return "time.cfl = " + short_number(cfl) + ", where " + amplification(integrator, worst) + instead;
}

}  // namespace

double growth_per_step(const io::RunConfig& config, double dt, double rate, double frequency) {
  const auto [scale, k2] = advection_scales(config);
  const double y = dt * (rate * scale + frequency), damping = config.physics.viscosity * dt * k2;
  double growth = 0;
  constexpr int samples = 2000;
  for (int i = 1; i <= samples; ++i) {
    const double s = double(i) / samples;
    growth = std::max(growth, std::abs(solver::stability_function(config.time.integrator, {0.0, s * y})) *
                                  std::exp(-damping * s * s));
  }
  return growth;
}

double diffusive_step_limit(const io::RunConfig& config) {
  const double fraction = solver::backward_factor_fraction(config.time.integrator);
  const solver::FlowParameters flow = flow_parameters(config);
  double diffusivity = flow.viscosity;
  for (const auto& scalar : flow.scalars) diffusivity = std::max(diffusivity, scalar.diffusivity);
  if (flow.magnetic.enabled) diffusivity = std::max(diffusivity, flow.magnetic.resistivity);
  const double rate = fraction * diffusivity * io::largest_kept_k2(config.grid);
  return rate > 0 ? kBackwardExponent / rate : std::numeric_limits<double>::infinity();
}

StartVerdict check_start(const io::RunConfig& config, double rate, double frequency) {
  StartVerdict verdict;
  if (!(rate < std::numeric_limits<double>::infinity())) {
    verdict.error = "the initial velocity holds NaN or infinite values";
    return verdict;
  }
  if (const std::string range = beyond_range(config, rate); !range.empty()) {
    verdict.error = range;
    return verdict;
  }
  if (!fixed_step(config)) {
    verdict.warning = cfl_warning(config, rate, frequency);
    return verdict;
  }
  const double dt = *config.time.dt;
  const std::string integrator = solver::to_string(config.time.integrator);
  if (rate + frequency > 0) {
    // The CFL number the run prints (dt times the adaptive step's rate); against the limit, the worst case's
    // y = dt (rate scale + frequency) in units of its scale.
    const double cfl = dt * (rate + frequency), limit = stability_limit(config);
    const double scaled_cfl = dt * (rate + frequency / advection_scales(config).first);
    const double growth = growth_per_step(config, dt, rate, frequency);
    const std::string what =
        "time.dt = " + short_number(dt) + " gives a CFL number of " + short_number(cfl) + " at the start" +
        (frequency > 0 ? " (rotation, buoyancy and forcing add a rate of " + short_number(frequency) + ")"
                       : std::string());
    const std::string instead = "time.dt <= " + short_number(kSuggestedCfl / (rate + frequency)) + " (CFL " +
                                short_number(kSuggestedCfl) + ") or an adaptive step (time.cfl)";
    if (scaled_cfl > kRefusedLimits * limit)
      verdict.error = what + ", more than " + short_number(kRefusedLimits) +
                      " times the stability limit of " + integrator + " (" + short_number(limit) +
                      "): it would blow up; use " + instead;
    else if (growth > kWarnedGrowth)
      verdict.warning = what + ", where " + amplification(config.time.integrator, growth) + instead;
  }
  const double diffusive_limit = diffusive_step_limit(config);
  if (verdict.error.empty() && verdict.warning.empty() && dt > diffusive_limit)
    verdict.warning = "time.dt = " + short_number(dt) + " makes a stage of " + integrator +
                      " multiply the fastest-decaying modes by up to exp(" +
                      short_number(kBackwardExponent * dt / diffusive_limit) +
                      ") (its integrating factor runs backward there): it may blow up (kolmo stops it if it "
                      "does); consider time.dt <= " +
                      short_number(diffusive_limit) +
                      ", an adaptive step (time.cfl, which keeps below that) or rk4";
  return verdict;
}

BlowUpCheck::BlowUpCheck(const io::RunConfig& config, double start_time, double start_energy,
                         const std::vector<double>& start_variances)
    : config_(config),
      start_time_(start_time),
      previous_time_(start_time),
      floor_(round_off_floor(config.precision)),
      energy_{"its energy", "the start and the forcing", "the forcing", start_energy, start_energy, {}} {
  for (std::size_t i = 0; i < config.physics.scalars.size(); ++i) {
    const double variance = i < start_variances.size() ? start_variances[i] : 0;
    scalars_.push_back({"the variance of scalar '" + config.physics.scalars[i].name + "'",
                        "its start and mean gradient",
                        "its mean gradient",
                        variance,
                        variance,
                        {}});
  }
}

double BlowUpCheck::energy_bound(double energy, double elapsed) const {
  const auto& forcing = config_.physics.forcing;
  elapsed = std::max(0.0, elapsed);
  double bound = energy;
  switch (forcing.type) {
    case solver::ForcingKind::none:
      break;
    case solver::ForcingKind::band:
      bound = energy + forcing.power.value_or(0) * elapsed;
      break;
    case solver::ForcingKind::linear:
      bound = forcing.power ? energy + *forcing.power * elapsed
                            : energy * std::exp(2 * forcing.coefficient.value_or(0) * elapsed);
      break;
  }
  // An unstable mean gradient feeds the energy E + <b^2> / (2 |N2|) at most at the rate 4 sqrt(|N2|).
  const auto& buoyancy = config_.physics.buoyancy;
  if (buoyancy.type == io::BuoyancyType::boussinesq && buoyancy.n2 < 0)
    bound *= std::exp(4 * std::sqrt(-buoyancy.n2) * elapsed);
  return bound;
}

void BlowUpCheck::checkpoint_kept(long step, double time) {
  previous_checkpoint_ = newest_checkpoint_;
  newest_checkpoint_ = Moment{step, time};
}

std::optional<std::string> BlowUpCheck::exceeds(Watched& watched, const Moment& now, double value,
                                                double run_bound, double step_bound) const {
  if (value <= run_bound || value <= floor_)
    watched.above_since.reset();
  else if (!watched.above_since)
    watched.above_since = now;
  if (value <= floor_) return std::nullopt;
  if (!(value <= kRunMargin * run_bound))
    return watched.what + " " + short_number(value) + " exceeds what " + watched.allowed + " allow (" +
           short_number(run_bound) + ")";
  if (!(value <= kStepMargin * step_bound))
    return watched.what + " grew from " + short_number(watched.previous) + " to " + short_number(value) +
           " in one step, more than " + watched.adder + " can add (to " + short_number(step_bound) + ")";
  return std::nullopt;
}

std::optional<std::string> BlowUpCheck::problem(long step, double time, double rate, double energy,
                                                const std::vector<double>& variances) {
  const Moment now{step, time};
  if (!(rate < std::numeric_limits<double>::infinity()))
    return blown_up(now, "the velocity holds NaN or infinite values");
  for (std::size_t i = 0; i < scalars_.size(); ++i)
    if (!std::isfinite(variances[i]))
      return blown_up(now,
                      "the scalar '" + config_.physics.scalars[i].name + "' holds NaN or infinite values");
  const double elapsed = time - previous_time_;
  if (auto why = exceeds(energy_, now, energy, energy_bound(energy_.start, time - start_time_),
                         energy_bound(energy_.previous, elapsed)))
    return blown_up(now, *why);
  // sqrt(V) grows at most at |G| sqrt(2 E), E over the step at most the step margin times its ends' larger.
  const double speed = std::sqrt(2 * kStepMargin * std::max(energy_.previous, energy));
  stirring_ += speed * std::max(0.0, elapsed);
  for (std::size_t i = 0; i < scalars_.size(); ++i) {
    const double gradient = length(config_.physics.scalars[i].mean_gradient);
    auto square = [](double x) { return x * x; };
    if (auto why = exceeds(
            scalars_[i], now, variances[i], square(std::sqrt(scalars_[i].start) + gradient * stirring_),
            square(std::sqrt(scalars_[i].previous) + gradient * speed * std::max(0.0, elapsed))))
      return blown_up(now, *why);
  }
  previous_time_ = time;
  energy_.previous = energy;
  for (std::size_t i = 0; i < scalars_.size(); ++i) scalars_[i].previous = variances[i];
  return std::nullopt;
}

// why; since when a quantity has exceeded its run bound (S, if before now: the earliest of them); and the
// checkpoint to continue from: the newest unless it is from step S on, then checkpoint.prev.h5 unless it is
// too, then none.
std::string BlowUpCheck::blown_up(const Moment& now, const std::string& why) const {
  std::string text = "the solution blew up at step " + std::to_string(now.step) +
                     ", t = " + short_number(now.time) + ": " + why;
  const Watched* first = nullptr;
  auto before_now = [&](const Watched& watched) {
    return watched.above_since && watched.above_since->step < now.step;
  };
  if (before_now(energy_)) first = &energy_;
  for (const Watched& scalar : scalars_)
    if (before_now(scalar) && (first == nullptr || scalar.above_since->step < first->above_since->step))
      first = &scalar;
  const bool growing = first != nullptr;
  const Moment since = growing ? *first->above_since : Moment{now.step, now.time};
  if (growing)
    text += "; " + first->what + " first exceeded what " + first->allowed + " allow at " +
            step_and_time(since.step, since.time) + ", so checkpoints and field dumps from step " +
            std::to_string(since.step) + " on hold a growing state";
  text += "; nothing of this state was written";
  const std::string change = " with " + smaller_step(config_);
  const std::string anew = "; start the run anew (output.overwrite: true)" + change;
  if (!newest_checkpoint_) return text + ", and no checkpoint" + anew;
  auto grown = [&](const Moment& checkpoint) { return growing && checkpoint.step >= since.step; };
  text +=
      ", the newest checkpoint holds " + step_and_time(newest_checkpoint_->step, newest_checkpoint_->time);
  if (!grown(*newest_checkpoint_)) return text + "; continue from it (--restart)" + change;
  if (!previous_checkpoint_) return text + ", of the growing state" + anew;
  const std::string previous =
      io::previous_checkpoint_path(io::output_paths(config_.output.directory).checkpoints).string();
  text += ", of the growing state, and " + previous + " " +
          step_and_time(previous_checkpoint_->step, previous_checkpoint_->time);
  if (!grown(*previous_checkpoint_))
    return text + ": continue from that one (--checkpoint " + previous + ")" + change;
  return text + ", of the growing state too" + anew;
}

}  // namespace kolmo::app
