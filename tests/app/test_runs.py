#!/usr/bin/python3
"""End-to-end tests of the kolmo command (run by ctest; needs /usr/bin/python3 with h5py and numpy).

- The checkpoint names the code that wrote it: the version and the git commit built (one of the checkout's).
- Restart: N steps in one go and N/2 + restart + N/2 give bitwise-identical checkpoints on the same rank
  count, also with measured FFTW plans kept in the wisdom file; a restart on a different rank count continues
  to the same state within round-off; the time series holds each step once; an end before the checkpoint
  is refused; a restart from an earlier checkpoint removes the field dumps after it; another run's
  checkpoint starts a new run, refused where output exists; a changed box is refused where the run's spectra
  are; kolmo check refuses an output directory that cannot be one; a damaged series.h5 (cut short, or one
  bit changed in its data) is refused before anything is written.
- A run still going keeps its directory from others, output.overwrite or not, also one that starts at the
  same moment (the directory's lock); SIGKILL leaves status naming the newest checkpoint's step.
- Existing output is not overwritten unless output.overwrite is true.
- SIGTERM writes a checkpoint and exits with status 130 (<dir>/status says so, "done:" is not printed);
  --restart continues from it. So does a closed output pipe (SIGPIPE). SIGTERM stops a Poisson run (status
  130, no field file). A second SIGINT stops a run at once, without that checkpoint, saying so on one line
  and in <dir>/status, which names the newest checkpoint (left whole; --restart continues from it); under GNU
  timeout, which passes a signal on twice at once, a SIGTERM is one clean stop. Under
  mpiexec on 2 ranks a second SIGTERM does the same, the line said once; a second SIGINT is mpiexec's force
  abort (SIGKILL), after which status says running from the newest checkpoint, which continues.
(Broken inputs, blow-ups and memory: test_safety.py.)
"""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py or numpy")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import args, check, checkpoint as velocity, finish, in_one_go_and_restarted, kolmo  # noqa: E402



