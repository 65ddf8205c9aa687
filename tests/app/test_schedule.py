#!/usr/bin/python3
"""End-to-end tests of when a long run writes its outputs and ends (run by ctest; needs /usr/bin/python3 with
h5py and numpy).

The clock adds each step's dt to t, and after 1e4 steps or more its round-off exceeds 1e-12 of t. Against the
exact times of a fixed step:
- spectra every 2 steps over 14000 steps of 1e-3 (7000 intervals): one row at each multiple, at the step that
  reaches it (2 m), none twice (the old code wrote 287 multiples a second time, a step later); and the same
  rows, bit for bit, when the run stops at step 7000 and continues with --restart;
- 43200 steps of 7e-4 to t_end = 30.24: the run ends at step 43200 (the old code took a step of 3e-11 after
  it), and spectra every 0.07 come at the multiples of 100 steps (the old code wrote the one of t = 30.17 a
  step late, at step 43101).
- The progress lines of a run in small units (dt = 2e-6 to t_end = 1e-4) give t and the CFL number to their
  significant digits: t = step dt, and the Taylor-Green vortex's CFL number dt max(|u|/dx + |v|/dy) =
  dt 16 / (2 pi) on 16^3 (the old lines said t = 0.0000 and CFL 0.000 throughout, and done: t = 0.000100).
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
from kolmo_test import check, finish, kolmo  # noqa: E402

CONFIG = """
grid: {n: 8}
backend: host
physics: {viscosity: 0.01}
time: {dt: 0.001, t_end: 14}
initial: {type: taylor_green}
output: {directory: out, series_every: 0, progress_every: 0, spectra_every: 0.002,
         checkpoint_every: 1}
"""


def spectra_rows(directory):
    with h5py.File(directory / "out/spectra.h5", "r") as f:
        return f["step"][...], f["time"][...], f["energy_spectrum"][...]


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "run.yaml").write_text(CONFIG)

    one = root / "one"
    one.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), cwd=one)
    check(r.returncode == 0, f"14000 steps of 1e-3 with spectra every 0.002 ({r.stderr.strip()[:300]})")
    steps, times, spectra = spectra_rows(one)
    expected = 2 * np.arange(7001)
    check(len(steps) == 7001 and np.array_equal(steps, expected),
          f"one spectrum at each of the 7001 multiples of 0.002, at step 2 m ({len(steps)} rows; first off: "
          f"{steps[:len(expected)][steps[:len(expected)] != expected[:len(steps)]][:3]})")
    check(len(times) == 7001 and np.abs(times - 1e-3 * expected).max() <= 1e-9,
          "the spectra's times are those steps' times, within the clock's round-off")

    two = root / "two"
    two.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=7000", cwd=two)
    check(r.returncode == 0, f"the first 7000 steps ({r.stderr.strip()[:300]})")
    r = kolmo(1, "run", str(root / "run.yaml"), "--restart", cwd=two)
    check(r.returncode == 0 and "restarting from" in r.stdout, f"--restart to t = 14 ({r.stderr.strip()[:300]})")
    steps_b, times_b, spectra_b = spectra_rows(two)
    check(np.array_equal(steps, steps_b) and np.array_equal(times, times_b) and np.array_equal(spectra, spectra_b),
          f"7000 steps + restart give the spectra of one go, bit for bit ({len(steps_b)} rows against "
          f"{len(steps)})")

    end = root / "end"
    end.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.dt=0.0007", "--set", "time.t_end=30.24",
              "--set", "output.spectra_every=0.07", "--set", "output.series_every=1000", cwd=end)
    check(r.returncode == 0, f"43200 steps of 7e-4 to t_end = 30.24 ({r.stderr.strip()[:300]})")
    status = (end / "out/status").read_text().strip()
    check(status.startswith("finished: step 43200, t = 30.24"), f"the run ends at step 43200 ({status})")
    with h5py.File(end / "out/series.h5", "r") as f:
        last_dt = f["dt"][-1]
    check(abs(last_dt - 7e-4) <= 1e-9, f"its last step is one of 7e-4, not a sliver ({last_dt:.3e})")
    steps, _, _ = spectra_rows(end)
    expected = 100 * np.arange(433)
    check(np.array_equal(steps, expected),
          f"spectra every 0.07 at each 100th step and the end ({len(steps)} rows, against 433; steps off "
          f"the multiples: {[int(s) for s in steps if s % 100][:3]})")

    small = root / "small"
    small.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "grid.n=16", "--set", "time.dt=2e-6", "--set",
              "time.t_end=1e-4", "--set", "output.progress_every=10", "--set", "output.spectra_every=0", cwd=small)
    rows = [line.split() for line in r.stdout.splitlines() if line.split() and line.split()[0].isdigit()]
    times = [(int(row[0]), float(row[1])) for row in rows]
    cfl = [float(row[5]) for row in rows]
    check(r.returncode == 0 and len(rows) == 6
          and all(abs(t - 2e-6 * step) <= 1e-4 * 2e-6 * max(step, 1) for step, t in times),
          f"the progress lines' t is step x 2e-6 ({times})")
    expected = 2e-6 * 16 / (2 * np.pi)
    check(len(cfl) == 6 and all(abs(c - expected) <= 1e-2 * expected for c in cfl),
          f"the progress lines' CFL number is dt 16 / (2 pi) = {expected:.3g} ({cfl})")
    check("done: 50 steps, t = 0.0001," in r.stdout, "the last line says t = 0.0001")

finish()
