#!/usr/bin/python3
"""End-to-end tests of Poisson runs, found by a user's audit (run by ctest; needs /usr/bin/python3 with h5py
and numpy):

- poisson.subtract_mean removes the mean of a right-hand side that is large against its variation (a density
  1000.3 + 1e-3 g; 1e-2 g in single precision): the run solves it, in double and single precision and on 1
  and 2 ranks, to what a numpy solve of the same values gives, instead of failing after writing its output
  directory because the mean's own round-off was left behind.
- The field file records the shift lambda (poisson.shift) as its attribute shift, read back equal to the
  configured value (0 where none is given), so that the file says which equation its phi solves.
- A signal that arrives while the gradient of phi is computed (delivered by gdb at Poisson::gradient, where
  gdb is installed) stops the run with status 130 and no field file, as one during the solve does, instead of
  being ignored until the run had written everything and exited 0.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import args, check, finish, kolmo  # noqa: E402

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

    # --- The dump records the shift lambda it was solved with (attribute shift), so that a reader can tell
    # which equation, lap(phi) - lambda phi = f, its phi solves (it had only the box and a viscosity of 0);
    # in either precision, and 0 for a run that gives none.
    for precision, shift in (("double", "2.5"), ("single", "0.75"), ("double", None)):
        name = f"shift_{precision}_{shift}"
        given = f"shift: {shift}, " if shift else ""
        (work / f"{name}.yaml").write_text(
            f"problem: poisson\ngrid: {{n: {list(GRID)}}}\nbackend: host\nprecision: {precision}\n"
            f"poisson: {{{given}rhs: {{type: manufactured}}}}\noutput: {{directory: {name}}}\n")
        r = kolmo(1, "run", f"{name}.yaml", cwd=work, timeout=120)
        stored = None
        if r.returncode == 0:
            with h5py.File(next((work / name / "fields").glob("*.h5")), "r") as f:
                stored = f.attrs.get("shift")
        expected = float(shift) if shift else 0.0
        check(stored is not None and stored.dtype == np.float64 and float(stored) == expected,
              f"a {precision} Poisson dump stores the shift it solved with: {stored!r}, configured "
              f"{shift or 'none (0)'} ({r.stderr.strip()[:200]})")

    # --- A signal during the gradient stops the run before phi is written.
    if shutil.which("gdb") is None:
        print("skipped: the signal during the gradient needs gdb")
    else:
        stopped = work / "signal"
        stopped.mkdir()
        (stopped / "poisson.yaml").write_text(
            f"problem: poisson\ngrid: {{n: {list(GRID)}}}\nbackend: host\nprecision: double\n"
            "poisson: {shift: 1, gradient: true}\noutput: {directory: out}\n")
        # SIGTERM delivered when Poisson<double>::gradient is entered; the breakpoint is deleted first, so that
        # the return from the handler does not stop there again. gdb writes the exit status in octal (0202: 130).
        gdb = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break kolmo::solver::Poisson<double>::gradient",
                              "-ex", "run", "-ex", "delete", "-ex", "signal SIGTERM",
                              "--args", args.kolmo, "run", "poisson.yaml"],
                             cwd=stopped, capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, OMP_NUM_THREADS="1", DEBUGINFOD_URLS=""))
        if "hit Breakpoint" not in gdb.stdout:
            print(f"skipped: gdb could not stop kolmo at Poisson::gradient ({(gdb.stdout + gdb.stderr)[-300:]!r})")
        else:
            written = sorted(p.name for p in (stopped / "out").rglob("*.h5"))
            status = (stopped / "out/status").read_text() if (stopped / "out/status").exists() else ""
            check("exited with code 0202" in gdb.stdout and "phi was not written" in gdb.stdout and not written
                  and status.startswith("stopped by a signal"),
                  f"a signal during the gradient stops the Poisson run with status 130 and no field file "
                  f"({gdb.stdout.strip()[-200:]!r}, {written}, {status.strip()!r})")

finish()
