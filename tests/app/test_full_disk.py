#!/usr/bin/python3
"""A full disk stops a run cleanly (run by ctest; needs root to mount a small tmpfs, skipped otherwise).

Runs write into a tmpfs too small for them, on 1 and 2 ranks, until a field dump, a checkpoint or an append
to series.h5 finds no room. Each must end within a time limit (no hang) with exit status 1 (no segfault),
exactly one line on stderr naming the file and "No space left on device", no temporary file left, and every
earlier output intact: field dumps and series rows equal those of the same run on an ordinary disk, and the
kept checkpoint restarts to the same state, bit for bit, as an uninterrupted run.
"""
import contextlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import check, checkpoint as velocity, finish, kolmo  # noqa: E402

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

TIME_LIMIT = 300  # seconds a run may take before it counts as hung

# A 24^3 flow with a fixed step, so that dumps and checkpoints fall on known steps.
CONFIG = """
grid: {n: 24}
precision: double
backend: host
physics: {viscosity: 0.02}
time: {integrator: rk3, dt: 0.01, steps: 40}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 3}
output: {directory: out, series_every: 1, progress_every: 0, spectra_every: 0, checkpoint_every: 0,
         fields: [velocity], fields_every: 0}
"""
TMPFS_KIB = 3000


@contextlib.contextmanager
def small_disk(path, kib):
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        print(f"SKIPPED: cannot mount a tmpfs ({mounted.stderr.strip()})")
        sys.exit(77)
    try:
        yield path
    finally:
        for _ in range(20):  # killed ranks may take a moment to let go of the disk
            if subprocess.run(["umount", str(path)], capture_output=True).returncode == 0:
                break
            time.sleep(0.5)
        else:
            subprocess.run(["umount", "-l", str(path)])


def run_until_full(root, name, ranks, *settings, kib=TMPFS_KIB):
    """Runs the configuration with output on a small disk; returns the result and a copy of the output."""
    copy = root / f"{name}_copy"
    with small_disk(root / name, kib) as disk:
        r = kolmo(ranks, "run", str(root / "run.yaml"), "--set", f"output.directory={disk / 'out'}", *settings,
                  cwd=root, timeout=TIME_LIMIT)
        shutil.copytree(disk / "out", copy)
    return r, copy


def check_clean_failure(r, what, expected_file):
    """Stopped in time, status 1, one line naming the file and the cause."""
    lines = r.error_lines()
    check(not r.timed_out, f"{what}: the run ends within {TIME_LIMIT} s (no hang)")
    check(r.returncode == 1, f"{what}: exit status 1 on every rank (got {r.returncode})")
    check(len(lines) == 1 and expected_file in lines[0] and "No space left on device" in lines[0],
          f"{what}: one line naming {expected_file} and the cause: {lines[:3]}")


def check_no_leftovers(copy, what):
    leftovers = [str(p.relative_to(copy)) for p in copy.rglob("*.tmp")]
    check(not leftovers, f"{what}: no temporary files left ({leftovers})")


def series_rows(path):
    with h5py.File(path, "r") as f:
        return {name: f[name][...] for name in f}


def same_series_start(run, reference, what):
    """The run's rows are the reference's first rows, bit for bit, and hold each step once from 0."""
    a, b = series_rows(run), series_rows(reference)
    rows = len(a["step"])
    steps_ok = list(a["step"]) == list(range(rows))
    same = set(a) == set(b) and all(np.array_equal(a[k], b[k][:rows], equal_nan=True) for k in a)
    check(rows > 0 and steps_ok and same,
          f"{what}: series.h5 keeps its {rows} rows, equal to those of a run on an ordinary disk")
    return rows


def fields_case(root, ranks):
    """Field dumps every 2 steps (340 KiB each) on a 3000 KiB disk until one finds no room (each reserves
    its size and 1 MiB for metadata first): at least two fit, not all 21."""
    what = f"fields, {ranks} rank(s)"
    fields = ["--set", "output.fields_every=0.02"]
    reference = reference_run(root, f"fields_reference_{ranks}", ranks, *fields, "--set", "time.steps=8")
    r, copy = run_until_full(root, f"fields_{ranks}", ranks, *fields)
    dumps = sorted(p.name for p in (copy / "fields").glob("fields_*.h5"))
    failed = f"fields_{2 * len(dumps):06d}.h5"  # the one after the dumps that remain
    check_clean_failure(r, what, failed)
    check_no_leftovers(copy, what)
    expected = [f"fields_{2 * i:06d}.h5" for i in range(len(dumps))]
    check(len(dumps) >= 2 and dumps == expected, f"{what}: the dumps before {failed} remain ({dumps})")
    same = True
    for name in dumps:
        with h5py.File(copy / "fields" / name, "r") as a, h5py.File(reference / "fields" / name, "r") as b:
            same = same and all(np.array_equal(a[c][...], b[c][...]) for c in ("u", "v", "w"))
        xmf = name.replace(".h5", ".xmf")
        same = same and (copy / "fields" / xmf).read_text() == (reference / "fields" / xmf).read_text()
    check(dumps and same, f"{what}: they equal the reference run's dumps bit for bit, .xmf included")
    same_series_start(copy / "series.h5", reference / "series.h5", what)


