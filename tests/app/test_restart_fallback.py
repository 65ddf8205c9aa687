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
A checkpoint stores the configuration it was written with, and a restart names the keys changed against that
one: a run of 6 steps continued to 9 with linear forcing leaves checkpoint.prev.h5 unforced and config.yaml
forced; falling back to checkpoint.prev.h5, `kolmo check --restart` and the run's header name the forcing as
changed (compared with config.yaml, the old code named nothing, and the reverse change without the forcing),
in the same words; `--checkpoint` from another directory names it beside the viscosity (the old code named
the viscosity alone), `kolmo check --checkpoint` too; checkpoints without the stored configuration (older
kolmo) are compared as before: with config.yaml in their own directory, on their attributes elsewhere.
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

    # --- The configuration a checkpoint was written with. ---
    FORCED = ["--set", "physics.forcing={type: linear, coefficient: 0.1}"]
    FORCING = "physics.forcing none -> linear (coefficient 0.1)"
    TAIL = " (the run continues with the new values)"
    config = str(root / "run.yaml")

    def header_changes(r):
        """The header's line of changed keys, from "since the checkpoint", or None."""
        line = next((line for line in r.stdout.splitlines() if line.startswith("  changed   ")), None)
        return line[len("  changed   "):] if line else None

    def check_changes(r):
        """kolmo check's line of changed keys (a YAML comment after the configuration), or None."""
        line = next((line for line in r.stdout.splitlines() if line.startswith("# changed ")), None)
        return line[len("# changed "):] if line else None

    changed = root / "changed"
    changed.mkdir()
    r = kolmo(RANKS, "run", config, "--set", "time.steps=6", cwd=changed)
    r = kolmo(RANKS, "run", config, "--set", "time.steps=9", *FORCED, "--restart", cwd=changed)
    check(r.returncode == 0 and header_changes(r) == "since the checkpoint: " + FORCING + TAIL,
          f"a restart with linear forcing names it ({header_changes(r)}; {r.stderr.strip()[:200]})")
    with h5py.File(changed / "out/checkpoints/checkpoint.h5", "r") as f:
        stored = f.attrs["configuration"]
    stored = stored.decode() if isinstance(stored, bytes) else str(stored)
    check("type: linear" in stored and stored == (changed / "out/config.yaml").read_text(),
          "checkpoint.h5 stores the configuration it was written with, its run's config.yaml")

    # Falling back to checkpoint.prev.h5 (step 6, unforced) while config.yaml is the forced leg's.
    fallback = root / "changed_fallback"
    shutil.copytree(changed, fallback)
    cut(fallback / "out/checkpoints/checkpoint.h5")
    r = kolmo(RANKS, "check", config, "--restart", cwd=fallback)
    check(r.returncode == 0 and "checkpoint.prev.h5" in r.stderr and check_changes(r) is None,
          f"kolmo check --restart from checkpoint.prev.h5 with its own configuration names no change "
          f"({check_changes(r)}; {r.stderr.strip()[:200]})")
    r = kolmo(RANKS, "check", config, "--restart", *FORCED, cwd=fallback)
    said = check_changes(r)
    check(r.returncode == 0 and said == "since the checkpoint: " + FORCING + TAIL,
          f"kolmo check --restart from checkpoint.prev.h5 names the forcing, changed since it ({said})")
    r = kolmo(RANKS, "run", config, "--restart", *FORCED, cwd=fallback)
    check(r.returncode == 0 and "restarting from out/checkpoints/checkpoint.prev.h5: step 6" in r.stdout
          and header_changes(r) == said,
          f"the run from checkpoint.prev.h5 names it in kolmo check's words ({header_changes(r)})")

    # The undamaged checkpoint.h5 (forced): only what changed since it.
    r = kolmo(RANKS, "check", config, "--restart", *FORCED, "--set", "time.integrator=rk4", cwd=changed)
    check(r.returncode == 0 and check_changes(r) == "since the checkpoint: time.integrator rk3 -> rk4" + TAIL,
          f"kolmo check --restart names only what changed since checkpoint.h5 ({check_changes(r)})")

    # --checkpoint from another directory: every changed key, not only the viscosity.
    branch = root / "changed_branch"
    branch.mkdir()
    previous = str(changed / "out/checkpoints/checkpoint.prev.h5")
    wanted = "since the checkpoint: physics.viscosity 0.01 -> 0.02, " + FORCING + TAIL
    r = kolmo(RANKS, "check", config, "--checkpoint", previous, "--set", "physics.viscosity=0.02", *FORCED,
              cwd=branch)
    check(r.returncode == 0 and check_changes(r) == wanted,
          f"kolmo check --checkpoint of another run's checkpoint names the viscosity and the forcing "
          f"({check_changes(r)}; {r.stderr.strip()[:200]})")
    r = kolmo(RANKS, "run", config, "--checkpoint", previous, "--set", "physics.viscosity=0.02", *FORCED,
              "--set", "time.steps=8", cwd=branch)
    check(r.returncode == 0 and header_changes(r) == wanted,
          f"a run from another run's checkpoint names the viscosity and the forcing ({header_changes(r)})")

    # Checkpoints from before kolmo stored the configuration: compared as before.
    old = root / "changed_old"
    shutil.copytree(changed, old)
    for name in ("checkpoint.h5", "checkpoint.prev.h5"):
        with h5py.File(old / "out/checkpoints" / name, "r+") as f:
            del f.attrs["configuration"]
    r = kolmo(RANKS, "check", config, "--restart", *FORCED, "--set", "time.integrator=rk4", cwd=old)
    check(r.returncode == 0 and check_changes(r) == "since the checkpoint: time.integrator rk3 -> rk4" + TAIL,
          f"a checkpoint without its configuration is compared with its run's config.yaml ({check_changes(r)}; "
          f"{r.stderr.strip()[:200]})")
    elsewhere = root / "changed_old_branch"
    elsewhere.mkdir()
    r = kolmo(RANKS, "check", config, "--checkpoint", str(old / "out/checkpoints/checkpoint.prev.h5"), "--set",
              "physics.viscosity=0.02", *FORCED, cwd=elsewhere)
    check(r.returncode == 0 and check_changes(r) == "since the checkpoint: physics.viscosity 0.01 -> 0.02" + TAIL,
          f"elsewhere, on its attributes alone ({check_changes(r)}; {r.stderr.strip()[:200]})")

finish()
