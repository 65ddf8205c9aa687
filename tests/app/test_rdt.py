#!/usr/bin/python3
"""The buoyancy and Coriolis terms against published rapid-distortion theory (run by ctest; needs
/usr/bin/python3 with h5py and numpy): configs/stratified_rdt.yaml (Hanazaki & Hunt, J. Fluid Mech. 318, 1996)
and configs/rotating_rdt.yaml (Cambon & Jacquin, J. Fluid Mech. 202, 1989) run as shipped on 2 ranks, and
tools/kolmo_rdt.py compares each with the published sphere averages and with the field's own exact linear
solution, mode by mode.

- Published: KE/KE0, PE/KE0, <w b>/(N KE0) and <w^2>/2 / KE0 of the stratified run, the two-time correlation
  <u(t).u(0)>/<u(0).u(0)>, b33 and KE/KE0 of the rotating run, each within PUBLISHED of the theory at every
  row. What separates a correct run from the theory is the finite sample (README, "Rapid-distortion theory"):
  over seeds 1-8 the field's own linear solution left the isotropic average by at most 0.0098 (stratified,
  mean 0.0074; mostly each mode's one random polarisation, up to 0.002 the grid's directions and shells) and
  0.0095 (b33, the polarisations alone); the correlation's 0.0099 and KE's 0.0006 are the grid's and its
  shells' alone, the same for every seed. The runs added at most 5.2e-6 to their linear solution.
  PUBLISHED = 0.015 leaves 0.005 above the worst seed (0.025 until the random field's polarisation was made
  isotropic on 2026-11-29: its bias had taken the stratified seeds to 0.018).
- This field's linear solution: within LINEAR = 1e-4 at every row, 20 times what the runs added (advection,
  10 times larger at 10 times the amplitude, and the time step: halving dt moved the runs by 3e-6 at most,
  both on the old generator's fields); an N2 or Omega off by 1e-4 already moves the field's solution by 1.7e-4
  and 1.0e-4 (this field too).
- Mutated physics must fail the published comparison: N2 1.1 times too large, gravity along x instead of z,
  Omega 1.1 times too large, run over half the time and compared with the configuration's stated parameters
  (they left it by 0.125, 0.238 and 0.100 on 2026-11-29, with the isotropic generator).
"""
import os
import pathlib
import sys
import tempfile

try:
    import h5py  # noqa: F401  (kolmo_rdt reads the runs with them)
    import numpy  # noqa: F401
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

sys.dont_write_bytecode = True  # the imports below leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import args, check, finish, kolmo  # noqa: E402

sys.path.insert(0, str(pathlib.Path(args.source) / "tools"))
import kolmo_post  # noqa: E402
import kolmo_rdt  # noqa: E402

PUBLISHED = 0.015
LINEAR = 1e-4


def run(config, root, name, *overrides):
    """Runs configs/<config> on 2 ranks into root/name with the overrides; its output directory."""
    out = root / name
    r = kolmo(2, "run", str(pathlib.Path(args.source) / "configs" / config), "--set", f"output.directory={out}",
              "--set", "output.progress_every=0", *overrides, cwd=root)
    check(r.returncode == 0, f"{config} {' '.join(overrides)} runs ({r.stderr.strip()[:300]})")
    return out


def deviations(result, first, second):
    return {name: value for name, (value, _) in kolmo_rdt.largest(result, first, second).items()}


def stated(out):
    """The parameters the configuration states (config.yaml of the unmutated run)."""
    values = kolmo_post.config_values(out)
    return {"n2": float(values["physics.buoyancy.n2"]) if "physics.buoyancy.n2" in values else None,
            "gravity": kolmo_rdt._vector(values["physics.buoyancy.gravity"], "gravity")
            if "physics.buoyancy.gravity" in values else None,
            "omega": kolmo_rdt._vector(values["physics.rotation"], "rotation")}


with tempfile.TemporaryDirectory(prefix="kolmo-rdt-") as directory:
    root = pathlib.Path(directory)

    results = {}
    for case, config in (("stratified", "stratified_rdt.yaml"), ("rotating", "rotating_rdt.yaml")):
        out = run(config, root, case)
        results[case] = stated(out)
        result = kolmo_rdt.stratified(out) if case == "stratified" else kolmo_rdt.rotating(out)
        published = deviations(result, "measured", "published")
        linear = deviations(result, "measured", "sample")
        check(max(published.values()) < PUBLISHED,
              f"{case}: the run follows the published RDT within {PUBLISHED} ({published})")
        check(max(linear.values()) < LINEAR,
              f"{case}: the run follows this field's exact linear solution within {LINEAR} ({linear})")
        lines = kolmo_rdt.report_lines(case, out, result)
        check(len(lines) == 3 + len(result["dumps"]) + 3 and lines[-3].startswith("largest |measured - published|"),
              f"{case}: the report has a row per dump and the largest deviations")

    # Wrong physics, compared with the stated parameters: the comparison must see it.
    parameters = results["stratified"]
    n2, gravity = parameters["n2"], parameters["gravity"]
    omega = results["rotating"]["omega"]
    for config, override, predict in (
            ("stratified_rdt.yaml", f"physics.buoyancy.n2={1.1 * n2!r}",
             lambda out: kolmo_rdt.stratified(out, n2=n2, gravity=gravity)),
            ("stratified_rdt.yaml", "physics.buoyancy.gravity=[-1, 0, 0]",
             lambda out: kolmo_rdt.stratified(out, n2=n2, gravity=gravity)),
            ("rotating_rdt.yaml", f"physics.rotation=[{', '.join(repr(1.1 * x) for x in omega)}]",
             lambda out: kolmo_rdt.rotating(out, omega=omega))):
        end = "time.t_end=5" if config.startswith("stratified") else "time.t_end=2.5"
        out = run(config, root, f"mutant_{len(list(root.glob('mutant_*')))}", "--set", override, "--set", end)
        result = predict(out)
        published = deviations(result, "measured", "published")
        linear = deviations(result, "measured", "sample")
        check(max(published.values()) > PUBLISHED,
              f"{override}: fails the published comparison (largest {max(published.values()):.3f} > {PUBLISHED}: "
              f"{published}; against the field's linear solution {max(linear.values()):.3f})")

finish()