def started(command, cwd, progress=3, **popen):
    """Starts command (a kolmo run, or its launcher) with its output piped and returns the process once it has
    printed `progress` progress lines (its time loop runs, so its signal handlers are in place), and the
    seconds between the last two of them (one step where a line comes every step)."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, OMP_NUM_THREADS="1"), **popen)
    arrivals = []
    for line in process.stdout:
        if line.strip().split(" ")[0].isdigit():
            arrivals.append(time.monotonic())
        if len(arrivals) >= progress:
            break
    return process, (arrivals[-1] - arrivals[-2] if len(arrivals) > 1 else 0.0)


def pending(pid, signum):
    """Whether signum waits to be taken by process pid (a signal sent while another of its kind waits is lost)."""
    try:
        lines = pathlib.Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return False
    shared = next((int(line.split()[1], 16) for line in lines if line.startswith("ShdPnd:")), 0)
    return bool(shared & (1 << (signum - 1)))


def signal_twice(process, signum, step):
    """Sends signum to process twice within one step of its run, a progress line having just come: the first a
    quarter step into the next step (one sent as a line comes may still be taken at the end of that line's
    step, leaving only the stop's checkpoint for the second to arrive in), the second once the first has been
    taken (no longer pending) and a quarter step or 0.15 s later, whichever is longer (sooner, it would be
    taken for the first one's copy); half a step and the stop's checkpoint are left for it."""
    quarter = step / 4
    time.sleep(quarter)
    process.send_signal(signum)
    while pending(process.pid, signum):
        pass
    time.sleep(max(quarter, 0.15))
    process.send_signal(signum)

# A small random (nonlinear, non-trivial) flow: CFL-adaptive steps make dt depend on the state, so any
# difference after a restart would show.
CONFIG = """
grid: {n: [16, 18, 12]}
precision: double
backend: host
physics: {viscosity: 0.01}
time: {integrator: rk3, cfl: 0.6, steps: 12}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 1, progress_every: 4, spectra_every: 0.05, checkpoint_every: 100,
         fields: [velocity], fields_every: 0}
"""

with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "run.yaml").write_text(CONFIG)
    for ranks in (1, 2):
        one, two = in_one_go_and_restarted(root / "run.yaml", ranks, root)
        a, step_a, time_a = velocity(one / "out/checkpoints/checkpoint.h5")
        b, step_b, time_b = velocity(two / "out/checkpoints/checkpoint.h5")
        check(step_a == step_b == 12, f"{ranks} rank(s): both runs end at step 12 ({step_a}, {step_b})")
        check(time_a == time_b, f"{ranks} rank(s): same final time bit for bit ({time_a!r}, {time_b!r})")
        same = all(np.array_equal(x, y) for x, y in zip(a, b))
        check(same, f"{ranks} rank(s): N steps and N/2 + restart + N/2 give bitwise-identical velocity")
        with h5py.File(two / "out/series.h5", "r") as f:
            steps = list(f["step"][...])
        check(steps == list(range(0, 13)), f"{ranks} rank(s): the series holds each step once after restart")

    # The files name the code that wrote them: the version and, built from a git checkout, its commit (as
    # found by the build that made this kolmo; kept route choices are keyed by the same identity): a commit of
    # this checkout's history (HEAD itself unless commits came after the build).
    with h5py.File(root / "one_1/out/checkpoints/checkpoint.h5", "r") as f:
        written = f.attrs["code_version"]
        # Variable-length UTF-8, as h5py writes a str: read back as a str (a fixed-length one is numpy bytes).
        check(isinstance(written, str) and isinstance(f.attrs["precision"], str),
              f"the checkpoint's string attributes read as str in h5py ({type(written).__name__})")
        written = written.decode() if isinstance(written, bytes) else str(written)
    if subprocess.run(["git", "-C", args.source, "rev-parse", "HEAD"], capture_output=True).returncode == 0:
        named = written.split("(git ")[-1].rstrip(")").removesuffix("-dirty") if "(git " in written else ""
        ancestor = named and subprocess.run(["git", "-C", args.source, "merge-base", "--is-ancestor", named,
                                             "HEAD"], capture_output=True).returncode == 0
        check(bool(ancestor),
              f"the checkpoint names the version and a commit of the checkout's history ({written})")
    else:
        print(f"skipped: the source is no git checkout; the checkpoint says {written}")

    # Measured FFTW plans: the first run measures them and keeps them in $XDG_CACHE_HOME/kolmo, the later runs
    # read them there, so that N steps and N/2 + restart + N/2 stay bitwise identical (2 ranks, which adopt
    # one measured choice for each problem).
    cache = {"XDG_CACHE_HOME": str(root / "cache")}
    measured = ["--set", "fft.planning=measure"]
    for d in ("one_measured", "two_measured"):
        (root / d).mkdir()
    r = kolmo(2, "run", str(root / "run.yaml"), *measured, cwd=root / "one_measured", env_extra=cache)
    wisdom = root / "cache/kolmo/fftw-double.wisdom"
    check(r.returncode == 0 and "FFTW_MEASURE" in r.stdout and wisdom.is_file(),
          f"measured plans are kept in {wisdom.relative_to(root)} ({r.stderr.strip()[:200]})")
    r = kolmo(2, "run", str(root / "run.yaml"), *measured, "--set", "time.steps=6", cwd=root / "two_measured",
              env_extra=cache)
    r = kolmo(2, "run", str(root / "run.yaml"), *measured, "--restart", cwd=root / "two_measured",
              env_extra=cache)
    check(r.returncode == 0 and "wisdom loaded from" in r.stdout, "a later run reads the measured plans")
    a, _, _ = velocity(root / "one_measured/out/checkpoints/checkpoint.h5")
    b, _, _ = velocity(root / "two_measured/out/checkpoints/checkpoint.h5")
    check(all(np.array_equal(x, y) for x, y in zip(a, b)),
          "measured plans: N steps and N/2 + restart + N/2 give bitwise-identical velocity")

    # Restart on another rank count: from the 1-rank checkpoint at step 6, continue on 3 ranks.
    three = root / "three"
    three.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=6", cwd=three)
    r = kolmo(3, "run", str(root / "run.yaml"), "--restart", cwd=three)
    check(r.returncode == 0, f"restart of a 1-rank run on 3 ranks ({r.stderr.strip()[:200]})")
    a, _, _ = velocity(root / "one_1/out/checkpoints/checkpoint.h5")
    c, step_c, _ = velocity(three / "out/checkpoints/checkpoint.h5")
    scale = max(np.abs(x).max() for x in a)
    difference = max(np.abs(x - y).max() for x, y in zip(a, c))
    check(step_c == 12 and difference <= 1e-10 * scale,
          f"restart on 3 ranks matches within round-off (difference {difference:.2e}, scale {scale:.2e})")
    # A restart cannot go back: an end before the checkpoint (step 12) is refused on every rank, with the key
    # named and where its value came from, before anything is written.
    status = (three / "out/status").read_text()
    for end in ("time.steps=6", "time.t_end=0.001"):
        r = kolmo(3, "run", str(root / "run.yaml"), "--set", end, "--restart", cwd=three)
        key = end.split("=")[0]
        check(r.returncode != 0 and f"{key} = " in r.stderr and "checkpoint's step 12" in r.stderr
              and f"({key} from --set {end})" in r.stderr and len(r.error_lines()) == 1
              and (three / "out/status").read_text() == status,
              f"a restart with {end}, before the checkpoint, is refused ({r.stderr.strip()[:200]})")
    # A changed box cannot continue here (the spectra's shells change with it): refused before anything is
    # written; kolmo check says so too.
    for command in ("run", "check"):
        r = kolmo(3, command, str(root / "run.yaml"), "--set", "grid.box=4", "--restart", cwd=three)
        check(r.returncode != 0 and "grid.box" in r.stderr and (three / "out/status").read_text() == status,
              f"kolmo {command}: a restart with another box is refused here ({r.stderr.strip()[:200]})")
    # An output directory that cannot be one: kolmo check says so, as the run would.
    (root / "a_file").write_text("x")
    for directory in ("a_file", "a_file/out"):
        r = kolmo(2, "check", str(root / "run.yaml"), "--set", f"output.directory={directory}", cwd=root)
        check(r.returncode != 0 and "output.directory" in r.stderr and "a_file is not a directory" in r.stderr
              and f"(output.directory from --set output.directory={directory})" in r.stderr,
              f"kolmo check refuses output.directory={directory}, naming where it came from "
              f"({r.stderr.strip()[:200]})")
    # A folder that takes no files, root or not (root passes access() even in /proc).
    if os.path.isdir("/proc/self"):
        for directory in ("/proc", "/proc/kolmo_out"):
            r = kolmo(1, "check", str(root / "run.yaml"), "--set", f"output.directory={directory}", cwd=root)
            check(r.returncode != 0 and "output.directory" in r.stderr and "/proc is not writable" in r.stderr,
                  f"kolmo check refuses output.directory={directory} ({r.stderr.strip()[:200]})")
    # And on 4 ranks with the ky planes split by kept rows (fft.spectral_split auto chooses it for Navier-Stokes
    # on 3 to 8 ranks; 18 ky planes keep 11, which the even split shares 5, 1, 1, 4 and this one 2 or 3 each):
    # checkpoints hold the global spectrum.
    four = root / "four"
    four.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=6", cwd=four)
    r = kolmo(4, "run", str(root / "run.yaml"), "--restart", cwd=four)
    check(r.returncode == 0 and "(2-3 kept)" in r.stdout
          and "ky planes: kept_rows (fft.spectral_split auto: dealiased transforms on 4 ranks)" in r.stdout,
          f"restart of a 1-rank run on 4 ranks, ky planes split by kept rows, chosen by auto "
          f"({r.stderr.strip()[:200]})")
    c, step_c, _ = velocity(four / "out/checkpoints/checkpoint.h5")
    difference = max(np.abs(x - y).max() for x, y in zip(a, c))
    check(step_c == 12 and difference <= 1e-10 * scale,
          f"restart on 4 ranks, kept-row split, matches within round-off (difference {difference:.2e})")

    # --checkpoint FILE of another run starts a new run: into a directory holding output it is refused, nothing
    # touched (it used to continue there, cutting that run's series at FILE's step); into a new one it runs.
    other = root / "one_1/out/checkpoints/checkpoint.h5"
    before = (three / "out/series.h5").read_bytes()
    r = kolmo(1, "run", str(root / "run.yaml"), "--checkpoint", str(other), "--set", "time.steps=14", cwd=three)
    check(r.returncode != 0 and "already holds kolmo output" in r.stderr
          and (three / "out/series.h5").read_bytes() == before,
          f"another run's checkpoint is refused where output exists, nothing touched ({r.stderr.strip()[:160]})")
    branch = root / "branch"
    branch.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--checkpoint", str(other), "--set", "time.steps=14", cwd=branch)
    with h5py.File(branch / "out/series.h5", "r") as f:
        steps = list(f["step"][...])
    check(r.returncode == 0 and steps == [12, 13, 14],
          f"another run's checkpoint starts a new run in a new directory (series steps {steps})")
    # One at the run's end already takes no step, and still ends with a checkpoint (the config asks for them).
    at_end = root / "branch_at_end"
    at_end.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--checkpoint", str(other), cwd=at_end)
    written = (at_end / "out/checkpoints/checkpoint.h5").is_file()
    check(r.returncode == 0 and written and velocity(at_end / "out/checkpoints/checkpoint.h5")[1] == 12,
          f"another run's checkpoint at the run's end: no step, and a checkpoint of step 12 ({r.stderr.strip()[:160]})")

    # A restart from an earlier checkpoint replaces the history after it: field dumps of later steps go, as
    # the series rows do, so the dumps hold one history (here dumps at 0, ..., 12; checkpoints at 6 and 12,
    # continued from 6 to 9).
    history = root / "history"
    history.mkdir()
    dumps = ["--set", "output.fields_every=0.05"]
    r = kolmo(1, "run", str(root / "run.yaml"), *dumps, "--set", "time.steps=6", cwd=history)
    r = kolmo(1, "run", str(root / "run.yaml"), *dumps, "--restart", cwd=history)
    dump_steps = lambda: sorted(int(p.stem[7:]) for p in (history / "out/fields").glob("fields_*.h5"))
    written = dump_steps()
    r = kolmo(1, "run", str(root / "run.yaml"), *dumps, "--set", "time.steps=9", "--checkpoint",
              str(history / "out/checkpoints/checkpoint.prev.h5"), cwd=history)
    kept = dump_steps()
    with h5py.File(history / "out/series.h5", "r") as f:
        steps = list(f["step"][...])
    check(r.returncode == 0 and max(written) == 12 and max(kept) <= 9 and steps == list(range(10))
          and [s for s in written if s <= 6] == [s for s in kept if s <= 6]
          and "removed" in r.stdout and (history / f"out/fields/fields_{max(kept):06d}.xmf").exists()
          and not (history / "out/fields/fields_000012.xmf").exists(),
          f"a restart from step 6 removes the dumps after it ({written} -> {kept}), series {steps}")
    # ... and checkpoint.h5 (step 12), ahead of it: the checkpoints are then 6 and 9, of this history.
    _, current, _ = velocity(history / "out/checkpoints/checkpoint.h5")
    _, previous, _ = velocity(history / "out/checkpoints/checkpoint.prev.h5")
    check((previous, current) == (6, 9), f"checkpoints after continuing from step 6: {previous}, {current}")

    # A damaged series.h5 is found before anything is written, by kolmo check too; moved away, the restart
    # starts it anew at the checkpoint's step.
    damaged = root / "damaged"
    shutil.copytree(history, damaged)
    series = damaged / "out/series.h5"
    with open(series, "r+b") as f:
        f.truncate(series.stat().st_size // 2)
    status = (damaged / "out/status").read_text()
    for command in ("check", "run"):
        r = kolmo(1, command, str(root / "run.yaml"), "--restart", "--set", "time.steps=14", cwd=damaged)
        check(r.returncode != 0 and "series.h5" in r.stderr and "move it away" in r.stderr
              and (damaged / "out/status").read_text() == status,
              f"kolmo {command} --restart refuses a damaged series.h5, nothing written ({r.stderr.strip()[:160]})")
    # One changed bit inside the stored energies: the columns' checksums fail the read, so the restart is
    # refused as well (without them the run would have continued the series from a wrong value).
    flipped = root / "flipped"
    shutil.copytree(history, flipped)
    with h5py.File(flipped / "out/series.h5", "r") as f:
        chunk = f["energy"].id.get_chunk_info(0)
    with open(flipped / "out/series.h5", "r+b") as f:
        f.seek(chunk.byte_offset + chunk.size // 2)
        byte = f.read(1)[0]
        f.seek(chunk.byte_offset + chunk.size // 2)
        f.write(bytes([byte ^ 0x10]))
    r = kolmo(1, "check", str(root / "run.yaml"), "--restart", "--set", "time.steps=14", cwd=flipped)
    check(r.returncode != 0 and "series.h5" in r.stderr and "move it away" in r.stderr,
          f"kolmo check --restart refuses a series.h5 with a changed bit in its data ({r.stderr.strip()[:160]})")
    series.rename(damaged / "series.damaged.h5")
    r = kolmo(1, "run", str(root / "run.yaml"), "--restart", "--set", "time.steps=14", cwd=damaged)
    with h5py.File(series, "r") as f:
        steps = list(f["step"][...])
    check(r.returncode == 0 and steps == list(range(9, 15)),
          f"without it the restart starts series.h5 anew at the checkpoint's step, 9 (steps {steps})")

    # Existing output is refused without overwrite, and nothing in it is touched.
    before = sorted(p.name for p in (root / "one_1/out").rglob("*"))
    r = kolmo(1, "run", str(root / "run.yaml"), cwd=root / "one_1")
    after = sorted(p.name for p in (root / "one_1/out").rglob("*"))
    check(r.returncode != 0 and "out" in r.stderr and before == after,
          f"existing output is refused and left alone ({r.stderr.strip()[:160]})")

    # SIGTERM during a run: a checkpoint is written, the exit status is 130, and --restart continues from it.
    signal_dir = root / "signal"
    signal_dir.mkdir()
    long_run = ["--set", "time.cfl=", "--set", "time.dt=0.0005", "--set", "time.steps=1000000",
                "--set", "output.progress_every=20"]
    # kolmo started directly (a singleton MPI process): mpiexec, when signalled itself, may report its own
    # status instead of its processes'.
    process, _ = started([args.kolmo, "run", str(root / "run.yaml"), *long_run], signal_dir)
    process.send_signal(signal.SIGTERM)
    output, errors = process.communicate(timeout=300)
    check(process.returncode == 130 and "stopped by a signal" in output and "done:" not in output,
          f"SIGTERM stops the run with status 130, no 'done:' ({process.returncode}, {errors.strip()[:160]})")
    status = (signal_dir / "out/status").read_text()
    check(status.startswith("stopped by a signal: step "), f"<dir>/status says so: {status.strip()}")
    _, stopped_step, _ = velocity(signal_dir / "out/checkpoints/checkpoint.h5")
    r = kolmo(2, "run", str(root / "run.yaml"), *long_run[:-2], "--set", f"time.steps={stopped_step + 3}",
              "--restart", cwd=signal_dir)
    _, continued_step, _ = velocity(signal_dir / "out/checkpoints/checkpoint.h5")
    check(r.returncode == 0 and stopped_step > 0 and continued_step == stopped_step + 3,
          f"the signal's checkpoint (step {stopped_step}) restarts and continues to step {continued_step}")

    # A second SIGTERM right after the first was taken (0.1 s is the limit): the first one's copy, as GNU timeout
    # and batch systems send, not a second request; the run stops cleanly with its checkpoint.
    copied = root / "copied"
    copied.mkdir()
    process, _ = started([args.kolmo, "run", str(root / "run.yaml"), *long_run], copied)
    process.send_signal(signal.SIGTERM)
    while pending(process.pid, signal.SIGTERM):
        pass
    process.send_signal(signal.SIGTERM)
    output, errors = process.communicate(timeout=300)
    status = (copied / "out/status").read_text()
    written = (copied / "out/checkpoints/checkpoint.h5").is_file()
    stopped_step = velocity(copied / "out/checkpoints/checkpoint.h5")[1] if written else -1
    check(process.returncode == 130 and status.startswith(f"stopped by a signal: step {stopped_step}, ")
          and "interrupted twice" not in errors and stopped_step >= 40,
          f"SIGTERM twice at once is one request: a clean stop with its checkpoint ({process.returncode}, "
          f"status {status.strip()}, checkpoint.h5 of step {stopped_step}, {errors.strip()[:200]})")

    # Under GNU timeout, which on its limit or its own SIGTERM signals kolmo (or mpiexec) and then its whole
    # process group, so that the signal arrives twice within microseconds: one request, the same clean stop
    # with its checkpoint (kolmo once stopped at once there, without one). Alone and under mpiexec on 2 ranks.
    for ranks in (1, 2):
        directory = root / f"under_timeout_{ranks}"
        directory.mkdir()
        launcher = [args.mpiexec, "-n", "2"] if ranks == 2 else []
        process, _ = started(["timeout", "600", *launcher, args.kolmo, "run", str(root / "run.yaml"), *long_run],
                          directory)
        process.send_signal(signal.SIGTERM)  # to timeout, which passes it on twice
        try:
            output, errors = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            output, errors = process.communicate()
        status = (directory / "out/status").read_text()
        written = (directory / "out/checkpoints/checkpoint.h5").is_file()
        stopped_step = velocity(directory / "out/checkpoints/checkpoint.h5")[1] if written else -1
        check(status.startswith(f"stopped by a signal: step {stopped_step}, ") and "stopped by a signal" in output
              and "interrupted twice" not in errors and stopped_step >= 40,
              f"{ranks} rank(s) under timeout, SIGTERM: one clean stop with its checkpoint (exit {process.returncode}, "
              f"status {status.strip()}, checkpoint.h5 of step {stopped_step}, {errors.strip()[:200]})")

    # The reader of its output gone (kolmo run | head): the same clean stop, with its checkpoint, not the
    # death by SIGPIPE that left no checkpoint and a status saying running.
    piped = root / "piped"
    piped.mkdir()
    process, _ = started([args.kolmo, "run", str(root / "run.yaml"), *long_run], piped)
    process.stdout.close()
    errors = process.stderr.read()
    process.wait(timeout=300)
    status = (piped / "out/status").read_text()
    check(process.returncode == 130 and status.startswith("stopped by a signal: step ")
          and (piped / "out/checkpoints/checkpoint.h5").exists(),
          f"a closed output pipe stops the run cleanly ({process.returncode}, {status.strip()}, {errors.strip()[:160]})")

    # A Poisson run stops on SIGTERM too (its handler once only noted the signal, and the run went on to the
    # end): status 130, and no field file, whole or cut. The signal is sent once the process catches SIGTERM
    # (/proc's SigCgt), while it builds a right-hand side of many modes on a 128^3 grid.
    stopped = root / "poisson_signal"
    stopped.mkdir()
    modes = ", ".join(f"[{i}, {j}, 1]" for i in range(1, 5) for j in range(1, 5))
    (stopped / "poisson.yaml").write_text(
        "grid: {n: [128, 128, 128]}\nbackend: host\nprecision: single\nproblem: poisson\n"
        f"poisson: {{rhs: {{type: manufactured, modes: [{modes}]}}}}\noutput: {{directory: out}}\n")
    process = subprocess.Popen([args.kolmo, "run", "poisson.yaml"], cwd=stopped, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    catches_sigterm = False
    while process.poll() is None and not catches_sigterm:
        try:
            status_lines = pathlib.Path(f"/proc/{process.pid}/status").read_text().splitlines()
        except OSError:
            break
        caught = next((int(line.split()[1], 16) for line in status_lines if line.startswith("SigCgt:")), 0)
        catches_sigterm = bool(caught & (1 << (signal.SIGTERM - 1)))
    if catches_sigterm:
        process.send_signal(signal.SIGTERM)
    output, errors = process.communicate(timeout=300)
    written = sorted(p.name for p in (stopped / "out").rglob("*.h5")) if (stopped / "out").exists() else []
    check(catches_sigterm and process.returncode == 130 and "stopped by a signal" in output and not written,
          f"SIGTERM stops a Poisson run with status 130 and no field file ({process.returncode}, "
          f"{output.strip()[-120:]}, {written}, {errors.strip()[:160]})")

    # A second SIGINT ends the run at once, without the checkpoint the first asked for: one line says so, and so
    # does status (not "running"), naming the newest checkpoint, which is left whole and continues. Steps on
    # 128^3 points (about 0.4 s here) take long enough for both signals to arrive within one (or within the
    # checkpoint the first starts): signal_twice.
    twice = root / "twice"
    twice.mkdir()
    slow = [*long_run[:-2], "--set", "grid.n=128", "--set", "output.progress_every=1", "--set",
            "output.checkpoint_every=0.0015"]
    process, step = started([args.kolmo, "run", str(root / "run.yaml"), *slow], twice, progress=5)  # past step 3
    signal_twice(process, signal.SIGINT, step)
    output, errors = process.communicate(timeout=300)
    lines = [line for line in errors.splitlines() if line.strip()]
    status = (twice / "out/status").read_text()
    _, newest_step, newest_time = velocity(twice / "out/checkpoints/checkpoint.h5")
    check(process.returncode == 130 and len(lines) == 1 and lines[0] == "kolmo: " + status.strip()
          and status.startswith("stopped: interrupted twice at step ")
          and f"no checkpoint written; the newest checkpoint is step {newest_step}, t = " in status
          and status.endswith("(continue with --restart)\n") and "stopped by a signal" not in output,
          f"a second SIGINT stops the run at once, saying so on one line and in status ({process.returncode}, "
          f"{errors.strip()[:300]}, status {status.strip()}, checkpoint.h5 of step {newest_step})")
    check(not (twice / "out/status.stop.tmp").exists() and newest_step >= 3,
          f"no temporary status is left; checkpoint.h5 is whole (step {newest_step})")
    r = kolmo(1, "run", str(root / "run.yaml"), *slow[:-4], "--set", f"time.steps={newest_step + 1}", "--restart",
              cwd=twice)
    status = (twice / "out/status").read_text()
    check(r.returncode == 0 and status.startswith(f"finished: step {newest_step + 1}, "),
          f"--restart continues from the newest checkpoint, step {newest_step} ({r.stderr.strip()[:200]}, {status.strip()})")

    # The same under mpiexec, 2 ranks, each in a session of its own (MPICH's hydra), so that only what mpiexec
    # forwards reaches them. SIGTERM it forwards every time: the line is said once (by rank 0, not once per
    # rank) and status says it too, naming the newest checkpoint. Its second SIGINT mpiexec does not forward:
    # it is its own "force abort", SIGKILL to every rank, which no handler sees (MPICH 4.0.2); status then
    # still says running from the newest checkpoint (as after any kill), which is whole and continues. Both
    # signals come within one step (192^3 points over 2 ranks, long enough for the second to come 0.15 s or
    # more after the first), timed by the progress lines; a run that does not end is killed after 5 minutes.
    two_ranks = [*slow[:-6], "--set", "grid.n=192", *slow[-4:]]
    for signum in (signal.SIGTERM, signal.SIGINT):
        name = signal.Signals(signum).name
        directory = root / f"twice_mpiexec_{name}"
        directory.mkdir()
        process, step = started([args.mpiexec, "-n", "2", args.kolmo, "run", str(root / "run.yaml"), *two_ranks],
                                directory, progress=5, start_new_session=True)  # past step 3's checkpoint
        signal_twice(process, signum, step)  # to mpiexec, which passes on the first before the second comes
        try:
            output, errors = process.communicate(timeout=300)
            ended = True
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, errors = process.communicate()
            ended = False
        said = [line for line in errors.splitlines() if line.startswith("kolmo:")]
        status = (directory / "out/status").read_text()
        _, newest_step, _ = velocity(directory / "out/checkpoints/checkpoint.h5")
        seen = (f"{'ended' if ended else 'still going after 5 minutes'}, exit {process.returncode}, "
                f"kolmo said {said}, status {status.strip()}, checkpoint.h5 of step {newest_step}")
        if signum == signal.SIGTERM:
            check(ended and len(said) == 1 and said[0] == "kolmo: " + status.strip()
                  and status.startswith("stopped: interrupted twice at step ")
                  and f"no checkpoint written; the newest checkpoint is step {newest_step}, t = " in status
                  and not (directory / "out/status.stop.tmp").exists() and "stopped by a signal" not in output,
                  f"2 ranks under mpiexec, SIGTERM twice: stopped at once, said once and in status ({seen})")
        else:
            check(ended and not said and status.startswith(f"running: step {newest_step}, t = ")
                  and status.endswith(" (checkpoint written)\n") and "stopped by a signal" not in output,
                  f"2 ranks under mpiexec, SIGINT twice: mpiexec kills them; status names the newest checkpoint ({seen})")
    r = kolmo(2, "run", str(root / "run.yaml"), *two_ranks[:-4], "--set", f"time.steps={newest_step + 1}",
              "--restart", cwd=directory)
    status = (directory / "out/status").read_text()
    check(r.returncode == 0 and status.startswith(f"finished: step {newest_step + 1}, "),
          f"after SIGINT twice under mpiexec, --restart continues from step {newest_step} ({r.stderr.strip()[:200]}, "
          f"{status.strip()})")

    # SIGKILL: no handler runs, so status still says running, from the newest checkpoint on (or the one before
    # it, if the kill fell between the checkpoint and the status line).
    killed = root / "killed"
    killed.mkdir()
    process, _ = started([args.kolmo, "run", str(root / "run.yaml"), *long_run, "--set",
                       "output.checkpoint_every=0.004"], killed)  # past a few checkpoints (every 8 steps)
    # While it runs, its directory is refused to others, output.overwrite or not (HDF5 holds series.h5 locked).
    r = kolmo(1, "check", str(root / "run.yaml"), "--set", "output.overwrite=true", cwd=killed)
    check(r.returncode != 0 and "in use: a run still going" in r.stderr,
          f"a directory whose run is still going is refused, output.overwrite too ({r.stderr.strip()[:160]})")
    process.kill()
    process.communicate(timeout=300)
    # Two runs started into one directory at once: the first to write takes the directory's lock, and the other
    # is refused there, even though its own kolmo check had found the directory free. (Here the lock is held
    # by this script, as the first run would hold it.)
    import fcntl
    contested = root / "contested"
    (contested / "out").mkdir(parents=True)
    holder = os.open(contested / "out", os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    r = kolmo(2, "run", str(root / "run.yaml"), "--set", "output.overwrite=true", cwd=contested)
    check(r.returncode != 0 and "out is in use: another run is starting or going there" in r.stderr
          and not any((contested / "out").iterdir()),
          f"a run into a directory whose lock another holds is refused, nothing written ({r.stderr.strip()[:160]})")
    os.close(holder)
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=2", cwd=contested)
    check(r.returncode == 0 and (contested / "out/series.h5").exists(), "released, the directory is taken")
    # (A kill between the checkpoint's renames leaves checkpoint.prev.h5 alone: steps of those that exist.)
    status = (killed / "out/status").read_text().strip()
    steps = [velocity(path)[1] for path in sorted((killed / "out/checkpoints").glob("checkpoint*.h5"))]
    check(steps and max(steps) > 0 and any(status.startswith(f"running: step {s}, ") for s in steps),
          f"after SIGKILL, status names a checkpoint's step ({status!r}; checkpoints {steps})")


finish()
