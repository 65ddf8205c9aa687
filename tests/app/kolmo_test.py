"""What the end-to-end tests of the kolmo command share: its arguments, running kolmo, checks and their
verdict, and what "nothing written" means."""
import argparse
import atexit
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--kolmo", required=True)
parser.add_argument("--mpiexec", required=True)
parser.add_argument("--source", required=True)
args = parser.parse_args()
args.kolmo = os.path.abspath(args.kolmo)
args.source = os.path.abspath(args.source)
source = pathlib.Path(args.source)
failures = []

# Measured FFTW plans (grids of 2^16 points or more) are kept in a cache of this test session, not the user's:
# the tests neither depend on the user's wisdom nor add to it.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="kolmo-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)
    return condition


def kolmo(ranks, *arguments, cwd, env_extra=None):
    """kolmo under mpiexec on `ranks` ranks of one thread each, with env_extra added to the environment."""
    command = [args.mpiexec, "-n", str(ranks), args.kolmo, *arguments]
    env = dict(os.environ, OMP_NUM_THREADS="1", **(env_extra or {}))
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


def snapshot(directory):
    """Every path under directory with its size and modification time: equal snapshots, nothing written."""
    return sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in pathlib.Path(directory).rglob("*"))


def checkpoint(path):
    """The spectral velocity [u_hat, v_hat, w_hat] ([kx][ky][kz = 0..Nz/2]), step and time of a checkpoint."""
    import h5py
    with h5py.File(path, "r") as f:
        return [f[name][...] for name in ("u_hat", "v_hat", "w_hat")], int(f.attrs["step"]), float(f.attrs["time"])


def finish():
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