def checkpoints_case(root, ranks):
    """Checkpoints of 48^3 every 5 steps (2.7 MiB each) until the third finds no room; the kept one restarts.
    The second needs the start's files (under 1 MiB with their reserved room), the first checkpoint and the
    second with 1 MiB reserved for its metadata, 7.1 MiB; the third needs two checkpoints and itself, 8.1
    MiB even without any reservation: 7.8 MiB take the second, never the third."""
    what = f"checkpoints, {ranks} rank(s)"
    checkpoints = ["--set", "grid.n=48", "--set", "output.checkpoint_every=0.05", "--set", "time.steps=20"]
    uninterrupted = reference_run(root, f"checkpoints_reference_{ranks}", ranks, *checkpoints)
    r, copy = run_until_full(root, f"checkpoints_{ranks}", ranks, *checkpoints, kib=8000)
    check_clean_failure(r, what, "checkpoint.h5")
    check_no_leftovers(copy, what)
    _, newest, _ = velocity(copy / "checkpoints/checkpoint.h5")
    _, previous, _ = velocity(copy / "checkpoints/checkpoint.prev.h5")
    check(newest >= 10 and previous == newest - 5,
          f"{what}: the last two checkpoints remain (steps {previous} and {newest})")
    same_series_start(copy / "series.h5", uninterrupted / "series.h5", what)
    r = kolmo(ranks, "run", str(root / "run.yaml"), "--set", f"output.directory={copy}", *checkpoints,
              "--restart", cwd=root)
    a, step_a, _ = velocity(copy / "checkpoints/checkpoint.h5")
    b, step_b, _ = velocity(uninterrupted / "checkpoints/checkpoint.h5")
    check(r.returncode == 0 and step_a == step_b == 20 and all(np.array_equal(x, y) for x, y in zip(a, b)),
          f"{what}: the kept checkpoint restarts to the uninterrupted run's state at step 20, bit for bit")


def series_case(root, ranks):
    """Series rows only, every step, on a small grid: series.h5 grows until its next reservation finds no
    room (after 1024 rows, when its columns need new chunks)."""
    what = f"series, {ranks} rank(s)"
    # (k0 below 2, the largest wavenumber that the 2/3 rule of 8^3 keeps)
    series = ["--set", "grid.n=8", "--set", "initial.spectrum.k0=1.5", "--set", "time.dt=0.001", "--set",
              "time.integrator=rk2"]
    r, copy = run_until_full(root, f"series_{ranks}", ranks, *series, "--set", "time.steps=100000", kib=1000)
    check_clean_failure(r, what, "series.h5")
    check_no_leftovers(copy, what)
    with h5py.File(copy / "series.h5", "r") as f:
        rows = len(f["step"])
    reference = reference_run(root, f"series_reference_{ranks}", ranks, *series, "--set",
                              f"time.steps={max(rows - 1, 1)}")
    same_series_start(copy / "series.h5", reference / "series.h5", what)


def reference_run(root, name, ranks, *settings):
    directory = root / name
    r = kolmo(ranks, "run", str(root / "run.yaml"), "--set", f"output.directory={directory}", *settings, cwd=root)
    check(r.returncode == 0, f"{name}: the same run on an ordinary disk ({r.stderr.strip()[:200]})")
    return directory


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "run.yaml").write_text(CONFIG)
    if os.geteuid() != 0:
        print("SKIPPED: mounting a small tmpfs needs root")
        sys.exit(77)
    with small_disk(root / "probe", 64):
        pass
    for case in (fields_case, checkpoints_case, series_case):
        for ranks in (2, 1):
            try:
                case(root, ranks)
            except Exception as error:  # a missing or unreadable file is a failure of this case, not the end
                check(False, f"{case.__name__}, {ranks} rank(s): {type(error).__name__}: {error}")

finish()
