#!/usr/bin/python3
"""Test of tools/kolmo_post.py on a synthetic run directory written with h5py in the solver's layout.

Usage: test_post.py PATH/TO/kolmo_post.py. Exit 0 on success, 1 on failure, 77 (skipped) without h5py,
numpy or matplotlib. The numbers are analytical: energy E(t) = E0 exp(-2 t), so -dE/dt = 2 E; spectra are
k^-5/3 times a factor per time; an MHD series whose E_M/E_V, Omega_M/Omega_V and dissipation have known
extrema, with a reference file in M3LB's format, for tgmhd; MHD and Boussinesq series whose total energy
decays at the total dissipation while the kinetic energy exchanges energy with b (or the potential energy);
a mixing run in a box of side pi (shells of width 2) whose spectral densities are exactly Kolmogorov's and
Obukhov-Corrsin's, at unevenly spaced times; mixing's rho along a gradient of either sign; the same run with its scalar named th (mixing picks it
without --scalar) and with others beside it; a series.h5 and a spectra.h5 with a bit flipped in a chunk (one
line saying the file is damaged); --time not finite, before the first spectra or after the last; files locked
by a run still writing them and plots that cannot be written (one line each). Poisson runs (no series or
spectra): phi = -f/5 for f = sin(x) cos(2y) with lambda = 0, and a shifted case (lambda = 3, a box of sides
2 pi, 4 pi, pi, a mean mode) stored either axis order, whose residual ||lap(phi) - lambda phi - f|| / ||f|| and
gradient difference must be at round-off, and perturbed or sign-flipped solutions, a wrong shift or gradient
that must be seen; all on them writes slices of phi and f; summary and all read config.yaml once. gradients
(spectral velocity derivatives) on two fields in boxes of unequal sides whose moments are in closed form: a
Taylor-Green cell (skewness 0, flatness 27/8, w's derivatives zero and left out of the means, <|omega|^2>
exact, <|omega|^2> / <|grad u|^2> = 1, divergence at round-off, a mode at x's Nyquist wavenumber whose
x-derivative must be dropped) and a field of skewed derivatives, not divergence-free (skewness -0.759 and
0.484, flatness 1.98 and 1.666, transverse flatness 3/2, the ratio and divergence in closed form), stored
either axis order, picked by --step; a missing 2 pi / L, a flipped sign, a kept Nyquist mode or a wrong
vorticity fails them; no dumps, a Poisson dump, a dump without w or a step not dumped: one line each; all
leaves it out (it holds seven fields of a dump at once).
"""

import contextlib
import importlib.util
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # importing the tool leaves no __pycache__ in the source tree

try:
    import h5py
    import matplotlib  # noqa: F401  (the tool needs it)
    import numpy as np
except ImportError as error:
    print(f"SKIPPED: the post-processing test needs h5py, numpy and matplotlib ({error})")
    sys.exit(77)

REPOSITORY = Path(__file__).resolve().parents[2]
TOOL = Path(sys.argv[1]) if len(sys.argv) > 1 else REPOSITORY / "tools" / "kolmo_post.py"
GRID = (8, 6, 4)
BOX = (2 * np.pi, 2 * np.pi, np.pi)
TIMES = np.linspace(0.0, 2.0, 41)
STEPS = np.arange(41, dtype=np.int64) * 25
ENERGY = 0.75 * np.exp(-2.0 * TIMES)
K = np.arange(1, 17, dtype=float)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAILED: {what}")


def attempt(what, function, *arguments):
    """function(*arguments), or None and a failure when it raises (a tool without the function included)."""
    try:
        return function(*arguments)
    except Exception as error:  # noqa: BLE001 (any error of the tool is a failed check, not a crashed test)
        check(False, f"{what}: {type(error).__name__}: {error}")
        return None


def field(x, y, z, component):
    return np.sin(x + component) * np.cos(2 * y) + 0.1 * z


def make_run(run):
    (run / "fields").mkdir(parents=True)
    (run / "checkpoints").mkdir()
    (run / "config.yaml").write_text("grid: [8, 6, 4]\n")
    with h5py.File(run / "series.h5", "w") as file:
        columns = {"time": TIMES, "step": STEPS, "dt": np.full(41, 0.05), "energy": ENERGY,
                   "enstrophy": 3 * ENERGY, "dissipation": 2 * ENERGY, "injection": np.zeros(41),
                   "divergence_max": np.full(41, 1e-14), "cfl": np.full(41, 0.4),
                   "reynolds_lambda": np.linspace(40, 30, 41), "kolmogorov_eta": np.full(41, 0.02),
                   "kmax_eta": np.linspace(1.0, 1.5, 41), "theta_variance": 0.5 * ENERGY,
                   "theta_dissipation": ENERGY,
                   # a mean gradient along z: rho = -0.4 and r = 1 exactly; production = chi + d<theta^2>/dt
                   "theta_flux_x": 1e-3 * ENERGY, "theta_flux_y": -1e-3 * ENERGY,
                   "theta_flux_z": -0.4 * np.sqrt(2 * ENERGY / 3) * np.sqrt(0.5 * ENERGY),
                   "theta_production": ENERGY - ENERGY}
        for name, values in columns.items():
            file.create_dataset(name, data=values, maxshape=(None,), chunks=(64,), fletcher32=True)
    with h5py.File(run / "spectra.h5", "w") as file:
        file["k"] = K
        spectra_times = np.array([0.0, 1.0, 2.0])
        file.create_dataset("time", data=spectra_times, maxshape=(None,), fletcher32=True)
        file.create_dataset("step", data=np.array([0, 500, 1000], dtype=np.int64), maxshape=(None,), fletcher32=True)
        energy = np.array([(1.0 + i) * K ** (-5.0 / 3.0) for i in range(3)])
        file.create_dataset("energy_spectrum", data=energy, maxshape=(None, K.size), fletcher32=True)
        file.create_dataset("transfer", data=np.zeros((3, K.size)), maxshape=(None, K.size))
        file.create_dataset("flux", data=np.ones((3, K.size)), maxshape=(None, K.size))
        for name, factor in (("theta", 2.0), ("b", 0.5)):  # scalar variance spectra, k^-5/3 each
            file.create_dataset(f"{name}_spectrum", data=factor * energy, maxshape=(None, K.size))
            file.create_dataset(f"{name}_transfer", data=np.zeros((3, K.size)), maxshape=(None, K.size))
            file.create_dataset(f"{name}_flux", data=np.zeros((3, K.size)), maxshape=(None, K.size))
    x, y, z = np.meshgrid(*[np.arange(n) * BOX[d] / n for d, n in enumerate(GRID)], indexing="ij")
    for step, time in ((0, 0.0), (1000, 2.0)):
        with h5py.File(run / "fields" / f"fields_{step:06d}.h5", "w") as file:
            # As kolmo writes them, x fastest [Nz][Ny][Nx]; the first dump as other tools may write it,
            # [Nx][Ny][Nz] without the attribute.
            for component, name in enumerate("uvw"):
                values = field(x, y, z, component) * (1 + step)
                file[name] = values.transpose() if step else values
            if step:
                file.attrs["axis_order"] = np.bytes_("z y x")
            file.attrs["time"] = time
            file.attrs["step"] = np.int64(step)
            file.attrs["grid"] = np.array(GRID, dtype=np.int64)
            file.attrs["box"] = np.array(BOX)
            file.attrs["viscosity"] = 0.01
            file.attrs["precision"] = np.bytes_("double")
    # A dump being written when the run was killed is not a dump.
    (run / "fields" / "fields_002000.h5.tmp").write_bytes(b"partial")
    with h5py.File(run / "checkpoints" / "checkpoint.h5", "w") as file:
        file.attrs["grid"] = np.array(GRID, dtype=np.int64)


# The tgmhd run: E_M/E_V = 1 - 0.6 sin(pi t / 14) (minimum 0.4 at t = 7), Omega_M/Omega_V =
# 3 + cos(pi t / 2) exp(-t / 10) (falls from 4, first maximum near t = 4) and a total dissipation
# 0.03 exp(-(t - 4.2)^2) split evenly; the reference's E_M/E_V dips to 0.35 instead.
TG_TIMES = np.arange(0.0, 10.0001, 0.05)


def tg_energy_ratio(t, depth=0.6):
    return 1 - depth * np.sin(np.pi * t / 14)


def tg_enstrophy_ratio(t):
    return 3 + np.cos(np.pi * t / 2) * np.exp(-t / 10)


def tg_dissipation(t):
    return 0.03 * np.exp(-(t - 4.2) ** 2)


def make_mhd_run(run):
    run.mkdir(parents=True)
    t = TG_TIMES
    kinetic, enstrophy = 0.125 * np.exp(-0.1 * t), 0.375 * (1 + t)
    with h5py.File(run / "series.h5", "w") as file:
        for name, values in {"time": t, "energy": kinetic, "magnetic_energy": tg_energy_ratio(t) * kinetic,
                             "enstrophy": enstrophy, "magnetic_enstrophy": tg_enstrophy_ratio(t) * enstrophy,
                             "dissipation": 0.5 * tg_dissipation(t),
                             "magnetic_dissipation": 0.5 * tg_dissipation(t)}.items():
            file[name] = values


# Energy exchanged at a rate W between two energies: S(t) = int_0^t sin(2 s) exp(-s) ds in closed form.
BALANCE_TIMES = np.arange(0.0, 2.0001, 0.01)


def exchange_integral(t):
    return (2 - np.exp(-t) * (np.sin(2 * t) + 2 * np.cos(2 * t))) / 5


def write_series(path, columns):
    with h5py.File(path, "w") as file:
        for name, values in columns.items():
            file[name] = values


