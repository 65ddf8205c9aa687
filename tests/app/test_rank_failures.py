#!/usr/bin/python3
"""A failure on one rank only stops every rank with one line, instead of leaving the run hanging (run by
ctest; needs /usr/bin/python3 with h5py, and the test library tests/FailingAllocation.c).

kolmo's rule is that ranks agree before they fail. Each case here is an MPMD launch of 3 ranks on the
uneven grid 32 x 30 x 28 (rank 2 holds 10 x planes, the others 11) in which rank 2 alone has
tests/FailingAllocation.c preloaded: after it opened a given file, its first allocation of a given size
fails (std::bad_alloc), standing for memory that ran out on that rank alone. Each place below held a
parallel HDF5 file open, so the failing rank, left alone with its std::bad_alloc, waited for ever in that
file's close (collective: MPI_File_close's barrier) while the other ranks waited in the transfer's next
collective call, and kolmo's last resort (main.cpp: the failing ranks end the job after 5 s) was never
reached: every case hung until killed. Now the allocation is agreed (io::resize_on_every_rank), and each
run ends within the time limit with exit status 1 and one line that names rank 2 and what it could not
allocate:
- the slab of initial.file's dataset u (app/Inputs.cpp), with the file open: nothing is written;
- the buffer that reads a right-hand side stored x fastest (a kolmo dump, io/SlabTransfer.cpp);
- the same buffer writing the field dump of step 0: no temporary file is left, and status says "failed";
- the buffer that verifies the chunks of a checkpoint of another grid named by --checkpoint
  (io/BlockTransfer.cpp).
"""
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import args, check, finish, kolmo, launch, snapshot  # noqa: E402

try:
    import h5py
except ImportError:  # pragma: no cover
    print("SKIPPED: /usr/bin/python3 lacks h5py")
    sys.exit(0)

if os.environ.get("KOLMO_SANITIZED"):
    # The library's malloc would displace AddressSanitizer's (tools/check_sanitizers.sh).
    print("SKIPPED: a preloaded malloc does not mix with AddressSanitizer (KOLMO_SANITIZED)")
    sys.exit(77)
if not args.failing_allocation or not os.path.isfile(args.failing_allocation):
    print("SKIPPED: no --failing-allocation library (tests/FailingAllocation.c)")
    sys.exit(77)

TIME_LIMIT = 120  # seconds a run may take before it counts as hung (each takes a few when it does not)
GRID = (32, 30, 28)
RANK2_PLANES = 10  # 32 x planes over 3 ranks: 11, 11, 10
SLAB_BYTES = RANK2_PLANES * GRID[1] * GRID[2] * 8  # rank 2's real slab in double precision (65.6 KiB)
FLOW = f"""
grid: {{n: {list(GRID)}}}
precision: double
backend: host
physics: {{viscosity: 0.01}}
time: {{integrator: rk3, dt: 0.01, steps: 2}}
output: {{directory: out, series_every: 1, progress_every: 0, spectra_every: 0, checkpoint_every: 0,
         fields_every: 0}}
"""


def with_rank2_failing(work, arguments, fail_bytes, after_open):
    """kolmo `arguments` on 3 ranks, rank 2 with its first allocation of fail_bytes after it opened a file whose
    path ends with after_open failing."""
    command = [args.mpiexec, "-n", "2", args.kolmo, *arguments, ":", "-n", "1", "env",
               f"LD_PRELOAD={args.failing_allocation}", f"KOLMO_TEST_FAIL_BYTES={fail_bytes}",
               f"KOLMO_TEST_FAIL_AFTER_OPEN={after_open}", args.kolmo, *arguments]
    return launch(command, work, TIME_LIMIT, None)


def stopped_cleanly(r, what, expected):
    """Ended in time, exit status 1, one kolmo line holding every expected text (the library's own line
    aside)."""
    injected = any(line.startswith("[failing allocation]") for line in r.stderr.splitlines())
    lines = [line for line in r.error_lines() if not line.startswith("[failing allocation]")]
    check(injected, f"{what}: rank 2's allocation was made to fail")
    check(not r.timed_out, f"{what}: the run ends within {TIME_LIMIT} s (no hang)")
    check(r.returncode == 1, f"{what}: exit status 1 (got {r.returncode})")
    check(len(lines) == 1 and all(e in lines[0] for e in expected),
          f"{what}: one line holding {expected}: {lines[:3]}")


def random_flow(work):
    """A fresh folder work holding flow.yaml: FLOW from a random field."""
    work.mkdir()
    (work / "flow.yaml").write_text(FLOW + "initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 3}\n")
    return work


