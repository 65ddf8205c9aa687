#!/usr/bin/python3
"""Restarts from damaged checkpoints (run by ctest; needs /usr/bin/python3 with h5py and numpy).

A run of 6 steps, continued to 9, leaves checkpoint.h5 (step 9) and checkpoint.prev.h5 (step 6). Then, on
2 ranks:
- one flipped bit in a data chunk of checkpoint.h5 that only rank 1 reads, or checkpoint.h5 cut short:
  `--restart` says on one line which file was bad, why, and that it restarts from checkpoint.prev.h5; the
  run continues from step 6 to step 12 and ends bit for bit where an uninterrupted 12-step run ends, and the
  time series holds each step once;
- the same for checkpoint.h5 left open by a writer that was killed (HDF5's consistency flags set);
- both files damaged: exit status 1, one line naming both, and nothing in the run directory changed;
- `--checkpoint` naming the damaged file: exit status 1, one line naming it (no fallback).
(An undamaged restart is bitwise identical to an uninterrupted run: test_runs.py.)
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import check, checkpoint as velocity, finish, flip_bit_in_chunk, kolmo, snapshot  # noqa: E402

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

RANKS = 2
CONFIG = """
grid: {n: [16, 18, 12]}
precision: double
backend: host
physics: {viscosity: 0.01}
time: {integrator: rk3, cfl: 0.6, steps: 12}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 1, progress_every: 0, spectra_every: 0, checkpoint_every: 100,
         fields_every: 0}
"""


def cut(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) * 2 // 3)


def left_open(path):
    """A process killed while it held the file open for writing: HDF5's consistency flags stay set, so the
    file opens through MPI-IO but not serially."""
    subprocess.run([sys.executable, "-c", "import h5py, os, signal, sys\nf = h5py.File(sys.argv[1], 'r+')\n"
                    "os.kill(os.getpid(), signal.SIGKILL)", str(path)], check=False)


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "run.yaml").write_text(CONFIG)
    uninterrupted = root / "uninterrupted"
    uninterrupted.mkdir()
    r = kolmo(RANKS, "run", str(root / "run.yaml"), cwd=uninterrupted)
    check(r.returncode == 0, f"12 steps in one go ({r.stderr.strip()[:200]})")
    expected, _, _ = velocity(uninterrupted / "out/checkpoints/checkpoint.h5")

    base = root / "base"
    base.mkdir()
    r = kolmo(RANKS, "run", str(root / "run.yaml"), "--set", "time.steps=6", cwd=base)
    r = kolmo(RANKS, "run", str(root / "run.yaml"), "--set", "time.steps=9", "--restart", cwd=base)
    checkpoints = base / "out/checkpoints"
    _, newest, _ = velocity(checkpoints / "checkpoint.h5")
    _, previous, _ = velocity(checkpoints / "checkpoint.prev.h5")
    check(r.returncode == 0 and (previous, newest) == (6, 9), f"checkpoints of steps 6 and 9 ({previous}, {newest})")

    # ky plane 17 of 18 belongs to rank 1: rank 0 alone would read the file as sound.
    damages = {"a flipped bit": lambda path: flip_bit_in_chunk(path, "v_hat", 17),
               "a cut file": cut, "a file left open": left_open}
    reasons = {"a flipped bit": "Fletcher32 checksum", "a cut file": "truncated file",
               "a file left open": "already open for write"}
    def restart_after(name, damage):
        work = root / name.replace(" ", "_")
        shutil.copytree(base, work)
        damage(work / "out/checkpoints/checkpoint.h5")
        r = kolmo(RANKS, "run", str(root / "run.yaml"), "--restart", cwd=work)
        lines = r.error_lines()
        check(r.returncode == 0 and len(lines) == 1 and "out/checkpoints/checkpoint.h5" in lines[0]
              and reasons[name] in lines[0] and "restarting from the previous checkpoint" in lines[0]
              and "checkpoint.prev.h5" in lines[0],
              f"{name} in checkpoint.h5: one line says so and restarts from checkpoint.prev.h5: {lines[:3]}")
        check("restarting from out/checkpoints/checkpoint.prev.h5: step 6" in r.stdout,
              f"{name}: the run continues from step 6")
        a, step, _ = velocity(work / "out/checkpoints/checkpoint.h5")
        check(step == 12 and all(np.array_equal(x, y) for x, y in zip(a, expected)),
              f"{name}: it ends at step 12 bit for bit where the uninterrupted run ends")
        with h5py.File(work / "out/series.h5", "r") as f:
            steps = list(f["step"][...])
        check(steps == list(range(13)), f"{name}: the series holds each step once ({steps})")

    for name, damage in damages.items():
        try:
            restart_after(name, damage)
        except Exception as error:  # an unreadable result is a failure of this case, not the end
            check(False, f"{name}: {type(error).__name__}: {error}")

    # Both damaged: one line naming both, nothing written.
    work = root / "both"
    shutil.copytree(base, work)
    flip_bit_in_chunk(work / "out/checkpoints/checkpoint.h5", "u_hat", 0)
    cut(work / "out/checkpoints/checkpoint.prev.h5")
    before = snapshot(work)
    r = kolmo(RANKS, "run", str(root / "run.yaml"), "--restart", cwd=work)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and "checkpoint.h5" in lines[0] and "checkpoint.prev.h5" in lines[0]
          and "Fletcher32" in lines[0] and "truncated" in lines[0],
          f"both damaged: exit 1 ({r.returncode}), one line naming both files and why: {lines[:3]}")
    check(snapshot(work) == before, "both damaged: nothing in the run directory changed")

    # A damaged file named with --checkpoint: no fallback.
    before = snapshot(work)
    damaged = work / "out/checkpoints/checkpoint.h5"
    r = kolmo(RANKS, "run", str(root / "run.yaml"), "--checkpoint", str(damaged), cwd=work)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and str(damaged) in lines[0] and "Fletcher32" in lines[0],
          f"--checkpoint with a damaged file: exit 1 ({r.returncode}), one line naming it: {lines[:3]}")
    check(snapshot(work) == before, "--checkpoint with a damaged file: nothing in the run directory changed")

finish()