def balanced_mhd_columns(t=BALANCE_TIMES):
    """u and b forced at 0.05 and 0.03, dissipated at 0.3 exp(-t) and 0.2 exp(-2t), the Lorentz force moving
    W = 0.4 sin(2t) exp(-t) from u to b: d(E + E_b)/dt = 0.08 - eps_u - eps_b exactly, while dE/dt is off
    by W (up to 0.2)."""
    kinetic = 0.6 + 0.05 * t - 0.3 * (1 - np.exp(-t)) - 0.4 * exchange_integral(t)
    magnetic = 0.4 + 0.03 * t - 0.1 * (1 - np.exp(-2 * t)) + 0.4 * exchange_integral(t)
    return {"time": t, "step": np.arange(t.size, dtype=np.int64), "energy": kinetic, "enstrophy": 10 * kinetic,
            "dissipation": 0.3 * np.exp(-t), "injection": np.full(t.size, 0.05), "magnetic_energy": magnetic,
            "magnetic_enstrophy": 10 * magnetic, "magnetic_dissipation": 0.2 * np.exp(-2 * t),
            "magnetic_injection": np.full(t.size, 0.03), "cross_helicity": 0.1 * kinetic,
            "magnetic_helicity": 0.2 * magnetic, "current_max": 3 + t}


def make_balanced_mhd_run(run, rows=None):
    run.mkdir(parents=True)
    columns = balanced_mhd_columns()
    write_series(run / "series.h5", {name: values[:rows] for name, values in columns.items()})
    with h5py.File(run / "spectra.h5", "w") as file:  # MHD's spectra: magnetic_spectrum without a flux
        file["k"], file["time"], file["step"] = np.arange(0.0, 9.0), np.array([0.0, 2.0]), np.array([0, 200])
        shells = np.array([[0.0, *(f * np.arange(1.0, 9.0) ** (-5 / 3))] for f in (1.0, 0.5)])
        for name in ("energy_spectrum", "transfer", "flux", "magnetic_spectrum", "magnetic_transfer"):
            file[name] = shells


def boussinesq_columns(t=BALANCE_TIMES, n2=4.0):
    """Unforced, N2 = 4: the buoyancy flux B = 0.3 sin(2t) exp(-t) moves energy from the potential energy
    <b^2>/(2 N2) to the kinetic; eps = 0.2 exp(-t), chi_b / (2 N2) = 0.1 exp(-t); d<b^2>/dt = -2 N2 B - chi_b,
    so d(E + E_p)/dt = -eps - chi_b / (2 N2) exactly, and dE/dt = -eps + B."""
    kinetic = 0.5 - 0.2 * (1 - np.exp(-t)) + 0.3 * exchange_integral(t)
    potential = 0.3 - 0.1 * (1 - np.exp(-t)) - 0.3 * exchange_integral(t)
    flux = 0.3 * np.sin(2 * t) * np.exp(-t)
    return {"time": t, "step": np.arange(t.size, dtype=np.int64), "energy": kinetic, "enstrophy": 10 * kinetic,
            "dissipation": 0.2 * np.exp(-t), "injection": np.zeros(t.size), "b_variance": 2 * n2 * potential,
            "b_dissipation": 2 * n2 * 0.1 * np.exp(-t), "b_production": -2 * n2 * flux,
            "b_flux_x": np.zeros(t.size), "b_flux_y": np.zeros(t.size), "b_flux_z": flux,
            "potential_energy": potential, "buoyancy_flux": flux}


# The mixing run in a box of side pi: shells k = 2 s of width dk = 2 (k[0] = 0, as the solver writes them).
# The spectral densities are C_K eps^(2/3) k^(-5/3) and C_OC (chi/2) eps^(-1/3) k^(-5/3), so the shell sums
# are dk times them; the series' rows crowd in t < 1 (an adaptive dt) and the spectra's amplitude grows as
# a(t) = t, whose mean over 0..2 is 1 by time (0.575 over the four rows).
PI_BOX_K = 2.0 * np.arange(0, 17)
PI_BOX_TIMES = np.concatenate([np.linspace(0.0, 1.0, 101), np.linspace(1.1, 2.0, 10)])
PI_BOX_SPECTRA_TIMES = np.array([0.0, 0.1, 0.2, 2.0])
MIXING_EPS, MIXING_CHI = 0.1, 0.05


def make_pi_box_mixing_run(run, scalar="theta"):
    run.mkdir(parents=True)
    t = PI_BOX_TIMES
    ones = np.ones(t.size)
    energy = 1 + t  # its mean over 0..2 by time is 2 (the trapezoid rule is exact); over the rows 1.59
    write_series(run / "series.h5", {
        "time": t, "step": np.arange(t.size, dtype=np.int64), "energy": energy, "dissipation": MIXING_EPS * ones,
        "injection": MIXING_EPS * ones, "kolmogorov_eta": 0.01 * ones, f"{scalar}_variance": ones,
        f"{scalar}_dissipation": MIXING_CHI * ones, f"{scalar}_production": MIXING_CHI * ones,
        f"{scalar}_flux_x": 0 * ones, f"{scalar}_flux_y": 0 * ones, f"{scalar}_flux_z": -0.3 * ones})
    k = PI_BOX_K
    shape = np.where(k > 0, k, 1.0) ** (-5 / 3) * (k > 0) * 2.0  # density k^-5/3 times dk = 2; 0 at k = 0
    with h5py.File(run / "spectra.h5", "w") as file:
        file["k"], file["time"] = k, PI_BOX_SPECTRA_TIMES
        file["step"] = np.arange(PI_BOX_SPECTRA_TIMES.size, dtype=np.int64)
        amplitude = PI_BOX_SPECTRA_TIMES[:, None]
        file["energy_spectrum"] = amplitude * 1.5 * MIXING_EPS ** (2 / 3) * shape
        file[f"{scalar}_spectrum"] = amplitude * 0.67 * (MIXING_CHI / 2) * MIXING_EPS ** (-1 / 3) * shape
        for name in ("transfer", "flux", f"{scalar}_transfer", f"{scalar}_flux"):
            file[name] = np.zeros((PI_BOX_SPECTRA_TIMES.size, k.size))


def add_scalar(run, name, production):
    """Columns of one more scalar in a run's series.h5, its production as given (0: no mean gradient)."""
    with h5py.File(run / "series.h5", "a") as file:
        rows = file["time"].shape[0]
        for part, value in (("variance", 1.0), ("dissipation", 0.1), ("production", production),
                            ("flux_x", 0.0), ("flux_y", 0.0), ("flux_z", 0.0)):
            file[f"{name}_{part}"] = np.full(rows, value)


def flip_bit(path, dataset):
    """One bit flipped inside the first chunk of a dataset written with a Fletcher32 checksum."""
    with h5py.File(path, "r") as file:
        check(file[dataset].fletcher32, f"{path.name} {dataset} is written with a checksum")
        offset = file[dataset].id.get_chunk_info(0).byte_offset + 3
    with open(path, "r+b") as file:
        file.seek(offset)
        byte = file.read(1)[0]
        file.seek(offset)
        file.write(bytes([byte ^ 0x10]))


def balance_line(out):
    """The tool's 'energy balance of ...' line and the mismatch it gives (after '= '), or (None, None)."""
    for line in out.splitlines():
        if line.startswith("energy balance of") and "= " in line:
            try:
                return line, float(line.split("= ")[1].split()[0])
            except ValueError:
                return line, None
    return None, None


def write_m3lb_reference(path, columns=("t", "E_V", "E_M", "E_T", "Omega_V", "Omega_M", "eps", "j_max")):
    t = np.arange(0.0, 10.0001, 0.1)
    values = {"t": t, "E_V": 0.125 * np.exp(-0.1 * t), "Omega_V": 0.375 * (1 + t), "eps": tg_dissipation(t),
              "j_max": 3 + t}
    values["E_M"] = tg_energy_ratio(t, 0.65) * values["E_V"]
    values["E_T"] = values["E_V"] + values["E_M"]
    values["Omega_M"] = tg_enstrophy_ratio(t) * values["Omega_V"]
    np.savetxt(path, np.column_stack([values[name] for name in columns]),
               header="tg_mhd (CUDA FP64)  N=512 Re=1000\n" + " ".join(columns))


# Poisson runs: lap(phi) - lambda phi = f (solver/Poisson.hpp). f = sin(x) cos(2y) (|k|^2 = 5) on a 2 pi box
# with lambda = 0 has phi = -f / 5; on a box (2 pi, 4 pi, pi), where cos(2y) is mode 4 along y and cos(2z) mode
# 2 along z, f = sin(x) cos(2y) + 0.5 cos(2z) + 0.25 with lambda = 3 has phi = -sin(x) cos(2y) / 8 -
# 0.5 cos(2z) / 7 - 0.25 / 3 (the mean mode too).
POISSON_CONFIG = """# kolmo run configuration, resolved: every key in use, defaults filled in (~: not set).
grid:
  n: [{n}]                              # grid points along x, y, z
  box: [{box}]                          # box lengths Lx, Ly, Lz
precision: double                       # floating-point precision of the fields and transforms
problem: poisson                        # what to solve
poisson:
  shift: {shift}                            # lambda in laplacian(phi) - lambda phi = f; 0 is the pure Poisson problem
  rhs:
    type: file                          # right-hand side: manufactured from a known solution, or read from a file
    file: "rhs #1.h5"                   # HDF5 file holding f on grid.n; must exist
    dataset: f                          # name of f's dataset in the file
  subtract_mean: false                  # subtract the mean of f before solving
  gradient: {gradient}                       # also compute and write the gradient of phi
output:
  directory: "runs/poisson"             # where output goes
"""


