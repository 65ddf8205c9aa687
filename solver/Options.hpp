// The solver's options that a configuration names: one vocabulary for the solver, the configuration loader
// (io/Config.hpp) and the command, each with its names.
//
// Contract: to_string gives the name used in configuration files; parse_* accepts it (and the aliases
// listed) and throws kolmo::Error naming the text and the expected names otherwise. The enumerators are in
// the order of the names.
#pragma once

#include <string>
#include <vector>

namespace kolmo::solver {

enum class Integrator { rk2, rk3, rk4 };        // "rk2" (also "heun"), "rk3" (also "ssprk3"), "rk4"
enum class ForcingKind { none, band, linear };  // "none", "band", "linear"
enum class SpectrumShape {
  k4_exp,
  k2_exp
};  // "k4_exp", "k2_exp": E(k) ~ k^4 exp(-2 (k/k0)^2), k^2 exp(-(k/k0)^2)

std::string to_string(Integrator integrator);
std::string to_string(ForcingKind kind);
std::string to_string(SpectrumShape shape);
Integrator parse_integrator(const std::string& name);
ForcingKind parse_forcing(const std::string& name);
SpectrumShape parse_spectrum_shape(const std::string& name);

// The names, in the enumerators' order (for schemas and messages).
std::vector<std::string> integrator_names();
std::vector<std::string> forcing_names();
std::vector<std::string> spectrum_shape_names();

int stages(Integrator integrator);
bool needs_accumulator(Integrator integrator);

}  // namespace kolmo::solver
