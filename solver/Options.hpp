// The solver's options that a configuration names: one vocabulary for the solver, the configuration loader
// (io/Config.hpp, whose schema lists the same names in the same order; a test checks) and the command.
//
// Contract: to_string gives the name used in configuration files; parse_* accepts it (and the aliases
// listed) and throws kolmo::Error naming the text and the expected names otherwise. The enumerators are in
// the order of the names. Header-only, so that io links no solver code for them.
#pragma once

#include <string>
#include <vector>

#include "core/Error.hpp"

namespace kolmo::solver {

// "rk2" (also "heun"), "rk3" (also "ssprk3"), "rk4", and the two-register schemes "lsrk3" (Wray's) and
// "lsrk4" (Kennedy, Carpenter and Lewis's RK4(3)5[2R+]C): Integrators.hpp.
enum class Integrator { rk2, rk3, rk4, lsrk3, lsrk4 };
// The advective term: "divergence", -div(u u - |u|^2/3 I), or "rotational", u x omega (NavierStokes.hpp).
enum class NonlinearForm { divergence, rotational };
enum class ForcingKind { none, band, linear };  // "none", "band", "linear"
// "k4_exp", "k2_exp": E(k) ~ k^4 exp(-2 (k/k0)^2) or k^2 exp(-(k/k0)^2)
enum class SpectrumShape { k4_exp, k2_exp };

inline std::vector<std::string> integrator_names() {
  return {"rk2", "rk3", "rk4", "lsrk3", "lsrk4"};
}
inline std::vector<std::string> nonlinear_form_names() {
  return {"divergence", "rotational"};
}
inline std::vector<std::string> forcing_names() {
  return {"none", "band", "linear"};
}
inline std::vector<std::string> spectrum_shape_names() {
  return {"k4_exp", "k2_exp"};
}

inline std::string to_string(Integrator integrator) {
  return integrator_names()[static_cast<int>(integrator)];
}
inline std::string to_string(NonlinearForm form) {
  return nonlinear_form_names()[static_cast<int>(form)];
}
inline std::string to_string(ForcingKind kind) {
  return forcing_names()[static_cast<int>(kind)];
}
inline std::string to_string(SpectrumShape shape) {
  return spectrum_shape_names()[static_cast<int>(shape)];
}

// The enumerator named text: its index in names.
template <class Enum>
Enum parse_name(const std::string& text, const std::vector<std::string>& names, const std::string& what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<Enum>(i);
  std::string expected;
  for (std::size_t i = 0; i < names.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw Error("unknown " + what + " '" + text + "' (expected " + expected + ")");
}

inline Integrator parse_integrator(const std::string& name) {
  if (name == "heun") return Integrator::rk2;
  if (name == "ssprk3") return Integrator::rk3;
  return parse_name<Integrator>(name, integrator_names(), "integrator");
}
inline NonlinearForm parse_nonlinear_form(const std::string& name) {
  return parse_name<NonlinearForm>(name, nonlinear_form_names(), "nonlinear form");
}
inline ForcingKind parse_forcing(const std::string& name) {
  return parse_name<ForcingKind>(name, forcing_names(), "forcing");
}
inline SpectrumShape parse_spectrum_shape(const std::string& name) {
  return parse_name<SpectrumShape>(name, spectrum_shape_names(), "spectrum shape");
}

inline int stages(Integrator integrator) {
  switch (integrator) {
    case Integrator::rk2:
      return 2;
    case Integrator::rk4:
      return 4;
    case Integrator::lsrk4:
      return 5;
    default:
      return 3;
  }
}
// rk3 and rk4 hold an accumulator per field; rk2, lsrk3 and lsrk4 only the state and the stage input.
inline bool needs_accumulator(Integrator integrator) {
  return integrator == Integrator::rk3 || integrator == Integrator::rk4;
}

// The form a flow uses: the divergence form needs the stage input u only in real space, so the terms linear
// in u that the rotational form folds into its real-space pass (Coriolis, u x 2 Omega, and the linear
// forcing a u) keep the rotational form: in the divergence form they would need u in spectral space at the
// update, three more slabs. MHD (magnetic) always forms its own stress u u - B B and E = u x B from u and b
// in real space (MagneticTerms.hpp), a divergence form whatever was requested; its stage update applies
// rotation and the linear forcing from a spectral copy of u (StageFields.hpp).
inline NonlinearForm nonlinear_form_used(NonlinearForm requested, bool rotation, bool linear_forcing,
                                         bool magnetic) {
  if (magnetic) return NonlinearForm::divergence;
  return rotation || linear_forcing ? NonlinearForm::rotational : requested;
}

}  // namespace kolmo::solver