def poisson_case(shifted):
    """grid, box, lambda, f, phi and grad phi, [x][y][z], of one of the two exact solutions."""
    if shifted:
        grid, box, shift = (8, 12, 5), (2 * np.pi, 4 * np.pi, np.pi), 3.0
    else:
        grid, box, shift = (8, 6, 4), (2 * np.pi, 2 * np.pi, 2 * np.pi), 0.0
    x, y, z = np.meshgrid(*[np.arange(n) * box[d] / n for d, n in enumerate(grid)], indexing="ij")
    wave = np.sin(x) * np.cos(2 * y)
    if shifted:
        f = wave + 0.5 * np.cos(2 * z) + 0.25
        phi = -wave / 8 - 0.5 * np.cos(2 * z) / 7 - 0.25 / 3
        gradient = (-np.cos(x) * np.cos(2 * y) / 8, 2 * np.sin(x) * np.sin(2 * y) / 8, np.sin(2 * z) / 7)
    else:
        f, phi = wave, -wave / 5
        gradient = (-np.cos(x) * np.cos(2 * y) / 5, 2 * np.sin(x) * np.sin(2 * y) / 5, np.zeros(grid))
    return grid, box, shift, f, phi, gradient


def make_poisson_run(run, shifted=False, phi=None, gradient=True, config=True, shift=None, kolmo_order=True,
                     stored_shift=None):
    """A Poisson run's directory as the solver writes it: config.yaml, status, fields/fields_000000.h5 of phi, f
    (and phi_x, phi_y, phi_z), [Nz][Ny][Nx] with axis_order 'z y x' (kolmo_order) or [Nx][Ny][Nz] without it;
    the dump's attribute shift where stored_shift is given (as kolmo writes it since 2026-11-29)."""
    grid, box, exact_shift, f, exact_phi, exact_gradient = poisson_case(shifted)
    phi = exact_phi if phi is None else phi
    gradient = exact_gradient if gradient is True else gradient
    (run / "fields").mkdir(parents=True)
    if config:
        (run / "config.yaml").write_text(POISSON_CONFIG.format(
            n=", ".join(map(str, grid)), box=", ".join("2pi" if length == 2 * np.pi else str(length) for length in box),
            shift=exact_shift if shift is None else shift, gradient="true" if gradient else "false"))
    (run / "status").write_text("finished: the Poisson problem solved\n")
    with h5py.File(run / "fields" / "fields_000000.h5", "w") as file:
        fields = {"phi": phi, "f": f}
        if gradient:
            fields.update(zip(("phi_x", "phi_y", "phi_z"), gradient))
        for name, values in fields.items():
            file[name] = values.transpose() if kolmo_order else values
        if kolmo_order:
            file.attrs["axis_order"] = np.bytes_("z y x")
        file.attrs["time"] = 0.0
        file.attrs["step"] = np.int64(0)
        file.attrs["grid"] = np.array(grid, dtype=np.int64)
        file.attrs["box"] = np.array(box)
        file.attrs["viscosity"] = 0.0
        file.attrs["precision"] = np.bytes_("double")
        if stored_shift is not None:
            file.attrs["shift"] = float(stored_shift)
    return run


def printed_number(text, label):
    """The number after the first '= ' on the line starting with label, or None."""
    for line in text.splitlines():
        if line.startswith(label):
            try:
                return float(line.split("= ", 1)[1].split()[0])
            except (IndexError, ValueError):
                return None
    return None


def gradient_numbers(text):
    """The three relative differences of the gradient line, or None."""
    for line in text.splitlines():
        if line.startswith("gradient: ||"):
            parts = line.split("= ", 1)[1].split(", ")
            return [float(part.split()[0]) for part in parts]
    return None


def config_reads(post, *arguments):
    """How often kolmo_post, run in this process with these arguments, opens a file named config.yaml (Python's
    audit events, which see every open whichever function makes it)."""
    opened = []
    state = {"counting": True}

    def hook(event, details):
        if state["counting"] and event == "open" and Path(str(details[0])).name == "config.yaml":
            opened.append(details[0])

    sys.addaudithook(hook)  # hooks stay for the process: this one stops counting below
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = post.main([*map(str, arguments)])
    finally:
        state["counting"] = False
    return code, len(opened)


def check_poisson(scratch, post):
    root = Path(scratch) / "poisson"
    cases = {}
    for name, options in (("pure", {}), ("shifted", {"shifted": True}),
                          ("shifted_xyz", {"shifted": True, "kolmo_order": False})):
        run = make_poisson_run(root / name, **options)
        code, out, err = run_tool("summary", run)
        cases[name] = out
        residual = printed_number(out, "residual:")
        check(code == 0 and err == "" and "problem: poisson (from config.yaml)" in out,
              f"summary of the {name} Poisson run: code {code}, stderr {err.strip()!r}")
        check(residual is not None and residual < 1e-10,
              f"{name} Poisson run: an exact phi has a residual at round-off: {residual} ({out!r})")
        gradient = gradient_numbers(out)
        check(gradient is not None and max(gradient) < 1e-10,
              f"{name} Poisson run: the exact gradient matches phi's spectral gradient: {gradient}")
    pure = summary_values(cases["pure"])
    shifted = summary_values(cases["shifted"])
    check(pure.get("grid", "").startswith("8 x 6 x 4 (from fields/fields_000000.h5")
          and shifted.get("grid", "").startswith("8 x 12 x 5 ("), f"Poisson grid: {pure.get('grid')!r}")
    check(shifted.get("box") == f"{2 * np.pi:.6g} x {4 * np.pi:.6g} x {np.pi:.6g}", f"box: {shifted.get('box')!r}")
    check(shifted.get("equation") == "lap(phi) - lambda phi = f, lambda = 3 (poisson.shift)"
          and pure.get("equation") == "lap(phi) - lambda phi = f, lambda = 0 (poisson.shift)",
          f"the shift read from config.yaml: {shifted.get('equation')!r}, {pure.get('equation')!r}")
    check(shifted.get("right-hand side") == "file rhs #1.h5", f"right-hand side: {shifted.get('right-hand side')!r}")
    _, _, _, f, phi, _ = poisson_case(False)
    stats = pure.get("f", "")
    check(stats == f"min {f.min():.6g}, max {f.max():.6g}, mean {f.mean():.6g}, rms {np.sqrt(np.mean(f * f)):.6g}",
          f"f's statistics: {stats!r}")
    check(pure.get("phi", "").startswith(f"min {phi.min():.6g}, max {phi.max():.6g}, "), f"phi: {pure.get('phi')!r}")
    _, _, _, f, phi, _ = poisson_case(True)
    check(f"mean {phi.mean():.6g}" in shifted.get("phi", "") and abs(phi.mean() + 0.25 / 3) < 1e-12,
          f"the shifted phi's mean is -<f> / lambda: {shifted.get('phi')!r}")
    match = re.search(r"^zero mode \(lambda = 0\): <phi> = (\S+) ", cases["pure"], re.MULTILINE)
    zero_mode = float(match.group(1)) if match else None
    check(zero_mode is not None and abs(zero_mode) < 1e-15 and "zero mode" not in cases["shifted"],
          f"lambda = 0: phi's mean is printed: {zero_mode}")

    # Wrong solutions: a perturbed phi, the wrong sign, a shift the run did not use, a phi off by a constant
    # (invisible to the residual for lambda = 0, so its mean is printed), a wrong gradient.
    x = np.arange(8)[:, None, None] * 2 * np.pi / 8
    for name, options, expected in (
            ("perturbed", {"phi": poisson_case(False)[4] + 1e-3 * np.cos(3 * x)}, 1e-3),
            ("sign", {"phi": -poisson_case(False)[4]}, 1.0),
            ("perturbed_shifted", {"shifted": True, "phi": poisson_case(True)[4] + 1e-4 * np.cos(3 * x)}, 1e-4),
            ("wrong_shift", {"shifted": True, "shift": 2.0}, 1e-2)):
        code, out, err = run_tool("summary", make_poisson_run(root / name, **options))
        residual = printed_number(out, "residual:")
        check(code == 0 and residual is not None and residual > expected,
              f"{name}: a wrong phi has a large residual: {residual} (code {code}, stderr {err.strip()!r})")
    code, out, err = run_tool("summary", make_poisson_run(root / "constant", phi=poisson_case(False)[4] + 0.5))
    check(code == 0 and printed_number(out, "residual:") < 1e-10 and "<phi> = 5.000e-01" in out,
          f"lambda = 0, phi + 0.5: the residual cannot see it, the mean line does: {out!r}")
    grid, _, _, _, _, gradient = poisson_case(True)
    code, out, err = run_tool("summary", make_poisson_run(root / "bad_gradient", shifted=True,
                                                          gradient=(gradient[0], gradient[1], 1.01 * gradient[2])))
    numbers = gradient_numbers(out)
    check(code == 0 and numbers is not None and max(numbers[:2]) < 1e-10 and numbers[2] > 1e-3,
          f"a wrong phi_z is seen: {numbers}")
    code, out, err = run_tool("summary", make_poisson_run(root / "no_gradient", gradient=False))
    check(code == 0 and "gradient: not in the dump" in out and printed_number(out, "residual:") < 1e-10,
          f"a run without the gradient: {out!r}")

    # The dump's own shift is the one its phi solves, whatever config.yaml says now (edited since, say), and
    # needs no fit without config.yaml.
    for name, options in (("stored_shift", {"shift": 2.0}), ("stored_shift_no_config", {"config": False})):
        code, out, err = run_tool("summary", make_poisson_run(root / name, shifted=True, stored_shift=3.0,
                                                              **options))
        values = summary_values(out)
        check(code == 0 and values.get("equation") == "lap(phi) - lambda phi = f, lambda = 3 (the dump's attribute "
              "shift)" and printed_number(out, "residual:") < 1e-10,
              f"{name}: lambda from the dump's attribute shift: {out!r} {err!r}")

    # Without config.yaml: recognised from the dump's datasets, lambda fitted.
    code, out, err = run_tool("summary", make_poisson_run(root / "no_config", shifted=True, config=False))
    values = summary_values(out)
    check(code == 0 and values.get("problem", "").startswith("poisson (from the datasets of fields/fields_000000.h5")
          and "least-squares fit 3 is used" in values.get("equation", "")
          and printed_number(out, "residual:") < 1e-10, f"a Poisson run without config.yaml: {out!r}")

    # all: slices of phi and f, the summary, nothing about series, spectra or MHD.
    run = root / "shifted"
    code, out, err = run_tool("all", run)
    check(code == 0 and err == "" and is_png(run / "plots" / "slice_phi.png") and is_png(run / "plots" / "slice_f.png")
          and not (run / "plots" / "slice_u.png").exists() and printed_number(out, "residual:") < 1e-10
          and f"wrote {run / 'plots' / 'slice_phi.png'}" in out,
          f"all on a Poisson run: code {code}, stderr {err.strip()!r}, plots "
          f"{sorted(p.name for p in (run / 'plots').glob('*')) if (run / 'plots').is_dir() else None}")
    # config.yaml is read once, by summary and by all, and the result passed on (it was read for the problem,
    # then again for the summary).
    for command in ("summary", "all"):
        code, reads = config_reads(post, command, run)
        check(code == 0 and reads == 1,
              f"{command} on a Poisson run reads config.yaml once: {reads} time(s), code {code}")
    (run / "plots" / "slice_phi.png").unlink()
    code, out, err = run_tool("slice", run)
    check(code == 0 and is_png(run / "plots" / "slice_phi.png"), f"slice of a Poisson run is phi's: {err!r}")

    # What a Poisson run never writes, and bad Poisson input: one line each.
    no_box = make_poisson_run(root / "no_box")
    with h5py.File(no_box / "fields" / "fields_000000.h5", "a") as file:
        del file.attrs["box"]
    bad_shift = make_poisson_run(root / "bad_shift")
    (bad_shift / "config.yaml").write_text((bad_shift / "config.yaml").read_text().replace("shift: 0.0", "shift: x"))
    unsolved = root / "unsolved"
    unsolved.mkdir()
    (unsolved / "config.yaml").write_text("problem: poisson\n")
    (unsolved / "status").write_text("stopped by a signal: the Poisson problem solved, phi not written\n")
    for arguments, expected in ((("series", run), "a Poisson run writes none"),
                                (("spectrum", run), "spectra.h5 is missing: a Poisson run writes none"),
                                (("summary", no_box), "no attribute 'box'"),
                                (("summary", bad_shift), "poisson.shift 'x', not a number"),
                                (("summary", unsolved), "no field dumps (fields_*.h5) in"),
                                (("all", unsolved), "its status: stopped by a signal")):
        code, out, err = run_tool(*arguments)
        check(code == 1 and expected in err and len(err.strip().splitlines()) == (1 if arguments[0] != "all" else 3),
              f"{arguments[0]} {arguments[1].name}: code {code}, stderr {err.strip()!r}")


