"""What the end-to-end tests of the kolmo command share: its arguments, running kolmo (with a time limit
that kills a hung job), checks and their verdict, and what "nothing written" means."""
import argparse
import atexit
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--kolmo", required=True)
parser.add_argument("--mpiexec", required=True)
parser.add_argument("--source", required=True)
# The library that makes one allocation of one rank fail (tests/FailingAllocation.c; test_rank_failures.py).
parser.add_argument("--failing-allocation", default="")
args = parser.parse_args()
args.kolmo = os.path.abspath(args.kolmo)
args.source = os.path.abspath(args.source)
args.failing_allocation = os.path.abspath(args.failing_allocation) if args.failing_allocation else ""
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


class Run:
    """A finished kolmo run: returncode, stdout, stderr, and whether it was killed for taking too long."""

    def __init__(self, returncode, stdout, stderr, timed_out):
        self.returncode, self.stdout, self.stderr, self.timed_out = returncode, stdout, stderr, timed_out

    def error_lines(self):
        return [line for line in self.stderr.splitlines() if line.strip()]


def kolmo(ranks, *arguments, cwd, timeout=600, env_extra=None):
    """Runs kolmo on `ranks` MPI ranks of one thread each, with env_extra added to the environment (launch)."""
    return launch([args.mpiexec, "-n", str(ranks), args.kolmo, *arguments], cwd, timeout, env_extra)


def kolmo_mpmd(*rank_arguments, cwd, timeout=600):
    """An MPMD launch: rank i runs kolmo with rank_arguments[i] (mpiexec -n 1 kolmo A : -n 1 kolmo B ...), one
    thread each (launch)."""
    command = [args.mpiexec]
    for arguments in rank_arguments:
        command += [":"] * (len(command) > 1) + ["-n", "1", args.kolmo, *arguments]
    return launch(command, cwd, timeout, None)


def launch(command, cwd, timeout, env_extra):
    """Runs an mpiexec command line of kolmo's ranks, with env_extra added to the environment. A run still going
    after `timeout` seconds (hung) is killed with its whole process group, ranks included, and comes back with
    timed_out set."""
    env = dict(os.environ, OMP_NUM_THREADS="1", **(env_extra or {}))
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
        return Run(process.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return Run(process.returncode, out, err, True)


def in_one_go_and_restarted(config, ranks, root):
    """Runs config (12 steps) in root/one_<ranks> in one go, and in root/two_<ranks> for 6 steps and then
    --restart for 6 more, checking each run's exit status; returns the two run directories."""
    one, two = root / f"one_{ranks}", root / f"two_{ranks}"
    for d in (one, two):
        d.mkdir()
    r = kolmo(ranks, "run", str(config), cwd=one)
    check(r.returncode == 0, f"{ranks} rank(s): 12 steps in one go ({r.stderr.strip()[:300]})")
    r = kolmo(ranks, "run", str(config), "--set", "time.steps=6", cwd=two)
    check(r.returncode == 0, f"{ranks} rank(s): first 6 steps ({r.stderr.strip()[:300]})")
    r = kolmo(ranks, "run", str(config), "--restart", cwd=two)
    check(r.returncode == 0 and "restarting from" in r.stdout, f"{ranks} rank(s): restart for 6 more steps")
    return one, two


def restarts_continue(root, config, names, what):
    """The restart checks of a run with several fields (config: 12 steps): N steps in one go and N/2 + restart
    + N/2 give bitwise-identical datasets `names` of the final checkpoint on 1 and 2 ranks, and the 1-rank run's
    checkpoint at step 6 continues on 3 ranks to the same state within round-off."""
    import h5py
    import numpy as np

    def fields_of(path):
        with h5py.File(path, "r") as f:
            return {name: f[name][...] for name in names}, int(f.attrs["step"])

    for ranks in (1, 2):
        one, two = in_one_go_and_restarted(config, ranks, root)
        a, step_a = fields_of(one / "out/checkpoints/checkpoint.h5")
        b, step_b = fields_of(two / "out/checkpoints/checkpoint.h5")
        same = [name for name in names if np.array_equal(a[name], b[name])]
        check(step_a == step_b == 12 and len(same) == len(names),
              f"{ranks} rank(s): one go and restart give bitwise-identical {what} (identical: {same})")
    three = root / "three"
    three.mkdir()
    kolmo(1, "run", str(config), "--set", "time.steps=6", cwd=three)
    r = kolmo(3, "run", str(config), "--restart", cwd=three)
    check(r.returncode == 0, f"restart of a 1-rank run on 3 ranks ({r.stderr.strip()[:300]})")
    a, _ = fields_of(root / "one_1/out/checkpoints/checkpoint.h5")
    c, step_c = fields_of(three / "out/checkpoints/checkpoint.h5")
    worst = max(np.abs(a[n] - c[n]).max() / np.abs(a[n]).max() for n in names)
    check(step_c == 12 and worst <= 1e-10, f"restart on 3 ranks matches {what} within round-off ({worst:.1e})")
    return r


def snapshot(directory):
    """Every path under directory with its size and modification time: equal snapshots, nothing written."""
    return sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in pathlib.Path(directory).rglob("*"))


def checkpoint(path):
    """The spectral velocity [u_hat, v_hat, w_hat] ([kx][ky][kz = 0..Nz/2]), step and time of a checkpoint."""
    import h5py
    with h5py.File(path, "r") as f:
        return [f[name][...] for name in ("u_hat", "v_hat", "w_hat")], int(f.attrs["step"]), float(f.attrs["time"])


def flip_bit_in_chunk(path, dataset, ky):
    """Flips one bit in the middle of the stored chunk of `dataset` that holds ky plane `ky`."""
    import h5py
    with h5py.File(path, "r") as f:
        d = f[dataset]
        infos = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]
    info = next(i for i in infos if i.chunk_offset[1] == ky)
    with open(path, "r+b") as f:
        f.seek(info.byte_offset + info.size // 2)
        byte = f.read(1)[0]
        f.seek(info.byte_offset + info.size // 2)
        f.write(bytes([byte ^ 0x10]))


def finish():
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
