#!/usr/bin/python3
"""End-to-end tests of runs that start or continue on another grid than their checkpoint's (run by ctest;
needs /usr/bin/python3 with h5py and numpy).

- A low-Reynolds-number Taylor-Green vortex with a scalar, run on 16^3 to t = 0.5 and continued from its
  checkpoint on 32^3 (--checkpoint, 3 ranks: uneven ky planes) to t = 1, matches the same flow run on 32^3
  from t = 0 (the modes a 16^3 grid drops are negligible at this Reynolds number): the continued run starts
  with the checkpoint's energy and scalar variance (zero padding loses nothing), at its time and step, and
  its header names the change.
- The 32^3 run's checkpoint continued on 16^3 (2 ranks) starts with the energy of the modes that the 16^3
  grid's 2/3 rule keeps, summed with numpy from the checkpoint; a random field continued on 8^3 is warned
  about, naming the share of the checkpoint's kinetic energy removed (as numpy sums it); going finer is not.
- initial.file (and a scalar's) may be a checkpoint of another grid (a new run from t = 0 with its energy and
  variance, the header says "resampled"); a field file of another grid is refused (a field file is not
  interpolated), and so is --restart on another grid in the run's own directory (its series and spectra are
  of the old grid), nothing written.
- A checkpoint of a much larger grid (4096 x 1 x 2048, 67 MiB a ky plane) continued on 16 x 1 x 16 peaks
  within kolmo check's memory estimate: the pass that verifies its checksums reads it in pieces, not a plane
  of the file's grid at a time; and it reads the file twice (that pass, which also sums the fields' mean
  squares, and the resampling), not three times.
"""
import os
import pathlib
import re
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
from kolmo_test import args, check, finish, kolmo, snapshot  # noqa: E402

CONFIG = """
grid: {n: [16, 16, 16]}
precision: double
backend: host
physics:
  viscosity: 0.05
  scalars: [{name: theta, schmidt: 1.0, mean_gradient: [0, 0, 1]}]
time: {integrator: rk4, dt: 0.01, t_end: 0.5}
initial: {type: taylor_green}
output: {directory: coarse, series_every: 1, progress_every: 0, checkpoint_every: 0.5, fields: [velocity],
         fields_every: 0.5}
"""


def series(directory):
    with h5py.File(directory / "series.h5", "r") as f:
        return {name: f[name][...] for name in ("time", "step", "energy", "theta_variance")}


