#include "app/BlowUp.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <utility>

#include "app/FlowFromConfig.hpp"
#include "app/Text.hpp"
#include "solver/Integrators.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::app {

namespace {

std::string short_number(double x) {
  return number_text(x, 4);
}

// Relative room above the energy bounds for the truncation error of a stable time integration: over the run,
// and in one step.
constexpr double kEnergyMargin = 1.1;
constexpr double kStepEnergyMargin = 1.01;
// A fixed step is refused beyond this many times the integrator's stability limit, and warned about when the
// worst case grows by more than kWarnedGrowth per step.
constexpr double kRefusedLimits = 3.0;
constexpr double kWarnedGrowth = 1.01;
// The CFL number suggested instead: time.cfl's default.
constexpr double kSuggestedCfl = 0.5;
// The largest exponent D k^2 s h of an integrating factor run backward (diffusive_step_limit).
constexpr double kBackwardExponent = 1.0;

bool fixed_step(const io::RunConfig& config) {
  return config.time.dt.has_value();
}

std::string advice(const io::RunConfig& config) {
  return fixed_step(config) ? "continue from the last checkpoint (--restart) with a smaller time.dt (now " +
                                  short_number(*config.time.dt) + ") or an adaptive step (time.cfl)"
                            : "continue from the last checkpoint (--restart) with a smaller time.cfl (now " +
                                  short_number(config.time.cfl) + ")";
}

// k_max,d: the largest wavenumber along axis d that the 2/3 rule keeps (solver/Wavenumbers.hpp).
double largest_kept_wavenumber(const io::RunConfig& config, int d) {
  return 2 * std::numbers::pi * double(solver::Wavenumbers<double>::largest_kept_index(config.grid.n[d])) /
         config.grid.box[d];
}

// max_d dx_d k_max,d: the CFL number times this bounds |k.u| dt over the kept modes; and min_d k_max,d^2.
std::pair<double, double> advection_scales(const io::RunConfig& config) {
  double scale = 0, k2 = std::numeric_limits<double>::infinity();
  for (int d = 0; d < 3; ++d) {
    const double dx = config.grid.box[d] / double(config.grid.n[d]);
    const double k_max = largest_kept_wavenumber(config, d);
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

// Where the first step may overflow the precision whatever its size: the nonlinear term multiplies the
// velocity by its gradient, up to U^2 k_max at a point (U, the largest velocity component, at most the scan's
// rate times the coarsest spacing; k_max, the largest kept |k|), and its forward transform sums the N^3
// points' values, which for a coherent flow adds up to N^3 times that. With k_max for the flow's own
// wavenumbers the estimate is a bound, not a prediction: a Taylor-Green vortex in single precision gave
// infinities from U = 1e18 at 16^3 and 64^3 and from 3e17 at 32^3; this refuses from 9.8e16 at 16^3 and 6e15
// at 64^3. An error text, or empty.
std::string beyond_range(const io::RunConfig& config, double rate) {
  const bool single = config.precision == io::Precision::float32;
  const double largest =
      single ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  double spacing = 0, k2 = 0, points = 1;
  for (int d = 0; d < 3; ++d) {
    spacing = std::max(spacing, config.grid.box[d] / double(config.grid.n[d]));
    k2 += std::pow(largest_kept_wavenumber(config, d), 2);
    points *= double(config.grid.n[d]);
  }
  const double velocity = rate * spacing;
  // In logarithms: the estimate itself may overflow a double.
  const double log_reach = 2 * std::log10(velocity) + 0.5 * std::log10(k2) + std::log10(points);
  if (!(velocity > 0) || log_reach < std::log10(largest)) return {};
  return "the initial velocity (components up to about " + short_number(velocity) + ") may overflow " +
         (single ? "single" : "double") + " precision: the nonlinear term's transforms sum up to about " +
         "U^2 k_max N^3 = 1e" + std::to_string(int(std::floor(log_reach))) + ", beyond its largest number (" +
         short_number(largest) + "); use a smaller velocity (other units)" +
         (single ? " or precision: double" : "");
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
  double k2 = 0;  // the largest kept |k|^2
  for (int d = 0; d < 3; ++d) k2 += std::pow(largest_kept_wavenumber(config, d), 2);
  const double rate = fraction * diffusivity * k2;
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
  if (!fixed_step(config)) return verdict;
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
      verdict.warning = what + ", where " + integrator + " may amplify the fastest resolved modes by up to " +
                        short_number(growth) +
                        " per step: it may blow up (kolmo stops it if it does); consider " + instead;
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

BlowUpCheck::BlowUpCheck(const io::RunConfig& config, double start_time, double start_energy)
    : config_(config),
      start_time_(start_time),
      start_energy_(start_energy),
      previous_time_(start_time),
      previous_energy_(start_energy) {}

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

std::optional<std::string> BlowUpCheck::problem(long step, double time, double rate, double energy) {
  const std::string where =
      "the solution blew up at step " + std::to_string(step) + ", t = " + short_number(time);
  if (!(rate < std::numeric_limits<double>::infinity()))
    return where + ": the velocity holds NaN or infinite values; " + advice(config_);
  const double run_bound = energy_bound(start_energy_, time - start_time_);
  if (!(energy <= kEnergyMargin * run_bound))
    return where + ": its energy " + short_number(energy) +
           " exceeds what the start and the forcing allow (" + short_number(run_bound) + "); " +
           advice(config_);
  const double step_bound = energy_bound(previous_energy_, time - previous_time_);
  if (!(energy <= kStepEnergyMargin * step_bound))
    return where + ": its energy grew from " + short_number(previous_energy_) + " to " +
           short_number(energy) + " in one step, more than the forcing can add (to " +
           short_number(step_bound) + "); " + advice(config_);
  previous_time_ = time;
  previous_energy_ = energy;
  return std::nullopt;
}

}  // namespace kolmo::app