with tempfile.TemporaryDirectory(prefix="kolmo-rank-failures-") as tmp:
    root = pathlib.Path(tmp)

    # A dump at step 0 of a divergence-free flow, stored x fastest: the right-hand side of the Poisson case, and
    # transposed, the initial.file of the first case.
    work = random_flow(root / "initial")
    r = kolmo(3, "run", "flow.yaml", "--set", "output.fields_every=100", "--set", "output.directory=source",
              cwd=work, timeout=TIME_LIMIT)
    check(r.returncode == 0, f"a run on 3 ranks writes a field dump ({r.stderr.strip()[:300]})")
    dump = work / "source/fields/fields_000000.h5"
    with h5py.File(dump, "r") as source, h5py.File(work / "initial.h5", "w") as f:
        for name in ("u", "v", "w"):  # [Nx][Ny][Nz], no axis_order: read straight into the slabs
            f[name] = source[name][...].transpose()

    # --- initial.file's slab of u, allocated on every rank with the file open.
    (work / "from_file.yaml").write_text(FLOW + "initial: {type: file, file: initial.h5}\n")
    before = snapshot(work)
    r = with_rank2_failing(work, ["run", "from_file.yaml"], SLAB_BYTES, "initial.h5")
    stopped_cleanly(r, "initial.file: rank 2 out of memory for its slab",
                    ["initial.file", "out of memory: rank 2", "initial.h5 dataset 'u'"])
    check(snapshot(work) == before, "initial.file: nothing written")

    # --- The buffer that reads a right-hand side stored x fastest, with the file open.
    (work / "poisson.yaml").write_text(
        f"problem: poisson\ngrid: {{n: {list(GRID)}}}\nbackend: host\nprecision: double\n"
        "poisson: {subtract_mean: true, rhs: {type: file, file: source/fields/fields_000000.h5, dataset: u}}\n"
        "output: {directory: phi}\n")
    before = snapshot(work)
    r = with_rank2_failing(work, ["run", "poisson.yaml"], SLAB_BYTES, "fields_000000.h5")
    stopped_cleanly(r, "poisson.rhs.file: rank 2 out of memory for the buffer that reads it",
                    ["poisson.rhs.file", "fields_000000.h5 dataset 'u'", "out of memory: rank 2",
                     "the buffer that turns its z planes"])
    check(snapshot(work) == before, "poisson.rhs.file: nothing written")

    # --- The same buffer writing the field dump of step 0.
    work = random_flow(root / "dump")
    r = with_rank2_failing(work, ["run", "flow.yaml", "--set", "output.fields_every=100"], SLAB_BYTES,
                           "fields_000000.h5.tmp")
    stopped_cleanly(r, "a field dump: rank 2 out of memory for the buffer that writes it",
                    ["fields_000000.h5 dataset 'u'", "out of memory: rank 2",
                     "the buffer that turns its z planes"])
    fields = sorted(p.name for p in (work / "out/fields").iterdir())
    check(fields == [], f"a field dump: no temporary file left behind ({fields})")
    status = (work / "out/status").read_text().strip() if (work / "out/status").exists() else ""
    check(status.startswith("failed: ") and "out of memory: rank 2" in status, f"a field dump: status {status}")

    # --- The buffer that verifies the chunks of a checkpoint of another grid (--checkpoint).
    work = random_flow(root / "checkpoint")
    r = kolmo(3, "run", "flow.yaml", "--set", "output.checkpoint_every=100", "--set", "output.directory=a",
              cwd=work, timeout=TIME_LIMIT)
    check(r.returncode == 0, f"a run on 3 ranks writes a checkpoint ({r.stderr.strip()[:300]})")
    # The pass that verifies it resamples it through one buffer, the same on every rank: here every kx row
    # (one chunk a ky plane) of every ky plane, of every kz (32 x 30 x 15 complex doubles).
    buffer_bytes = GRID[0] * GRID[1] * (GRID[2] // 2 + 1) * 16
    before = snapshot(work)
    r = with_rank2_failing(work, ["run", "flow.yaml", "--set", "grid.n=[32, 30, 26]", "--set",
                                  "output.directory=b", "--checkpoint", "a/checkpoints/checkpoint.h5"],
                           buffer_bytes, "checkpoint.h5")
    stopped_cleanly(r, "--checkpoint of another grid: rank 2 out of memory verifying its chunks",
                    ["--checkpoint", "checkpoint.h5", "out of memory: rank 2",
                     "the buffer that verifies and resamples its chunks"])
    check(snapshot(work) == before, "--checkpoint: nothing written")

finish()