# The gradients command: velocities whose derivative moments are known in closed form. F(theta) = sin theta +
# a sin 2 theta has F' = f = cos theta + 2a cos 2theta, whose means over a period are <f^2> = 1/2 + 2a^2,
# <f^3> = 3a/2 (from 3 (2a) <cos^2 cos 2theta> = 3 (2a) / 4) and <f^4> = 3/8 + 6a^2 + 6a^4 (<cos^4> = 3/8,
# 6 (2a)^2 <cos^2 cos^2 2theta> = 6 (2a)^2 / 4, (2a)^4 <cos^4 2theta>; the odd terms vanish): skewness 0 and
# flatness 3/2 at a = 0, negative skewness for a < 0. A product of three cosines (or sines) of independent
# coordinates has <g^2> = 1/8 and <g^4> = (3/8)^3: flatness 27/8. Grids hold f^4's modes (up to 4 per factor,
# 8 along an axis of F) below their size, so the means over the grid points are these exactly.
CELL_GRID, CELL_BOX = (8, 6, 10), (2 * np.pi, np.pi, 4 * np.pi)
SKEW_GRID, SKEW_BOX = (16, 12, 10), (np.pi, 2 * np.pi, 4 * np.pi)
SKEW_A = (-0.25, 0.125, 0.0)  # a of u's F along x, v's along y, w's along z
SKEW_TRANSVERSE = (0.5, 1.0, 0.25)  # c cos(q y) in u, d cos(r z) in v, e cos(p x) in w
NYQUIST_AMPLITUDE = 0.5


def grid_points(grid, box):
    return np.meshgrid(*[np.arange(n) * box[d] / n for d, n in enumerate(grid)], indexing="ij")


def cellular_velocity():
    """A Taylor-Green cell in a box of sides 2 pi, pi, 4 pi, wavenumbers a = 1, b = 2, c = 1/2: u = sin ax cos by
    cos cz, v = -(a/b) cos ax sin by cos cz, w = 0, divergence-free, plus 0.5 cos(4x) cos(cz) in u, a mode at
    x's Nyquist wavenumber (Nx = 8) whose x-derivative the tool drops (on the grid it is zero: sin(4 x_j) = 0);
    its z-derivative is kept. Returns (u, v, w) [x][y][z] and the expected numbers: du/dx, dv/dy, du/dy and dv/dz
    are products of three cosines or sines (skewness 0, flatness 27/8), dw/dz and dw/dx zero; <|omega|^2> =
    ((ac/b)^2 + c^2 + (a^2/b + b)^2) / 8 + (0.5 c)^2 <cos^2 4x_j> / 2 with <cos^2 4x_j> = 1 on the grid; and
    <|grad u|^2> the same (div u = 0)."""
    a, b, c = (2 * np.pi / length for length in CELL_BOX)
    x, y, z = grid_points(CELL_GRID, CELL_BOX)
    u = np.sin(a * x) * np.cos(b * y) * np.cos(c * z) + NYQUIST_AMPLITUDE * np.cos(4 * x) * np.cos(c * z)
    v = -(a / b) * np.cos(a * x) * np.sin(b * y) * np.cos(c * z)
    enstrophy = ((a * c / b) ** 2 + c ** 2 + (a * a / b + b) ** 2) / 8 + (NYQUIST_AMPLITUDE * c) ** 2 / 2
    return (u, v, np.zeros(CELL_GRID)), {"enstrophy": enstrophy, "ratio": 1.0}


def skewed_moments(a):
    """<f^2>, skewness and flatness of f = cos theta + 2a cos 2theta."""
    square, cube, fourth = 0.5 + 2 * a * a, 1.5 * a, 3 / 8 + 6 * a * a + 6 * a ** 4
    return square, cube / square ** 1.5, fourth / square ** 2


def skewed_velocity():
    """u = F_x(px) + c cos(qy), v = F_y(qy) + d cos(rz), w = F_z(rz) + e cos(px) in a box of sides pi, 2 pi, 4 pi
    (p, q, r = 2, 1, 1/2), F with a = -1/4, 1/8, 0: the longitudinal derivatives p f(px), ... have the skewness
    and flatness of skewed_moments, the transverse ones -c q sin(qy), ... flatness 3/2. Not divergence-free:
    <(div u)^2> = p^2 <f_x^2> + q^2 <f_y^2> + r^2 <f_z^2> (the cross terms are means of products of functions
    of different coordinates, each of zero mean), <|omega|^2> = (c^2 q^2 + d^2 r^2 + e^2 p^2) / 2 and
    <|grad u|^2> their sum. Returns (u, v, w) [x][y][z] and the expected numbers."""
    p, q, r = (2 * np.pi / length for length in SKEW_BOX)
    c, d, e = SKEW_TRANSVERSE
    x, y, z = grid_points(SKEW_GRID, SKEW_BOX)

    def F(theta, a):
        return np.sin(theta) + a * np.sin(2 * theta)

    velocity = (F(p * x, SKEW_A[0]) + c * np.cos(q * y), F(q * y, SKEW_A[1]) + d * np.cos(r * z),
                F(r * z, SKEW_A[2]) + e * np.cos(p * x))
    moments = [skewed_moments(a) for a in SKEW_A]
    divergence = sum(k * k * m[0] for k, m in zip((p, q, r), moments))
    enstrophy = ((c * q) ** 2 + (d * r) ** 2 + (e * p) ** 2) / 2
    return velocity, {"skewness": [m[1] for m in moments], "flatness": [m[2] for m in moments],
                      "transverse": [1.5, 1.5, 1.5], "enstrophy": enstrophy,
                      "ratio": enstrophy / (enstrophy + divergence),
                      "divergence": np.sqrt(divergence / (enstrophy + divergence))}


def write_velocity_dump(run, step, velocity, grid, box, kolmo_order=True, names="uvw"):
    """fields/fields_<step>.h5 of velocity [x][y][z] as the solver writes it: [Nz][Ny][Nx] with axis_order
    'z y x' (kolmo_order), or [Nx][Ny][Nz] without the attribute; time, step, grid, box, viscosity 0.01."""
    (run / "fields").mkdir(parents=True, exist_ok=True)
    with h5py.File(run / "fields" / f"fields_{step:06d}.h5", "w") as file:
        for name, values in zip(names, velocity):
            file[name] = values.transpose() if kolmo_order else values
        if kolmo_order:
            file.attrs["axis_order"] = np.bytes_("z y x")
        file.attrs["time"] = 0.5 * step
        file.attrs["step"] = np.int64(step)
        file.attrs["grid"] = np.array(grid, dtype=np.int64)
        file.attrs["box"] = np.array(box)
        file.attrs["viscosity"] = 0.01
        file.attrs["precision"] = np.bytes_("double")
    return run


