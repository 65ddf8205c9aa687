"""Shared pieces of the end-to-end tests of the kolmo command (tests/app/test_*.py, run by ctest).

Each test script runs as `test_x.py --kolmo PATH --mpiexec PATH --source DIR`, prints one line per check
("ok   ..." or "FAIL ...") and exits with finish(): 0 when every check passed, 1 otherwise.
"""
import argparse
import os
import pathlib
import signal
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

_parser = argparse.ArgumentParser()
_parser.add_argument("--kolmo", required=True)
_parser.add_argument("--mpiexec", required=True)
_parser.add_argument("--source", required=True)
args = _parser.parse_args()
args.kolmo = os.path.abspath(args.kolmo)
args.source = os.path.abspath(args.source)
source = pathlib.Path(args.source)
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def finish():
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


class Result:
    def __init__(self, returncode, stdout, stderr, timed_out):
        self.returncode, self.stdout, self.stderr, self.timed_out = returncode, stdout, stderr, timed_out

    def error_lines(self):
        return [line for line in self.stderr.splitlines() if line.strip()]


def kolmo(ranks, *arguments, cwd, timeout=600):
    """Runs kolmo on `ranks` MPI ranks. A run still going after `timeout` seconds (a hang) is killed with its
    whole process group, ranks included, and reported with timed_out set."""
    command = [args.mpiexec, "-n", str(ranks), args.kolmo, *arguments]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
        return Result(process.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return Result(process.returncode, out, err, True)


def velocity(path):
    with h5py.File(path, "r") as f:
        return [f[name][...] for name in ("u_hat", "v_hat", "w_hat")], int(f.attrs["step"]), float(f.attrs["time"])
