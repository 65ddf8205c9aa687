#!/usr/bin/python3
"""End-to-end tests of Poisson runs, found by a user's audit (run by ctest; needs /usr/bin/python3 with h5py
and numpy):

- poisson.subtract_mean removes the mean of a right-hand side that is large against its variation (a density
  1000.3 + 1e-3 g; 1e-2 g in single precision): the run solves it, in double and single precision and on 1
  and 2 ranks, to what a numpy solve of the same values gives, instead of failing after writing its output
  directory because the mean's own round-off was left behind.
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

GRID = (16, 12, 10)


def solve_numpy(f):
    """phi with lap(phi) = f - <f> and zero mean in the 2 pi box, by numpy's FFT ([Nx][Ny][Nz] arrays)."""
    k = np.meshgrid(*[np.fft.fftfreq(n, 1.0 / n) for n in f.shape], indexing="ij")
    k2 = k[0] ** 2 + k[1] ** 2 + k[2] ** 2
    k2[0, 0, 0] = 1.0
    spectrum = np.fft.fftn(f - f.mean()) / -k2  # the mean first: the FFT of 1000.3 + 1e-3 g loses digits of g
    spectrum[0, 0, 0] = 0.0
    return np.fft.ifftn(spectrum).real


with tempfile.TemporaryDirectory(prefix="kolmo-poisson-") as root:
    work = pathlib.Path(root)

    # --- poisson.subtract_mean on a right-hand side whose mean dwarfs its variation.
    x, y, z = np.meshgrid(*[2 * np.pi * np.arange(n) / n for n in GRID], indexing="ij")
    g = np.sin(x) * np.cos(2 * y) + 0.5 * np.cos(x + y - 3 * z)
    g += 0.25 * np.random.default_rng(7).standard_normal(GRID)
    with h5py.File(work / "density.h5", "w") as f:
        f["double"] = 1000.3 + 1e-3 * g
        f["single"] = (1000.3 + 1e-2 * g).astype(np.float32)
    cases = (("double", "double", 1e-12, "1e-3"), ("single", "single", 1e-4, "1e-2"))
    for precision, dataset, tolerance, variation in cases:
        with h5py.File(work / "density.h5", "r") as f:
            values = f[dataset][...].astype(np.float64)
        expected = solve_numpy(values)
        for ranks in (1, 2):
            name = f"{precision}_{ranks}"
            (work / f"{name}.yaml").write_text(
                f"problem: poisson\ngrid: {{n: {list(GRID)}}}\nbackend: host\nprecision: {precision}\n"
                f"poisson: {{subtract_mean: true, rhs: {{type: file, file: density.h5, dataset: {dataset}}}}}\n"
                f"output: {{directory: {name}}}\n")
            r = kolmo(ranks, "run", f"{name}.yaml", cwd=work, timeout=120)
            error = float("nan")
            if r.returncode == 0:
                with h5py.File(next((work / name / "fields").glob("*.h5")), "r") as f:
                    phi = f["phi"][...].transpose().astype(np.float64)  # stored x fastest
                error = np.abs(phi - expected).max() / np.abs(expected).max()
            check(r.returncode == 0 and "mean 1000.3 subtracted" in r.stdout and error < tolerance,
                  f"poisson.subtract_mean removes a mean of 1000.3 from a variation of {variation} ({precision}, "
                  f"{ranks} rank(s)): phi within {tolerance:g} of numpy's: {error:.2e} ({r.stderr.strip()[:200]})")

finish()
