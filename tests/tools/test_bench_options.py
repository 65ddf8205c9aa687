#!/usr/bin/python3
"""The benchmarks' command lines on the host (run by ctest): a bad option or an input they cannot use is one
line and a non-zero exit, before anything is timed, never a crash, a hang or a silent other case; a good one
gives the lines the README and the device scripts read. Small grids, one or two ranks: seconds.

Usage: test_bench_options.py --fft-bench PATH --io-bench PATH --mpiexec PATH [--solver-bench PATH]"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--fft-bench", required=True)
parser.add_argument("--io-bench", required=True)
parser.add_argument("--mpiexec", required=True)
parser.add_argument("--solver-bench")
args = parser.parse_args()
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def run(command, timeout=120):
    """(returncode, stdout, stderr); returncode None when it had to be killed (a hang)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    try:
        out, err = process.communicate(timeout=timeout)
        return process.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return None, out, err


def lines(text):
    """The lines of text, leaving out CLI11's hint after a parse error."""
    return [line for line in text.splitlines() if line.strip() and line != "Run with --help for more information."]


def refused(result, names):
    """Non-zero exit (not a signal, not a hang) and one line on stderr naming `names`."""
    status, _, err = result
    return status not in (None, 0) and status > 0 and len(lines(err)) == 1 and names in err


