#!/usr/bin/python3
"""End-to-end tests that nothing is lost and nothing hangs, through the kolmo command (run by ctest; needs
/usr/bin/python3 with h5py and numpy).

- Broken inputs: every file in tests/config/bad/, input files that are not HDF5, lack a dataset, have another
  grid (initial files: another box) or hold NaN or infinities (initial.file, poisson.rhs.file, restart
  checkpoints), a right-hand side with a mean, a --checkpoint that is a directory (which file in it to give
  instead), a restart without a checkpoint or on another grid (also one whose initial fields that grid could
  not hold), a run too large for the memory, a configuration file that the run's config.yaml would replace,
  command-line mistakes (an empty --checkpoint, a second value after one --set, a stray word), and MPMD
  launches whose ranks differ (configuration files, --set, the command, --restart, --help or a mistake on one
  rank only; the same configuration from two paths runs, --help on every rank is printed once): each gives
  one line naming the key and the file, exit status 1, and nothing written, in `kolmo run` and `kolmo check`
  alike; where the problem involves several keys (an initial file's grid or box against grid.n or grid.box, a
  restart's checkpoint's grid against grid.n, an input file that
  output.overwrite would remove, a right-hand side's mean with poisson.shift 0), the line ends with where each
  key's value came from (the --set that gave it, the configuration's line, or the default). A refused
  restart leaves the run as it was. A restart reads no initial condition: it runs and checks with the initial
  fields' files moved away, which a new run refuses.
  The count of broken inputs tried, and of those refused that way, is printed at the end.
- Blow-ups: a fixed step far beyond the integrator's stability limit (rotation's and buoyancy's frequencies
  included) is refused before anything is written, as are a velocity, a rotation or a magnetic background
  whose products overflow the precision, a constant power on forced modes without energy or with so little
  that its amplitude overflows the precision (and on a field whose energy overflows it, said as such) and an
  adaptive step with no scale; a forced
  run from a weak seed gains the energy its budget says;
  one that blows up later is stopped at the step it does, with no series rows or progress lines to notice
  it; every checkpoint and field dump written is finite and from before the blow-up; <dir>/status says why.
  A weak instability (rk2 at a large fixed step), stopped long after its energy passed E(t0): the message
  names that step and recommends no checkpoint from it on (a new run; after a restart, checkpoint.prev.h5,
  which then continues). An adaptive step whose time.cfl lets the integrator amplify the worst case is
  warned about (rk2 at 1.95), naming a time.cfl that is not; rk4 at the default is not.
- Memory: the host estimate printed by `kolmo check` against the peak resident memory of runs; a new run's
  estimate counts reading its initial file, a restart's does not.
- Output intervals in time shorter than a fixed step, or than time.max_dt of an adaptive one, are warned about
  by run and check (the output then follows every step).
- An adaptive step on a decayed flow stays below rk3's and lsrk4's integrating-factor limit (a fixed one
  beyond it is warned about).
- The run ends at t_end exactly; a restart with another viscosity, integrator, precision, or coefficients of
  the scalars, the buoyancy and b says so in its header, one clause per key;
  poisson.subtract_mean removes a right-hand side's mean; <dir>/status holds "finished"; --restart is
  refused; a Poisson run creates no checkpoints/ folder (a Navier-Stokes run has one).
"""
import os
import pathlib
import re
import resource
import shutil
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
from kolmo_test import args, check, checkpoint, finish, kolmo, kolmo_mpmd, snapshot, source  # noqa: E402

broken = []  # (name, refused as it should be) for every broken input tried: the count the issue asks for


def refused(name, results, expected, work, before):
    """Each result: one line on stderr holding every expected text, exit status 1; nothing written in work."""
    verdicts = []
    for result in results:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        verdicts.append((result.returncode, len(lines), lines[0] if lines else ""))
    ok = (all(code == 1 and count == 1 and all(e in line for e in expected) for code, count, line in verdicts)
          and snapshot(work) == before)
    broken.append((name, ok))
    code, count, line = verdicts[0]
    check(ok, f"{name}: exit {code}, {count} line(s): {line}")


def run_and_check(work, config, *extra, ranks=2):
    """kolmo run and kolmo check of the same broken input."""
    return [kolmo(ranks, "run", config, *extra, cwd=work), kolmo(ranks, "check", config, *extra, cwd=work)]


def energy_of_checkpoint(path, nz):
    """E = 1/2 sum over all modes of |u^|^2 (kz = 1..(Nz-1)/2 stand for their conjugates too), step, time."""
    components, step, time = checkpoint(path)
    weight = np.full(components[0].shape[2], 2.0)
    weight[0] = 1.0
    if nz % 2 == 0:
        weight[-1] = 1.0
    return sum(0.5 * float((np.abs(c) ** 2 * weight).sum()) for c in components), step, time


FLOW = """
grid: {n: [16, 18, 12]}
precision: double
backend: host
physics: {viscosity: 0.01}
time: {integrator: rk3, cfl: 0.6, steps: 4}
output: {directory: out, series_every: 1, progress_every: 1, checkpoint_every: 100}
"""
GRID = (16, 18, 12)

