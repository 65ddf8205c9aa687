#include "solver/Terms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "core/Vector3.hpp"
#include "solver/FlowParameters.hpp"

namespace kolmo::solver {

namespace {

double dot(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

}  // namespace

std::string to_string(TermKind kind) {
  switch (kind) {
    case TermKind::coriolis:
      return "coriolis";
    case TermKind::mean_gradient:
      return "mean_gradient";
    default:
      return "buoyancy";
  }
}

bool TermCoefficients::buoyant(int scalar) const {
  return length(buoyancy[scalar]) > 0;
}

double TermCoefficients::potential_energy_factor(int scalar) const {
  const auto& c = buoyancy[scalar];
  const auto& g = mean_gradient[scalar];
  const double c2 = dot(c, c), lambda = dot(g, c) / c2;
  // G = lambda c exactly when G - lambda c vanishes (to round-off of G's size).
  const std::array<double, 3> rest{g[0] - lambda * c[0], g[1] - lambda * c[1], g[2] - lambda * c[2]};
  if (!(c2 > 0) || lambda == 0 || length(rest) > 1e-12 * length(g))
    return std::numeric_limits<double>::quiet_NaN();
  return 1 / (2 * lambda);
}

TermCoefficients fold_terms(const std::vector<ScalarParameters>& scalars, const std::vector<Term>& terms) {
  std::set<std::string> names;
  for (const auto& s : scalars) {
    KOLMO_REQUIRE(!s.name.empty(), "a scalar needs a name");
    KOLMO_REQUIRE(names.insert(s.name).second, "two scalars are named '" + s.name + "'");
    KOLMO_REQUIRE(
        std::isfinite(s.diffusivity) && s.diffusivity >= 0,
        "scalar '" + s.name + "': diffusivity = " + std::to_string(s.diffusivity) + " must be >= 0");
  }
  TermCoefficients c;
  c.mean_gradient.assign(scalars.size(), {0, 0, 0});
  c.buoyancy.assign(scalars.size(), {0, 0, 0});
  for (const Term& term : terms) {
    const std::string what = to_string(term.kind) + " term";
    KOLMO_REQUIRE(std::isfinite(length(term.vector)),
                  what + ": vector " + list_text(term.vector) + " is not finite");
    if (term.kind == TermKind::coriolis) {
      for (int d = 0; d < 3; ++d) c.two_omega[d] += 2 * term.vector[d];
      continue;
    }
    KOLMO_REQUIRE(term.scalar >= 0 && term.scalar < static_cast<int>(scalars.size()),
                  what + " names scalar " + std::to_string(term.scalar) + ", but there are " +
                      std::to_string(scalars.size()));
    auto& target =
        term.kind == TermKind::mean_gradient ? c.mean_gradient[term.scalar] : c.buoyancy[term.scalar];
    if (term.kind == TermKind::buoyancy)
      KOLMO_REQUIRE(length(term.vector) > 0,
                    what + " of scalar '" + scalars[term.scalar].name + "': the buoyancy vector is zero");
    for (int d = 0; d < 3; ++d) target[d] += term.vector[d];
  }
  c.wave_frequency_bound = length(c.two_omega);
  for (std::size_t j = 0; j < scalars.size(); ++j)
    c.wave_frequency_bound += std::sqrt(length(c.mean_gradient[j])) * std::sqrt(length(c.buoyancy[j]));
  return c;
}

int add_boussinesq(FlowParameters& parameters, double n2, double prandtl, std::array<double, 3> up) {
  KOLMO_REQUIRE(std::isfinite(prandtl) && prandtl > 0,
                "buoyancy: Prandtl number = " + std::to_string(prandtl) + " must be positive");
  KOLMO_REQUIRE(std::isfinite(n2), "buoyancy: N2 = " + std::to_string(n2) + " is not finite");
  // Normalised after scaling by its largest component, so that any finite direction but 0 has one: the
  // length of [1e300, 0, 1e300] is finite only through hypot's scaling, that of [0, 0, 1e-320] not normal.
  const double largest = std::max({std::abs(up[0]), std::abs(up[1]), std::abs(up[2])});
  KOLMO_REQUIRE(largest > 0 && std::isfinite(largest),
                "buoyancy: the up direction " + list_text(up) + " has no length");
  for (auto& x : up) x /= largest;
  const double norm = length(up);
  for (auto& x : up) x /= norm;
  const int b = static_cast<int>(parameters.scalars.size());
  parameters.scalars.push_back({"b", parameters.viscosity / prandtl});
  parameters.terms.push_back(buoyancy(b, up));
  parameters.terms.push_back(mean_gradient(b, {n2 * up[0], n2 * up[1], n2 * up[2]}));
  return b;
}

}  // namespace kolmo::solver
