#!/usr/bin/python3
"""End-to-end tests of runs with scalars, a Boussinesq buoyancy and rotation (run by ctest; needs
/usr/bin/python3 with h5py and numpy).

- Checkpoints carry every field by name (u_hat, v_hat, w_hat, theta_hat, b_hat): N steps in one go and
  N/2 + restart + N/2 give bitwise-identical fields on 1 and 2 ranks; a 1-rank checkpoint continues on 3 ranks
  to the same state within round-off; a checkpoint without a field of the run is refused; a flipped bit in a
  scalar's dataset of checkpoint.h5 makes --restart continue from checkpoint.prev.h5 (its checksums cover
  every field); a restart in place from checkpoint.prev.h5 with other coefficients names them.
- series.h5 has each scalar's columns and the buoyancy's, spectra.h5 a spectrum per field, field dumps and
  their XDMF the scalars under their names; the dumped scalar is the checkpoint's, transformed (numpy).
- A scalar's initial field read from a field dump and from a checkpoint reproduces it; initial.dataset names
  another field of a checkpoint as of a field dump.
- Broken scalar input is refused before anything is written; a scalar that goes NaN, or grows beyond what its
  start and mean gradient allow, stops the run before its state is written; one stirred at that bound (a
  shear wave against a mean gradient, in closed form) runs on.
- The buoyancy pushes a fluid at rest along up = -gravity / |gravity|: u = t P(b up) to first order in t.
"""
import os
import pathlib
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import check, finish, flip_bit_in_chunk, kolmo, restarts_continue, snapshot  # noqa: E402
import shutil  # noqa: E402

FIELDS = ("u_hat", "v_hat", "w_hat", "theta_hat", "b_hat")

# Random velocity, scalar and buoyancy, CFL-adaptive steps: any difference after a restart would show.
CONFIG = """
grid: {n: [16, 18, 12]}
precision: double
backend: host
physics:
  viscosity: 0.01
  rotation: [0, 0, 0.8]
  buoyancy: {type: boussinesq, n2: 2.0, prandtl: 0.7, gravity: [0, 0, -1],
             initial: {type: random, variance: 0.3, k0: 3, seed: 4}}
  scalars:
    - {name: theta, schmidt: 1.0, mean_gradient: [0, 0, 1], initial: {type: random, variance: 0.5, k0: 3}}
time: {integrator: rk4, cfl: 0.6, steps: 12}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 1, progress_every: 4, spectra_every: 0.05, checkpoint_every: 100,
         fields: [velocity, scalars], fields_every: 100}
"""


