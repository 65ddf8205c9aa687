#!/usr/bin/python3
"""End-to-end tests of what the kolmo command prints and refuses, found by a user's audit (run by ctest):

- The progress line's time left stays a duration where the estimate exceeds what a long holds (a time.dt
  tiny against time.t_end), instead of a negative number of hours.
- A Poisson run refused an existing output directory is not told to continue it with --restart (which it
  refuses: it writes no checkpoint); a Navier-Stokes run still is.
- A configuration error that involves several keys names where each key's value came from: a --set of
  grid.n that a file's initial.type cannot start on is named (kolmo check named initial.type and the file
  only), and with both keys in the file, the line of each.
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import pathlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import args, check, finish, kolmo  # noqa: E402


def progress_lines_then_stop(arguments, cwd, lines, timeout=120):
    """Starts `kolmo run` on one rank, reads its progress lines (those starting with a step number) until it
    has `lines` of them, then stops it with SIGTERM; returns those lines and the exit status."""
    process = subprocess.Popen([args.kolmo, "run", *arguments], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, OMP_NUM_THREADS="1"), start_new_session=True)
    seen = []
    try:
        for line in process.stdout:
            if line.split() and line.split()[0].isdigit():
                seen.append(line.rstrip("\n"))
                if len(seen) >= lines:
                    break
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    return seen, process.returncode


with tempfile.TemporaryDirectory(prefix="kolmo-cli-") as root:
    work = pathlib.Path(root)
    (work / "tiny_dt.yaml").write_text("grid: {n: 8}\nphysics: {viscosity: 0.01}\n"
                                       "time: {dt: 1.0e-300, t_end: 1}\n"
                                       "output: {directory: tiny_dt, progress_every: 1}\n")
    lines, status = progress_lines_then_stop(["tiny_dt.yaml"], work, 4)
    # The first line (step 0) has no pace yet ("?"); the later ones estimate about 1e300 seconds.
    left = [line.split()[-1] for line in lines[1:]]
    check(status == 130 and len(left) == 3 and all(not value.startswith("-") and value != "?" for value in left),
          f"time left of a run of 1e300 steps is a duration, not negative: {left} (status {status})")

    (work / "poisson.yaml").write_text("problem: poisson\ngrid: {n: 8}\n"
                                       "poisson: {rhs: {type: manufactured, modes: [[1, 1, 1]]}}\n"
                                       "output: {directory: poisson}\n")
    first = kolmo(1, "run", "poisson.yaml", cwd=work, timeout=120)
    again = kolmo(1, "run", "poisson.yaml", cwd=work, timeout=120)
    check(first.returncode == 0 and again.returncode == 1 and "already holds kolmo output" in again.stderr and
          "--restart" not in again.stderr,
          f"a Poisson run into earlier output is not told to --restart: {again.stderr.strip()}")
    (work / "flow.yaml").write_text("grid: {n: 8}\nphysics: {viscosity: 0.01}\ntime: {steps: 1}\n"
                                    "output: {directory: flow}\n")
    first = kolmo(1, "run", "flow.yaml", cwd=work, timeout=120)
    again = kolmo(1, "run", "flow.yaml", cwd=work, timeout=120)
    check(first.returncode == 0 and again.returncode == 1 and "continue it with --restart" in again.stderr,
          f"a Navier-Stokes run into earlier output is offered --restart: {again.stderr.strip()}")

    # Errors across keys: each key with where its value came from, one line, exit status 1.
    (work / "tg.yaml").write_text("grid:\n  n: 32\nphysics: {viscosity: 0.01}\ntime: {t_end: 1}\n"
                                  "initial:\n  type: taylor_green\noutput: {directory: tg}\n")
    r = kolmo(1, "check", "tg.yaml", "--set", "grid.n=[2,64,64]", cwd=work, timeout=120)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and lines[0].startswith("kolmo: tg.yaml:6: initial.type: ") and
          lines[0].endswith("(grid.n from --set grid.n=[2,64,64])"),
          f"a cross-key error names the --set that gave grid.n: {r.stderr.strip()}")
    (work / "tg_flat.yaml").write_text("grid:\n  n: [2, 64, 64]\nphysics: {viscosity: 0.01}\n"
                                       "time: {t_end: 1}\ninitial:\n  type: taylor_green\n")
    r = kolmo(1, "check", "tg_flat.yaml", cwd=work, timeout=120)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and
          lines[0].startswith("kolmo: tg_flat.yaml:6: initial.type: ") and
          lines[0].endswith("(grid.n from tg_flat.yaml:2)"),
          f"a cross-key error of one file names both keys' lines: {r.stderr.strip()}")
    r = kolmo(1, "check", "tg.yaml", "--set", "problem=poisson", cwd=work, timeout=120)
    check(r.returncode == 1 and "problem from --set problem=poisson" in r.stderr,
          f"a key the --set leaves unused names that --set: {r.stderr.strip()}")

    # An exchange across GPUs (nccl, p2p) where backend auto finds none: refused with the key and where it came
    # from, nothing written; the exchange itself had refused it as it was made, naming neither (found by
    # fuzzing the configuration). No GPU is visible to kolmo here, as on a machine without one.
    (work / "exchange.yaml").write_text("grid: {n: 8}\ntime: {steps: 1}\nfft:\n  exchange: nccl\n"
                                        "output: {directory: exchange}\n")
    no_gpu = {"CUDA_VISIBLE_DEVICES": ""}
    for ranks, arguments, where, method in [
            (1, ["check", "exchange.yaml"], "exchange.yaml:4", "nccl"),
            (2, ["run", "exchange.yaml"], "exchange.yaml:4", "nccl"),
            (1, ["check", "tg.yaml", "--set", "fft.exchange=p2p"], "--set fft.exchange=p2p", "p2p"),
            (2, ["run", "exchange.yaml", "--set", "fft.exchange=p2p"], "--set fft.exchange=p2p", "p2p")]:
        r = kolmo(ranks, *arguments, cwd=work, timeout=120, env_extra=no_gpu)
        lines = r.error_lines()
        check(r.returncode == 1 and len(lines) == 1 and
              lines[0] == f"kolmo: {where}: fft.exchange: {method} needs the cuda backend, but backend auto "
                          "chose host here (backend from the default)" and not (work / "exchange").exists(),
              f"{method} where backend auto finds no GPU is refused naming fft.exchange ({ranks} rank(s), "
              f"{' '.join(arguments)}): {r.stderr.strip()}")

    # A scalar whose random initial field single precision cannot hold (variance 1e300): refused before
    # anything is written, naming its variance. The start's check saw only the velocity: kolmo check passed,
    # and the run wrote its start (fields, series) and stopped at step 1 as a blow-up, advising a smaller
    # time.cfl (found by fuzzing the configuration).
    (work / "scalar_overflow.yaml").write_text(
        "precision: single\ngrid: {n: 16}\ntime: {steps: 2}\n"
        "physics:\n  scalars: [{name: c, schmidt: 1, initial: {type: random, variance: 1.0e+300}}]\n"
        "output: {directory: scalar_overflow}\n")
    (work / "buoyancy_overflow.yaml").write_text(
        "precision: single\ngrid: {n: 16}\ntime: {steps: 2}\nphysics:\n  buoyancy:\n    type: boussinesq\n"
        "    n2: 1\n    gravity: [0, 0, -1]\n    initial: {type: random, variance: 1.0e+300}\n"
        "output: {directory: buoyancy_overflow}\n")
    for name, where, key, scalar in [
            ("scalar_overflow", "scalar_overflow.yaml:5", "physics.scalars[0].initial.variance", "c"),
            ("buoyancy_overflow", "buoyancy_overflow.yaml:9", "physics.buoyancy.initial.variance", "b")]:
        for ranks, command in [(1, "check"), (2, "run")]:
            r = kolmo(ranks, command, f"{name}.yaml", cwd=work, timeout=120)
            lines = r.error_lines()
            check(r.returncode == 1 and len(lines) == 1 and
                  lines[0] == f"kolmo: {where}: {key}: the initial scalar '{scalar}' is not finite in single "
                              "precision: a variance of 1e+300 is beyond what it holds" and
                  not (work / name).exists(),
                  f"an initial scalar past single precision is refused before writing ({ranks} rank(s), "
                  f"{command} {name}.yaml): {r.stderr.strip()}")

    # An initial state past what the precision holds names the keys that set it and where each came from;
    # "the initial velocity holds NaN or infinite values" and "... may overflow double precision ..." had
    # named none (found by fuzzing the configuration).
    for precision, text in [("double", "may overflow double precision"),
                            ("single", "the initial velocity holds NaN or infinite values")]:
        r = kolmo(1, "check", "tg.yaml", "--set", f"precision={precision}", "--set", "initial.amplitude=1e200",
                  cwd=work, timeout=120)
        lines = r.error_lines()
        check(r.returncode == 1 and len(lines) == 1 and text in lines[0] and
              lines[0].endswith("(initial.type from tg.yaml:6; initial.amplitude from --set "
                                "initial.amplitude=1e200)"),
              f"an initial velocity past {precision} precision names its keys: {r.stderr.strip()}")

    # backend: cuda where there is none, and a grid past the memory, name where the keys came from (they had
    # named the keys only; found by fuzzing the configuration). No GPU is visible here.
    r = kolmo(1, "check", "tg.yaml", "--set", "backend=cuda", cwd=work, timeout=120, env_extra=no_gpu)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and
          lines[0].startswith("kolmo: --set backend=cuda: backend: cuda, but "),
          f"backend: cuda without a GPU names its --set: {r.stderr.strip()}")
    r = kolmo(1, "check", "tg.yaml", "--set", "grid.n=8192", cwd=work, timeout=120)
    lines = r.error_lines()
    check(r.returncode == 1 and len(lines) == 1 and
          lines[0].startswith("kolmo: grid.n = [8192, 8192, 8192]: the run needs about ") and
          lines[0].endswith("(grid.n from --set grid.n=8192; precision from the default)"),
          f"a grid past the memory names where grid.n came from: {r.stderr.strip()}")

    # A comma after the top-level node ("{grid: ..., time: ...},"): yaml-cpp 0.7's LoadAll looped forever on
    # it, allocating about 500 MiB a second (found by fuzzing the configuration). Under a 2 GiB address space
    # the old loader ends in "kolmo: std::bad_alloc"; the loader reads one document and counts them to two.
    (work / "comma.yaml").write_text("{grid: {n: 16}, time: {t_end: 1}, output: {directory: comma}},\n")

    # Under AddressSanitizer (KOLMO_SANITIZED, tools/check_sanitizers.sh) no address-space limit: its shadow
    # memory reserves terabytes of addresses at start; the 60 s timeout still catches the loop.
    def two_gib():
        if not os.environ.get("KOLMO_SANITIZED"):
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    try:
        r = subprocess.run([args.kolmo, "check", "comma.yaml"], cwd=work, capture_output=True, text=True,
                           timeout=60, preexec_fn=two_gib, env=dict(os.environ, OMP_NUM_THREADS="1"))
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        check(r.returncode == 1 and len(lines) == 1 and
              lines[0].startswith("kolmo: comma.yaml:1: YAML syntax error: text after the end of the first node")
              and not (work / "comma").exists(),
              f"a comma after the top-level node is a syntax error: {r.stderr.strip()}")
    except subprocess.TimeoutExpired:
        check(False, "a comma after the top-level node is a syntax error: kolmo check hung")

finish()
