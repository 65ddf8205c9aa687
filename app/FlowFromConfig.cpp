#include "app/FlowFromConfig.hpp"

namespace kolmo::app {

namespace {

bool zero(const std::array<double, 3>& v) {
  return v[0] == 0 && v[1] == 0 && v[2] == 0;
}

}  // namespace

solver::FlowParameters flow_parameters(const io::RunConfig& config) {
  const auto& physics = config.physics;
  solver::FlowParameters p;
  p.viscosity = physics.viscosity;
  p.box = {config.grid.box[0], config.grid.box[1], config.grid.box[2]};
  p.integrator = config.time.integrator;
  p.nonlinear_form = physics.nonlinear_form;
  p.transform_lanes = static_cast<int>(config.fft.lanes);
  const auto& f = physics.forcing;
  p.forcing.kind = f.type;
  if (f.type == solver::ForcingKind::band) p.forcing = {f.type, f.power.value_or(0), f.k_min, f.k_max, 0};
  if (f.type == solver::ForcingKind::linear)
    p.forcing = {f.type, f.power.value_or(0), 0, 0, f.coefficient.value_or(0)};
  for (const io::ScalarConfig& scalar : physics.scalars) {
    const int j = static_cast<int>(p.scalars.size());
    p.scalars.push_back({scalar.name, scalar.resolved_diffusivity(physics.viscosity)});
    if (!zero(scalar.mean_gradient)) p.terms.push_back(solver::mean_gradient(j, scalar.mean_gradient));
  }
  if (physics.buoyancy.type == io::BuoyancyType::boussinesq) {
    const auto& g = physics.buoyancy.gravity;
    solver::add_boussinesq(p, physics.buoyancy.n2, physics.buoyancy.prandtl, {-g[0], -g[1], -g[2]});
  }
  if (!zero(physics.rotation)) p.terms.push_back(solver::coriolis(physics.rotation));
  if (physics.magnetic.type == io::MagneticType::mhd) {
    const auto& b = physics.magnetic;
    p.magnetic = {true, b.resolved_resistivity(physics.viscosity), b.background, {}};
    if (b.forcing.type == solver::ForcingKind::band)
      p.magnetic.forcing = {b.forcing.type, b.forcing.power.value_or(0), b.forcing.k_min, b.forcing.k_max, 0};
  }
  return p;
}

std::vector<ScalarField> scalar_fields(const io::RunConfig& config) {
  std::vector<ScalarField> fields;
  const auto& physics = config.physics;
  for (std::size_t i = 0; i < physics.scalars.size(); ++i)
    fields.push_back(
        {physics.scalars[i].name, "physics.scalars[" + std::to_string(i) + "]", physics.scalars[i].initial});
  if (physics.buoyancy.type == io::BuoyancyType::boussinesq)
    fields.push_back({"b", "physics.buoyancy", physics.buoyancy.initial});
  return fields;
}

}  // namespace kolmo::app