def kept_energy(path, n):
    """1/2 sum |u_hat|^2 over the modes that an n^3 grid's 2/3 rule keeps (3 |n_d| < n), every mode of the
    full spectrum counted: the half axis's kz > 0 twice."""
    with h5py.File(path, "r") as f:
        modes = [f[name][...] for name in ("u_hat", "v_hat", "w_hat")]
    nx, ny, nzc = modes[0].shape
    kx = np.fft.fftfreq(nx, 1.0 / nx)
    ky = np.fft.fftfreq(ny, 1.0 / ny)
    kz = np.arange(nzc)
    kept = (3 * np.abs(kx)[:, None, None] < n) & (3 * np.abs(ky)[None, :, None] < n) & (3 * kz[None, None, :] < n)
    weight = np.where(kz == 0, 1.0, 2.0)[None, None, :]
    return 0.5 * sum(float((weight * np.abs(m) ** 2)[kept].sum()) for m in modes)


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "tg.yaml").write_text(CONFIG)

    r = kolmo(1, "run", "tg.yaml", cwd=root)
    check(r.returncode == 0, f"the 16^3 run to t = 0.5 ({r.stderr.strip()[-200:]})")
    coarse_checkpoint = root / "coarse/checkpoints/checkpoint.h5"

    # Continued on 32^3 against 32^3 from the start.
    r = kolmo(3, "run", "tg.yaml", "--checkpoint", str(coarse_checkpoint), "--set", "grid.n=32", "--set",
              "time.t_end=1.0", "--set", "output.directory=continued", cwd=root)
    check(r.returncode == 0 and "grid.n [16, 16, 16] -> [32, 32, 32] (modes resampled)" in r.stdout
          and "warning" not in r.stderr,
          f"the 16^3 checkpoint continues on 32^3, the header names the change ({r.stderr.strip()[-300:]})")
    r = kolmo(1, "run", "tg.yaml", "--set", "grid.n=32", "--set", "time.t_end=1.0", "--set",
              "output.directory=fine", "--set", "output.checkpoint_every=1.0", cwd=root)
    check(r.returncode == 0, f"the 32^3 run from t = 0 ({r.stderr.strip()[-200:]})")
    if (root / "continued/series.h5").exists() and (root / "fine/series.h5").exists():
        coarse, continued, fine = series(root / "coarse"), series(root / "continued"), series(root / "fine")
        check(continued["time"][0] == coarse["time"][-1] == 0.5 and continued["step"][0] == coarse["step"][-1] == 50,
              f"the continued run starts at the checkpoint's time and step ({continued['time'][0]}, "
              f"{continued['step'][0]})")
        for column in ("energy", "theta_variance"):
            start = abs(continued[column][0] / coarse[column][-1] - 1)
            check(start < 1e-13, f"{column}: the continued run starts with the checkpoint's ({start:.1e})")
            # What 16^3 lost by t = 0.5 (the scalar's gradients reach beyond its 2/3 rule sooner than the
            # velocity) stays of that size: continuing on 32^3 adds nothing of its own.
            lost = abs(coarse[column][-1] / fine[column][50] - 1)
            end = abs(continued[column][-1] / fine[column][-1] - 1)
            check(abs(fine["time"][50] - 0.5) < 1e-12 and end < 3 * lost + 1e-13 and end < 1e-7,
                  f"{column} at t = 1: continued from 16^3 = run on 32^3 from t = 0 ({end:.1e}; 16^3 against 32^3 "
                  f"at t = 0.5: {lost:.1e})")

    # The 32^3 checkpoint continued on 16^3: the modes the coarser grid keeps.
    fine_checkpoint = root / "fine/checkpoints/checkpoint.h5"
    r = kolmo(2, "run", "tg.yaml", "--checkpoint", str(fine_checkpoint), "--set", "time.t_end=1.1", "--set",
              "output.directory=coarser", cwd=root)
    check(r.returncode == 0 and "grid.n [32, 32, 32] -> [16, 16, 16] (modes resampled)" in r.stdout,
          f"the 32^3 checkpoint continues on 16^3 ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        expected = kept_energy(fine_checkpoint, 16)
        whole = kept_energy(fine_checkpoint, 32)
        start = series(root / "coarser")["energy"][0]
        check(abs(start / expected - 1) < 1e-13 and whole > expected,
              f"it starts with the energy of the modes 16^3 keeps ({start!r} against {expected!r}; "
              f"the checkpoint's {whole!r})")

    # A random field continued on a grid too coarse for most of it: the run says how much of the checkpoint's
    # kinetic energy the coarser grid and its 2/3 rule removed (the 16^3 -> 32^3 run above said nothing).
    r = kolmo(1, "run", "tg.yaml", "--set", "initial={type: random, spectrum: {k0: 4, energy: 0.5}}", "--set",
              "output.directory=random", "--set", "time.t_end=0.02", "--set", "output.checkpoint_every=0.02", cwd=root)
    random_checkpoint = root / "random/checkpoints/checkpoint.h5"
    r = kolmo(2, "run", "tg.yaml", "--checkpoint", str(random_checkpoint), "--set", "grid.n=8", "--set",
              "time.t_end=0.03", "--set", "output.directory=random8", cwd=root)
    said = re.search(r"warning: --checkpoint: resampling onto grid.n = \[8, 8, 8\] and its 2/3 rule removed "
                     r"([0-9.]+) % of the file's kinetic energy", r.stderr)
    if random_checkpoint.exists():
        removed = 100 * (1 - kept_energy(random_checkpoint, 8) / kept_energy(random_checkpoint, 16))
        check(r.returncode == 0 and said is not None and abs(float(said.group(1)) / removed - 1) < 1e-2
              and removed > 10, f"onto 8^3: the warning says {said.group(1) if said else None} % of the kinetic "
              f"energy removed, numpy {removed:.3g} % ({r.stderr.strip()[-300:]})")

    # initial.file: a checkpoint of another grid starts a new run at t = 0; a field file of another grid is
    # refused; --restart on another grid in the run's own directory is refused.
    r = kolmo(2, "run", "tg.yaml", "--set", "grid.n=24", "--set", f"initial={{type: file, file: {coarse_checkpoint}}}",
              "--set", "physics.scalars=[{name: theta, schmidt: 1.0, mean_gradient: [0, 0, 1], initial: {type: file, "
              f"file: {coarse_checkpoint}}}}}]", "--set", "output.directory=from_file", "--set", "time.t_end=0.1",
              cwd=root)
    check(r.returncode == 0 and "resampled initial.file: " in r.stdout
          and "resampled physics.scalars[0].initial.file: " in r.stdout and "[16, 16, 16] -> [24, 24, 24]" in r.stdout,
          f"initial.file: a 16^3 checkpoint starts a 24^3 run ({r.stdout.strip()[-300:]} {r.stderr.strip()[-200:]})")
    if r.returncode == 0:
        started, coarse = series(root / "from_file"), series(root / "coarse")
        for column in ("energy", "theta_variance"):
            start = abs(started[column][0] / coarse[column][-1] - 1)
            check(started["time"][0] == 0 and start < 1e-13, f"from t = 0 with the checkpoint's {column} ({start:.1e})")

    # kolmo check says what the run's header says: the initial files it resamples.
    r = kolmo(1, "check", "tg.yaml", "--set", "grid.n=24", "--set", f"initial={{type: file, file: {coarse_checkpoint}}}",
              "--set", "output.directory=checked", cwd=root)
    check(r.returncode == 0 and "# resampled initial.file: " in r.stdout and "[16, 16, 16] -> [24, 24, 24]" in r.stdout
          and not (root / "checked").exists(),
          f"kolmo check names the initial file it resamples ({r.stdout.strip()[-300:]} {r.stderr.strip()[-200:]})")

    dump = sorted((root / "coarse/fields").glob("*.h5"))[-1]
    r = kolmo(1, "run", "tg.yaml", "--set", "grid.n=32", "--set", f"initial={{type: file, file: {dump}}}", "--set",
              "output.directory=refused", cwd=root)
    check(r.returncode != 0 and "a field file is not interpolated" in r.stderr and not (root / "refused").exists(),
          f"a 16^3 field file for a 32^3 run is refused, nothing written ({r.stderr.strip()[-300:]})")

    before = snapshot(root / "coarse")
    r = kolmo(1, "run", "tg.yaml", "--restart", "--set", "grid.n=32", "--set", "time.t_end=1.0", cwd=root)
    check(r.returncode != 0 and "--checkpoint and another output.directory" in r.stderr
          and snapshot(root / "coarse") == before,
          f"--restart on another grid in the run's own directory is refused, nothing written ({r.stderr.strip()[-300:]})")

    # A checkpoint of a far larger grid, continued on a small one: the peak resident memory of the run (one
    # rank started directly, so that its own peak is measured) within kolmo check's estimate. Reading a ky
    # plane of the file's grid per call in the pass that verifies its checksums held 2 planes (134 MiB
    # here, on an estimate of 96 MiB).
    big = root / "big.h5"
    nx, nz = 4096, 2048
    with h5py.File(coarse_checkpoint, "r") as source, h5py.File(big, "w", libver=("v110", "v110")) as f:
        for name, value in source.attrs.items():
            if name not in ("configuration", "run"):
                f.attrs[name] = value
        f.attrs["grid"] = np.array([nx, 1, nz], dtype=source.attrs["grid"].dtype)
        rows = (1 << 20) // ((nz // 2 + 1) * 16)
        for name in ("u_hat", "v_hat", "w_hat"):
            values = np.zeros((nx, 1, nz // 2 + 1), dtype=source["u_hat"].dtype)
            if name == "w_hat":
                values[1, 0, 0] = values[nx - 1, 0, 0] = 0.25
            f.create_dataset(name, data=values, chunks=(rows, 1, nz // 2 + 1), fletcher32=True)
    (root / "small.yaml").write_text("""
grid: {n: [16, 1, 16]}
backend: host
physics: {viscosity: 0.05}
time: {dt: 0.01, t_end: 0.52}
initial: {type: taylor_green}
output: {directory: small, progress_every: 0}
""")
    if os.environ.get("KOLMO_SANITIZED"):
        print("skipped: the memory estimate against the measured peak (KOLMO_SANITIZED: a sanitizer's peak)")
    else:
        r = kolmo(1, "check", "small.yaml", "--checkpoint", str(big), cwd=root)
        found = re.search(r"# memory: host ([0-9.]+) MiB", r.stdout)
        estimated = float(found.group(1)) if found else float("nan")
        # The bytes it read, from /proc/PID/io of the exited run (WNOWAIT: not yet reaped, so still there).
        probe = ("import os, resource, subprocess, sys\n"
                 "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                 "os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)\n"
                 "io = dict(line.split(': ') for line in open(f'/proc/{p.pid}/io').read().splitlines())\n"
                 "print(p.wait(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, io['rchar'])\n")
        out = subprocess.run([sys.executable, "-c", probe, args.kolmo, "run", "small.yaml", "--checkpoint", str(big)],
                             cwd=root, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        code, kib, rchar = out.stdout.split()
        measured = int(kib) / 1024 if code == "0" else float("nan")
        check(measured <= estimated, f"a 4096 x 1 x 2048 checkpoint continued on 16 x 1 x 16: peak {measured:.1f} MiB "
              f"against the estimate {estimated:.1f} MiB ({r.stderr.strip()[-200:]})")
        # Once (195.2 MiB of 195.1 here): the pass that verifies it resamples it and sums the mean squares for
        # the warnings. Before de6b767 that pass only verified and summed, and the resampling read the few
        # chunks it needs again; summing them in a pass of their own read it a third time.
        size, read = big.stat().st_size, int(rchar) if code == "0" else float("nan")
        check(read < 1.1 * size, f"a 4096 x 1 x 2048 checkpoint continued on 16 x 1 x 16 is read once: "
              f"{read / 2**20:.1f} MiB read of a {size / 2**20:.1f} MiB file")
    big.unlink()

finish()