def fields_of(path):
    with h5py.File(path, "r") as f:
        return {name: f[name][...] for name in FIELDS}, int(f.attrs["step"])


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "run.yaml").write_text(CONFIG)
    restarts_continue(root, root / "run.yaml", FIELDS, "fields")

    # A damaged scalar dataset in checkpoint.h5 (step 12): the restart says so and continues from
    # checkpoint.prev.h5 (step 6), to the same state as the run in one go.
    damaged = root / "damaged"
    shutil.copytree(root / "two_1", damaged)
    flip_bit_in_chunk(damaged / "out/checkpoints/checkpoint.h5", "theta_hat", 5)
    r = kolmo(1, "run", str(root / "run.yaml"), "--restart", "--set", "time.steps=12", cwd=damaged)
    a, _ = fields_of(root / "one_1/out/checkpoints/checkpoint.h5")
    d, step_d = fields_of(damaged / "out/checkpoints/checkpoint.h5")
    check(r.returncode == 0 and "checkpoint.prev.h5" in r.stdout + r.stderr and step_d == 12 and
          all(np.array_equal(a[n], d[n]) for n in FIELDS),
          f"a flipped bit in theta_hat: restart from checkpoint.prev.h5 to the same state ({r.stderr.strip()[:200]})")

    # A restart in place from checkpoint.prev.h5 (--restart --checkpoint, as a blow-up's message recommends)
    # with other coefficients names them, as a plain --restart does: the checkpoint holds the configuration it
    # was written with (an older code named only the viscosity there).
    previous = root / "previous"
    shutil.copytree(root / "two_1", previous)
    r = kolmo(1, "run", str(root / "run.yaml"), "--restart", "--checkpoint", "out/checkpoints/checkpoint.prev.h5",
              "--set", "physics.buoyancy.n2=3", "--set", "physics.scalars[0].mean_gradient=[1, 0, 0]", cwd=previous)
    header = next((line for line in r.stdout.splitlines() if "changed   since the checkpoint" in line), "")
    changes = ["physics.buoyancy.n2 2 -> 3", "physics.scalars[0].mean_gradient [0, 0, 1] -> [1, 0, 0]"]
    check(r.returncode == 0 and all(change in header for change in changes),
          f"--restart --checkpoint checkpoint.prev.h5 names the changed keys ({header or r.stderr.strip()[:200]})")

    # What the run wrote, by name.
    out = root / "one_1/out"
    with h5py.File(out / "series.h5", "r") as f:
        columns = set(f.keys())
        wanted = {"theta_variance", "theta_dissipation", "theta_production", "theta_flux_z", "b_variance",
                  "b_flux_z", "potential_energy", "buoyancy_flux"}
        check(wanted <= columns, f"series.h5 has the scalars' and the buoyancy's columns ({sorted(wanted - columns)})")
        # <b^2> / (2 N2) with N2 = 2: the potential energy column is the b variance's.
        check(np.allclose(f["potential_energy"][...], f["b_variance"][...] / 4, rtol=1e-13),
              "potential_energy = <b^2> / (2 N2)")
    with h5py.File(out / "spectra.h5", "r") as f:
        names = set(f.keys())
        wanted = {"energy_spectrum", "theta_spectrum", "theta_transfer", "theta_flux", "b_spectrum"}
        check(wanted <= names, f"spectra.h5 has a spectrum per field ({sorted(wanted - names)})")
        variance = f["theta_spectrum"][0].sum()
    with h5py.File(out / "series.h5", "r") as f:
        check(abs(variance - f["theta_variance"][0] / 2) < 1e-12, "sum of E_theta(k) = <theta^2>/2 at the start")
    dumps = sorted((out / "fields").glob("fields_*.h5"))
    check(len(dumps) == 2, f"field dumps at the start and the end ({[d.name for d in dumps]})")
    with h5py.File(dumps[-1], "r") as f:
        check({"u", "v", "w", "theta", "b"} <= set(f.keys()), f"the dump holds the scalars ({sorted(f.keys())})")
        theta = f["theta"][...].transpose()  # stored x fastest, [z][y][x]
    xdmf = dumps[-1].with_suffix(".xmf").read_text()
    check('Name="theta"' in xdmf and 'Name="b"' in xdmf, "the XDMF file describes theta and b")
    # The dump is the checkpoint's theta transformed: the normalised coefficients' inverse real FFT times N.
    modes, _ = fields_of(out / "checkpoints/checkpoint.h5")
    spectral = modes["theta_hat"]
    complex_modes = spectral["r"] + 1j * spectral["i"] if spectral.dtype.names else spectral
    real = np.fft.irfftn(complex_modes, s=theta.shape) * theta.size
    check(np.abs(real - theta).max() < 1e-12 * np.abs(theta).max(),
          f"dumped theta = inverse FFT of the checkpoint's theta_hat ({np.abs(real - theta).max():.1e})")

    # Initial scalar from a field dump and from a checkpoint: the run's first state holds it.
    for source, name in ((dumps[-1], "dump"), (out / "checkpoints/checkpoint.h5", "checkpoint")):
        start = root / f"from_{name}"
        start.mkdir()
        r = kolmo(2, "run", str(root / "run.yaml"), "--set", "time.steps=1", "--set", "physics.scalars[0].initial=",
                  "--set", f"physics.scalars[0].initial={{type: file, file: '{source}'}}", "--set",
                  "output.checkpoint_every=0", cwd=start)
        check(r.returncode == 0, f"theta from a {name} ({r.stderr.strip()[:300]})")
        with h5py.File(start / "out/fields/fields_000000.h5", "r") as f:
            error = np.abs(f["theta"][...].transpose() - theta).max() / np.abs(theta).max()
        check(error < 1e-12, f"theta read from a {name} is the field written there ({error:.1e})")

    # initial.dataset names the field in a checkpoint too (its <dataset>_hat): theta with dataset b reads b,
    # and a scalar of another name reads theta, each against the dump of the same state (the old code read
    # theta_hat for the first, ignoring the key, and refused the second).
    with h5py.File(dumps[-1], "r") as f:
        b = f["b"][...].transpose()
    for scalar, dataset, expected in (("theta", "b", b), ("salt", "theta", theta)):
        start = root / f"from_checkpoint_{scalar}_{dataset}"
        start.mkdir()
        r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=1", "--set",
                  f"physics.scalars=[{{name: {scalar}, schmidt: 1, initial: {{type: file, dataset: {dataset}, "
                  f"file: '{out / 'checkpoints/checkpoint.h5'}'}}}}]", "--set", "output.checkpoint_every=0", cwd=start)
        check(r.returncode == 0, f"{scalar} from a checkpoint's {dataset}_hat ({r.stderr.strip()[:300]})")
        if r.returncode == 0:
            with h5py.File(start / "out/fields/fields_000000.h5", "r") as f:
                error = np.abs(f[scalar][...].transpose() - expected).max() / np.abs(expected).max()
            check(error < 1e-12, f"{scalar} with initial.dataset {dataset} is the checkpoint's {dataset} ({error:.1e})")

    # A checkpoint without a field the run has is refused, naming the dataset, before anything is written.
    extra = root / "extra"
    extra.mkdir()
    before = snapshot(root / "two_1/out")
    r = kolmo(1, "run", str(root / "run.yaml"), "--checkpoint", str(root / "two_1/out/checkpoints/checkpoint.h5"),
              "--set", "physics.scalars=[{name: theta, schmidt: 1}, {name: salt, schmidt: 2}]", cwd=extra)
    check(r.returncode != 0 and "salt_hat" in r.stderr and not (extra / "out").exists(),
          f"a checkpoint without salt_hat is refused, nothing written ({r.stderr.strip()[:200]})")
    check(snapshot(root / "two_1/out") == before, "the checkpoint's run is left alone")

    # Broken scalar input: one line naming the key, nothing written.
    bad = root / "bad"
    bad.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "physics.scalars[0].schmidt=-1", cwd=bad)
    check(r.returncode != 0 and "physics.scalars[0].schmidt: must be > 0" in r.stderr and not (bad / "out").exists(),
          f"a negative Schmidt number is refused before anything is written ({r.stderr.strip()[:200]})")

    # A passive scalar that blows up stops the run as the velocity would, before anything of that state is
    # written: rk3 at a fixed step past its diffusive limit (a stage's integrating factor exp(+kappa k^2 dt / 2)
    # runs backward) makes theta grow while u stays sound.
    def past_diffusive_limit(name, diffusivity, steps):
        """Runs that step; returns the result, its error lines, the .h5 files written and the series."""
        (root / name).mkdir()
        r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.integrator=rk3", "--set", "time.cfl=", "--set",
                  "time.dt=0.01", "--set", f"time.steps={steps}", "--set", "physics.scalars[0].schmidt=", "--set",
                  f"physics.scalars[0].diffusivity={diffusivity}", "--set", "output.fields_every=0.01", "--set",
                  "output.checkpoint_every=0.01", cwd=root / name)
        errors = [line for line in r.stderr.splitlines() if "warning" not in line]
        written = sorted(p.name for p in (root / name / "out").rglob("*.h5"))
        with h5py.File(root / name / "out/series.h5", "r") as f:
            series = {column: f[column][...] for column in f}
        stopped = (r.returncode == 1 and len(errors) == 1 and "blew up at step 1" in errors[0] and
                   written == ["fields_000000.h5", "series.h5", "spectra.h5"] and
                   (root / name / "out/status").read_text().startswith("failed: "))
        return stopped, errors, written, series

    # exp(17000) makes theta NaN in the first step. The old code finished "done" with NaN in the series, the
    # dumps and the checkpoint (which a restart refuses).
    stopped, errors, written, series = past_diffusive_limit("blown", 1e5, 3)
    finite = all(np.all(np.isfinite(values)) for values in series.values())
    check(stopped and "scalar 'theta' holds NaN or infinite values" in errors[0] and finite,
          f"a scalar gone NaN stops the run before it is written ({errors}, {written}, {finite})")

    # At diffusivity 80 the variance grows about 5-fold in the first step and by up to 1e7 a step after, but
    # stays finite (1e222 by step 40: the run ended "done" before the variance was judged); no solution's
    # variance exceeds (sqrt(V0) + |G| int sqrt(2 E))^2.
    stopped, errors, written, series = past_diffusive_limit("grows", 80, 40)
    check(stopped and "the variance of scalar 'theta'" in errors[0] and
          "exceeds what its start and mean gradient allow" in errors[0] and len(series["theta_variance"]) == 1,
          f"a scalar growing but finite stops the run before it is written ({errors}, {written})")

    # The bound itself is reached by a sound run: w = A sin x alone (a steady shear wave but for viscosity)
    # stirs a scalar from zero against a mean gradient g along z, theta = -g A t exp(-nu t) sin x (kappa = nu),
    # so sqrt(V) = g A t exp(-nu t) / sqrt(2), while the bound is g int sqrt(2 E) dt = g A (1 - exp(-nu t)) /
    # (nu sqrt(2)): V / bound^2 = (nu t / (exp(nu t) - 1))^2, 0.99 at t = 1 here. The run must go on, and its
    # variance follow the closed form (a bound with sqrt(E) for sqrt(2 E) stops it at the first step).
    edge = root / "edge"
    edge.mkdir()
    n, amplitude, g, nu = (16, 18, 12), 0.7, 3.0, 0.02
    x = np.arange(n[0]) * 2 * np.pi / n[0]
    with h5py.File(edge / "shear.h5", "w") as f:
        f["u"], f["v"] = np.zeros(n), np.zeros(n)
        f["w"] = np.broadcast_to(amplitude * np.sin(x)[:, None, None], n).copy()
    (edge / "edge.yaml").write_text(f"""
grid: {{n: [{n[0]}, {n[1]}, {n[2]}]}}
precision: double
backend: host
physics:
  viscosity: {nu}
  scalars: [{{name: c, schmidt: 1.0, mean_gradient: [0, 0, {g}]}}]
time: {{integrator: rk4, dt: 0.01, steps: 100}}
initial: {{type: file, file: shear.h5}}
output: {{directory: out, series_every: 1, progress_every: 0}}
""")
    r = kolmo(1, "run", "edge.yaml", cwd=edge)
    with h5py.File(edge / "out/series.h5", "r") as f:
        t, variance = f["time"][...], f["c_variance"][...]
    expected = (g * amplitude * t * np.exp(-nu * t)) ** 2 / 2
    check(r.returncode == 0 and len(t) == 101 and np.allclose(variance, expected, rtol=1e-9, atol=1e-15),
          f"a scalar stirred at the bound runs on, its variance (g A t)^2 exp(-2 nu t) / 2 "
          f"({r.returncode}, {r.stderr.strip()[:300]}, largest relative difference "
          f"{np.max(np.abs(variance[1:] / expected[1:] - 1)) if len(t) == 101 else None})")

    # Buoyancy acts against physics.buoyancy.gravity, whatever its length: from rest, u(t) = t P(b up) to first
    # order in t, up = -gravity / |gravity|. The solver's tests give it the up vector itself; this checks the
    # configuration's side (a sign or a missing normalisation fails by 100 % or more; terms of order t^2 and
    # the diffusion over t make about 1e-3 here).
    rest = root / "rest"
    rest.mkdir()
    gravity = np.array([1.0, 0.0, -2.0])
    (rest / "rest.yaml").write_text(f"""
grid: {{n: [16, 12, 10]}}
backend: host
physics:
  viscosity: 0.01
  buoyancy: {{type: boussinesq, n2: 1.0, gravity: [{gravity[0]}, {gravity[1]}, {gravity[2]}],
             initial: {{type: random, variance: 0.5, k0: 2}}}}
time: {{dt: 0.005, steps: 2}}
initial: {{type: taylor_green, amplitude: 0}}
output: {{directory: out, fields: [velocity, scalars], fields_every: 1, progress_every: 0}}
""")
    r = kolmo(1, "run", "rest.yaml", cwd=rest)
    check(r.returncode == 0, f"a buoyant fluid from rest runs ({r.stderr.strip()[:200]})")
    with h5py.File(rest / "out/fields/fields_000000.h5", "r") as f:
        b = f["b"][...].transpose()  # [x][y][z]
    with h5py.File(rest / "out/fields/fields_000002.h5", "r") as f:
        u = np.stack([f[c][...].transpose() for c in ("u", "v", "w")])
    up = -gravity / np.linalg.norm(gravity)
    n = b.shape
    k = np.meshgrid(np.fft.fftfreq(n[0], 1 / n[0]), np.fft.fftfreq(n[1], 1 / n[1]), np.fft.rfftfreq(n[2], 1 / n[2]),
                    indexing="ij")
    k2 = k[0] ** 2 + k[1] ** 2 + k[2] ** 2
    k2[0, 0, 0] = 1
    b_hat = np.fft.rfftn(b)
    k_dot_up = sum(k[i] * up[i] for i in range(3))
    expected = np.stack([np.fft.irfftn(0.01 * (up[i] - k[i] * k_dot_up / k2) * b_hat, s=n) for i in range(3)])
    error = np.abs(u - expected).max() / np.abs(expected).max()
    check(error < 1e-2, f"from rest, u = t P(b up) with up = -gravity / |gravity| (error {error:.1e})")

finish()