with tempfile.TemporaryDirectory() as work:
    a_file = os.path.join(work, "a_file")
    open(a_file, "w").close()
    fft = [args.fft_bench, "--backend", "host", "--wisdom", "none", "--warmup", "0", "--reps", "2"]

    # --n takes one size or three: two were taken as a cube of the first.
    result = run(fft + ["--n", "8", "12"])
    check(refused(result, "--n") and "RESULT" not in result[1], f"fft_bench --n 8 12 refused on one line: {result}")
    # A log that cannot be opened is said before the timings, not after them.
    # On one line from rank 0 alone: thrown on rank 0 only, it ended in MPI_Abort's lines as well.
    for ranks in (1, 2):
        result = run([args.mpiexec, "-n", str(ranks)] + fft + ["--n", "8", "--log", os.path.join(a_file, "x.log")])
        check(refused(result, "cannot open the log file") and "pair (forward+backward)" not in result[1],
              f"fft_bench --log in a file, not a directory, {ranks} rank(s): refused before timing: {result}")
    # Without a peer, the pair still ends in a RESULT line (device_fft_check.sh greps them).
    result = run(fft + ["--n", "8", "--no-peer"])
    check(result[0] == 0 and "RESULT n=8x8x8 double ranks=1" in result[1], f"fft_bench --no-peer: a RESULT line")
    log = os.path.join(work, "pairs.log")
    result = run([args.mpiexec, "-n", "2"] + fft + ["--n", "8", "--log", log])
    with open(log) as f:
        pair = f.read()
    check(result[0] == 0 and "RESULT n=8x8x8 double ranks=2" in result[1] and pair.startswith("PAIR n=8 ")
          and "ranks=2 backend=host" in pair, f"fft_bench on 2 ranks: a RESULT line and a PAIR line in --log")

    # Options of GPU runs, which change nothing on the host, were taken silently.
    for option in (["--cuda-aware"], ["--plane-groups", "2"], ["--no-fused"], ["--realigned-planes", "never"],
                   ["--profile-unheld"]):
        result = run(fft + ["--n", "8"] + option)
        check(refused(result, option[0] + " is an option of GPU runs") and "RESULT" not in result[1],
              f"fft_bench {' '.join(option)} on the host refused on one line: {result}")
    # Emulated ranks on the host plan as --planning says (they estimated their plans whatever it said).
    result = run(fft + ["--n", "8", "--emulate-ranks", "2", "--routes", "copies", "--modes", "full",
                        "--planning", "measure"])
    check(result[0] == 0 and "PHASES" not in result[1] and "FFTW_MEASURE" in result[1]
          and "FFTW_ESTIMATE" not in result[1], f"fft_bench --emulate-ranks on the host: plans measured: {result}")

    # Several fields in transform lanes on the host: a line for one lane and for one lane each.
    result = run(fft + ["--n", "8", "--emulate-ranks", "2", "--routes", "copies", "--modes", "full",
                        "--fields", "1", "3"])
    fields = [line for line in result[1].splitlines() if line.startswith("FIELDS ")]
    check(result[0] == 0 and [line.split(" lanes=")[0].split(" fields=")[1] + "/" + line.split(" lanes=")[1].split()[0]
                              for line in fields] == ["1/1", "3/1", "3/3"],
          f"fft_bench --fields 1 3 on the host: one FIELDS line for 1 field, two for 3: {result}")
    result = run(fft + ["--n", "8", "--fields", "2"])
    check(refused(result, "--fields needs --emulate-ranks"), f"fft_bench --fields without emulated ranks: {result}")

    if args.solver_bench:
        # MHD has its own divergence form: a step timed with --form rotational ran the other form silently.
        result = run([args.solver_bench, "--backend", "host", "--n", "8", "--mhd", "--form", "rotational",
                      "--warmup", "0", "--steps", "1"])
        check(refused(result, "--form rotational") and "ratio" not in result[1],
              f"solver_bench --mhd --form rotational refused on one line: {result}")
        # One rank's step of 2 (the FFT's emulated ranks) in 1 and 3 lanes against the one device's.
        solver = [args.solver_bench, "--backend", "host", "--n", "8", "--warmup", "0", "--steps", "1"]
        result = run(solver + ["--emulate-ranks", "2", "--lanes", "1", "3"])
        steps = [" ".join(w for w in line.split() if w.split("=")[0] in ("ranks", "lanes"))
                 for line in result[1].splitlines() if line.strip().startswith("RANKSTEP ")]
        expected = ["ranks=1 lanes=1", "ranks=1 lanes=3", "ranks=2 lanes=1", "ranks=2 lanes=3"]
        check(result[0] == 0 and steps == expected,
              f"solver_bench --emulate-ranks 2 --lanes 1 3: the one device's and the rank's steps: {result}")
        result = run(solver + ["--lanes", "1", "3"])
        check(refused(result, "--lanes: several only with --emulate-ranks"), f"solver_bench --lanes 1 3: {result}")
        # A scalar on the kept-row split's ranks (emulated ranks leave it zero: a middle rank may hold no mode a
        # random scalar's variance could be checked on), the step in a profiler's range (a no-op unprofiled).
        result = run(solver + ["--emulate-ranks", "3", "--spectral-split", "kept_rows", "--scalars", "1",
                               "--profile-step"])
        ranks = [line for line in result[1].splitlines() if line.split()[:1] == ["RANKSTEP"] and " ranks=3 " in line]
        check(result[0] == 0 and len(ranks) >= 2 and all("split=kept_rows" in line for line in ranks),
              f"solver_bench --emulate-ranks 3 --spectral-split kept_rows --scalars 1 --profile-step: {result}")
        result = run([args.mpiexec, "-n", "2"] + solver + ["--emulate-ranks", "2"])
        check(refused(result, "--emulate-ranks runs on one rank"),
              f"solver_bench --emulate-ranks on 2 ranks: {result}")

    io = [args.io_bench, "--n", "8", "--directory", work]
    # --repeats 0 took the median of no writes: a segmentation fault.
    for repeats in ("0", "-1"):
        result = run(io + ["--repeats", repeats])
        check(refused(result, "--repeats") and "range 1 to" in result[2],
              f"io_bench --repeats {repeats} refused on one line: {result}")
    # Counts of at least 1, said so (CLI11's PositiveNumber said 0 was not in a range from 0 to 309 digits).
    result = run(fft + ["--n", "8", "--reps", "0"])
    check(refused(result, "--reps: Value 0 not in range 1 to 2147483647"), f"fft_bench --reps 0: {result}")
    # A directory that cannot be made: rank 0 stopped, the other rank waited for it in a barrier forever.
    for ranks in (1, 2):
        result = run([args.mpiexec, "-n", str(ranks), args.io_bench, "--n", "8", "--repeats", "1", "--directory",
                      a_file], timeout=60)
        check(refused(result, "--directory"), f"io_bench --directory a file, {ranks} rank(s): one line: {result}")
    scratch = os.path.join(work, "scratch")
    os.mkdir(scratch)
    result = run([args.mpiexec, "-n", "2", args.io_bench, "--n", "8", "--directory", scratch, "--repeats", "1"])
    check(result[0] == 0 and "checkpoint  kolmo (Fletcher32 chunks)" in result[1] and "field dump" in result[1]
          and os.listdir(scratch) == [],
          f"io_bench on 2 ranks: both comparisons, its scratch directory removed: {result}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