def gradient_values(text):
    """The gradients block as numbers: each derivative line as {derivative or 'mean': value, None for n/a}
    under its label, and the lines of single numbers (the first number after '= ') under 'enstrophy',
    'dissipation', 'ratio', 'divergence'."""
    values = {}
    for line in text.splitlines():
        label, _, rest = line.partition(": ")
        if label in ("longitudinal skewness", "longitudinal flatness", "transverse flatness"):
            parts = {}
            for part in re.sub(r" \([^)]*\)$", "", rest).split(", "):
                name, _, number = part.partition(" ")
                parts[name] = None if number == "n/a" else float(number)
            values[label] = parts
    for key, label in (("enstrophy", "<|omega|^2> = "), ("ratio", "<|omega|^2> / <|grad u|^2>"),
                       ("divergence", "divergence:")):
        values[key] = printed_number(text, label)
    match = re.search(r"\(nu <\|omega\|\^2> = (\S+) with the dump's viscosity nu = 0\.01\)", text)
    values["dissipation"] = float(match.group(1)) if match else None
    return values


def close(value, expected, tolerance=1e-5):
    """value within tolerance of expected, relative to max(|expected|, 1) (numbers printed to 6 digits)."""
    return value is not None and abs(value - expected) <= tolerance * max(abs(expected), 1.0)


def check_gradients(scratch, post):
    root = Path(scratch) / "gradients"
    cellular, cell_expected = cellular_velocity()
    skewed, skew_expected = skewed_velocity()
    run = root / "run"
    write_velocity_dump(run, 100, skewed, SKEW_GRID, SKEW_BOX)
    write_velocity_dump(run, 200, cellular, CELL_GRID, CELL_BOX)

    # The newest dump by default: the Taylor-Green cell. Skewness 0, flatness 27/8; w's derivatives zero (n/a,
    # left out of the means); <|omega|^2> in closed form, the Nyquist mode's z-derivative in it and its
    # x-derivative not (kept, it would give du/dx a component (-1)^j 2 sin(z/2): a divergence, a flatness off
    # 27/8); the ratio 1 and the divergence at round-off.
    code, out, err = run_tool("gradients", run)
    values = gradient_values(out)
    check(code == 0 and err == "" and out.startswith("gradients of fields/fields_000200.h5: step 200, t = 100, "
                                                      "grid 8 x 6 x 10, box "),
          f"gradients of the newest dump: code {code}, stderr {err.strip()!r}, {out!r}")
    skewness = values.get("longitudinal skewness", {})
    flatness = values.get("longitudinal flatness", {})
    transverse = values.get("transverse flatness", {})
    check(all(close(skewness.get(name), 0.0, 1e-12) for name in ("du/dx", "dv/dy", "mean"))
          and "dw/dz" in skewness and skewness["dw/dz"] is None, f"the cell's skewness: {skewness}")
    check(all(close(flatness.get(name), 27 / 8) for name in ("du/dx", "dv/dy", "mean"))
          and flatness.get("dw/dz", 0) is None, f"the cell's flatness is 27/8: {flatness}")
    check(all(close(transverse.get(name), 27 / 8) for name in ("du/dy", "dv/dz", "mean"))
          and transverse.get("dw/dx", 0) is None, f"the cell's transverse flatness is 27/8: {transverse}")
    check("mean 3.375 (dw/dz zero: left out)" in out, f"a zero derivative is left out of the mean, saying so: {out!r}")
    check(close(values["enstrophy"], cell_expected["enstrophy"]) and close(values["dissipation"],
                                                                           0.01 * cell_expected["enstrophy"]),
          f"the cell's <|omega|^2> is {cell_expected['enstrophy']}, nu times it the dissipation: {values}")
    check(close(values["ratio"], 1.0, 1e-12) and values["divergence"] is not None and values["divergence"] < 1e-13,
          f"the cell is divergence-free: ratio {values['ratio']}, divergence {values['divergence']}")

    # --step: the skewed field, stored either axis order: the same block.
    outputs = {}
    for name, kolmo_order in (("zyx", True), ("xyz", False)):
        other = write_velocity_dump(root / f"skewed_{name}", 100, skewed, SKEW_GRID, SKEW_BOX, kolmo_order)
        code, out, err = run_tool("gradients", other)
        outputs[name] = out
        check(code == 0 and err == "", f"gradients of the skewed field ({name}): code {code}, stderr {err.strip()!r}")
    code, out, err = run_tool("gradients", run, "--step", 100)
    check(code == 0 and out == outputs["zyx"] == outputs["xyz"].replace("skewed_xyz", "skewed_zyx")
          and out.startswith("gradients of fields/fields_000100.h5: step 100, t = 50, grid 16 x 12 x 10, "),
          f"--step 100, and the dump stored [Nx][Ny][Nz], give the same block: {out!r} {outputs}")
    values = gradient_values(out)
    skewness = values.get("longitudinal skewness", {})
    flatness = values.get("longitudinal flatness", {})
    transverse = values.get("transverse flatness", {})
    for index, name in enumerate(("du/dx", "dv/dy", "dw/dz")):
        check(close(skewness.get(name), skew_expected["skewness"][index])
              and close(flatness.get(name), skew_expected["flatness"][index]),
              f"{name}'s skewness {skew_expected['skewness'][index]:.6g} and flatness "
              f"{skew_expected['flatness'][index]:.6g}: {skewness.get(name)}, {flatness.get(name)}")
    check(close(skewness.get("mean"), np.mean(skew_expected["skewness"]))
          and close(flatness.get("mean"), np.mean(skew_expected["flatness"]))
          and skew_expected["skewness"][0] < -0.7, f"the means over the three: {skewness}, {flatness}")
    check(all(close(transverse.get(name), 1.5) for name in ("du/dy", "dv/dz", "dw/dx", "mean")),
          f"the transverse flatness of a sine is 3/2: {transverse}")
    check(close(values["enstrophy"], skew_expected["enstrophy"]) and close(values["ratio"], skew_expected["ratio"])
          and close(values["divergence"], skew_expected["divergence"], 1e-3),
          f"the skewed field's <|omega|^2> {skew_expected['enstrophy']:.6g}, ratio {skew_expected['ratio']:.6g}, "
          f"divergence {skew_expected['divergence']:.4g}: {values}")
    statistics = attempt("gradient_statistics", post.gradient_statistics,
                         [np.fft.rfftn(component) for component in skewed], SKEW_GRID, SKEW_BOX)
    if statistics is not None:
        check(abs(statistics["gradient_squared"] - statistics["enstrophy"] - statistics["divergence_squared"])
              < 1e-12 * statistics["gradient_squared"],
              f"<|grad u|^2> = <|omega|^2> + <(div u)^2> to round-off: {statistics}")

    # Refused on one line: no field dumps, a dump without the velocity (a Poisson run's, one lacking w), a step
    # not dumped.
    empty = root / "empty"
    empty.mkdir()
    poisson = make_poisson_run(root / "poisson")
    no_w = write_velocity_dump(root / "no_w", 0, skewed[:2], SKEW_GRID, SKEW_BOX, names="uv")
    for arguments, expected in ((("gradients", empty), "no field dumps (fields_*.h5) in"),
                                (("gradients", poisson), "has no dataset 'u', 'v', 'w': gradients needs the "
                                 "velocity u, v, w (the dump holds f, phi, phi_x, phi_y, phi_z; a Poisson run has "
                                 "none)"),
                                (("gradients", no_w), "has no dataset 'w': gradients needs the velocity"),
                                (("gradients", run, "--step", 150), "no field dump of step 150")):
        code, out, err = run_tool(*arguments)
        check(code == 1 and expected in err and len(err.strip().splitlines()) == 1 and out == "",
              f"gradients {arguments[1].name} {' '.join(map(str, arguments[2:]))}: code {code}, stderr {err.strip()!r}")