with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    rng = np.random.default_rng(5)

    # --- Broken configuration files: one line naming the key, exit status 1, nothing written.
    bad = sorted((source / "tests/config/bad").glob("*.yaml"))
    check(len(bad) >= 12, f"{len(bad)} broken configuration files to try")
    for path in bad:
        # Leading "# expect: TEXT" comments name what the message must contain (as for the config tests).
        expected = [line.removeprefix("# expect: ") for line in path.read_text().splitlines()
                    if line.startswith("# expect: ")]
        work = root / ("bad_" + path.stem)
        work.mkdir()
        check(bool(expected), f"{path.name} says what its message must contain")
        refused(path.name, [kolmo(2, "run", str(path), cwd=work)], expected, work, [])

    # --- The configuration and the command line.
    work = root / "command_line"
    work.mkdir()
    (work / "flow.yaml").write_text(FLOW + "initial: {type: taylor_green}\n")
    (work / "a_directory.yaml").mkdir()
    before = snapshot(work)
    refused("a directory as the configuration", run_and_check(work, "a_directory.yaml"),
            ["a_directory.yaml", "is a directory"], work, before)
    refused("an unknown option", [kolmo(1, "run", "flow.yaml", "--bogus", cwd=work)], ["--bogus"], work, before)
    refused("no configuration", [kolmo(1, "run", cwd=work)], ["config is required"], work, before)
    refused("no subcommand", [kolmo(1, cwd=work)], ["subcommand"], work, before)
    refused("a mistyped command", [kolmo(1, "rnu", "flow.yaml", cwd=work)], ["unknown command 'rnu'"], work,
            before)
    refused("an unknown option and no command", [kolmo(1, "--bogus", cwd=work)], ["unknown option, before any command, '--bogus'"],
            work, before)
    refused("a run too large for the memory", run_and_check(work, "flow.yaml", "--set", "grid.n=1024"),
            ["grid.n = [1024, 1024, 1024]", "GiB of host memory per rank", "available"], work, before)
    # One key=value per --set: a second word after one (--set a=1 b=2) or the pieces of an unquoted value with
    # spaces are unexpected arguments, named, not overrides of their own or a YAML error about a piece.
    refused("a second value after one --set",
            run_and_check(work, "flow.yaml", "--set", "time.steps=2", "time.t_end=1"),
            ["unexpected argument 'time.t_end=1'", "each --set takes one key=value"], work, before)
    refused("a second value after one --set, before the configuration",
            run_and_check(work, "--set", "time.steps=2", "time.t_end=1", "flow.yaml"),
            ["unexpected argument 'flow.yaml'", "'time.t_end=1' was taken as the configuration file",
             "each --set takes one key=value"], work, before)
    refused("an unquoted --set value with spaces",
            run_and_check(work, "flow.yaml", "--set", "physics.forcing={type:", "band,", "power:", "0.1}"),
            ["unexpected arguments 'band,', 'power:', '0.1}'", "quote a value with spaces"], work, before)
    refused("a --set without key=value", run_and_check(work, "flow.yaml", "--set", "time.steps"),
            ["--set time.steps: expected key.path=value"], work, before)
    refused("a stray word without --set", [kolmo(1, "check", "flow.yaml", "extra", cwd=work)],
            ["unexpected argument 'extra'", "kolmo --help"], work, before)
    for order in (["flow.yaml", "--set", "time.steps=2", "--set", "time.t_end=1"],
                  ["--set", "time.steps=2", "--set", "time.t_end=1", "flow.yaml"],
                  ["--set", "time.steps=2", "flow.yaml", "--set", "time.t_end=1"]):
        r = kolmo(1, "check", *order, cwd=work)
        check(r.returncode == 0 and "  steps: 2 " in r.stdout and "  t_end: 1.0 " in r.stdout
              and snapshot(work) == before, f"kolmo check {' '.join(order)}: both overrides apply ({r.stderr.strip()[:200]})")
    r = kolmo(1, "run", "--help", cwd=work)
    check(r.returncode == 0 and "--restart" in r.stdout, f"--help still succeeds (exit {r.returncode})")
    # A configuration kept in its run's directory as config.yaml (runs/case/config.yaml writing to runs/case):
    # a new run would replace it with its resolved configuration, losing its comments and what --set changed.
    (work / "out").mkdir()
    (work / "out/config.yaml").write_text(FLOW + "initial: {type: taylor_green}\n")
    before = snapshot(work)
    for extra in ([], ["--set", "output.overwrite=true"]):
        refused(f"a new run whose configuration is the config.yaml it would write {extra}",
                run_and_check(work, "out/config.yaml", *extra),
                ["output.directory: the run writes its resolved configuration to out/config.yaml",
                 "the configuration file it reads"], work, before)

    # --- Ranks that disagree. An MPMD launch (mpiexec -n 1 kolmo A : -n 1 kolmo B) gives each rank a command
    # line and a configuration of its own: ranks that differ are refused together, naming what differs, before
    # anything is written, and a mistake on one rank only stops them all instead of leaving the others waiting.
    work = root / "mpmd"
    work.mkdir()
    (work / "a.yaml").write_text(FLOW + "initial: {type: taylor_green}\n")
    (work / "b.yaml").write_text(FLOW.replace("[16, 18, 12]", "[16, 18, 8]") + "initial: {type: taylor_green}\n")
    before = snapshot(work)

    def mpmd(*rank_arguments):  # a hang is a failure, found in 2 minutes
        return kolmo_mpmd(*rank_arguments, cwd=work, timeout=120)

    refused("MPMD: ranks read different configuration files",
            [mpmd(["run", "a.yaml"], ["run", "b.yaml"]), mpmd(["check", "a.yaml"], ["check", "b.yaml"])],
            ["config: rank 1 read a different configuration than rank 0 (b.yaml vs a.yaml): "
             "grid.n: [16, 18, 8] on rank 1, grid.n: [16, 18, 12] on rank 0"], work, before)
    refused("MPMD: one file, --set on one rank only",
            [mpmd(["run", "a.yaml"], ["run", "a.yaml", "--set", "physics.viscosity=0.02"])],
            ["config: rank 1 read a different configuration than rank 0 (a.yaml on both",
             "physics.viscosity: 0.02 on rank 1, physics.viscosity: 0.01 on rank 0"], work, before)
    refused("MPMD: kolmo run and kolmo check", [mpmd(["run", "a.yaml"], ["check", "a.yaml"])],
            ["command line: rank 1 was started as 'kolmo check' and rank 0 as 'kolmo run'"], work, before)
    refused("MPMD: --restart on one rank only", [mpmd(["run", "a.yaml", "--restart"], ["run", "a.yaml"])],
            ["command line: rank 1 was started as 'kolmo run' and rank 0 as 'kolmo run --restart'"], work, before)
    refused("MPMD: an unknown option on one rank only", [mpmd(["run", "a.yaml"], ["run", "a.yaml", "--bogus"])],
            ["--bogus"], work, before)
    # --help on some ranks only: those printed it and exited while the others waited for them (a hang).
    refused("MPMD: --help on rank 0 only", [mpmd(["run", "a.yaml", "--help"], ["run", "a.yaml"])],
            ["command line: rank 1 was started without --help and rank 0 with --help: give --help to every rank of a "
             "launch or to none"], work, before)
    refused("MPMD: --help on rank 1 only",
            [mpmd(["run", "a.yaml"], ["run", "a.yaml", "--help"]), mpmd(["check", "a.yaml"], ["--help"])],
            ["command line: rank 1 was started with --help and rank 0 without --help"], work, before)
    r = mpmd(["run", "a.yaml", "--help"], ["run", "a.yaml", "--help"])
    check(r.returncode == 0 and r.stdout.count("Usage:") == 1 and "--restart" in r.stdout and r.stderr.strip() == ""
          and snapshot(work) == before, f"MPMD: --help on every rank is printed once (exit {r.returncode}, "
          f"{r.stdout.count('Usage:')} time(s), {r.stderr.strip()[:200]})")
    refused("MPMD: a broken configuration on one rank only",
            [mpmd(["run", "a.yaml"], ["run", str(source / "tests/config/bad/tab_indent.yaml")])],
            ["tab_indent.yaml:6:1: a tab in the indentation"], work, before)
    # The same configuration on every rank runs, also from two paths to it: what is compared is the run.
    r = mpmd(["check", "a.yaml"], ["check", "a.yaml"])
    check(r.returncode == 0 and "configuration OK for 2 rank(s)" in r.stdout,
          f"MPMD: the same file on both ranks passes kolmo check ({r.stderr.strip()[:300]})")
    shutil.copy(work / "a.yaml", work / "copy_of_a.yaml")
    r = mpmd(["run", "a.yaml"], ["run", "copy_of_a.yaml"])
    status = work / "out/status"
    check(r.returncode == 0 and status.exists() and status.read_text().startswith("finished"),
          f"MPMD: two copies of one configuration run ({r.stderr.strip()[:300]})")

    # --- initial.file: not HDF5, another grid, a missing dataset, NaN and infinities, a poisoned checkpoint.
    work = root / "initial_file"
    work.mkdir()
    (work / "notes.h5").write_text("not HDF5 at all\n")
    fields = {name: 0.1 * rng.standard_normal(GRID) for name in ("u", "v", "w")}

    def field_file(name, datasets, grid=GRID, box=None):
        with h5py.File(work / name, "w") as f:
            for dataset, data in datasets.items():
                f[dataset] = data if grid == GRID else 0.1 * rng.standard_normal(grid)
            if box is not None:  # as kolmo writes it; files from other tools have none
                f.attrs["box"] = np.array(box, dtype=np.float64)

    field_file("good.h5", fields)
    field_file("other_grid.h5", fields, grid=(8, 10, 6))
    # A dump as kolmo writes one, x fastest (axis_order "z y x"): its grid is its shape reversed.
    with h5py.File(work / "other_grid_zyx.h5", "w") as f:
        for dataset in ("u", "v", "w"):
            f[dataset] = 0.1 * rng.standard_normal((6, 10, 8))
        f.attrs["axis_order"] = "z y x"
    field_file("no_w.h5", {"u": fields["u"], "v": fields["v"]})
    field_file("neither.h5", {"pressure": fields["u"]})
    with_nan = dict(fields, v=fields["v"].copy())
    with_nan["v"][3, 4, 5] = np.nan
    field_file("nan_v.h5", with_nan)
    with_inf = dict(fields, w=fields["w"].copy())
    with_inf["w"][15, 17, 11] = -np.inf
    field_file("inf_w.h5", with_inf)
    # The right grid on another box (FLOW's is 2pi on every side): the velocity would be another one there.
    field_file("other_box.h5", dict(fields, s=fields["u"]), box=(2 * np.pi, 2 * np.pi, np.pi))
    cases = [("notes.h5", ["not an HDF5 file"]),
             ("other_grid.h5", ["holds 'u' on the grid [8, 10, 6], not on grid.n = [16, 18, 12]: set grid.n",
                                "(initial.file from with_other_grid.h5.yaml:8; grid.n from "
                                "with_other_grid.h5.yaml:2)"]),
             ("other_grid_zyx.h5", ["holds 'u' on the grid [8, 10, 6], not on grid.n = [16, 18, 12]"]),
             ("no_w.h5", ["no dataset 'w'"]), ("neither.h5", ["holds neither u, v, w"]),
             ("nan_v.h5", ["dataset 'v'", "1 value is NaN or infinite"]),
             ("inf_w.h5", ["dataset 'w'", "1 value is NaN or infinite"]),
             ("other_box.h5", ["box [6.28318530717959, 6.28318530717959, 3.14159265358979]",
                               "grid.box = [6.28318530717959, 6.28318530717959, 6.28318530717959]",
                               "(initial.file from with_other_box.h5.yaml:8; grid.box from the default)"])]
    for name, expected in cases:
        (work / f"with_{name}.yaml").write_text(FLOW + f"initial: {{type: file, file: {name}}}\n")
    before = snapshot(work)
    for name, expected in cases:
        refused(f"initial.file {name}", run_and_check(work, f"with_{name}.yaml"),
                ["initial.file", name, *expected], work, before)
    (work / "with_good.yaml").write_text(FLOW + "initial: {type: file, file: good.h5}\n")
    r = kolmo(2, "run", "with_good.yaml", cwd=work)
    removed = re.search(r"warning: initial.file: the projection onto divergence-free fields and the 2/3 rule "
                        r"removed ([0-9.]+) %", r.stderr)
    check(r.returncode == 0 and removed is not None and 50 < float(removed.group(1)) < 100,
          f"a sound initial.file runs; its noise loses most of its energy to the projection and the 2/3 rule, and "
          f"the run says so ({r.stderr.strip()[:200]})")
    # A divergence-free field of kept modes loses nothing: no warning.
    y = 2 * np.pi * np.arange(GRID[1]) / GRID[1]
    solenoidal = {"u": np.broadcast_to(np.sin(y)[None, :, None], GRID).copy(), "v": np.zeros(GRID),
                  "w": np.zeros(GRID)}
    field_file("solenoidal.h5", solenoidal)
    (work / "with_solenoidal.yaml").write_text(FLOW + "initial: {type: file, file: solenoidal.h5}\n")
    r = kolmo(1, "check", "with_solenoidal.yaml", "--set", "output.directory=out3", cwd=work)
    check(r.returncode == 0 and "warning" not in r.stderr,
          f"a divergence-free initial.file of kept modes starts without a warning ({r.stderr.strip()[:200]})")
    # An initial.file among the earlier output that output.overwrite: true removes would go with it (read
    # first, then deleted, or replaced by the new run's dump of its step).
    before = snapshot(work)
    refused("an initial.file that output.overwrite would remove",
            run_and_check(work, "with_good.yaml", "--set", "initial.file=out/checkpoints/checkpoint.h5", "--set",
                          "output.overwrite=true"),
            ["initial.file: out/checkpoints/checkpoint.h5 is earlier output of output.directory out",
             "copy it elsewhere first (initial.file from --set initial.file=out/checkpoints/checkpoint.h5; "
             "output.directory from with_good.yaml:7; output.overwrite from --set output.overwrite=true)"],
            work, before)
    # A box attribute equal to grid.box but for round-off (2pi written another way) is the same box.
    field_file("solenoidal_box.h5", solenoidal, box=[2 * np.pi * (1 + 1e-14)] * 3)
    r = kolmo(1, "check", "with_solenoidal.yaml", "--set", "initial.file=solenoidal_box.h5", "--set",
              "output.directory=out3", cwd=work)
    check(r.returncode == 0, f"an initial.file whose box is grid.box to round-off is taken ({r.stderr.strip()[:200]})")
    shutil.copy(work / "out/checkpoints/checkpoint.h5", work / "nan_checkpoint.h5")
    with h5py.File(work / "nan_checkpoint.h5", "r+") as f:
        data = f["w_hat"][...]
        data[2, 3, 4] = complex(np.nan, 0)
        f["w_hat"][...] = data
    (work / "with_nan_checkpoint.yaml").write_text(FLOW + "initial: {type: file, file: nan_checkpoint.h5}\n")
    before = snapshot(work)
    refused("initial.file checkpoint with NaN",
            run_and_check(work, "with_nan_checkpoint.yaml", "--set", "output.directory=out2"),
            ["initial.file", "nan_checkpoint.h5", "dataset 'w_hat'", "NaN"], work, before)
    # A checkpoint holds its box (a checkpoint on another grid is resampled: test_resample.py); a field file's
    # grid is its shape, for a scalar's initial file too.
    refused("a scalar's initial.file on another grid",
            run_and_check(work, "with_good.yaml", "--set", "output.directory=out2", "--set",
                          "physics.scalars=[{name: s, diffusivity: 0.01, initial: {type: file, file: "
                          "other_grid.h5, dataset: u}}]"),
            ["physics.scalars[0].initial.file: other_grid.h5 holds 'u' on the grid [8, 10, 6], not on grid.n = "
             "[16, 18, 12]", "grid.n from with_good.yaml:2)"], work, before)
    refused("initial.file checkpoint on another box",
            run_and_check(work, "with_good.yaml", "--set", "initial.file=out/checkpoints/checkpoint.h5", "--set",
                          "grid.box=4pi", "--set", "output.directory=out2"),
            ["initial.file: out/checkpoints/checkpoint.h5 holds a field on the box [6.28318530717959, ",
             "not on grid.box = [12.5663706143592, ",
             "(initial.file from --set initial.file=out/checkpoints/checkpoint.h5; grid.box from --set "
             "grid.box=4pi)"], work, before)
    refused("a scalar's initial.file on another box",
            run_and_check(work, "with_good.yaml", "--set", "output.directory=out2", "--set",
                          "physics.scalars=[{name: s, diffusivity: 0.01, initial: {type: file, file: other_box.h5}}]"),
            ["physics.scalars[0].initial.file: other_box.h5 holds a field on the box", "grid.box = ",
             "(physics.scalars[0].initial.file from --set physics.scalars=[{name: s, diffusivity: 0.01, initial: "
             "{type: file, file: other_box.h5}}]; grid.box from the default)"], work, before)

    # --- Restarts: no checkpoint, a missing or broken --checkpoint file, another grid, a poisoned checkpoint.
    # Nothing may change: not config.yaml, not the checkpoints, no directory created.
    work = root / "restart"
    work.mkdir()
    (work / "flow.yaml").write_text(FLOW + "initial: {type: random, seed: 3}\n")
    before = snapshot(work)
    refused("--restart without a checkpoint", run_and_check(work, "flow.yaml", "--restart"),
            ["--restart", "no checkpoint in out/checkpoints", "only where output.checkpoint_every or "
             "output.checkpoint_wall_minutes is set"], work, before)
    refused("--checkpoint of a missing file", run_and_check(work, "flow.yaml", "--checkpoint", "gone.h5"),
            ["--checkpoint", "gone.h5", "does not exist"], work, before)
    r = kolmo(2, "run", "flow.yaml", cwd=work)
    check(r.returncode == 0, f"the run to continue ({r.stderr.strip()[:200]})")
    before = snapshot(work)
    # --checkpoint "$CHECKPOINT" with the variable unset: not a new run from the initial condition, which
    # output.overwrite would let replace the run it was meant to continue.
    refused("an empty --checkpoint",
            run_and_check(work, "flow.yaml", "--checkpoint", "", "--set", "output.overwrite=true"),
            ["--checkpoint: an empty file name"], work, before)
    # A directory given for the file (the run's checkpoints/ or the run's own directory): not "does not exist",
    # but which checkpoint in it to give, or --restart.
    for directory in ("out/checkpoints", "out"):
        refused(f"--checkpoint of a directory, {directory}",
                run_and_check(work, "flow.yaml", "--checkpoint", directory, "--set", "output.directory=new"),
                [f"--checkpoint: checkpoint {directory} is a directory, not a checkpoint file",
                 "give the newest checkpoint in it, out/checkpoints/checkpoint.h5", "or --restart"], work, before)
    refused("--checkpoint of a directory without checkpoints",
            run_and_check(work, "flow.yaml", "--checkpoint", "out/fields", "--set", "output.directory=new"),
            ["checkpoint out/fields is a directory", "it holds no checkpoint.h5", "--restart"], work, before)
    refused("--restart on another grid", run_and_check(work, "flow.yaml", "--restart", "--set", "grid.n=48"),
            ["grid.n", "[48, 48, 48]", "checkpoint.h5", "[16, 18, 12]", "(grid.n from --set grid.n=48)"], work,
            before)
    refused("--restart with a scalar the checkpoint lacks",
            run_and_check(work, "flow.yaml", "--restart", "--set", "physics.scalars=[{name: s, diffusivity: 0.01}]"),
            ["--restart", "holds no s_hat", "scalar 's'", "start a new run"], work, before)
    # The reverse: a field the checkpoint holds and the configuration dropped would vanish from the next
    # checkpoints, so that restart is refused too.
    with_scalar = ("--set", "physics.scalars=[{name: s, diffusivity: 0.01}]", "--set", "output.directory=out_s")
    r = kolmo(1, "run", "flow.yaml", *with_scalar, cwd=work)
    check(r.returncode == 0, f"the run with a scalar ({r.stderr.strip()[:200]})")
    before = snapshot(work)
    refused("--restart without a scalar the checkpoint holds",
            run_and_check(work, "flow.yaml", "--restart", "--set", "output.directory=out_s"),
            ["--restart", "holds s_hat", "removed since", "put it back"], work, before)
    # (into a new directory: a file outside out/checkpoints starts a new run, refused where output exists)
    refused("--checkpoint of a file that is not HDF5",
            run_and_check(work, "flow.yaml", "--checkpoint", "flow.yaml", "--set", "output.directory=new"),
            ["--checkpoint", "flow.yaml", "not an HDF5 file"], work, before)
    # A field dump where a checkpoint belongs: what it is and where it serves, not "missing attribute 'dt'".
    with h5py.File(root / "dump.h5", "w") as f:
        for name in ("u", "v", "w"):
            f[name] = np.zeros(GRID[::-1])
    refused("--checkpoint of a field file",
            run_and_check(work, "flow.yaml", "--checkpoint", str(root / "dump.h5"), "--set", "output.directory=new"),
            ["--checkpoint: ", "dump.h5 is a field file (u, v, w), not a checkpoint (u_hat, v_hat, w_hat): a new run "
             "starts from it with initial.file"], work, before)
    # Another run's checkpoint put into this run's checkpoints/ (same grid and fields, another seed, so another
    # adaptive dt): its step 4 lies at another time than the series' step 4. A restart from it would cut the
    # series there and splice the other history on, so it is refused, by run and check, changing nothing.
    r = kolmo(1, "run", "flow.yaml", "--set", "initial.seed=9", "--set", "output.directory=other", cwd=work)
    check(r.returncode == 0, f"the other run ({r.stderr.strip()[:200]})")
    foreign = root / "restart_foreign"
    shutil.copytree(work, foreign)
    shutil.copy(foreign / "other/checkpoints/checkpoint.h5", foreign / "out/checkpoints/checkpoint.h5")
    before = snapshot(foreign)
    refused("--restart from another run's checkpoint", run_and_check(foreign, "flow.yaml", "--restart"),
            ["--restart", "checkpoint.h5 (step 4, t = ", "is not from the run of out/series.h5",
             "the checkpoint's run is", "--checkpoint and another output.directory"], foreign, before)
    # Files from before kolmo wrote a run identity: the history alone tells the runs apart here.
    for name in ("out/series.h5", "out/checkpoints/checkpoint.h5"):
        with h5py.File(foreign / name, "r+") as f:
            del f.attrs["run"]
    before = snapshot(foreign)
    refused("--restart from another run's checkpoint, files without a run identity",
            run_and_check(foreign, "flow.yaml", "--restart"),
            ["--restart", "checkpoint.h5 (step 4, t = ", "is not from the run of out/series.h5",
             "which holds step 4 at t = "], foreign, before)
    # With a fixed step two runs reach step 4 at the same time, and without series rows there is no history
    # at all: only the run identity tells the other run's checkpoint (given by --checkpoint with --restart, or
    # copied in), which once cut this run's series and removed its dumps and checkpoint.
    same_times = root / "restart_same_times"
    same_times.mkdir()
    fixed = FLOW.replace("cfl: 0.6", "dt: 0.01").replace("steps: 4", "steps: 8").replace(
        "checkpoint_every: 100", "checkpoint_every: 0.04, fields: [velocity], fields_every: 0.02")
    (same_times / "flow.yaml").write_text(fixed + "initial: {type: random}\n")
    for series_every in ("1", "0"):
        for run, seed in (("mine", "1"), ("theirs", "2")):
            r = kolmo(1, "run", "flow.yaml", "--set", f"output.directory={run}{series_every}", "--set",
                      f"initial.seed={seed}", "--set", f"output.series_every={series_every}", cwd=same_times)
            check(r.returncode == 0, f"fixed-step run {run}, series_every {series_every} ({r.stderr.strip()[:200]})")
        before = snapshot(same_times)
        refused(f"--restart --checkpoint of another fixed-step run's checkpoint (series_every {series_every})",
                run_and_check(same_times, "flow.yaml", "--set", f"output.directory=mine{series_every}", "--set",
                              f"output.series_every={series_every}", "--set", "time.steps=12", "--restart",
                              "--checkpoint", f"theirs{series_every}/checkpoints/checkpoint.prev.h5"),
                ["checkpoint.prev.h5 (step 4, t = 0.04) is not from the run of", "the checkpoint's run is"],
                same_times, before)
    poisoned = root / "restart_poisoned"
    shutil.copytree(work, poisoned)
    for name in ("checkpoint.h5", "checkpoint.prev.h5"):
        if (poisoned / "out/checkpoints" / name).exists():
            with h5py.File(poisoned / "out/checkpoints" / name, "r+") as f:
                data = f["u_hat"][...]
                data[1, 1, 1] = complex(np.inf, 0)
                f["u_hat"][...] = data
    before = snapshot(poisoned)
    refused("--restart from a checkpoint holding infinities", run_and_check(poisoned, "flow.yaml", "--restart"),
            ["--restart", "checkpoint"], poisoned, before)

    # A restart with another viscosity is accepted and says so.
    r = kolmo(2, "run", "flow.yaml", "--restart", "--set", "time.steps=6", "--set", "physics.viscosity=0.005",
              cwd=work)
    check(r.returncode == 0 and "changed   since the checkpoint: physics.viscosity 0.01 -> 0.005" in r.stdout,
          f"a restart with another viscosity says so in its header ({r.stderr.strip()[:200]})")
    status = (work / "out/status").read_text()
    check(status.startswith("finished: step 6, t = "), f"<dir>/status after a run: {status.strip()}")
    # So does one with another integrator, step or precision (the run's config.yaml and the checkpoint tell).
    r = kolmo(1, "run", "flow.yaml", "--restart", "--set", "time.steps=8", "--set", "physics.viscosity=0.005",
              "--set", "time.integrator=rk4", "--set", "precision=single", cwd=work)
    check(r.returncode == 0 and "time.integrator rk3 -> rk4" in r.stdout and "precision double -> single" in r.stdout,
          f"a restart with another integrator and precision says so in its header ({r.stdout[-300:]})")

    # --- A restart reads no initial condition, so it neither needs the initial fields' files (moved away
    # since) nor checks those fields against the grid: on another grid it is refused for the checkpoint's grid.
    # Run and check alike, also from the run's own config.yaml. A new run still needs the files.
    work = root / "restart_initial"
    work.mkdir()
    with h5py.File(work / "init.h5", "w") as f:
        for name in ("u", "v", "w", "s", "b", "bx", "by", "bz"):
            f[name] = 0.1 * rng.standard_normal(GRID)
    fields = """physics:
  viscosity: 0.01
  buoyancy: {{type: boussinesq, n2: {n2}, gravity: {gravity}, initial: {{type: file, file: init.h5}}}}
  scalars:
    - {{name: s, {s}, initial: {{type: file, file: init.h5}}}}
    - {{name: t, schmidt: 1, initial: {{type: random}}}}
  magnetic: {{type: mhd, {magnetic}, initial: {{type: file, file: init.h5}}}}
initial: {{type: file, file: init.h5}}
"""
    flow = FLOW.replace("physics: {viscosity: 0.01}\n", "")
    (work / "flow.yaml").write_text(flow + fields.format(n2=1, gravity="[0, 0, -1]", s="diffusivity: 0.01",
                                                         magnetic="resistivity: 0.01"))
    r = kolmo(2, "run", "flow.yaml", cwd=work)
    check(r.returncode == 0, f"a run from initial files, with buoyancy, scalars and MHD ({r.stderr.strip()[:200]})")
    (work / "init.h5").rename(work / "moved.h5")
    for what, arguments in [("--restart", ["flow.yaml", "--restart"]),
                            ("--restart from the run's config.yaml", ["out/config.yaml", "--restart"]),
                            ("--checkpoint", ["flow.yaml", "--checkpoint", "out/checkpoints/checkpoint.h5"])]:
        r = kolmo(2, "check", *arguments, cwd=work)
        check(r.returncode == 0 and "configuration OK" in r.stdout,
              f"kolmo check {what} without the initial files ({r.stderr.strip()[:200]})")
    before = snapshot(work)
    refused("--restart on another grid, which the initial fields do not fit",
            run_and_check(work, "flow.yaml", "--restart", "--set", "grid.n=8"),
            ["grid.n: [8, 8, 8] differs from the grid of the checkpoint", "[16, 18, 12]"], work, before)
    refused("a new run without its initial files",
            run_and_check(work, "flow.yaml", "--set", "output.directory=new"),
            ["initial.file: no such file 'init.h5'"], work, before)

    # A restart with other coefficients of the scalars, the buoyancy and b names each changed key.
    (work / "changed.yaml").write_text(flow + fields.format(
        n2=-1, gravity="[0, -1, 0]", s="schmidt: 2, mean_gradient: [0, 0, 1]",
        magnetic="resistivity: 0.02, background: [0, 0, 0.5], forcing: {type: band, power: 0.01}"))
    r = kolmo(2, "run", "changed.yaml", "--restart", "--set", "time.steps=6", cwd=work)
    changes = ["physics.buoyancy.n2 1 -> -1", "physics.buoyancy.gravity [0, 0, -1] -> [0, -1, 0]",
               "physics.scalars[0].diffusivity 0.01 -> physics.scalars[0].schmidt 2",
               "physics.scalars[0].mean_gradient [0, 0, 0] -> [0, 0, 1]", "physics.magnetic.resistivity 0.01 -> 0.02",
               "physics.magnetic.background [0, 0, 0] -> [0, 0, 0.5]",
               "physics.magnetic.forcing none -> band (k 0.5 to 2.5, power 0.01)"]
    header = next((line for line in r.stdout.splitlines() if "changed   since the checkpoint" in line), "")
    check(r.returncode == 0 and all(change in header for change in changes) and "scalars[1]" not in header,
          f"a restart with other coefficients of the scalars, buoyancy and b names each "
          f"({header or r.stderr.strip()[:200]}; missing: {[change for change in changes if change not in header]})")
    r = kolmo(2, "run", "changed.yaml", "--restart", "--set", "time.steps=7", "--set", "physics.buoyancy.prandtl=2",
              "--set", "physics.magnetic.resistivity=", "--set", "physics.magnetic.prandtl=0.5", cwd=work)
    header = next((line for line in r.stdout.splitlines() if "changed   since the checkpoint" in line), "")
    check(r.returncode == 0 and "physics.buoyancy.prandtl 1 -> 2" in header and
          "physics.magnetic.resistivity 0.02 -> physics.magnetic.prandtl 0.5" in header and "n2" not in header,
          f"so does one with another Prandtl number of b, and b's resistivity given as a Prandtl number ({header})")

    # --- Poisson right-hand sides: a missing dataset, another shape, a mean, NaN; subtract_mean.
    work = root / "poisson"
    work.mkdir()
    shape = (16, 12, 10)
    x = 2 * np.pi * np.arange(shape[0]) / shape[0]
    f_exact = -np.cos(x)[:, None, None] * np.ones(shape)  # lap(cos x) = -cos x: phi = cos x
    with h5py.File(work / "rhs.h5", "w") as f:
        f["f"] = f_exact
        f["f_shifted"] = f_exact + 1e-3
        f["f_small"] = np.zeros((8, 8, 8))
        with_nan = f_exact.copy()
        with_nan[2, 2, 2] = np.nan
        f["f_nan"] = with_nan
    poisson = "grid: {{n: [16, 12, 10]}}\nbackend: host\nproblem: poisson\n" \
              "poisson: {{rhs: {{type: file, file: rhs.h5, dataset: {0}}}{1}}}\noutput: {{directory: out}}\n"
    cases = [("g", ["no dataset 'g'"]),
             ("f_small", ["holds 'f_small' on the grid [8, 8, 8], not on grid.n = [16, 12, 10]",
                          "(poisson.rhs.file from f_small.yaml:4; grid.n from f_small.yaml:1)"]),
             ("f_shifted", ["dataset 'f_shifted'", "has mean 0.001", "poisson.subtract_mean: true",
                            "(poisson.rhs.file from f_shifted.yaml:4; poisson.shift from the default; "
                            "poisson.subtract_mean from the default)"]),
             ("f_nan", ["dataset 'f_nan'", "1 value is NaN or infinite"])]
    for dataset, expected in cases:
        (work / f"{dataset}.yaml").write_text(poisson.format(dataset, ""))
    # A right-hand side that kolmo wrote on another box: its values would be another f on this one.
    with h5py.File(work / "rhs_box.h5", "w") as f:
        f["f"] = f_exact
        f.attrs["box"] = np.array((2 * np.pi, 2 * np.pi, np.pi), dtype=np.float64)
    (work / "other_box.yaml").write_text(poisson.format("f", "").replace("rhs.h5", "rhs_box.h5"))
    before = snapshot(work)
    for dataset, expected in cases:
        refused(f"poisson.rhs dataset {dataset}", run_and_check(work, f"{dataset}.yaml"),
                ["poisson.rhs.file", "rhs.h5", *expected], work, before)
    refused("poisson.rhs.file on another box", run_and_check(work, "other_box.yaml"),
            ["poisson.rhs.file: rhs_box.h5 holds a field on the box [6.28318530717959, 6.28318530717959, "
             "3.14159265358979], not on grid.box", "(poisson.rhs.file from other_box.yaml:4; grid.box from the "
             "default)"], work, before)
    (work / "subtract.yaml").write_text(poisson.format("f_shifted", ", subtract_mean: true"))
    r = kolmo(2, "run", "subtract.yaml", cwd=work)
    ok = r.returncode == 0 and "mean 0.001 subtracted" in r.stdout
    if ok:
        with h5py.File(next((work / "out/fields").glob("*.h5")), "r") as f:
            phi = f["phi"][...].transpose()  # stored x fastest
        error = np.abs(phi - np.cos(x)[:, None, None]).max()
        ok = error < 1e-10
    check(ok, f"poisson.subtract_mean: the shifted right-hand side gives phi = cos x ({r.stderr.strip()[:200]})")
    # A Poisson run writes no checkpoint, so it creates no checkpoints/ folder (it once left an empty one).
    check(r.returncode == 0 and (work / "out/fields").is_dir() and not (work / "out/checkpoints").exists(),
          f"a Poisson run creates fields/ and no checkpoints/ ({sorted(p.name for p in (work / 'out').iterdir())})")
    r = kolmo(2, "run", "subtract.yaml", "--restart", cwd=work)
    check(r.returncode != 0 and "--restart: a Poisson problem" in r.stderr,
          f"a Poisson run refuses --restart, which it cannot honour ({r.stderr.strip()[:200]})")
    # A shift that overflows the manufactured right-hand side is refused before anything is written; one so
    # small that the mean mode divides by almost nothing gives no solution (NaN), and the run fails, writing
    # no field file, instead of reporting an error of 0 past the NaNs.
    manufactured = "grid: {{n: [16, 12, 10]}}\nbackend: host\nproblem: poisson\npoisson: {{shift: {0}, " \
                   "rhs: {{type: manufactured, modes: [[1, 2, 3], [1, 0, 0]]}}}}\noutput: {{directory: {1}}}\n"
    (work / "huge_shift.yaml").write_text(manufactured.format("1e308", "out_huge"))
    before = snapshot(work)
    refused("poisson.shift overflowing f", run_and_check(work, "huge_shift.yaml", ranks=1),
            ["poisson.shift 1e+308", "right-hand side", "NaN or infinite"], work, before)
    (work / "tiny_shift.yaml").write_text(manufactured.format("1e-320", "out_tiny"))
    r = kolmo(2, "run", "tiny_shift.yaml", cwd=work)
    status = (work / "out_tiny/status").read_text() if (work / "out_tiny/status").exists() else ""
    check(r.returncode == 1 and "the solution phi" in r.stderr and "NaN or infinite" in r.stderr
          and status.startswith("failed") and not list((work / "out_tiny/fields").glob("*.h5")),
          f"a Poisson solution of NaN fails the run and writes no field ({r.stderr.strip()[:200]}; {status})")

    # --- Output intervals in simulation time shorter than the step: an output is due at the first step that
    # reaches the next multiple of its interval, so it follows every step. kolmo check and kolmo run warn
    # alike, one line per key naming both values; an interval equal to the step is not warned about, nor with
    # an adaptive step one the step cannot pass (time.max_dt), nor one without time.max_dt.
    work = root / "intervals"
    work.mkdir()
    (work / "tg.yaml").write_text("""
grid: {n: 12}
backend: host
time: {dt: 0.01, steps: 3}
initial: {type: taylor_green}
output: {directory: out, series_every: 0, progress_every: 0, fields: [velocity], fields_every: 0.004,
         spectra_every: 0.01, checkpoint_every: 0.005}
""")

    def warnings(result):
        return [line for line in result.stderr.splitlines() if "warning:" in line]

    fixed = ["kolmo: warning: output.fields_every = 0.004 is shorter than time.dt = 0.01: a field dump is "
             "written after every step", "kolmo: warning: output.checkpoint_every = 0.005 is shorter than "
             "time.dt = 0.01: a checkpoint is written after every step"]
    for command in ("check", "run"):
        r = kolmo(1, command, "tg.yaml", cwd=work)
        found = warnings(r)
        check(r.returncode == 0 and len(found) == 2 and all(any(line.startswith(w) for line in found) for w in fixed),
              f"kolmo {command}: intervals shorter than time.dt are warned about, one equal to it is not ({found})")
    dumps = sorted(p.name for p in (work / "out/fields").glob("fields_*.h5"))
    check(len(dumps) == 4, f"output.fields_every below time.dt dumps at every step, 0 to 3 ({dumps})")
    adaptive = ["--set", "time.dt=", "--set", "output.directory=adaptive"]
    r = kolmo(1, "check", "tg.yaml", *adaptive, "--set", "time.max_dt=0.05", cwd=work)
    found = warnings(r)
    check(r.returncode == 0 and len(found) == 3 and all("is shorter than the adaptive step may become (time.max_dt = "
                                                        "0.05)" in line for line in found)
          and "output.fields_every = 0.004" in found[0] and "consider time.max_dt <= 0.004" in found[0],
          f"an adaptive step up to a longer time.max_dt is warned about for each interval ({found})")
    for bound in (["--set", "time.max_dt=0.004"], []):
        r = kolmo(1, "check", "tg.yaml", *adaptive, *bound, cwd=work)
        check(r.returncode == 0 and not warnings(r),
              f"an adaptive step {'within the intervals' if bound else 'without time.max_dt'} is not "
              f"({r.stderr.strip()[:200]})")

    # --- The memory estimate counts reading the initial files for a new run only: a restart reads its
    # checkpoint instead (every field's spectral slabs at once, as a checkpoint written). On 64^3, with the
    # velocity alone, a field file's three real slabs and the buffer that transposes a kolmo dump's order
    # (8 MiB) outweigh the checkpoint's three spectral slabs (6.2 MiB): the new run from initial.file is
    # estimated above the same run restarted, which is estimated as one with no file to read.
    work = root / "memory_initial"
    work.mkdir()
    with h5py.File(work / "init.h5", "w") as f:
        for name in ("u", "v", "w"):
            f[name] = 0.1 * rng.standard_normal((64, 64, 64))
    (work / "flow.yaml").write_text("""
grid: {n: 64}
backend: host
fft: {planning: estimate}
time: {dt: 0.001, steps: 1}
initial: {type: file, file: init.h5}
output: {directory: out, series_every: 0, progress_every: 0, checkpoint_every: 100}
""")

    def host_estimate(result):
        found = re.search(r"# memory: host ([0-9.]+) MiB", result.stdout)
        return float(found.group(1)) if found else float("nan")

    new = host_estimate(kolmo(1, "check", "flow.yaml", cwd=work))
    r = kolmo(1, "run", "flow.yaml", cwd=work)
    restarted = host_estimate(kolmo(1, "check", "flow.yaml", "--restart", "--set", "time.steps=2", cwd=work))
    no_file = host_estimate(kolmo(1, "check", "flow.yaml", "--set", "initial.type=taylor_green", "--set",
                                  "initial.file=", "--set", "output.directory=no_file", cwd=work))
    check(r.returncode == 0 and new - restarted > 1.5 and restarted == no_file,
          f"host memory estimated: a new run from initial.file {new} MiB, restarted {restarted} MiB, "
          f"from no file {no_file} MiB")

    # --- Blow-ups.
    work = root / "blow_up"
    work.mkdir()
    (work / "tg.yaml").write_text("""
grid: {n: 32}
backend: host
physics: {viscosity: 0.0025}
time: {integrator: rk4, dt: 0.6, t_end: 30}
initial: {type: taylor_green}
output: {directory: out, series_every: 0, progress_every: 0, checkpoint_every: 0.6, fields_every: 0.6,
         fields: [velocity]}
""")
    before = snapshot(work)
    refused("a fixed step far beyond the stability limit", run_and_check(work, "tg.yaml", "--set", "time.dt=2"),
            ["time.dt = 2", "CFL number of 10.19", "stability limit of rk4"], work, before)
    # dt = 0.6 starts at a CFL number of 3.06 (a warning only) and blows up some steps later: with no series
    # rows and no progress lines, the run must stop by itself, before writing anything of the blown-up state.
    r = kolmo(2, "run", "tg.yaml", cwd=work)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    match = re.search(r"blew up at step (\d+), t = ([0-9.]+)", last)
    check(r.returncode == 1 and match is not None and "time.dt" in last and "done:" not in r.stdout,
          f"a blow-up stops the run with status 1 naming the step, the time and time.dt: {last[:220]}")
    blown = int(match.group(1)) if match else 0
    status = (work / "out/status").read_text() if (work / "out/status").exists() else ""
    check(status.startswith(f"failed: the solution blew up at step {blown}"), f"<dir>/status: {status[:100]}")
    checkpoints = [energy_of_checkpoint(p, 32) for p in sorted((work / "out/checkpoints").glob("*.h5"))]
    start_energy = 0.125  # Taylor-Green: A^2/8
    check(len(checkpoints) == 2 and all(np.isfinite(e) and e <= start_energy and s < blown
                                        for e, s, _ in checkpoints),
          f"both checkpoints are finite, from before the blow-up and within the energy bound: {checkpoints}")
    dumps = sorted((work / "out/fields").glob("*.h5"))
    finite, steps = True, []
    for path in dumps:
        with h5py.File(path, "r") as f:
            finite = finite and all(np.isfinite(f[name][...]).all() for name in ("u", "v", "w"))
            steps.append(int(f.attrs["step"]))
    check(finite and steps and max(steps) < blown, f"every field dump is finite and from before: steps {steps}")
    if checkpoints:
        newest = max(checkpoints, key=lambda c: c[1])
        check(f"the newest checkpoint holds step {newest[1]}," in last, "the message says which step it holds")

    # A weak instability: rk2 at a fixed CFL number of about 2.4 grows this unforced flow's energy by about
    # 0.5-1 % every step from the first; the run is stopped within a few steps more (step 8, by the per-step
    # bound, for the random field of 2026-11-29; step 13 before, past 1.1 E(t0)), after checkpoints every 2
    # steps that hold the growth. The message names the step from which the energy exceeded E(t0) (the
    # series' first such row) and recommends no checkpoint from then on: checkpoint.h5 and checkpoint.prev.h5
    # both hold the growth, so a new run.
    (work / "weak.yaml").write_text("""
grid: {n: [18, 20, 14]}
backend: host
physics: {viscosity: 1e-4}
time: {integrator: rk2, dt: 0.2, t_end: 50}
initial: {type: random, spectrum: {k0: 3}}
output: {directory: weak, series_every: 1, progress_every: 0, checkpoint_every: 0.4, fields_every: 0.5,
         fields: [velocity]}
""")
    grown = re.compile(r"its energy first exceeded what the start and the forcing allow at step (\d+), t = ")

    def first_above(series, since=0):
        """The first step after `since` whose energy in the series exceeds that of step `since`."""
        with h5py.File(series, "r") as f:
            steps, energy = f["step"][...], f["energy"][...]
        start = energy[steps == since][0]
        return next((int(s) for s, e in zip(steps, energy) if s > since and e > start), None)

    r = kolmo(2, "run", "weak.yaml", cwd=work)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    match = grown.search(last)
    first = first_above(work / "weak/series.h5") if (work / "weak/series.h5").exists() else None
    written = [energy_of_checkpoint(p, 14) for p in sorted((work / "weak/checkpoints").glob("*.h5"))]
    check(r.returncode == 1 and "blew up at step" in last and match is not None and int(match.group(1)) == first
          and f"field dumps from step {first} on hold a growing state" in last
          and len(written) == 2 and all(s >= first and e > 0.5 for e, s, _ in written)
          and "--restart" not in last and "--checkpoint" not in last and "start the run anew" in last,
          f"a weak instability names the step its energy first exceeded E(t0) (step {first} in the series) and "
          f"recommends no checkpoint from then on (checkpoints {written}): {last[:600]}")
    # The same after a restart from a sound state (rk4, dt 0.05, to t = 1: step 20), with a checkpoint every
    # 2: the check starts from the restart's state, the growth from step 21; step 25's checkpoint holds it, and
    # checkpoint.prev.h5, the restart's state, does not: the message recommends that one, and it continues.
    sound = ("--set", "output.directory=again", "--set", "time.integrator=rk4", "--set", "time.dt=0.05")
    r = kolmo(2, "run", "weak.yaml", *sound, "--set", "time.t_end=1", cwd=work)
    check(r.returncode == 0, f"rk4 at dt = 0.05 runs to t = 1 ({r.stderr.strip()[-200:]})")
    r = kolmo(2, "run", "weak.yaml", "--set", "output.directory=again", "--set", "output.checkpoint_every=2",
              "--restart", cwd=work)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    match = grown.search(last)
    first = first_above(work / "again/series.h5", since=20)
    previous = work / "again/checkpoints/checkpoint.prev.h5"
    steps = [checkpoint(p)[1] for p in (work / "again/checkpoints/checkpoint.h5", previous)]
    check(r.returncode == 1 and match is not None and int(match.group(1)) == first == 21 and steps == [25, 20]
          and "continue from that one (--checkpoint again/checkpoints/checkpoint.prev.h5)" in last
          and "--restart" not in last,
          f"after a restart, the growth from step {first} past a checkpoint (steps {steps}): the message "
          f"recommends checkpoint.prev.h5: {last[:600]}")
    r = kolmo(2, "run", "weak.yaml", *sound, "--set", "time.t_end=1.5", "--checkpoint",
              "again/checkpoints/checkpoint.prev.h5", cwd=work)
    check(r.returncode == 0 and "restarting from again/checkpoints/checkpoint.prev.h5: step 20" in r.stdout,
          f"the recommended checkpoint continues the run ({r.stderr.strip()[-200:]})")

    # An adaptive step is warned about like a fixed one when time.cfl lets the integrator amplify the worst case
    # by more than 1.01 a step (rk2 at time.cfl 1.95 grew this flow's energy from the first step), naming a
    # time.cfl that is not warned about; rk4 at the default time.cfl (0.5) is not.
    adaptive = ("--set", "time.dt=", "--set", "output.directory=adaptive")
    r = kolmo(1, "check", "weak.yaml", *adaptive, "--set", "time.cfl=1.95", cwd=work)
    warned = re.search(r"warning: time\.cfl = 1\.95, where rk2 may amplify the fastest resolved modes by up to "
                       r"([0-9.]+) per step: .*consider time\.cfl <= ([0-9.]+)", r.stderr)
    check(r.returncode == 0 and warned is not None and float(warned.group(1)) > 2
          and float(warned.group(2)) < 0.92, f"rk2 at time.cfl 1.95 is warned about ({r.stderr.strip()[:300]})")
    if warned:
        r = kolmo(1, "check", "weak.yaml", *adaptive, "--set", f"time.cfl={warned.group(2)}", cwd=work)
        check(r.returncode == 0 and "warning" not in r.stderr,
              f"rk2 at the time.cfl suggested, {warned.group(2)}, is not ({r.stderr.strip()[:200]})")
    r = kolmo(1, "check", "weak.yaml", *adaptive, "--set", "time.integrator=rk4", "--set", "time.cfl=", cwd=work)
    check(r.returncode == 0 and "warning" not in r.stderr and "cfl: 0.5" in r.stdout,
          f"rk4 at the default time.cfl is not ({r.stderr.strip()[:200]})")

    # Starts that cannot work, refused before anything is written: a fixed step beyond rotation's or
    # buoyancy's frequency (the CFL number the run prints counts them, as its adaptive step does); a constant
    # power on forced modes that hold no energy (Taylor-Green has none at |k| = 3; b starts at zero); an
    # adaptive step with no scale at all (no velocity, no wave, no t_end or max_dt).
    work = root / "starts"
    work.mkdir()
    (work / "small.yaml").write_text("""
grid: {n: 16}
backend: host
physics: {viscosity: 0.01}
time: {steps: 5}
initial: {type: taylor_green, amplitude: 0.01}
output: {directory: out}
""")
    before = snapshot(work)
    refused("a fixed step beyond the rotation's frequency",
            run_and_check(work, "small.yaml", "--set", "physics.rotation=[0, 0, 50]", "--set", "time.dt=0.3"),
            ["time.dt = 0.3", "CFL number of 30.0", "add a rate of 100", "stability limit of rk4"], work, before)
    refused("a fixed step beyond the buoyancy frequency",
            run_and_check(work, "small.yaml", "--set", "time.dt=0.3", "--set",
                          "physics.buoyancy={type: boussinesq, n2: 2500, gravity: [0, 0, -1]}"),
            ["time.dt = 0.3", "add a rate of 50", "stability limit of rk4"], work, before)
    refused("band forcing of an empty shell",
            run_and_check(work, "small.yaml", "--set", "physics.forcing={type: band, power: 1, k_min: 2.5, k_max: 3.5}"),
            ["physics.forcing: the shell 2.5 <= |k| <= 3.5 holds no energy at the start"], work, before)
    refused("magnetic band forcing of a zero b",
            run_and_check(work, "small.yaml", "--set", "physics.magnetic={type: mhd, prandtl: 1, forcing: "
                          "{type: band, power: 1, k_min: 1, k_max: 2.5}}"),
            ["physics.magnetic.forcing: the shell 1 <= |k| <= 2.5 holds no energy", "physics.magnetic.initial"],
            work, before)
    # A field whose energy overflows the precision (the scan sums 1/2 |u|^2 over the points before dividing):
    # its shell holds 5e307 of an infinite total, which had been called "no energy"; said as what it is.
    band = "physics.forcing={type: band, power: 1, k_min: 1, k_max: 2.5}"
    refused("band forcing of a field whose energy overflows",
            run_and_check(work, "small.yaml", "--set", band, "--set", "initial.amplitude=2e154"),
            ["physics.forcing: the energy at the start overflows double precision", "initial.amplitude from"],
            work, before)
    # A seed so weak that the constant power's amplitude P / (2 E_band), times the 4096 points that band
    # forcing joins the transforms with, passes the precision's largest number: the first stage was infinite,
    # a "blow-up at step 1" advising a smaller time.cfl (Taylor-Green at 4e-154 in double holds 2e-308, at
    # 1e-18 in single 1.25e-37).
    for precision, amplitude in (("double", "4e-154"), ("single", "1e-18")):
        refused(f"band forcing of a seed too weak for {precision} precision",
                run_and_check(work, "small.yaml", "--set", band, "--set", f"initial.amplitude={amplitude}",
                              "--set", f"precision={precision}"),
                ["physics.forcing: a constant power of 1 into the shell 1 <= |k| <= 2.5", "needs an amplitude",
                 f"more than the step can apply in {precision} precision",
                 f"initial.amplitude from --set initial.amplitude={amplitude}"], work, before)
    # A velocity whose nonlinear term overflows the precision blows up at the first step whatever the step,
    # so advice on the step cannot help: refused naming the precision (the 16^3 vortex gives infinities from
    # an amplitude of 1e18 in single precision and 1e153 in double).
    refused("a velocity beyond single precision's range",
            run_and_check(work, "small.yaml", "--set", "precision=single", "--set", "initial.amplitude=1e18"),
            ["initial velocity", "may overflow single precision", "precision: double"], work, before)
    refused("a velocity beyond double precision's range",
            run_and_check(work, "small.yaml", "--set", "precision=double", "--set", "initial.amplitude=1e153"),
            ["initial velocity", "may overflow double precision"], work, before)
    refused("an adaptive step with no scale",
            run_and_check(work, "small.yaml", "--set", "initial.amplitude=0", "--set", "time.cfl=0.5"),
            ["time.cfl: the velocity is zero everywhere"], work, before)
    # A random field so weak that single precision cannot hold its modes (they fall below 1e-38): the run went
    # on from zeros without a word (found by fuzzing the configuration); the velocity's, b's and a scalar's.
    for what, settings, key in [
            ("velocity", ["initial.amplitude=", "initial.type=random", "initial.spectrum.energy=1e-90"],
             "initial.spectrum.energy"),
            ("b", ["physics.magnetic={type: mhd, prandtl: 1, initial: {type: random, energy: 1e-90}}"],
             "physics.magnetic.initial.energy"),
            ("scalar", ["physics.scalars=[{name: c, schmidt: 1, initial: {type: random, variance: 1e-90}}]"],
             "physics.scalars[0].initial.variance")]:
        refused(f"a random {what} too weak for single precision",
                run_and_check(work, "small.yaml", "--set", "precision=single",
                              *[word for setting in settings for word in ("--set", setting)]),
                [f"{key}: a random initial field of 1e-90 comes out as 0 in single precision",
                 "precision: double", f"{key.split('.')[0]}"], work, before)
    # A rotation or a magnetic background whose products with the velocity overflow the precision: refused by
    # the configuration, naming the key, by the start check's criterion (io/Config.cpp, check_term).
    refused("a rotation beyond double precision's range",
            run_and_check(work, "small.yaml", "--set", "physics.rotation=[0, 0, 1e300]"),
            ["physics.rotation: 2 |Omega| = 2e+300 may overflow double precision"], work, before)
    refused("a magnetic background beyond double precision's range",
            run_and_check(work, "small.yaml", "--set", "physics.magnetic={type: mhd, prandtl: 1, "
                          "background: [0, 0, 1e300]}"),
            ["physics.magnetic.background: |B0| = 1e+300 may overflow double precision"], work, before)
    # A weak seed under a constant power: the forcing's rate P / (2 E_band), 0.5 / E_band here, limits the
    # adaptive step, so the energy climbs by P t as it should (it blew up at the first step before).
    (work / "seed.yaml").write_text("""
grid: {n: 16}
backend: host
physics: {viscosity: 0.01, forcing: {type: band, power: 0.1}}
time: {t_end: 1}
initial: {type: random, spectrum: {energy: 1e-4, k0: 2}}
output: {directory: out, series_every: 1}
""")
    r = kolmo(1, "run", "seed.yaml", cwd=work)
    energy = []
    if r.returncode == 0:
        with h5py.File(work / "out/series.h5", "r") as f:
            energy, injection, dissipation, time = (f[n][...] for n in ("energy", "injection", "dissipation", "time"))
    gained = float(energy[-1] - energy[0]) if len(energy) else float("nan")
    budget = float(np.sum(0.5 * (injection[1:] - dissipation[1:] + injection[:-1] - dissipation[:-1])
                          * np.diff(time))) if len(energy) else float("nan")
    check(r.returncode == 0 and abs(gained - budget) < 1e-3 * 0.1 and 0.05 < gained < 0.1,
          f"a forced run from a weak seed (E = 1e-4, P = 0.1, t = 1): gains {gained:.5g}, budget {budget:.5g} "
          f"({r.stderr.strip()[-200:]})")

    # A decaying flow long after its decay: the CFL step grows as the velocity fades, and rk3's stage with its
    # integrating factor run backward, exp(+nu k^2 dt / 2), blew up near t = 960 (lsrk4's, exp(+0.0185 nu k^2
    # dt), had not by t = 3000). The adaptive step stays below the limit, so both end; a fixed step beyond it
    # is warned about.
    work = root / "decayed"
    work.mkdir()
    (work / "decay.yaml").write_text("""
grid: {n: 16}
backend: host
physics: {viscosity: 0.01}
time: {cfl: 0.6, t_end: 3000}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 0, progress_every: 0}
""")
    for integrator in ("rk3", "lsrk4"):
        r = kolmo(1, "run", "decay.yaml", "--set", f"time.integrator={integrator}", "--set",
                  f"output.directory={integrator}", cwd=work)
        check(r.returncode == 0 and "t = 3000" in r.stdout,
              f"{integrator}: an adaptive step on a decayed flow runs to t = 3000 ({r.stderr.strip()[-200:]})")
    # A Navier-Stokes run has its checkpoints/ even when it writes none on schedule (a signal writes one).
    check((work / "rk3/checkpoints").is_dir(), "a Navier-Stokes run without scheduled checkpoints has checkpoints/")
    r = kolmo(1, "check", "decay.yaml", "--set", "time.integrator=rk3", "--set", "time.cfl=", "--set",
              "time.dt=100", "--set", "initial.spectrum.energy=1e-12", cwd=work)  # a decayed start
    check(r.returncode == 0 and "warning: time.dt = 100 makes a stage of rk3" in r.stderr,
          f"a fixed step beyond rk3's integrating-factor limit is warned about ({r.stderr.strip()[:200]})")

    # --- The run ends at t_end exactly (8 steps of 0.1 add up to 0.7999999999999999).
    work = root / "t_end"
    work.mkdir()
    (work / "tg.yaml").write_text("""
grid: {n: 12}
backend: host
time: {dt: 0.1, t_end: 0.8}
initial: {type: taylor_green}
output: {directory: out, checkpoint_every: 100}
""")
    r = kolmo(1, "run", "tg.yaml", cwd=work)
    with h5py.File(work / "out/series.h5", "r") as f:
        times = f["time"][...]
    with h5py.File(work / "out/checkpoints/checkpoint.h5", "r") as f:
        final_time, final_step = float(f.attrs["time"]), int(f.attrs["step"])
    check(r.returncode == 0 and times[-1] == 0.8 and final_time == 0.8 and final_step == 8,
          f"the run ends at t_end exactly: {final_time!r} after {final_step} steps, series {times[-1]!r}")

    # --- The host memory estimate of kolmo check against the measured peak resident memory, on a grid whose
    # fields dominate and one where the program does: both within the estimate, and the difference (what the
    # grid adds) within 10 %. One rank started directly, so that its own peak is measured. RK4 holds 12 slabs
    # of fields (with the FFT's scratch), lsrk4 9: a count off by one vector field (3 slabs) is 15 % of it.
    # MHD with lsrk4 holds 15 (its own divergence form with b's state and stage field).
    # Under AddressSanitizer (tools/check_sanitizers.sh) freed memory is held back and every allocation
    # padded, so the peak says nothing of kolmo's own: skipped there, and said so.
    if os.environ.get("KOLMO_SANITIZED"):
        print("skipped: the memory estimate against the measured peak (KOLMO_SANITIZED: a sanitizer's peak)")
    else:
        work = root / "memory"
        work.mkdir()
        mhd_physics = "physics: {magnetic: {type: mhd, prandtl: 1, initial: {type: orszag_tang, amplitude: 0.8}}}"
        for integrator, physics, initial, fields in (
                ("rk4", "", "taylor_green", "velocity, vorticity, pressure"),
                ("lsrk4", "", "taylor_green", "velocity, vorticity, pressure"),
                ("lsrk4", mhd_physics, "orszag_tang", "velocity, magnetic, current")):
            (work / "big.yaml").write_text(f"""
grid: {{n: 128}}
backend: host
{physics}
time: {{integrator: {integrator}, dt: 0.001, steps: 1}}
initial: {{type: {initial}}}
output: {{directory: out, overwrite: true, fields: [{fields}], fields_every: 1,
         checkpoint_every: 1}}
""")
            measured, estimated = {}, {}
            for n in (16, 128):
                r = kolmo(1, "check", "big.yaml", "--set", f"grid.n={n}", cwd=work)
                found = re.search(r"# memory: host ([0-9.]+) MiB", r.stdout)
                estimated[n] = float(found.group(1)) if found else float("nan")
                probe = ("import resource, subprocess, sys\n"
                         "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
                         "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
                out = subprocess.run([sys.executable, "-c", probe, args.kolmo, "run", "big.yaml", "--set",
                                      f"grid.n={n}"], cwd=work, capture_output=True, text=True,
                                     env=dict(os.environ, OMP_NUM_THREADS="1"))
                code, kib = out.stdout.split()
                measured[n] = int(kib) / 1024 if code == "0" else float("nan")
            grown, predicted = measured[128] - measured[16], estimated[128] - estimated[16]
            check(all(measured[n] <= estimated[n] for n in measured) and abs(grown - predicted) <= 0.1 * predicted,
                  f"{integrator}{' MHD' if physics else ''}: memory per rank, estimated against measured peak: {estimated} MiB against "
                  f"{measured} MiB; the 128^3 grid adds {predicted:.1f} MiB estimated, {grown:.1f} MiB measured")

print(f"broken inputs: {len(broken)} tried, {sum(ok for _, ok in broken)} refused with one line, exit status 1 "
      f"and nothing written")
finish()
