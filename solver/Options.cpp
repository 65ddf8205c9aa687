#include "solver/Options.hpp"

#include "core/Error.hpp"

namespace kolmo::solver {

namespace {

// The enumerator named text, its index in names.
template <class Enum>
Enum parse_name(const std::string& text, const std::vector<std::string>& names, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<Enum>(i);
  std::string expected;
  for (std::size_t i = 0; i < names.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw Error("unknown " + std::string(what) + " '" + text + "' (expected " + expected + ")");
}

}  // namespace

std::vector<std::string> integrator_names() {
  return {"rk2", "rk3", "rk4"};
}
std::vector<std::string> forcing_names() {
  return {"none", "band", "linear"};
}
std::vector<std::string> spectrum_shape_names() {
  return {"k4_exp", "k2_exp"};
}

std::string to_string(Integrator integrator) {
  return integrator_names()[static_cast<int>(integrator)];
}
std::string to_string(ForcingKind kind) {
  return forcing_names()[static_cast<int>(kind)];
}
std::string to_string(SpectrumShape shape) {
  return spectrum_shape_names()[static_cast<int>(shape)];
}

Integrator parse_integrator(const std::string& name) {
  if (name == "heun") return Integrator::rk2;
  if (name == "ssprk3") return Integrator::rk3;
  return parse_name<Integrator>(name, integrator_names(), "integrator");
}

ForcingKind parse_forcing(const std::string& name) {
  return parse_name<ForcingKind>(name, forcing_names(), "forcing");
}

SpectrumShape parse_spectrum_shape(const std::string& name) {
  return parse_name<SpectrumShape>(name, spectrum_shape_names(), "spectrum shape");
}

int stages(Integrator integrator) {
  return integrator == Integrator::rk2 ? 2 : integrator == Integrator::rk3 ? 3 : 4;
}

bool needs_accumulator(Integrator integrator) {
  return integrator != Integrator::rk2;
}

}  // namespace kolmo::solver