def run_tool(*arguments):
    result = subprocess.run([sys.executable, str(TOOL), *map(str, arguments)], capture_output=True, text=True,
                            env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    return result.returncode, result.stdout, result.stderr


def is_png(path):
    return path.is_file() and path.stat().st_size > 1000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def summary_values(text):
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        values[key] = value
    return values


def main():
    spec = importlib.util.spec_from_file_location("kolmo_post", TOOL)
    post = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(post)

    with tempfile.TemporaryDirectory(prefix="kolmo_post_test_") as scratch:
        run = Path(scratch) / "run"
        make_run(run)

        # The numbers behind the plots.
        time, balance = post.dissipation_from_energy(TIMES, ENERGY)
        # Second-order differences with dt = 0.05: relative error about (dt^2 / 3) * 4 = 0.33% at the ends.
        check(np.max(np.abs(balance / (2 * ENERGY) - 1)) < 5e-3, "-dE/dt of E0 exp(-2t) is 2 E")
        time, balance = post.dissipation_from_energy(TIMES, ENERGY, np.full(41, 0.5))
        check(np.max(np.abs((balance - 0.5) / (2 * ENERGY) - 1)) < 5e-3,
              "injection - dE/dt adds the injection")
        guide_k, guide = post.five_thirds_guide(K, 3 * K ** (-5.0 / 3.0))
        check(guide is not None and np.allclose(guide, 3 * guide_k ** (-5.0 / 3.0)),
              "the -5/3 guide goes through a -5/3 spectrum")
        plane, z, attributes = post.read_slice(run / "fields" / "fields_001000.h5", "v", 3)
        x, y = np.meshgrid(np.arange(8) * BOX[0] / 8, np.arange(6) * BOX[1] / 6, indexing="ij")
        check(plane.shape == (8, 6) and np.allclose(plane, 1001 * field(x, y, 3 * BOX[2] / 4, 1)),
              "the slice is the z-plane [x][y] of a dump stored x fastest")
        plane, z, attributes = post.read_slice(run / "fields" / "fields_000000.h5", "v", 3)
        check(plane.shape == (8, 6) and np.allclose(plane, field(x, y, 3 * BOX[2] / 4, 1)),
              "the slice is the z-plane [x][y] of a file stored [Nx][Ny][Nz]")
        check([step for step, _ in post.field_dumps(run)] == [0, 1000],
              "dumps are found by step, .tmp ignored")

        # The slice's pixels are centred on the grid points x_i = i Lx / Nx, y_j = j Ly / Ny (found by the
        # output audit: the image spanned 0 .. Lx, each pixel half a spacing beyond its point).
        closed = post.plt.close
        post.plt.close = lambda *arguments: None  # keep the figure to look at what it drew
        try:
            post.plot_slice(run, "v", 3, 1000, Path(scratch) / "slice_v.png")
            image = post.plt.gcf().axes[0].images[0]
        finally:
            post.plt.close = closed
            post.plt.close("all")
        left, right, bottom, top = image.get_extent()
        ny, nx = image.get_array().shape
        check((nx, ny) == (8, 6) and np.allclose(left + (np.arange(8) + 0.5) * (right - left) / 8,
                                                 np.arange(8) * BOX[0] / 8)
              and np.allclose(bottom + (np.arange(6) + 0.5) * (top - bottom) / 6, np.arange(6) * BOX[1] / 6),
              f"the slice's pixels are centred on the grid points: extent {image.get_extent()}")

        # A comparison with a reference series: peaks found between samples, differences signed and sized.
        value, at = post.peak(np.arange(0, 3, 0.1), 2.0 - (np.arange(0, 3, 0.1) - 1.234) ** 2)
        check(abs(at - 1.234) < 1e-9 and abs(value - 2.0) < 1e-9, f"peak of a parabola: {value} at {at}")
        reference_times = np.arange(0.0, 2.001, 0.01)
        exact = {"time": reference_times, "energy": 0.75 * np.exp(-2 * reference_times),
                 "dissipation_rate": 1.5 * np.exp(-2 * reference_times)}
        result = post.comparison(post.load_series(run), exact)
        # Linear interpolation of E between steps 0.05 apart: at most dt^2/8 max|E''| = 9.4e-4.
        check(np.max(np.abs(result["energy_difference"])) < 9.4e-4, "E against its exact reference")
        check(np.max(np.abs(result["rate_difference"])) < 0.01 * 1.5, "-dE/dt against its exact reference")
        check(abs(result["reference_peak"][0] - 1.5) < 1e-12 and result["reference_peak"][1] == 0.0,
              "the reference's peak of a decaying rate is its first row")
        shifted = dict(exact, dissipation_rate=exact["dissipation_rate"] - 0.1)
        difference = post.comparison(post.load_series(run), shifted)["dissipation_difference"]
        check(np.allclose(difference, 0.1, atol=1e-2 * 1.5), "a reference lower by 0.1 gives a difference of +0.1")
        reference_file = Path(scratch) / "reference.gdiag"
        np.savetxt(reference_file, np.column_stack([reference_times, exact["energy"], exact["dissipation_rate"],
                                                    exact["dissipation_rate"] / 0.02]),
                   header="t E -dE/dt enstrophy")
        code, out, err = run_tool("compare", run, reference_file)
        values = summary_values(out)
        check(code == 0 and is_png(run / "plots" / "compare.png"), f"compare writes plots/compare.png ({err})")
        check(values.get("peak -dE/dt reference", "").startswith("1.5 at t = 0"), f"compare's peak line: {out}")

        # A mean-gradient scalar's statistics over a window.
        mixing = post.mixing_statistics(run, "theta", 0.5, 1.5)
        check(mixing["axis"] == "z" and abs(mixing["rho"] + 0.4) < 1e-12, f"rho along z: {mixing['rho']}")
        check(abs(mixing["r"] - 1) < 1e-12, f"time-scale ratio r: {mixing['r']}")
        check(mixing["from"] == 0.5 and mixing["to"] == 1.5 and mixing["rows"] == 21, "the window's rows")
        budget = mixing["production"] - mixing["chi"] - mixing["variance_growth"]
        # The trapezoid rule's mean of chi = 0.75 exp(-2t) over steps of 0.05 against the window's integral:
        # relative error dt^2 / 12 * 4 = 8.3e-4 (a plain mean of the 21 rows was off by 1.5e-2).
        check(abs(budget) < 1.5e-3 * mixing["chi"], f"the variance budget closes: residual {budget}")
        code, out, err = run_tool("mixing", run, "--from", 0.5, "--scalar", "theta")
        values = summary_values(out)
        check(code == 0 and is_png(run / "plots" / "mixing_theta.png"), f"mixing writes its plot ({err.strip()})")
        check(values.get("flux correlation rho", "").startswith("-0.4 "), f"mixing's rho line: {out}")
        code, out, err = run_tool("mixing", run, "--scalar", "salt")
        check(code == 1 and "salt" in err and "the run's scalars: theta; with a mean gradient: none" in err
              and len(err.strip().splitlines()) == 1, f"an unknown scalar names the run's: {err}")
        # theta's production is zero here: no scalar with a mean gradient, so none is taken without --scalar.
        code, out, err = run_tool("mixing", run)
        check(code == 1 and "no scalar with a mean gradient" in err and "the run's scalars: theta" in err
              and len(err.strip().splitlines()) == 1, f"mixing without a mean-gradient scalar: {err}")

        # rho is the correlation of theta with the velocity along the gradient G, u.G/|G|, whatever G's sign:
        # the production -2 G.<u theta> says which way G points. With G = -z (production 2 <w theta>) and
        # <w theta> = +0.4 u' theta', and with G = +z (production -2 <w theta>) and <w theta> = -0.4 u' theta',
        # rho = -0.4 both times (the old code gave +0.4 for the first: <w theta> / (u' theta')).
        for sign in (-1, 1):
            gradient = Path(scratch) / f"gradient_{sign}"
            make_run(gradient)
            with h5py.File(gradient / "series.h5", "r+") as f:
                f["theta_flux_z"][...] = -0.4 * sign * np.sqrt(2 * ENERGY / 3) * np.sqrt(0.5 * ENERGY)
                f["theta_production"][...] = -2 * sign * f["theta_flux_z"][...]
            mixing = post.mixing_statistics(gradient, "theta", 0.5, 1.5)
            check(mixing["axis"] == "z" and abs(mixing["rho"] + 0.4) < 1e-12,
                  f"rho along a gradient {'+' if sign > 0 else '-'}z: {mixing['rho']}")

        # The MHD Taylor-Green comparison: extrema between samples (a parabola through samples 0.05 apart: a few
        # 1e-6 off), the first maximum after the fall (not the initial value), the reference read by its
        # column names.
        mhd_run = Path(scratch) / "c2"
        make_mhd_run(mhd_run)
        fine = np.arange(0.0, 10.0, 1e-5)
        first_max = fine[np.argmax(np.where(fine > 3, tg_enstrophy_ratio(fine), 0) * (fine < 5))]
        numbers = post.taylor_green_mhd_numbers(post.taylor_green_mhd_curves(post.load_series(mhd_run)))
        value, at = numbers["min_energy_ratio"]
        check(abs(value - 0.4) < 1e-6 and abs(at - 7) < 1e-3, f"min E_M/E_V 0.4 at t = 7: {value} at {at}")
        value, at = numbers["first_enstrophy_ratio_max"]
        check(abs(value - tg_enstrophy_ratio(first_max)) < 1e-5 and abs(at - first_max) < 2e-3,
              f"first max of Omega_M/Omega_V at t = {first_max:.4f}: {value} at {at}")
        value, at = numbers["peak_dissipation"]
        check(abs(value - 0.03) < 1e-6 and abs(at - 4.2) < 1e-3, f"peak dissipation 0.03 at 4.2: {value} at {at}")
        check(post.first_max_after_fall(TG_TIMES, np.exp(-TG_TIMES)) is None,
              "a series that only falls has no maximum after its fall")
        reference_file = Path(scratch) / "A_re1000_n512" / "series.dat"
        reference_file.parent.mkdir()
        write_m3lb_reference(reference_file)
        code, out, err = run_tool("tgmhd", mhd_run, "--reference", reference_file)
        lines = out.splitlines()
        check(code == 0 and is_png(mhd_run / "plots" / "tgmhd.png"), f"tgmhd writes plots/tgmhd.png ({err})")
        check(len(lines) == 4 and lines[0].startswith(f"reference ({reference_file}): min E_M/E_V 0.35 at t = 7.0")
              and lines[1].startswith(f"{mhd_run}: min E_M/E_V 0.4 at t = 7.0")
              and "peak dissipation 0.03 at t = 4.200" in lines[1]
              and lines[2].startswith("published (Pouquet et al. 2010, C2"), f"tgmhd's lines: {out}")
        write_m3lb_reference(reference_file, columns=("t", "E_V", "E_M", "Omega_V", "eps"))
        code, out, err = run_tool("tgmhd", mhd_run, "--reference", reference_file)
        check(code == 1 and "no column Omega_M" in err and len(err.strip().splitlines()) == 1,
              f"a reference without Omega_M: {err.strip()!r}")
        code, out, err = run_tool("tgmhd", run)
        check(code == 1 and "magnetic_energy" in err, f"tgmhd on a run without b: {err.strip()!r}")

        # The energy balance of an MHD run: the total energy E + E_b decays at the total dissipation less the
        # injections of u and b; the kinetic energy alone is off by the Lorentz force's work (up to 0.2).
        balanced = Path(scratch) / "mhd_balanced"
        make_balanced_mhd_run(balanced)
        columns = balanced_mhd_columns()
        total_dissipation = columns["dissipation"] + columns["magnetic_dissipation"]
        _, kinetic_balance = post.dissipation_from_energy(BALANCE_TIMES, columns["energy"], columns["injection"])
        check(np.max(np.abs(kinetic_balance - columns["dissipation"])) > 0.1,
              "the MHD test series: the kinetic energy alone is not balanced by nu <w^2>")
        budget = attempt("energy_budget of an MHD series", lambda: post.energy_budget(post.load_series(balanced)))
        if budget is not None:
            check(np.allclose(budget["energy"], columns["energy"] + columns["magnetic_energy"])
                  and np.allclose(budget["dissipation"], total_dissipation)
                  and np.allclose(budget["injection"], 0.08), "the MHD budget: E + E_b, eps + eta<j^2>, 0.05 + 0.03")
            _, balance = post.dissipation_from_energy(BALANCE_TIMES, budget["energy"], budget["injection"])
            # Second-order differences with dt = 0.01: about 1e-5 here, 3e-5 at the one-sided ends.
            check(np.max(np.abs(balance - total_dissipation)) < 1e-4, "injection - d(E + E_b)/dt = total dissipation")
        code, out, err = run_tool("series", balanced)
        line, mismatch = balance_line(out)
        check(code == 0 and line is not None and "E + E_b" in line and "eta<j^2>" in line
              and mismatch is not None and mismatch < 1e-4, f"series on an MHD run balances E + E_b: {out!r} {err!r}")
        code, out, err = run_tool("summary", balanced)
        values = summary_values(out)
        kinetic, magnetic = columns["energy"][-1], columns["magnetic_energy"][-1]
        check(values.get("final energy") == f"kinetic {kinetic:.6g}, magnetic {magnetic:.6g}, total "
                                            f"{kinetic + magnetic:.6g}",
              f"MHD summary energy: {values.get('final energy')}")
        check(values.get("final dissipation") == f"viscous {columns['dissipation'][-1]:.6g}, resistive "
                                                 f"{columns['magnetic_dissipation'][-1]:.6g}, total "
                                                 f"{total_dissipation[-1]:.6g}",
              f"MHD summary dissipation: {values.get('final dissipation')}")
        # all makes the mhd plot of an MHD run, and names what it does not make.
        code, out, err = run_tool("all", balanced)
        check(code == 0 and is_png(balanced / "plots" / "mhd.png") and is_png(balanced / "plots" / "series.png"),
              f"'all' on an MHD run makes plots/mhd.png ({err.strip()})")
        for name in ("scalars", "slice", "mixing", "compare", "tgmhd"):
            check(f"skipped {name}:" in err or f"not made: {name}" in err, f"'all' says why it made no {name}: {err!r}")
        check("skipped mhd" in run_tool("all", run)[2], "'all' on a run without b says it skipped mhd")

        # The balance of a Boussinesq run: kinetic + potential energy, dissipation nu <w^2> + chi_b / (2 N2).
        stratified = Path(scratch) / "stratified"
        stratified.mkdir()
        columns = boussinesq_columns()
        write_series(stratified / "series.h5", columns)
        total_dissipation = columns["dissipation"] + columns["b_dissipation"] / 8
        budget = attempt("energy_budget of a Boussinesq series",
                         lambda: post.energy_budget(post.load_series(stratified)))
        if budget is not None:
            check(np.allclose(budget["energy"], columns["energy"] + columns["potential_energy"])
                  and np.allclose(budget["dissipation"], total_dissipation) and budget["injection"] is None,
                  "the Boussinesq budget: E + E_p, eps + chi_b/(2 N2), no injection")
            # Without b's columns the kinetic energy's own balance, the buoyancy flux as its injection.
            partial = {name: values for name, values in columns.items() if not name.startswith("b_")}
            budget = post.energy_budget(partial)
            _, balance = post.dissipation_from_energy(BALANCE_TIMES, budget["energy"], budget["injection"])
            check(np.max(np.abs(balance - columns["dissipation"])) < 1e-4, "buoyancy flux - dE/dt = eps")
        code, out, err = run_tool("series", stratified)
        line, mismatch = balance_line(out)
        check(code == 0 and line is not None and "E + E_p" in line and mismatch is not None and mismatch < 1e-4,
              f"series on a Boussinesq run balances E + E_p: {out!r} {err!r}")
        values = summary_values(run_tool("summary", stratified)[1])
        check(values.get("final potential energy") == f"{columns['potential_energy'][-1]:.6g}",
              f"summary of the potential energy: {values.get('final potential energy')}")

        # Series too short for what is asked: one line naming the file and its rows, exit code 1.
        one_row, no_rows = Path(scratch) / "one_row", Path(scratch) / "no_rows"
        make_balanced_mhd_run(one_row, rows=1)
        make_balanced_mhd_run(no_rows, rows=0)
        for arguments, expected in ((("tgmhd", one_row), "series.h5 holds 1 row: too short for tgmhd"),
                                    (("mhd", one_row), "series.h5 holds 1 row: too short for mhd"),
                                    (("mhd", no_rows), "series.h5 holds 0 rows: too short for mhd"),
                                    (("tgmhd", no_rows), "series.h5 holds 0 rows: too short for tgmhd"),
                                    (("series", no_rows), "series.h5 holds 0 rows: too short for series"),
                                    (("mixing", no_rows, "--scalar", "theta"), "series.h5 has no theta_variance"),
                                    (("mixing", no_rows), "the run has no scalars"),
                                    (("mhd", mhd_run), "has no cross_helicity, magnetic_helicity, current_max")):
            code, out, err = run_tool(*arguments)
            check(code == 1 and expected in err and len(err.strip().splitlines()) == 1,
                  f"{arguments[0]} on {arguments[1].name}: code {code}, stderr {err.strip()!r}")

        # Compensated spectra in a box of side pi: the densities E(k)/dk are Kolmogorov's and Obukhov-Corrsin's
        # exactly; the means are over time (trapezoid), not over rows.
        pi_box = Path(scratch) / "pi_box"
        make_pi_box_mixing_run(pi_box)
        mixing = post.mixing_statistics(pi_box, "theta", 0.0, 2.0)
        check(abs(mixing["energy"] - 2.0) < 1e-12, f"the mean of E = 1 + t over 0..2 by time is 2: {mixing['energy']}")
        compensated = attempt("mixing_spectra", lambda: post.mixing_spectra(pi_box, mixing))
        if compensated is not None:
            check(compensated["dk"] == 2.0 and np.allclose(compensated["k_eta"], 0.01 * PI_BOX_K[1:]),
                  "the shells of a box of side pi are 2 wide")
            check(np.allclose(compensated["energy"], 1.5, rtol=1e-12),
                  f"compensated E(k)/dk is Kolmogorov's 1.5: {compensated['energy'][:3]}")
            check(np.allclose(compensated["scalar"], 0.67, rtol=1e-12),
                  f"compensated E_theta(k)/dk is Obukhov-Corrsin's 0.67: {compensated['scalar'][:3]}")
        code, out, err = run_tool("mixing", pi_box, "--from", 0, "--to", 2)
        check(code == 0 and is_png(pi_box / "plots" / "mixing_theta.png"), f"mixing in a pi box ({err.strip()})")
        code, out, err = run_tool("all", pi_box)
        check(code == 0 and f"mixing {pi_box} --scalar theta --from" in err,
              f"'all' gives mixing's command for a mean-gradient scalar: {err!r}")

        # Without --scalar, mixing takes the run's only scalar with a mean gradient, as 'all' does, whatever
        # its name; a name the run lacks, or several such scalars, is one line naming the run's scalars.
        named_th = Path(scratch) / "named_th"
        make_pi_box_mixing_run(named_th, "th")
        add_scalar(named_th, "dye", 0.0)
        code, out, err = run_tool("mixing", named_th, "--from", 0, "--to", 2)
        check(code == 0 and out.startswith("scalar: th\n") and is_png(named_th / "plots" / "mixing_th.png")
              and summary_values(out).get("flux correlation rho", "").startswith(
                  f"{-0.3 / np.sqrt(2 * 2.0 / 3):.4g} "),
              f"mixing takes th, the only mean-gradient scalar: {out!r} {err!r}")
        check(f"mixing {named_th} --scalar th " in run_tool("all", named_th)[2], "'all' names th for mixing too")
        code, out, err = run_tool("mixing", named_th, "--scalar", "theta")
        check(code == 1 and "has no theta_variance" in err and "the run's scalars: dye, th; with a mean gradient: th"
              in err and len(err.strip().splitlines()) == 1, f"mixing --scalar theta names the run's scalars: {err!r}")
        add_scalar(named_th, "salt", 0.2)
        code, out, err = run_tool("mixing", named_th)
        check(code == 1 and "2 scalars with a mean gradient, salt, th: name one with --scalar" in err
              and len(err.strip().splitlines()) == 1, f"mixing with two mean-gradient scalars: {err!r}")

        # The flux along the mean gradient that config.yaml gives, not the flux component of largest magnitude
        # (found by the output audit: a run with G along z and a larger <u_y theta> got rho from <u_y theta>).
        # u' = sqrt(2 <E> / 3) with <E> = 2 over 0..2, <theta^2> = 1.
        along = Path(scratch) / "along_gradient"
        make_pi_box_mixing_run(along)
        with h5py.File(along / "series.h5", "a") as file:
            file["theta_flux_y"][...] = 0.5
        # A gradient along -z takes <u_g theta> = -<u_z theta>: rho's sign follows G's direction.
        for gradient, axis, flux, along_g, label in (
                ("[0.0, 0.0, 1.0]", "z", -0.3, -0.3, "<u_z theta> = -0.3; along the gradient -0.3)"),
                ("[0.0, 0.0, -2.0]", "z", -0.3, 0.3, "<u_z theta> = -0.3; along the gradient 0.3)"),
                ("[0.0, 3.0, -4.0]", "G", (3 * 0.5 + 4 * 0.3) / 5, (3 * 0.5 + 4 * 0.3) / 5,
                 "<u.G/|G| theta> = 0.54)")):
            (along / "config.yaml").write_text(
                "physics:\n  viscosity: 0.01                       # kinematic viscosity nu\n"
                f'  scalars: [{{name: "theta", diffusivity: 0.01, mean_gradient: {gradient}, initial: {{type: '
                'random, variance: 1.0, k0: 3.0, shape: k4_exp, seed: 1}}]  # passive scalars: a list of maps\n')
            mixing = post.mixing_statistics(along, "theta", 0.0, 2.0)
            check(mixing["axis"] == axis and abs(mixing["flux"] - flux) < 1e-12
                  and abs(mixing["rho"] - along_g / np.sqrt(2 * 2.0 / 3)) < 1e-12,
                  f"mixing takes the flux along G = {gradient}: axis {mixing['axis']}, flux {mixing['flux']}")
            code, out, err = run_tool("mixing", along, "--from", 0, "--to", 2)
            check(code == 0 and label in out, f"mixing's rho line along G = {gradient}: {out!r} {err!r}")

        # A bit flipped in a chunk of series.h5 or spectra.h5 (each chunk has a Fletcher32 checksum): one line
        # naming the file, exit code 1, not h5py's traceback.
        damaged = Path(scratch) / "damaged"
        make_run(damaged)
        flip_bit(damaged / "series.h5", "energy")
        flip_bit(damaged / "spectra.h5", "energy_spectrum")
        for arguments, expected in ((("summary", damaged), f"{damaged / 'series.h5'} is damaged"),
                                    (("series", damaged), f"{damaged / 'series.h5'} is damaged"),
                                    (("spectrum", damaged), f"{damaged / 'spectra.h5'} is damaged"),
                                    (("scalars", damaged), f"{damaged / 'spectra.h5'} is damaged")):
            code, out, err = run_tool(*arguments)
            check(code == 1 and expected in err and "energy" in err and "Traceback" not in err
                  and len(err.strip().splitlines()) == 1, f"{arguments[0]} on a damaged file: code {code}, {err!r}")

        # --time: the nearest row of spectra.h5 (0, 1, 2 here); a time outside them still gets one, with a line
        # saying which; a time that is not a number is refused.
        for command, asked, nearest in (("spectrum", -5, 0), ("scalars", 100, 2), ("spectrum", 2.5, 2)):
            output = Path(scratch) / f"time_{command}_{asked}.png"
            code, out, err = run_tool(command, run, "--time", asked, "-o", output)
            check(code == 0 and is_png(output) and f"nearest available time t = {nearest}" in err
                  and len(err.strip().splitlines()) == 1, f"{command} --time {asked}: code {code}, {err!r}")
        for command, asked in (("spectrum", "nan"), ("scalars", "inf"), ("mhd", "nan")):
            code, out, err = run_tool(command, run, "--time", asked)
            check(code == 1 and f"--time {asked} is not a finite number" in err and len(err.strip().splitlines()) == 1,
                  f"{command} --time {asked} is refused: code {code}, {err!r}")
        code, out, err = run_tool("mhd", balanced, "--time", 7, "-o", Path(scratch) / "mhd_time.png")
        check(code == 0 and "nearest available time t = 2" in err, f"mhd --time 7 past the last spectra: {err!r}")

        # The scalars of spectra.h5: magnetic_spectrum is b's in an MHD run (no magnetic_flux), a scalar's
        # in a run of a solver that allowed the name.
        shells = np.zeros((1, 4))
        mhd_spectra = {"k": np.arange(4.0), "energy_spectrum": shells, "magnetic_spectrum": shells,
                       "magnetic_transfer": shells, "theta_spectrum": shells, "theta_transfer": shells,
                       "theta_flux": shells}
        check(post.scalar_names(mhd_spectra) == ["theta"], "an MHD run's magnetic_spectrum is not a scalar")
        check(post.scalar_names(dict(mhd_spectra, magnetic_flux=shells)) == ["magnetic", "theta"],
              "a scalar named magnetic in a run without MHD is a scalar")

        # The command line.
        code, out, err = run_tool("all", run)
        check(code == 0, f"'all' succeeds (stderr: {err.strip()})")
        for name in ("spectrum.png", "scalar_spectra.png", "series.png", "slice_u.png"):
            check(is_png(run / "plots" / name), f"'all' makes plots/{name}")
        check("gradients of " not in out, f"'all' leaves the gradients out: {out!r}")
        check(post.scalar_names(post.load_spectra(run)) == ["b", "theta"], "the scalars of spectra.h5, by name")
        values = summary_values(out)
        check(values.get("grid", "").startswith("8 x 6 x 4"), f"summary grid: {values.get('grid')}")
        check(values.get("series rows") == "41", "summary rows")
        check(values.get("steps") == "0 .. 1000", "summary steps")
        check(values.get("final time") == "2", "summary final time")
        check(values.get("final energy") == f"{0.75 * np.exp(-4.0):.6g}",
              f"summary energy: {values.get('final energy')}")
        check(values.get("final dissipation") == f"{1.5 * np.exp(-4.0):.6g}", "summary dissipation")
        check(values.get("Re_lambda") == "30", "summary Re_lambda")
        check(values.get("k_max eta") == "1.5", "summary k_max eta")
        check(values.get("theta", "") == f"final variance {0.375 * np.exp(-4.0):.6g}, chi {0.75 * np.exp(-4.0):.6g}",
              f"summary of theta: {values.get('theta')}")
        files = values.get("files", "")
        for part in ("config.yaml", "series.h5", "spectra.h5", "fields: 2 dumps (steps 0..1000)",
                     "checkpoints: checkpoint.h5"):
            check(part in files, f"summary lists {part}")

        code, out, err = run_tool("spectrum", run, "-o", Path(scratch) / "e.png", "--time", 0.9)
        check(code == 0 and is_png(Path(scratch) / "e.png") and not err,
              f"spectrum -o writes the chosen file, t = 0.9 inside the run's times: no line on stderr ({err!r})")
        code, out, err = run_tool("scalars", run, "-o", Path(scratch) / "t.png", "--time", 1.1)
        check(code == 0 and is_png(Path(scratch) / "t.png"), f"scalars -o writes the chosen file ({err.strip()})")
        code, out, err = run_tool("series", run, "-o", Path(scratch) / "s.png")
        check(code == 0 and is_png(Path(scratch) / "s.png"), "series -o")
        code, out, err = run_tool("slice", run, "--field", "w", "--z", "1", "--step", "0")
        check(code == 0 and is_png(run / "plots" / "slice_w.png"), "slice --field w --z 1 --step 0")

        # Missing inputs: one line on stderr, exit code 1.
        empty = Path(scratch) / "empty"
        empty.mkdir()
        no_rows = Path(scratch) / "no_spectra"  # a run of output.spectra_every: 0 writes a spectra.h5 of no rows
        make_run(no_rows)
        with h5py.File(no_rows / "spectra.h5", "a") as file:
            for name in file:
                if name != "k":
                    file[name].resize(0, axis=0)
        for arguments, expected in ((("summary", empty), "series.h5 is missing"),
                                    (("spectrum", empty), "spectra.h5 is missing"),
                                    (("scalars", empty), "spectra.h5 is missing"),
                                    (("spectrum", no_rows), "output.spectra_every: 0"),
                                    (("scalars", no_rows), "writes none"),
                                    (("slice", empty), "no field dumps"),
                                    (("slice", run, "--field", "pressure"), "no dataset 'pressure'"),
                                    (("slice", run, "--z", "9"), "z index 9"),
                                    (("series", Path(scratch) / "nowhere"), "does not exist"),
                                    (("compare", run, Path(scratch) / "none.gdiag"), "reference file"),
                                    (("compare", run, run / "config.yaml"), "not a table of numbers")):
            code, out, err = run_tool(*arguments)
            check(code == 1 and expected in err and len(err.strip().splitlines()) == 1,
                  f"{arguments[0]} on a bad input: code {code}, stderr {err.strip()!r}")

        # A run still going holds series.h5 and spectra.h5 open for writing, locked by HDF5 (here this process
        # holds them): read as they stand, from a copy of their bytes, with one line saying so and the run's
        # status; the same as when nothing holds them.
        (run / "status").write_text("running: step 40, t = 2\n")
        for name, command in (("series.h5", "summary"), ("spectra.h5", "spectrum")):
            _, alone, _ = run_tool(command, run)
            with h5py.File(run / name, "a"):
                code, out, err = run_tool(command, run)
            check(code == 0 and out == alone and err.strip() == f"kolmo_post: {run / name} is being written by the run "
                  "still going (its status: running: step 40, t = 2): read as it stands",
                  f"{command} of a run still writing {name}: code {code}, stderr {err.strip()!r}")
            # Damaged where it stands (a flipped bit in a chunk, the bytes not changing): one line saying so.
            if name == "series.h5":
                intact = (run / name).read_bytes()
                flip_bit(run / name, "energy")
                with h5py.File(run / name, "a"):
                    code, out, err = run_tool(command, run)
                (run / name).write_bytes(intact)
                check(code == 1 and len(err.strip().splitlines()) == 1
                      and f"{run / name} is damaged: the run still going holds it open" in err,
                      f"{command} of a damaged {name} a run holds: code {code}, stderr {err.strip()!r}")
        # Plots that cannot be written where they go (a read-only run directory; here a plots/ that is a file,
        # which root cannot write into either): one line naming the file, for all one per plot.
        unwritable = Path(scratch) / "unwritable"
        make_run(unwritable)
        (unwritable / "plots").write_text("not a folder\n")
        code, out, err = run_tool("spectrum", unwritable)
        check(code == 1 and err.strip() == f"kolmo_post: cannot write {unwritable / 'plots/spectrum.png'}: "
              "File exists", f"spectrum into an unwritable place: code {code}, stderr {err.strip()!r}")
        code, out, err = run_tool("all", unwritable)
        check(code == 0 and f"skipped series: cannot write {unwritable / 'plots/series.png'}" in err
              and "final energy" in out, f"all into an unwritable place: code {code}, stderr {err.strip()!r}")

        check_poisson(scratch, post)
        check_gradients(scratch, post)

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all post-processing checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
