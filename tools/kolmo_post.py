#!/usr/bin/python3
"""Post-processing of a kolmo run directory: plots and a summary from the files the solver writes.

Layout read (written by the solver, see io/OutputDirectory.hpp):
    <dir>/config.yaml                       resolved configuration
    <dir>/series.h5                         1D datasets: time, step, energy, dissipation, injection, ...
    <dir>/spectra.h5                        /k, /time, /step, /energy_spectrum [t][k], /transfer, /flux, and
                                            per scalar /<name>_spectrum, /<name>_transfer, /<name>_flux,
                                            MHD /magnetic_spectrum, /magnetic_transfer
    <dir>/fields/fields_NNNNNN.h5 (+ .xmf)  u, v, w, ... as [Nz][Ny][Nx] (attribute axis_order 'z y x'); time, step, grid, box
    <dir>/checkpoints/checkpoint.h5 (+ checkpoint.prev.h5)
A Poisson run (problem: poisson in config.yaml; without config.yaml, a last dump holding phi and no u) writes
config.yaml, status and one dump, fields/fields_000000.h5, of phi, f and with poisson.gradient phi_x, phi_y,
phi_z: no series.h5, spectra.h5 or checkpoints (the commands that need those say so on one line).

Subcommands:
    spectrum DIR [-o PNG] [--time T]       E(k) at the last (or the nearest to T) time, log-log, with a k^-5/3
                                           guide line through the data (E(k) as spectra.h5 holds it: the sum
                                           over a shell of width dk = 2 pi / L_min)
    scalars DIR [-o PNG] [--time T]        each scalar's variance spectrum E_theta(k) (and b's), log-log, with a
                                           k^-5/3 (Obukhov-Corrsin) guide line through the first
    series DIR [-o PNG]                    energy, and dissipation both as written and from the energy balance
                                           (-dE/dt, plus the injection when the run is forced), of the energy
                                           the series closes: kinetic E; E + E_b with MHD (dissipation
                                           nu <|omega|^2> + eta <|j|^2>, injection of u and of b); E + E_p with
                                           buoyancy (E_p = <b^2>/(2 N2), dissipation nu <|omega|^2> +
                                           chi_b/(2 N2)); prints the largest mismatch of the balance
    slice DIR [--field u] [--z K] [--step N] [-o PNG]
                                           a z-plane of a field of the last (or chosen) dump (default u; phi
                                           for a Poisson run)
    mhd DIR [OTHER ...] [-o PNG] [--time T]
                                           MHD: kinetic, magnetic and total energy; their dissipations (and
                                           -dE/dt); cross and magnetic helicity; max |j|; and E_u(k), E_b(k)
                                           at the last (or nearest to T) time; other runs (e.g. another
                                           resolution of the same case) are drawn dashed on the same axes, and
                                           the peak of the total dissipation of each is printed
    tgmhd DIR [OTHER ...] [--reference FILE] [-o PNG]
                                           the MHD Taylor-Green run C2 of Pouquet, Lee, Brachet, Mininni &
                                           Rosenberg, GAFD 104, 115 (2010) (configs/mhd_taylor_green_c2.yaml):
                                           E_M/E_V, Omega_M/Omega_V and the total dissipation nu <|omega|^2> +
                                           eta <|j|^2> against t, the published values (min E_M/E_V 0.35,
                                           first maximum of Omega_M/Omega_V after its fall 2) marked; prints
                                           each run's min E_M/E_V and its time, that first maximum and its
                                           time, the peak dissipation and its time; FILE, a reference series
                                           given by path (columns named on its last '#' line, among them t,
                                           E_V, E_M, Omega_V, Omega_M and eps, e.g. the lattice Boltzmann
                                           series.dat of M3LB), is drawn and measured the same way
    summary DIR                            grid, steps, final time, energy, dissipation, Re_lambda, k_max eta,
                                           each scalar's variance and dissipation chi, files present; with MHD
                                           the energy and dissipation kinetic, magnetic and total, with
                                           buoyancy the potential energy. A Poisson run: grid, box, the shift
                                           lambda (the dump's shift; in older dumps poisson.shift, and without
                                           config.yaml its least-squares fit),
                                           min/max/mean/rms of phi and f, the relative residual
                                           ||lap(phi) - lambda phi - f|| / ||f|| of the equation it solved
                                           (solver/Poisson.hpp), computed here by FFT with k = 2 pi n / L per
                                           axis and every mode kept (round-off: ~1e-15 in double, ~1e-6 in
                                           single); for lambda = 0 the means of phi (the solver returns 0; the
                                           residual cannot see it) and f (must be 0); with the gradient,
                                           ||phi_d - d(phi)/dd|| / ||grad phi|| per axis against the spectral
                                           derivative less the Nyquist mode, as the solver takes it
    gradients DIR [--step N]               the small-scale statistics of the last (or chosen) dump's velocity,
                                           by spectral derivatives (numpy's FFT, k = 2 pi n / L per axis from
                                           the dump's box, the Nyquist mode's derivative zero): skewness
                                           <s^3>/<s^2>^(3/2) and flatness <s^4>/<s^2>^2 of du/dx, dv/dy, dw/dz
                                           and their mean (isotropic turbulence: about -0.5 and 4 to 8), the
                                           flatness of du/dy, dv/dz, dw/dx and its mean (a derivative that is
                                           zero: n/a, left out of the mean), <|omega|^2> (and nu <|omega|^2>
                                           with the dump's viscosity), <|omega|^2> / <|grad u|^2> (1 where
                                           div u = 0: <|grad u|^2> = <|omega|^2> + <(div u)^2> on a periodic
                                           box) and rms(div u) / rms(grad u) (round-off for a kolmo dump); a
                                           dump without u, v, w (a Poisson run's) is refused; not part of all:
                                           it holds about seven fields of the dump in double precision at once
                                           (7 GiB at 512^3)
    compare DIR REFERENCE [-o PNG]         the run's energy and dissipation rate -dE/dt against a reference
                                           time series (columns t, E, -dE/dt, enstrophy, '#' comments: the
                                           format of the high-order CFD workshop's Taylor-Green files, e.g.
                                           the 512^3 spectral DNS); prints the peaks and the largest
                                           differences, plots both curves and their difference
    mixing DIR [--scalar NAME] [--from T0] [--to T1] [-o PNG]
                                           a scalar with a mean gradient (default: the run's only one, as all
                                           picks it; with none or several, or a NAME the run lacks, the error
                                           lists the run's scalars) in stationary turbulence, averaged over
                                           T0 <= t <= T1: the flux correlation coefficient rho = <u_g theta> /
                                           (u' theta') along the gradient, the mechanical-to-scalar time-scale
                                           ratio r = (E / eps) / (<theta^2> / chi), the variance budget, and a
                                           plot of the spectral densities E_theta(k)/dk and E(k)/dk compensated
                                           by Obukhov-Corrsin and Kolmogorov scaling against k eta (means over
                                           time by the trapezoid rule: rows need not be evenly spaced)
    all DIR                                every plot that needs nothing but DIR (spectrum, scalars, series,
                                           slice, mhd) into DIR/plots/ and the summary; plots whose input is
                                           missing are skipped with a line saying so, and mixing, compare and
                                           tgmhd, which need more than DIR, are named with their command line;
                                           a Poisson run: slices of phi and f and its summary, nothing else

--time T (spectrum, scalars, mhd) picks the row of spectra.h5 nearest to T, as its help says; a T before the
first row or after the last still gets the nearest row, with a line on stderr: "--time T is outside the times
of DIR/spectra.h5 (T0 .. T1): nearest available time t = ...". A T that is not a finite number (nan, inf) is
refused.

A series.h5 or spectra.h5 that a run still going holds open (HDF5 locks it) is read as it stands, from a copy
of its bytes taken between two of the run's appends, with a line on stderr saying so.

A missing file or dataset, a file that fails its checksum (a flipped bit in a chunk: the solver writes each
with a Fletcher32 checksum; "... is damaged"), a --time that is not a finite number, a series too short for
what is asked, or a plot that cannot be written (a read-only run directory: -o writes elsewhere; all skips it
with a line), gives one line on stderr and exit code 1.
"""

import argparse
import errno
import io
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("MPLBACKEND", "Agg")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

try:
    import h5py
except ImportError:  # reported when a file is first opened
    h5py = None


class PostError(Exception):
    """A problem with the run directory, reported as one line."""


# ---------------------------------------------------------------------------------------------- reading


def _status_note(run):
    """For a message about the run in DIR: ' (its status: <DIR/status's line>)', or '' where it has none."""
    status = Path(run) / "status"
    return f" (its status: {status.read_text().strip()})" if status.is_file() else ""


def _open(path):
    if h5py is None:
        raise PostError("h5py is not installed for " + sys.executable)
    if not path.is_file():
        raise PostError(f"{path} is missing")
    try:
        return h5py.File(path, "r")
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK) or "unable to lock file" in str(error):
            # HDF5 locks series.h5 and spectra.h5 while the solver has them open: the run is still going.
            return _as_it_stands(path)
        raise PostError(f"{path} is not a readable HDF5 file ({error})") from None


class _Copy(io.BytesIO):
    """A file's bytes in memory, named by the file's path: h5py names a file it reads from an object by the
    object's repr, and messages name the file. Opened only in a with statement: one left open when Python
    exits may crash it."""

    def __init__(self, data, path):
        super().__init__(data)
        self.path = str(path)

    def __repr__(self):
        return self.path


def _as_it_stands(path, attempts=40):
    """A file that a run still going holds open for writing (and HDF5 locked), read from a copy of its bytes
    in memory. The run flushes the file after every row it appends, so a copy taken between two appends is
    whole; one taken during an append may not be (a chunk's checksum fails, or one dataset has a row more than
    another), so every dataset is read (which checks its checksums) and the datasets indexed by row (all but
    spectra.h5's /k) must have as many rows as each other, or the copy is taken again. A file whose bytes
    stayed the same through the last half of the attempts (a second) and failed each time is damaged, not
    caught in an append."""
    previous, unchanged = None, 0
    for _ in range(attempts):
        data = path.read_bytes()
        unchanged = unchanged + 1 if data == previous else 0
        previous = data
        try:
            file = h5py.File(_Copy(data, path), "r")
        except OSError:
            time.sleep(0.05)
            continue
        try:
            rows = set()
            for name, item in file.items():
                if isinstance(item, h5py.Dataset):
                    item[...]
                    if name != "k" and item.ndim >= 1:
                        rows.add(item.shape[0])
            if len(rows) <= 1:
                print(f"kolmo_post: {path} is being written by the run still going{_status_note(path.parent)}: "
                      "read as it stands", file=sys.stderr)
                return file
        except OSError:
            pass
        file.close()
        time.sleep(0.05)
    if unchanged >= attempts // 2:
        raise PostError(f"{path} is damaged: the run still going holds it open, and it cannot be read whole as it "
                        f"stands{_status_note(path.parent)}")
    raise PostError(f"{path} is locked by the run still writing it{_status_note(path.parent)} and changed "
                    f"under every one of {attempts} reads: read it again, or when the run has ended")


def _dataset(file, name):
    if name not in file:
        raise PostError(f"{file.filename} has no dataset '{name}'")
    return file[name]


def _read(data, selection=(), dtype=float):
    """data[selection] as an array; a dataset that cannot be read (a chunk that fails its Fletcher32 checksum:
    the solver writes every dataset with one) is a PostError naming the file and the dataset."""
    try:
        return np.asarray(data[selection], dtype=dtype)
    except OSError as error:
        raise PostError(f"{data.file.filename} is damaged: its dataset '{data.name.lstrip('/')}' cannot be read: "
                        f"{error}") from None


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def load_series(run):
    """All 1D datasets of series.h5 as float arrays of equal length, keyed by name."""
    path = Path(run) / "series.h5"
    error = _not_written_by_poisson(path)
    if error:
        raise error
    with _open(path) as file:
        columns = {name: _read(data) for name, data in file.items()
                   if isinstance(data, h5py.Dataset) and data.ndim == 1}
    for name in ("time", "energy"):
        if name not in columns:
            raise PostError(f"{path} has no dataset '{name}'")
    return columns


def require_rows(series, path, count, what, why):
    """A series of at least count rows, or a PostError naming the file, its rows and what needs them (a run
    with output.series_every = 0 writes none, one stopped early only the row of t = 0)."""
    rows = series["time"].size
    if rows < count:
        hint = "; output.series_every = 0 writes none" if rows == 0 else ""
        raise PostError(f"{path} holds {rows} row{'' if rows == 1 else 's'}: too short for {what} (it needs "
                        f"{count} or more: {why}{hint})")


def load_spectra(run):
    """k, time, step and every [time][shell] spectrum of spectra.h5."""
    path = Path(run) / "spectra.h5"
    error = _not_written_by_poisson(path)
    if error:
        raise error
    with _open(path) as file:
        spectra = {"k": _read(_dataset(file, "k")), "time": _read(_dataset(file, "time")),
                   "step": _read(_dataset(file, "step"), dtype=None)}
        for name, data in file.items():
            if isinstance(data, h5py.Dataset) and data.ndim == 2:
                spectra[name] = _read(data)
    if "energy_spectrum" not in spectra:
        raise PostError(f"{path} has no dataset 'energy_spectrum'")
    return spectra


def field_dumps(run):
    """The field dumps of a run as (step, path), by step."""
    folder = Path(run) / "fields"
    dumps = []
    if folder.is_dir():
        for path in folder.iterdir():
            match = re.fullmatch(r"fields_(\d+)\.h5", path.name)
            if match and path.is_file():
                dumps.append((int(match.group(1)), path))
    return sorted(dumps)


def choose_dump(run, step=None):
    dumps = field_dumps(run)
    if not dumps:
        raise PostError(f"no field dumps (fields_*.h5) in {Path(run) / 'fields'}{_status_note(run)}")
    if step is None:
        return dumps[-1][1]
    for dump_step, path in dumps:
        if dump_step == step:
            return path
    raise PostError(f"no field dump of step {step} in {Path(run) / 'fields'}")


def config_values(run):
    """The keys of DIR/config.yaml as {dotted.key: text} (poisson.shift: "1.0"), or None without the file. A
    line reader for the resolved configuration the solver writes (a key and its value on one line, sections
    by indentation, '#' comments), not a YAML parser: lists stay as their text."""
    path = Path(run) / "config.yaml"
    if not path.is_file():
        return None
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise PostError(f"{path} cannot be read ({error})") from None
    values, sections = {}, []  # sections: (indent, key) of the enclosing keys
    for line in text.splitlines():
        quote, cut = None, len(line)
        for i, character in enumerate(line):  # a '#' outside quotes, at the start or after a blank: a comment
            if quote:
                quote = None if character == quote else quote
            elif character in "\"'":
                quote = character
            elif character == "#" and (i == 0 or line[i - 1] in " \t"):
                cut = i
                break
        line = line[:cut].rstrip()
        match = re.fullmatch(r"( *)([A-Za-z_][\w.]*):(?:\s+(.*))?", line)
        if not match:
            continue
        indent, key, value = len(match.group(1)), match.group(2), (match.group(3) or "").strip()
        while sections and sections[-1][0] >= indent:
            sections.pop()
        dotted = ".".join([name for _, name in sections] + [key])
        if value:
            values[dotted] = value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'" \
                else value
        else:
            sections.append((indent, key))
    return values


def poisson_run(run, values):
    """Whether DIR holds a Poisson run, and how that is known: config.yaml's problem (navier_stokes when the
    key is absent, its default), or without config.yaml the last field dump's datasets (phi and no u). values:
    config_values(run), which the caller reads once and passes on to whatever else needs it."""
    if values is not None:
        return values.get("problem", "navier_stokes") == "poisson", "config.yaml"
    dumps = field_dumps(run)
    if dumps and h5py is not None:
        try:
            with h5py.File(dumps[-1][1], "r") as file:
                if "phi" in file and "u" not in file:
                    return True, f"the datasets of {dumps[-1][1].relative_to(run)}; no config.yaml"
        except OSError:
            pass
    return False, None


def _not_written_by_poisson(path):
    """A PostError for a file a Poisson run never writes (series.h5, spectra.h5), or None for any other run."""
    run = path.parent
    if not path.is_file() and poisson_run(run, config_values(run))[0]:
        return PostError(f"{path} is missing: a Poisson run writes none (its output is one field dump of phi "
                         f"and f: kolmo_post.py summary {run})")
    return None


def _axis_order(file, path):
    """A field file's axis order: "z y x" (kolmo's dumps, x fastest) or "x y z" (files without the attribute)."""
    order = _text(file.attrs.get("axis_order", "x y z"))
    if order not in ("x y z", "z y x"):
        raise PostError(f"{path} has axis_order '{order}', expected 'x y z' or 'z y x'")
    return order


def read_slice(path, field, z_index=None):
    """The plane [x][y] at z = z_index (default: the middle) of a field dump, and the dump's attributes.
    kolmo's dumps are stored x fastest, [Nz][Ny][Nx] (attribute axis_order "z y x"); files without the
    attribute are taken as [Nx][Ny][Nz]."""
    with _open(path) as file:
        data = _dataset(file, field)
        order = _axis_order(file, path)
        if data.ndim != 3:
            raise PostError(f"{path} dataset '{field}' has shape {data.shape}, expected 3 dimensions ({order})")
        nz = data.shape[0] if order == "z y x" else data.shape[2]
        z = nz // 2 if z_index is None else z_index
        if not 0 <= z < nz:
            raise PostError(f"z index {z} is outside 0..{nz - 1} for {path} dataset '{field}'")
        plane = _read(data, (z, slice(None), slice(None))).T if order == "z y x" else \
            _read(data, (slice(None), slice(None), z))
        attributes = {name: file.attrs[name] for name in file.attrs}
    return plane, z, attributes


def load_reference(path):
    """A reference time series: whitespace columns t, E, -dE/dt, enstrophy (per unit volume), '#' comments."""
    path = Path(path)
    if not path.is_file():
        raise PostError(f"reference file {path} is missing")
    try:
        table = np.loadtxt(path, comments="#", ndmin=2)
    except ValueError as error:
        raise PostError(f"reference file {path} is not a table of numbers ({error})") from None
    if table.shape[1] < 3 or table.shape[0] < 2:
        raise PostError(f"reference file {path} needs at least two rows of columns t, E, -dE/dt")
    columns = {"time": table[:, 0], "energy": table[:, 1], "dissipation_rate": table[:, 2]}
    if table.shape[1] > 3:
        columns["enstrophy"] = table[:, 3]
    return columns


# ---------------------------------------------------------------------------------------------- numbers


def _increasing_rows(time, energy):
    """The rows dissipation_from_energy keeps: finite, each later than the one before."""
    time, energy = np.asarray(time, dtype=float), np.asarray(energy, dtype=float)
    keep = np.isfinite(time) & np.isfinite(energy)
    keep[1:] &= np.diff(time) > 0
    return keep


def dissipation_from_energy(time, energy, injection=None):
    """The dissipation the energy balance implies, injection - dE/dt, by second-order finite differences
    (one-sided at the ends; uneven time steps allowed). Rows with repeated or non-finite times are dropped."""
    time = np.asarray(time, dtype=float)
    energy = np.asarray(energy, dtype=float)
    keep = _increasing_rows(time, energy)
    time, energy = time[keep], energy[keep]
    if time.size < 3:
        return time, np.full(time.shape, np.nan)
    balance = -np.gradient(energy, time, edge_order=2)
    if injection is not None:
        balance = balance + np.nan_to_num(np.asarray(injection, dtype=float)[keep])
    return time, balance


def time_mean(time, values):
    """The mean over time of rows (along the first axis) at the given times, by the trapezoid rule: rows need
    not be evenly spaced (an adaptive dt, spectra written every so many steps); a single row, or rows all at
    one time, is its plain mean."""
    time, values = np.asarray(time, dtype=float), np.asarray(values, dtype=float)
    span = time[-1] - time[0] if time.size else 0.0
    if time.size < 2 or not span > 0:
        return np.mean(values, axis=0)
    steps = np.diff(time).reshape((-1,) + (1,) * (values.ndim - 1))
    return np.sum(0.5 * (values[1:] + values[:-1]) * steps, axis=0) / span


def shell_width(k):
    """dk of spectra.h5's shells, k[s] = s dk with dk = 2 pi / L_min (solver/Spectrum.hpp): the spacing of k.
    E(k) there is the sum over a shell, so the spectral density is E(k) / dk (the same in a 2 pi box)."""
    steps = np.diff(np.asarray(k, dtype=float))
    steps = steps[np.isfinite(steps) & (steps > 0)]
    if not steps.size:
        raise PostError("spectra.h5's k has fewer than two shells: no shell width")
    return float(np.min(steps))


def energy_budget(series):
    """The energy whose balance a series closes, with its dissipation and injection as written: d(energy)/dt
    = injection - dissipation. Kinetic E alone exchanges energy with b under MHD (the Lorentz force's work)
    and with the potential energy under buoyancy (the buoyancy flux), so (solver/Diagnostics.hpp):
    - MHD (magnetic_energy): E + E_b, dissipation nu <|omega|^2> + eta <|j|^2>, injection of u and of b.
    - buoyancy (potential_energy = <b^2>/(2 N2)): d<b^2>/dt = -2 N2 buoyancy_flux - chi_b, so E + E_p decays
      at nu <|omega|^2> + chi_b/(2 N2), chi_b the column b_dissipation; 1/(2 N2) is potential_energy /
      b_variance (not written itself). Without b's columns, E's own balance with the buoyancy flux as an
      injection; without that either, no balance (the note says so).
    Returns energy, its name, dissipation (None when not written) and its name, injection (None when
    nothing is injected) and its name, the parts [(name, values)] of the energy, and a note (None when the
    balance closes)."""
    energy = np.asarray(series["energy"], dtype=float)
    dissipation = series.get("dissipation")
    budget = {"energy": energy, "energy_name": "E", "dissipation": dissipation,
              "dissipation_name": "nu<w^2>", "parts": [("E (kinetic)", energy)], "note": None}
    injections = [("injection", series.get("injection"))]
    if "magnetic_energy" in series:
        budget["energy"] = budget["energy"] + series["magnetic_energy"]
        budget["energy_name"] += " + E_b"
        budget["parts"].append(("E_b (magnetic)", series["magnetic_energy"]))
        if dissipation is not None and "magnetic_dissipation" in series:
            budget["dissipation"] = budget["dissipation"] + series["magnetic_dissipation"]
            budget["dissipation_name"] += " + eta<j^2>"
        else:
            budget["dissipation"] = None
        injections.append(("magnetic injection", series.get("magnetic_injection")))
    if "potential_energy" in series:
        if "b_variance" in series and "b_dissipation" in series:
            # 1/(2 N2) is a constant of the run: read at the row of the largest variance (round-off where b is
            # still zero); a b that is zero throughout has chi_b = 0, so any factor does.
            variance, potential = series["b_variance"], series["potential_energy"]
            finite = np.isfinite(variance) & np.isfinite(potential) & (variance != 0)
            row = int(np.argmax(np.where(finite, np.abs(variance), -1.0))) if finite.any() else None
            factor = potential[row] / variance[row] if row is not None else 0.0
            budget["energy"] = budget["energy"] + potential
            budget["energy_name"] += " + E_p"
            budget["parts"].append(("E_p (potential)", potential))
            if budget["dissipation"] is not None:
                budget["dissipation"] = budget["dissipation"] + factor * series["b_dissipation"]
                budget["dissipation_name"] += " + chi_b/(2N2)"
        elif "buoyancy_flux" in series:
            injections.append(("buoyancy flux", series["buoyancy_flux"]))
        else:
            budget["note"] = "the buoyancy's exchange is not in the series: no balance"
    present = [(name, np.asarray(values, dtype=float)) for name, values in injections
               if values is not None and np.nanmax(np.abs(values), initial=0.0) > 0]
    budget["injection"] = sum(np.nan_to_num(values) for _, values in present) if present else None
    budget["injection_name"] = " + ".join(name for name, _ in present) if present else None
    if budget["dissipation"] is None and budget["note"] is None:
        budget["note"] = "no dissipation written: no balance"
    return budget


def balance_line(time, budget):
    """The largest mismatch of the energy balance, injection - d(energy)/dt against the dissipation written,
    over the rows where the difference is defined; None without a dissipation or three distinct times."""
    if budget["dissipation"] is None or budget["note"] is not None:
        return None
    balance_time, balance = dissipation_from_energy(time, budget["energy"], budget["injection"])
    rows = _increasing_rows(time, budget["energy"])
    written = np.asarray(budget["dissipation"], dtype=float)[rows]
    good = np.isfinite(balance) & np.isfinite(written)
    if np.count_nonzero(good) < 3:
        return None
    worst = float(np.max(np.abs(balance[good] - written[good])))
    scale = float(np.max(np.abs(written[good])))
    relative = f" ({worst / scale:.2%} of the largest)" if scale > 0 else ""
    rate = (f"{budget['injection_name']} - " if budget["injection"] is not None else "-") + \
        f"d({budget['energy_name']})/dt"
    return (f"energy balance of {budget['energy_name']}: max |({rate}) - ({budget['dissipation_name']})| = "
            f"{worst:.3g}{relative}")


def five_thirds_guide(k, spectrum):
    """C k^(-5/3) through the data at the positive shell nearest the geometric middle of the range."""
    k = np.asarray(k, dtype=float)
    spectrum = np.asarray(spectrum, dtype=float)
    good = (k > 0) & (spectrum > 0) & np.isfinite(spectrum)
    if not good.any():
        return None, None
    kg, eg = k[good], spectrum[good]
    middle = np.sqrt(kg[0] * kg[-1])
    anchor = int(np.argmin(np.abs(np.log(kg / middle))))
    return kg, eg[anchor] * (kg / kg[anchor]) ** (-5.0 / 3.0)


def peak(time, values):
    """The largest value and its time, refined by the parabola through the largest sample and its neighbours
    (the reference is sampled every 0.01, a run at its own steps)."""
    time, values = np.asarray(time, dtype=float), np.asarray(values, dtype=float)
    if not np.isfinite(values).any():  # callers check their rows first; this keeps the contract's one line
        raise PostError(f"no finite value among {values.size} to find a peak in")
    i = int(np.nanargmax(values))
    if 0 < i < values.size - 1:
        (t0, t1, t2), (v0, v1, v2) = time[i - 1:i + 2], values[i - 1:i + 2]
        a = ((v2 - v1) / (t2 - t1) - (v1 - v0) / (t1 - t0)) / (t2 - t0)
        b = (v1 - v0) / (t1 - t0) - a * (t0 + t1)
        if a < 0:
            t = -b / (2 * a)
            if t0 <= t <= t2:
                return a * t * t + b * t + (v1 - a * t1 * t1 - b * t1), t
    return values[i], time[i]


def comparison(series, reference, path="series.h5"):
    """The run's energy and -dE/dt (from the energy balance, and 2 nu * enstrophy as the series writes it)
    against a reference, at the reference's times inside the run's time span (path: the series', for errors)."""
    require_rows(series, path, 3, "compare", "-dE/dt by second-order differences")
    balance_time, balance = dissipation_from_energy(series["time"], series["energy"])
    inside = (reference["time"] >= balance_time[0]) & (reference["time"] <= balance_time[-1])
    if inside.sum() < 3:
        raise PostError("the run and the reference share fewer than three times")
    t = reference["time"][inside]
    result = {"time": t,
              "energy_difference": np.interp(t, series["time"], series["energy"]) - reference["energy"][inside],
              "rate_difference": np.interp(t, balance_time, balance) - reference["dissipation_rate"][inside],
              "reference_peak": peak(t, reference["dissipation_rate"][inside]),
              "balance_peak": peak(balance_time, balance)}
    if "dissipation" in series:
        result["dissipation_peak"] = peak(series["time"], series["dissipation"])
        result["dissipation_difference"] = (np.interp(t, series["time"], series["dissipation"]) -
                                            reference["dissipation_rate"][inside])
    return result


def comparison_lines(result, reference_path):
    value, time = result["reference_peak"]
    lines = [f"reference: {reference_path}, {result['time'].size} times in {result['time'][0]:.4g} .. "
             f"{result['time'][-1]:.4g}",
             f"peak -dE/dt reference: {value:.6g} at t = {time:.4g}"]
    value, time = result["balance_peak"]
    lines.append(f"peak -dE/dt run (energy balance): {value:.6g} at t = {time:.4g}")
    if "dissipation_peak" in result:
        value, time = result["dissipation_peak"]
        lines.append(f"peak dissipation run (2 nu enstrophy): {value:.6g} at t = {time:.4g}")
    lines.append(f"max |E - E_ref|: {np.max(np.abs(result['energy_difference'])):.3g}")
    lines.append(f"max |-dE/dt - ref|: {np.max(np.abs(result['rate_difference'])):.3g}")
    if "dissipation_difference" in result:
        lines.append(f"max |dissipation - ref|: {np.max(np.abs(result['dissipation_difference'])):.3g}")
    return lines


def nearest_row(times, time=None, path="spectra.h5"):
    """The row of times nearest to time (default: the last row). A time outside the times of path (before the
    first row or after the last) gets the nearest row all the same, and a line on stderr saying so."""
    if time is None:
        return len(times) - 1
    times = np.asarray(times, dtype=float)
    row = int(np.argmin(np.abs(times - time)))
    first, last = np.nanmin(times), np.nanmax(times)
    if not first <= time <= last:
        print(f"kolmo_post: --time {time:g} is outside the times of {path} ({first:g} .. {last:g}): nearest "
              f"available time t = {times[row]:g}", file=sys.stderr)
    return row


def last_finite(values):
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    return finite[-1] if finite.size else None


# ---------------------------------------------------------------------------------------------- plots


def _save(figure, output):
    """Writes the figure to output; a place it cannot be written (a read-only run directory, a plots/ that is
    a file) is a PostError naming it."""
    output = Path(output)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(output, dpi=120)
    except OSError as error:
        raise PostError(f"cannot write {output}: {error.strerror or error}") from None
    finally:
        plt.close(figure)
    return output


def require_spectra_rows(run, spectra):
    """A run writes spectra.h5 whatever output.spectra_every says, so a file of no rows is a run that has not
    written one yet or one that writes none."""
    if spectra["time"].size == 0:
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no spectra: the run has written none yet, or "
                        "writes none (output.spectra_every: 0)")


def plot_spectrum(run, output=None, time=None):
    spectra = load_spectra(run)
    require_spectra_rows(run, spectra)
    row = nearest_row(spectra["time"], time, Path(run) / "spectra.h5")
    k, energy = spectra["k"], spectra["energy_spectrum"][row]
    # Shells that hold only round-off (a Taylor-Green field has no energy at k = 1) would stretch the axis
    # over tens of decades: plot the shells within 1e-20 of the largest.
    good = (k > 0) & (energy > 1e-20 * np.nanmax(energy, initial=0.0))
    figure, axes = plt.subplots(figsize=(6, 4.5))
    axes.loglog(k[good], energy[good], "o-", markersize=3, label="E(k)")
    guide_k, guide = five_thirds_guide(k[good], energy[good])
    if guide is not None:
        axes.loglog(guide_k, guide, "k--", linewidth=1, label=r"$k^{-5/3}$")
    axes.set_xlabel("k")
    axes.set_ylabel("E(k)")
    axes.set_title(f"energy spectrum, t = {spectra['time'][row]:.4g} (step {int(spectra['step'][row])})")
    axes.legend()
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / "spectrum.png")


def is_mhd_spectra(spectra):
    """Whether spectra.h5 is an MHD run's: magnetic_spectrum without a magnetic_flux (every scalar writes
    <name>_spectrum, _transfer and _flux; MHD writes magnetic_spectrum and magnetic_transfer only, so
    magnetic_transfer alone does not tell them apart). Runs of solvers before the name 'magnetic' was refused
    for a scalar may hold a scalar of that name."""
    return "magnetic_spectrum" in spectra and "magnetic_flux" not in spectra


def scalar_names(spectra):
    """The scalars of a run, sorted by name: every <name>_spectrum of spectra.h5 but the energy's and, in an
    MHD run, the magnetic field's."""
    exclude = {"energy_spectrum"} | ({"magnetic_spectrum"} if is_mhd_spectra(spectra) else set())
    return sorted(name[: -len("_spectrum")] for name in spectra
                  if name.endswith("_spectrum") and name not in exclude)


def plot_scalar_spectra(run, output=None, time=None):
    spectra = load_spectra(run)
    names = scalar_names(spectra)
    if not names:
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no scalar spectra (the run has no scalars)")
    require_spectra_rows(run, spectra)
    row = nearest_row(spectra["time"], time, Path(run) / "spectra.h5")
    k = spectra["k"]
    figure, axes = plt.subplots(figsize=(6, 4.5))
    for index, name in enumerate(names):
        values = spectra[name + "_spectrum"][row]
        good = (k > 0) & (values > 1e-20 * np.nanmax(values, initial=0.0))
        axes.loglog(k[good], values[good], "o-", markersize=3, label=f"E_{name}(k)")
        if index == 0:
            guide_k, guide = five_thirds_guide(k[good], values[good])
            if guide is not None:
                axes.loglog(guide_k, guide, "k--", linewidth=1, label=r"$k^{-5/3}$")
    axes.set_xlabel("k")
    axes.set_ylabel(r"$E_\theta(k)$")
    axes.set_title(f"scalar spectra, t = {spectra['time'][row]:.4g} (step {int(spectra['step'][row])})")
    axes.legend()
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / "scalar_spectra.png")


# Published constants drawn as reference lines: the three-dimensional Kolmogorov and Obukhov-Corrsin
# constants, E(k) = C_K eps^(2/3) k^(-5/3) and E_theta(k) = C_OC eps_theta eps^(-1/3) k^(-5/3) with
# eps_theta = chi / 2 (Sreenivasan, Phys. Fluids 7 (1995) 2778 and Phys. Fluids 8 (1996) 189).
KOLMOGOROV_CONSTANT = 1.5
OBUKHOV_CORRSIN_CONSTANT = 0.67


def mixing_scalar(series, path, scalar=None):
    """The scalar mixing is about: the one named, or without a name the run's only scalar with a mean
    gradient (mean_gradient_scalars, as all picks it). None such, several, or a name whose columns are not in
    the series is a PostError naming the run's scalars."""
    everything, gradient = series_scalars(series), mean_gradient_scalars(series)
    listed = (f"the run's scalars: {', '.join(everything)}; with a mean gradient: {', '.join(gradient) or 'none'}"
              if everything else "the run has no scalars")
    if scalar is None:
        if len(gradient) == 1:
            return gradient[0]
        if gradient:
            raise PostError(f"{path} has {len(gradient)} scalars with a mean gradient, {', '.join(gradient)}: "
                            f"name one with --scalar")
        raise PostError(f"{path} has no scalar with a mean gradient (its production column is zero or absent; "
                        f"{listed})")
    names = [f"{scalar}_{part}" for part in ("variance", "dissipation", "production", "flux_x", "flux_y",
                                              "flux_z")]
    missing = [name for name in names + ["dissipation"] if name not in series]
    if missing:
        raise PostError(f"{path} has no {', '.join(missing)} (a scalar with a mean gradient named '{scalar}'? "
                        f"{listed})")
    return scalar


def scalar_mean_gradient(values, scalar):
    """The mean gradient G = [Gx, Gy, Gz] of scalar as config.yaml gives it (physics.scalars[].mean_gradient
    in the solver's one-line list of maps), or None where values (config_values(run)) has no such entry."""
    text = (values or {}).get("physics.scalars", "")
    depth, own = 0, [""]  # each map of the list with its nested maps (initial: {...}) left out
    for character in text:
        if character == "{":
            depth += 1
            if depth == 1:
                own.append("")
            continue
        if character == "}":
            depth -= 1
            continue
        if depth == 1:
            own[-1] += character
    for keys in own[1:]:
        name = re.search(r"(?:^|[\s,])name:\s*[\"']?(\w+)", keys)
        gradient = re.search(r"(?:^|[\s,])mean_gradient:\s*\[([^\]]*)\]", keys)
        if name and name.group(1) == scalar and gradient:
            try:
                components = [float(number) for number in gradient.group(1).split(",")]
            except ValueError:
                return None
            return components if len(components) == 3 and all(np.isfinite(components)) else None
    return None


def mixing_statistics(run, scalar=None, start=None, end=None):
    """Time averages (trapezoid rule over t) over start <= t <= end (default: the second half of the series)
    of a scalar with a mean gradient (default: mixing_scalar's choice, kept as result["scalar"]). The flux
    along the gradient is <u_g theta>, u_g = u.G/|G| the velocity along the mean gradient G as config.yaml gives
    it (result["axis"] x, y or z for G along an axis, "G" otherwise); without config.yaml's G, the flux
    component of largest mean magnitude, signed as u.G by the production -2 G.<u theta>. u' = sqrt(2E/3)
    (isotropy). d<theta^2>/dt over the window closes the budget production - chi."""
    series = load_series(run)
    scalar = mixing_scalar(series, Path(run) / "series.h5", scalar)
    require_rows(series, Path(run) / "series.h5", 2, "mixing", "a mean over time")
    time = series["time"]
    start = time[-1] / 2 if start is None else start
    end = time[-1] if end is None else end
    rows = (time >= start) & (time <= end)
    if np.count_nonzero(rows) < 2:
        raise PostError(f"fewer than two rows of {Path(run) / 'series.h5'} between t = {start} and {end}")
    # Means over time, not over rows: with an adaptive dt the rows crowd where the flow is fast.
    mean = {name: float(time_mean(time[rows], values[rows])) for name, values in series.items()}
    fluxes = {axis: mean[f"{scalar}_flux_{axis}"] for axis in "xyz"}
    # rho is of u_g = u.G/|G|, not of the axis's component: a gradient along -z (theta's sign flipped) gave
    # rho > 0 for the flow whose +z gradient gives rho < 0, and a transient <u_y theta> larger than <u_z theta>
    # was taken for the flux along a gradient along z. Without G in config.yaml, the production
    # -2 G.<u theta> = -2 |G| <u_g theta> gives the sign (no production: the axis's own sign stays).
    production = mean[f"{scalar}_production"]
    gradient = scalar_mean_gradient(config_values(run), scalar)
    if gradient is not None and any(gradient):
        axes = [axis for axis, component in zip("xyz", gradient) if component != 0]
        along = float(np.dot(gradient, [fluxes[a] for a in "xyz"]) / np.linalg.norm(gradient))
        axis = axes[0] if len(axes) == 1 else "G"
        fluxes["G"] = along
    else:
        axis = max(fluxes, key=lambda a: abs(fluxes[a]))
        along = -np.sign(production) * abs(fluxes[axis]) if production != 0 else fluxes[axis]
    variance, chi, energy, eps = (mean[f"{scalar}_variance"], mean[f"{scalar}_dissipation"], mean["energy"],
                                  mean["dissipation"])
    window_time, window_variance = time[rows], series[f"{scalar}_variance"][rows]
    growth = (window_variance[-1] - window_variance[0]) / (window_time[-1] - window_time[0])
    result = {"scalar": scalar, "from": float(window_time[0]), "to": float(window_time[-1]),
              "rows": int(np.count_nonzero(rows)),
              "axis": axis, "flux": fluxes[axis], "flux_along": along, "variance": variance, "chi": chi,
              "energy": energy, "dissipation": eps, "production": production, "variance_growth": growth,
              "rho": along / (np.sqrt(2 * energy / 3) * np.sqrt(variance)),
              "r": (energy / eps) / (variance / chi)}
    for name in ("reynolds_lambda", "kmax_eta", "kolmogorov_eta"):
        if name in mean:
            result[name] = mean[name]
    return result


def mixing_lines(result):
    scalar = result["scalar"]
    lines = [f"scalar: {scalar}", f"window: t = {result['from']:.6g} .. {result['to']:.6g} ({result['rows']} rows)"]
    if "reynolds_lambda" in result:
        lines.append(f"Re_lambda: {result['reynolds_lambda']:.4g}")
    if "kmax_eta" in result:
        lines.append(f"k_max eta: {result['kmax_eta']:.4g}")
    velocity = "u.G/|G|" if result["axis"] == "G" else f"u_{result['axis']}"
    along = "" if result["axis"] == "G" else f"; along the gradient {result['flux_along']:.6g}"
    lines += [f"flux correlation rho: {result['rho']:.4g} (<{velocity} {scalar}> = {result['flux']:.6g}{along})",
              f"time-scale ratio r: {result['r']:.4g} ((E/eps) / (<{scalar}^2>/chi))",
              f"variance budget: production {result['production']:.6g}, chi {result['chi']:.6g}, "
              f"d<{scalar}^2>/dt {result['variance_growth']:.6g}, residual "
              f"{result['production'] - result['chi'] - result['variance_growth']:.3g}"]
    return lines


def mixing_spectra(run, result):
    """k eta and the time means over the window of result (mixing_statistics, whose scalar it is) of E(k) and
    E_theta(k) as spectral densities compensated by Kolmogorov and Obukhov-Corrsin scaling, E(k)/dk k^(5/3)
    eps^(-2/3) and E_theta(k)/dk k^(5/3) eps^(1/3) / eps_theta with eps_theta = chi / 2, over the shells k > 0."""
    spectra, scalar = load_spectra(run), result["scalar"]
    if scalar + "_spectrum" not in spectra:
        raise PostError(f"{Path(run) / 'spectra.h5'} has no {scalar}_spectrum")
    rows = (spectra["time"] >= result["from"]) & (spectra["time"] <= result["to"])
    if not np.any(rows):
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no spectra between t = {result['from']} and "
                        f"{result['to']}")
    k = spectra["k"]
    # spectra.h5 holds sums over shells of width dk = 2 pi / L_min; the constants are those of the density,
    # so divide by dk (1 in a 2 pi box, 2 in a box of side pi).
    dk = shell_width(k)
    good = k > 0
    eps, eps_theta = result["dissipation"], result["chi"] / 2
    times = spectra["time"][rows]
    energy = time_mean(times, spectra["energy_spectrum"][rows])[good] / dk
    variance = time_mean(times, spectra[scalar + "_spectrum"][rows])[good] / dk
    return {"k_eta": k[good] * result.get("kolmogorov_eta", 1.0), "dk": dk, "rows": int(np.count_nonzero(rows)),
            "energy": energy * k[good] ** (5 / 3) / eps ** (2 / 3),
            "scalar": variance * k[good] ** (5 / 3) * eps ** (1 / 3) / eps_theta}


def plot_mixing(run, result, output=None):
    scalar, compensated = result["scalar"], mixing_spectra(run, result)
    figure, axes = plt.subplots(figsize=(6.5, 4.5))
    x = compensated["k_eta"]
    dk = "" if compensated["dk"] == 1 else f", dk = {compensated['dk']:.4g}"
    axes.semilogx(x, compensated["energy"], "o-", markersize=3,
                  label=rf"$E(k)/dk\,k^{{5/3}}\varepsilon^{{-2/3}}${dk}")
    axes.semilogx(x, compensated["scalar"], "s-", markersize=3,
                  label=rf"$E_{{{scalar}}}(k)/dk\,k^{{5/3}}\varepsilon^{{1/3}}/\varepsilon_{{{scalar}}}$, "
                  rf"$\varepsilon_{{{scalar}}} = \chi/2$")
    axes.axhline(KOLMOGOROV_CONSTANT, color="C0", linestyle="--", linewidth=1,
                 label=f"Kolmogorov {KOLMOGOROV_CONSTANT} (Sreenivasan 1995)")
    axes.axhline(OBUKHOV_CORRSIN_CONSTANT, color="C1", linestyle="--", linewidth=1,
                 label=f"Obukhov-Corrsin {OBUKHOV_CORRSIN_CONSTANT} (Sreenivasan 1996)")
    axes.set_xlabel(r"$k\eta$")
    axes.set_ylabel("compensated spectrum")
    title = f"t = {result['from']:.3g}..{result['to']:.3g}"
    if "reynolds_lambda" in result:
        title += rf", $R_\lambda$ = {result['reynolds_lambda']:.0f}"
    axes.set_title(f"{scalar}: rho = {result['rho']:.3f}, r = {result['r']:.2f}, {title}")
    axes.legend(fontsize=8)
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / f"mixing_{scalar}.png")


def plot_series(run, output=None):
    """The energy and the two sides of its balance (energy_budget: the kinetic energy alone is not balanced
    by its dissipation under MHD or buoyancy); returns the plot's path and the balance's line."""
    series = load_series(run)
    require_rows(series, Path(run) / "series.h5", 2, "series", "it plots against time")
    time = series["time"]
    budget = energy_budget(series)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
    if len(budget["parts"]) > 1:
        for name, values in budget["parts"]:
            top.plot(time, values, linewidth=1, label=name)
        top.plot(time, budget["energy"], "k-", label=budget["energy_name"])
        top.legend(fontsize=8)
    else:
        top.plot(time, budget["energy"])
    top.set_ylabel("energy")
    if budget["dissipation"] is not None:
        bottom.plot(time, budget["dissipation"], label=f"dissipation (series): {budget['dissipation_name']}")
    balance_time, balance = dissipation_from_energy(time, budget["energy"], budget["injection"])
    rate = f"d({budget['energy_name']})/dt"
    label = f"{budget['injection_name']} - {rate}" if budget["injection"] is not None else f"-{rate}"
    if budget["note"] is not None:
        label += f" ({budget['note']})"
    bottom.plot(balance_time, balance, "--", label=label)
    bottom.set_xlabel("time")
    bottom.set_ylabel("dissipation")
    bottom.legend(fontsize=8)
    figure.tight_layout()
    line = balance_line(time, budget)
    if line is None:
        line = f"energy balance of {budget['energy_name']}: " + (budget["note"] or "fewer than three times")
    return _save(figure, output or Path(run) / "plots" / "series.png"), [line]


def mhd_peak(series):
    """(value, time) of the largest total dissipation nu <|omega|^2> + eta <|j|^2> of an MHD series."""
    total = series["dissipation"] + series["magnetic_dissipation"]
    return peak(series["time"], total)


# Run C2 of Pouquet, Lee, Brachet, Mininni & Rosenberg, Geophys. Astrophys. Fluid Dyn. 104, 115 (2010),
# Table 1 (pseudo-spectral at 128^3, nu = eta = 1e-3): the two numbers it gives for the run.
PUBLISHED_C2 = {"min_energy_ratio": 0.35, "first_enstrophy_ratio_max": 2.0}
PUBLISHED_C2_SOURCE = "Pouquet et al. 2010, C2"


def trough(time, values):
    """The smallest value and its time over t > 0 (the first row is the initial state), refined by a
    parabola as peak() does."""
    value, at = peak(np.asarray(time, dtype=float)[1:], -np.asarray(values, dtype=float)[1:])
    return -value, at


def first_max_after_fall(time, values):
    """(value, time) of the first local maximum of a series after its first local minimum (a ratio that
    falls from its initial value and then rises to a maximum), refined by a parabola; None when the series
    never turns up again."""
    time, values = np.asarray(time, dtype=float), np.asarray(values, dtype=float)
    i = 1
    while i < values.size and values[i] <= values[i - 1]:
        i += 1
    while i < values.size and values[i] >= values[i - 1]:
        i += 1
    if i >= values.size:  # still falling, or still rising at the last row: no maximum seen
        return None
    top = i - 1
    return peak(time[top - 1:top + 2], values[top - 1:top + 2])


def load_named_columns(path):
    """A whitespace table whose last '#' line names its columns (as M3LB's series.dat); a dict by name."""
    path = Path(path)
    if not path.is_file():
        raise PostError(f"reference file {path} is missing")
    names = None
    with open(path) as file:
        for line in file:
            if line.startswith("#"):
                names = line[1:].split()
            elif line.strip():
                break
    try:
        table = np.loadtxt(path, comments="#", ndmin=2)
    except ValueError as error:
        raise PostError(f"reference file {path} is not a table of numbers ({error})") from None
    if not names or len(names) != table.shape[1]:
        raise PostError(f"reference file {path}: its last '#' line before the numbers must name its "
                        f"{table.shape[1]} columns")
    return {name: table[:, index] for index, name in enumerate(names)}


def taylor_green_mhd_curves(series):
    """t, E_M/E_V, Omega_M/Omega_V and the total dissipation of a kolmo MHD series."""
    missing = [name for name in ("energy", "magnetic_energy", "enstrophy", "magnetic_enstrophy", "dissipation",
                                 "magnetic_dissipation") if name not in series]
    if missing:
        raise PostError(f"the series has no {', '.join(missing)}: not an MHD run of this kolmo")
    return {"time": series["time"], "energy_ratio": series["magnetic_energy"] / series["energy"],
            "enstrophy_ratio": series["magnetic_enstrophy"] / series["enstrophy"],
            "dissipation": series["dissipation"] + series["magnetic_dissipation"]}


def taylor_green_mhd_reference(path):
    """The same curves from a reference file with columns t, E_V, E_M, Omega_V, Omega_M and eps (the ratios
    do not depend on whether its Omega is <|omega|^2> or half of it; eps is the total dissipation)."""
    columns = load_named_columns(path)
    missing = [name for name in ("t", "E_V", "E_M", "Omega_V", "Omega_M", "eps") if name not in columns]
    if missing:
        raise PostError(f"reference file {path} has no column {', '.join(missing)}")
    if columns["t"].size < 2:
        raise PostError(f"reference file {path} holds {columns['t'].size} row(s): too short for tgmhd (it needs 2 "
                        f"or more: its minimum of E_M/E_V is sought after t = 0)")
    return {"time": columns["t"], "energy_ratio": columns["E_M"] / columns["E_V"],
            "enstrophy_ratio": columns["Omega_M"] / columns["Omega_V"], "dissipation": columns["eps"]}


def taylor_green_mhd_numbers(curves):
    """The numbers C2 is compared by: min E_M/E_V, the first maximum of Omega_M/Omega_V after its fall and
    the peak of the total dissipation, each with its time."""
    return {"min_energy_ratio": trough(curves["time"], curves["energy_ratio"]),
            "first_enstrophy_ratio_max": first_max_after_fall(curves["time"], curves["enstrophy_ratio"]),
            "peak_dissipation": peak(curves["time"], curves["dissipation"])}


def taylor_green_mhd_line(label, numbers):
    def at(pair):
        return "n/a" if pair is None else f"{_format(pair[0])} at t = {pair[1]:.3f}"
    return (f"{label}: min E_M/E_V {at(numbers['min_energy_ratio'])}; first max Omega_M/Omega_V after its fall "
            f"{at(numbers['first_enstrophy_ratio_max'])}; peak dissipation {at(numbers['peak_dissipation'])}")


def plot_taylor_green_mhd(run, others=(), reference=None, output=None):
    runs = [Path(run), *[Path(other) for other in others]]
    figure, (energy_axes, enstrophy_axes, dissipation_axes) = plt.subplots(1, 3, figsize=(14, 4.5))
    lines = []
    if reference is not None:
        curves = taylor_green_mhd_reference(reference)
        label = f"reference {Path(reference).parent.name or Path(reference).name}"
        for axes, name in ((energy_axes, "energy_ratio"), (enstrophy_axes, "enstrophy_ratio"),
                           (dissipation_axes, "dissipation")):
            axes.plot(curves["time"], curves[name], "k-", linewidth=3, alpha=0.35, label=label)
        lines.append(taylor_green_mhd_line(f"reference ({reference})", taylor_green_mhd_numbers(curves)))
    for index, path in enumerate(runs):
        series = load_series(path)
        curves = taylor_green_mhd_curves(series)
        # The minimum of E_M/E_V is sought after t = 0 (the initial state's row): a run needs rows past it.
        require_rows(series, path / "series.h5", 2, "tgmhd", "its minimum of E_M/E_V is sought after t = 0")
        style = ("-", "--", "-.", ":")[index % 4]
        for axes, name in ((energy_axes, "energy_ratio"), (enstrophy_axes, "enstrophy_ratio"),
                           (dissipation_axes, "dissipation")):
            axes.plot(curves["time"], curves[name], style, color=f"C{index}", linewidth=1.2, label=path.name)
        lines.append(taylor_green_mhd_line(str(path), taylor_green_mhd_numbers(curves)))
    energy_axes.axhline(PUBLISHED_C2["min_energy_ratio"], color="C3", linestyle=":", linewidth=1,
                        label=f"min {PUBLISHED_C2['min_energy_ratio']:g} ({PUBLISHED_C2_SOURCE})")
    enstrophy_axes.axhline(PUBLISHED_C2["first_enstrophy_ratio_max"], color="C3", linestyle=":", linewidth=1,
                           label=f"first max {PUBLISHED_C2['first_enstrophy_ratio_max']:g} "
                                 f"({PUBLISHED_C2_SOURCE})")
    lines.append(f"published ({PUBLISHED_C2_SOURCE}, Table 1, 128^3): min E_M/E_V "
                 f"{PUBLISHED_C2['min_energy_ratio']:g}; first max Omega_M/Omega_V after its fall "
                 f"{PUBLISHED_C2['first_enstrophy_ratio_max']:g}")
    for axes, ylabel in ((energy_axes, r"$E_M/E_V$"), (enstrophy_axes, r"$\Omega_M/\Omega_V$"),
                         (dissipation_axes, r"$\nu\langle\omega^2\rangle + \eta\langle j^2\rangle$")):
        axes.set_xlabel("t")
        axes.set_ylabel(ylabel)
        axes.legend(fontsize=7)
    figure.suptitle("MHD Taylor-Green, conducting field (run C2: Re = Rm = 1000)")
    figure.tight_layout()
    return _save(figure, output or runs[0] / "plots" / "tgmhd.png"), lines


# The columns the mhd plot draws (app/NavierStokesRun.cpp writes them all in an MHD run).
MHD_COLUMNS = ("energy", "magnetic_energy", "dissipation", "magnetic_dissipation", "cross_helicity",
               "magnetic_helicity", "current_max")


def plot_mhd(run, others=(), output=None, time=None):
    runs = [Path(run), *[Path(other) for other in others]]
    figure, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    (energy_axes, dissipation_axes, helicity_axes), (current_axes, spectrum_axes, ratio_axes) = axes
    lines = []
    for index, path in enumerate(runs):
        series = load_series(path)
        if "magnetic_energy" not in series:
            raise PostError(f"{path / 'series.h5'} has no magnetic_energy: not an MHD run")
        missing = [name for name in MHD_COLUMNS if name not in series]
        if missing:
            raise PostError(f"{path / 'series.h5'} has no {', '.join(missing)}")
        require_rows(series, path / "series.h5", 2, "mhd", "it plots against time")
        style = "-" if index == 0 else "--"
        label = path.name
        t = series["time"]
        kinetic, magnetic = series["energy"], series["magnetic_energy"]
        energy_axes.plot(t, kinetic, style, color="C0", label=f"E_u {label}")
        energy_axes.plot(t, magnetic, style, color="C1", label=f"E_b {label}")
        energy_axes.plot(t, kinetic + magnetic, style, color="k", label=f"E {label}")
        eps_u, eps_b = series["dissipation"], series["magnetic_dissipation"]
        dissipation_axes.plot(t, eps_u, style, color="C0", label=f"nu <w^2> {label}")
        dissipation_axes.plot(t, eps_b, style, color="C1", label=f"eta <j^2> {label}")
        dissipation_axes.plot(t, eps_u + eps_b, style, color="k", label=f"total {label}")
        if index == 0:  # injections (of u, of b) added: the balance of a forced run too
            budget = energy_budget(series)
            balance_time, balance = dissipation_from_energy(t, budget["energy"], budget["injection"])
            rate = f"d({budget['energy_name']})/dt"
            dissipation_axes.plot(balance_time, balance, ":", color="C3",
                                  label=f"{budget['injection_name']} - {rate}" if budget["injection"] is not None
                                  else f"-{rate}")
        helicity_axes.plot(t, series["cross_helicity"], style, color="C2", label=f"<u.b> {label}")
        helicity_axes.plot(t, series["magnetic_helicity"], style, color="C4", label=f"<a.b> {label}")
        current_axes.plot(t, series["current_max"], style, color="C3", label=f"max |j| {label}")
        ratio_axes.plot(t, magnetic / np.where(kinetic > 0, kinetic, np.nan), style, color="C5", label=label)
        value, when = mhd_peak(series)
        j_value, j_when = peak(t, series["current_max"])
        lines.append(f"{label}: peak total dissipation {_format(value)} at t = {_format(when)}; "
                     f"peak max|j| {_format(j_value)} at t = {_format(j_when)}")
        spectra_path = path / "spectra.h5"
        if spectra_path.is_file():
            spectra = load_spectra(path)
            if spectra["time"].size and "magnetic_spectrum" in spectra:
                row = nearest_row(spectra["time"], time, spectra_path)
                k = spectra["k"]
                for name, color in (("energy_spectrum", "C0"), ("magnetic_spectrum", "C1")):
                    values = spectra[name][row]
                    good = (k > 0) & (values > 1e-30)
                    short = "E_u" if name == "energy_spectrum" else "E_b"
                    spectrum_axes.loglog(k[good], values[good], style, color=color,
                                         label=f"{short}(k) {label}, t = {spectra['time'][row]:.3g}")
    for ax, ylabel in ((energy_axes, "energy"), (dissipation_axes, "dissipation"),
                       (helicity_axes, "helicity"), (current_axes, "max |j|"), (ratio_axes, "E_b / E_u")):
        ax.set_xlabel("time")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    spectrum_axes.set_xlabel("k")
    spectrum_axes.legend(fontsize=7)
    figure.tight_layout()
    return _save(figure, output or runs[0] / "plots" / "mhd.png"), lines


def slice_extent(box, shape):
    """imshow's extent for a plane [x][y] of shape (Nx, Ny) of grid points x_i = i Lx / Nx, y_j = j Ly / Ny
    (kolmo's grid: io/Xdmf.hpp, origin 0): each pixel is centred on its point, so the image spans half a
    spacing either side of the first and last points, -dx/2 .. Lx - dx/2."""
    dx, dy = box[0] / shape[0], box[1] / shape[1]
    return (-dx / 2, box[0] - dx / 2, -dy / 2, box[1] - dy / 2)


def plot_slice(run, field="u", z_index=None, step=None, output=None):
    path = choose_dump(run, step)
    plane, z, attributes = read_slice(path, field, z_index)
    box = np.asarray(attributes.get("box", plane.shape + (1,)), dtype=float)
    figure, axes = plt.subplots(figsize=(6, 5))
    limit = float(np.nanmax(np.abs(plane))) or 1.0  # a diverging map centred on zero
    image = axes.imshow(plane.T, origin="lower", extent=slice_extent(box, plane.shape), cmap="RdBu_r",
                        aspect="equal", vmin=-limit, vmax=limit)
    figure.colorbar(image, ax=axes, label=field)
    axes.set_xlabel("x")
    axes.set_ylabel("y")
    time = attributes.get("time")
    axes.set_title(f"{field}, z index {z}" + (f", t = {float(time):.4g}" if time is not None else ""))
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / f"slice_{field}.png")


def plot_comparison(run, reference_path, result=None, output=None):
    series, reference = load_series(run), load_reference(reference_path)
    result = result or comparison(series, reference)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 6.5), sharex=True,
                                         gridspec_kw={"height_ratios": [2, 1]})
    top.plot(reference["time"], reference["dissipation_rate"], "k-", linewidth=2.5, alpha=0.4,
             label=f"reference ({Path(reference_path).name})")
    balance_time, balance = dissipation_from_energy(series["time"], series["energy"])
    top.plot(balance_time, balance, "C0-", linewidth=1, label="run: -dE/dt")
    if "dissipation" in series:
        top.plot(series["time"], series["dissipation"], "C1--", linewidth=1, label="run: 2 nu enstrophy")
    top.set_ylabel("-dE/dt")
    top.legend(loc="upper right")
    bottom.plot(result["time"], result["rate_difference"], "C0-", linewidth=1, label="-dE/dt - reference")
    if "dissipation_difference" in result:
        bottom.plot(result["time"], result["dissipation_difference"], "C1--", linewidth=1,
                    label="2 nu enstrophy - reference")
    bottom.axhline(0, color="k", linewidth=0.5)
    bottom.set_xlabel("time")
    bottom.set_ylabel("difference")
    bottom.legend()
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / "compare.png")


# ---------------------------------------------------------------------------------------------- summary


def _format(value):
    return "n/a" if value is None else f"{value:.6g}"


def _grid(run):
    """The grid and where it was found: the last field dump or the checkpoint."""
    candidates = [path for _, path in reversed(field_dumps(run))]
    candidates += [Path(run) / "checkpoints" / name for name in ("checkpoint.h5", "checkpoint.prev.h5")]
    for path in candidates:
        if path.is_file() and h5py is not None:
            try:
                with h5py.File(path, "r") as file:
                    if "grid" in file.attrs:
                        grid = [int(n) for n in file.attrs["grid"]]
                        return " x ".join(map(str, grid)), path.relative_to(run)
            except OSError:
                continue
    return None, None


def files_present(run):
    run = Path(run)
    present = [name for name in ("config.yaml", "series.h5", "spectra.h5") if (run / name).is_file()]
    dumps = field_dumps(run)
    if dumps:
        present.append(f"fields: {len(dumps)} dumps (steps {dumps[0][0]}..{dumps[-1][0]})")
    checkpoints = [name for name in ("checkpoint.h5", "checkpoint.prev.h5")
                   if (run / "checkpoints" / name).is_file()]
    if checkpoints:
        present.append("checkpoints: " + ", ".join(checkpoints))
    return present


def summary_lines(run, values):
    """The summary of DIR; values: config_values(run)."""
    run = Path(run)
    poisson, source = poisson_run(run, values)
    if poisson:
        return poisson_summary_lines(run, values or {}, source)
    series = load_series(run)
    grid, grid_source = _grid(run)
    steps = series.get("step")
    lines = [f"run directory: {run}",
             f"grid: {grid} (from {grid_source})" if grid else "grid: unknown (no field dump or checkpoint)",
             f"series rows: {series['time'].size}"]
    if steps is not None and steps.size:
        lines.append(f"steps: {int(steps[0])} .. {int(steps[-1])}")
    lines.append(f"final time: {_format(last_finite(series['time']))}")
    if "magnetic_energy" in series:
        # energy and dissipation are the kinetic ones; with MHD the total is what decays by the total dissipation.
        kinetic, magnetic = last_finite(series["energy"]), last_finite(series["magnetic_energy"])
        total = last_finite(series["energy"] + series["magnetic_energy"])
        lines.append(f"final energy: kinetic {_format(kinetic)}, magnetic {_format(magnetic)}, "
                     f"total {_format(total)}")
        viscous = series.get("dissipation", np.array([]))
        resistive = series.get("magnetic_dissipation", np.array([]))
        both = viscous + resistive if viscous.size and viscous.size == resistive.size else []
        lines.append(f"final dissipation: viscous {_format(last_finite(viscous))}, resistive "
                     f"{_format(last_finite(resistive))}, total {_format(last_finite(both))}")
    else:
        lines += [f"final energy: {_format(last_finite(series['energy']))}",
                  f"final dissipation: {_format(last_finite(series.get('dissipation', [])))}"]
    if "potential_energy" in series:
        lines.append(f"final potential energy: {_format(last_finite(series['potential_energy']))}")
    lines += [f"Re_lambda: {_format(last_finite(series.get('reynolds_lambda', [])))}",
              f"k_max eta: {_format(last_finite(series.get('kmax_eta', [])))}"]
    for name in series_scalars(series):
        lines.append(f"{name}: final variance {_format(last_finite(series[name + '_variance']))}, "
                     f"chi {_format(last_finite(series.get(name + '_dissipation', [])))}")
    lines.append("files: " + (", ".join(files_present(run)) or "none"))
    return lines


# ---------------------------------------------------------------------------------------------- Poisson


def read_poisson_dump(path):
    """phi, f and (when the dump holds all three) phi_x, phi_y, phi_z of a Poisson run's field dump, each as a
    float64 array [x][y][z] (transposed from kolmo's [Nz][Ny][Nx]), with the grid (Nx, Ny, Nz), the box
    (Lx, Ly, Lz), the precision the file records and its shift lambda (attribute shift; None in dumps of kolmo
    before 2026-11-29, which stored none)."""
    with _open(path) as file:
        order = _axis_order(file, path)
        box = _dump_box(file, path, "the residual")
        fields = {}
        names = ["phi", "f"] + ([f"phi_{axis}" for axis in "xyz"] if all(f"phi_{axis}" in file for axis in "xyz")
                                else [])
        for name in names:
            data = _dataset(file, name)
            if data.ndim != 3:
                raise PostError(f"{path} dataset '{name}' has shape {data.shape}, expected 3 dimensions ({order})")
            values = _read(data)
            fields[name] = values.transpose() if order == "z y x" else values
        grid = tuple(int(n) for n in file.attrs["grid"]) if "grid" in file.attrs else fields["phi"].shape
        for name, values in fields.items():
            if values.shape != grid:
                raise PostError(f"{path} dataset '{name}' is {' x '.join(map(str, values.shape))} (x y z), not the "
                                f"grid {' x '.join(map(str, grid))}")
        precision = _text(file.attrs.get("precision", "unknown"))
        shift = None
        if "shift" in file.attrs:
            shift = float(np.asarray(file.attrs["shift"], dtype=float).ravel()[0])
            if not (np.isfinite(shift) and shift >= 0):
                raise PostError(f"{path} has shift {shift}, expected a finite number >= 0")
    return fields, grid, box, precision, shift


def _dump_box(file, path, needs):
    """The box lengths (Lx, Ly, Lz) of a field dump (attribute box), or a PostError saying what needs them."""
    if "box" not in file.attrs:
        raise PostError(f"{path} has no attribute 'box' (Lx, Ly, Lz): {needs} needs the box lengths")
    box = np.asarray(file.attrs["box"], dtype=float).ravel()
    if box.size != 3 or not np.all(np.isfinite(box) & (box > 0)):
        raise PostError(f"{path} has box {box.tolist()}, expected three positive lengths")
    return box


def _wavenumbers(grid, box, drop_nyquist=False):
    """k = 2 pi n / L along x, y (all n, numpy's FFT order) and z (n >= 0: the rfft axis), shaped to broadcast
    over [x][y][z/2 + 1]; drop_nyquist sets the Nyquist mode of an even axis to 0 (its derivative is not a real
    field: the solver drops it from the gradient)."""
    axes = []
    for d, (n, length) in enumerate(zip(grid, box)):
        numbers = np.fft.rfftfreq(n, 1.0 / n) if d == 2 else np.fft.fftfreq(n, 1.0 / n)
        k = 2 * np.pi * numbers / length
        if drop_nyquist and n % 2 == 0:
            k[np.abs(numbers) == n // 2] = 0.0
        shape = [1, 1, 1]
        shape[d] = k.size
        axes.append(k.reshape(shape))
    return axes


def _norm(values):
    return float(np.sqrt(np.sum(np.square(values))))


def poisson_check(fields, grid, box, shift=None):
    """The Poisson equation the run solved, lap(phi) - lambda phi = f (solver/Poisson.hpp), checked by FFT on
    the periodic box: lap is -|k|^2 with k = 2 pi n / L per axis, every mode kept (the solver's phi^ =
    -f^ / (|k|^2 + lambda), Nyquist modes included). Returns the shift used (None: the least-squares fit
    <phi, lap(phi) - f> / <phi, phi>), the residual's norm ||lap(phi) - lambda phi - f|| and ||f|| (discrete
    L2 norms over the grid points), and, when the dump holds the gradient, each ||phi_d - d(phi)/dd|| over
    ||grad phi||, the spectral derivative without the Nyquist mode of that axis, as the solver computes it."""
    phi, f = fields["phi"], fields["f"]
    spectrum = np.fft.rfftn(phi)
    kx, ky, kz = _wavenumbers(grid, box)
    laplacian = np.fft.irfftn(-(kx ** 2 + ky ** 2 + kz ** 2) * spectrum, s=grid)
    fitted = shift is None
    if fitted:
        size = float(np.sum(phi * phi))
        shift = float(np.sum(phi * (laplacian - f))) / size if size > 0 else 0.0
    result = {"shift": shift, "fitted": fitted, "residual": _norm(laplacian - shift * phi - f), "f_norm": _norm(f)}
    if "phi_x" in fields:
        derivatives = [np.fft.irfftn(1j * k * spectrum, s=grid) for k in _wavenumbers(grid, box, True)]
        scale = _norm(np.stack(derivatives))
        result["gradient"] = [_norm(fields[f"phi_{axis}"] - derivative) / (scale if scale > 0 else 1.0)
                              for axis, derivative in zip("xyz", derivatives)]
        result["gradient_scale"] = scale
    return result


def _statistics(values):
    return (f"min {_format(float(np.min(values)))}, max {_format(float(np.max(values)))}, "
            f"mean {_format(float(np.mean(values)))}, rms {_format(float(np.sqrt(np.mean(np.square(values)))))}")


def poisson_summary_lines(run, values, source):
    """The summary of a Poisson run: grid, box, the shift, phi's and f's statistics, the residual of the
    equation and the gradient's difference from the spectral gradient of phi. values: config_values(run), or
    {} without config.yaml; source: how the run is known to be a Poisson run (poisson_run)."""
    run = Path(run)
    path = choose_dump(run)
    fields, grid, box, precision, stored_shift = read_poisson_dump(path)
    shift = None
    if stored_shift is not None:
        shift = stored_shift  # what the dump was solved with, whatever config.yaml says now
    elif "poisson.shift" in values:
        try:
            shift = float(values["poisson.shift"])
        except ValueError:
            raise PostError(f"{run / 'config.yaml'} has poisson.shift '{values['poisson.shift']}', not a number") \
                from None
        if not (np.isfinite(shift) and shift >= 0):
            raise PostError(f"{run / 'config.yaml'} has poisson.shift {values['poisson.shift']}, expected a finite "
                            f"number >= 0")
    elif values:
        shift = 0.0  # the key's default
    check = poisson_check(fields, grid, box, shift)
    lines = [f"run directory: {run}",
             f"problem: poisson (from {source})",
             f"grid: {' x '.join(map(str, grid))} (from {path.relative_to(run)}, precision {precision})",
             f"box: {' x '.join(_format(length) for length in box)}"]
    if stored_shift is not None:
        lines.append(f"equation: lap(phi) - lambda phi = f, lambda = {check['shift']:.6g} (the dump's attribute "
                     f"shift)")
    elif check["fitted"]:
        lines.append(f"equation: lap(phi) - lambda phi = f, lambda not known (no config.yaml): its least-squares "
                     f"fit {check['shift']:.6g} is used")
    else:
        given = "poisson.shift" if "poisson.shift" in values else "poisson.shift not given: its default"
        lines.append(f"equation: lap(phi) - lambda phi = f, lambda = {check['shift']:.6g} ({given})")
    if "poisson.rhs.type" in values:
        rhs = values["poisson.rhs.type"]
        detail = {"manufactured": values.get("poisson.rhs.modes"), "file": values.get("poisson.rhs.file")}.get(rhs)
        mean = ", mean subtracted" if values.get("poisson.subtract_mean") == "true" else ""
        lines.append(f"right-hand side: {rhs}" + (f" {detail}" if detail else "") + mean)
    lines += [f"phi: {_statistics(fields['phi'])}", f"f: {_statistics(fields['f'])}"]
    if check["f_norm"] > 0:
        lines.append(f"residual: ||lap(phi) - lambda phi - f|| / ||f|| = {check['residual'] / check['f_norm']:.3e} "
                     f"(FFT, k = 2 pi n / L)")
    else:
        lines.append(f"residual: ||lap(phi) - lambda phi - f|| = {check['residual']:.3e} (f is zero: no relative "
                     f"residual)")
    if check["shift"] == 0 and not check["fitted"]:
        # The k = 0 mode of a pure Poisson problem: <f> must be zero, and phi, defined up to a constant, is
        # returned with zero mean; the residual cannot see phi's mean.
        lines.append(f"zero mode (lambda = 0): <phi> = {float(np.mean(fields['phi'])):.3e} (the solver returns 0), "
                     f"<f> = {float(np.mean(fields['f'])):.3e} (must be 0)")
    if "gradient" in check:
        x, y, z = check["gradient"]
        lines.append(f"gradient: ||phi_d - d(phi)/dd|| / ||grad phi|| = {x:.3e} (x), {y:.3e} (y), {z:.3e} (z)")
    else:
        lines.append("gradient: not in the dump (poisson.gradient: false)")
    status = run / "status"
    if status.is_file():
        lines.append(f"status: {status.read_text().strip()}")
    lines.append("files: " + (", ".join(files_present(run)) or "none"))
    return lines


# ---------------------------------------------------------------------------------------------- gradients


def read_velocity_spectra(path):
    """The spectra (numpy's rfftn over [x][y][z], transposed from kolmo's [Nz][Ny][Nx]) of u, v and w of a field
    dump, in double precision, read and transformed one component at a time (one field and the spectra held at
    once), with the grid (Nx, Ny, Nz), the box (Lx, Ly, Lz) and the dump's attributes time, step, viscosity and
    precision (None where absent). A dump without u, v and w (a Poisson run's holds phi and f) is a PostError."""
    with _open(path) as file:
        missing = [name for name in "uvw" if name not in file]
        if missing:
            poisson = "; a Poisson run has none" if "phi" in file else ""
            raise PostError(f"{path} has no dataset {', '.join(repr(name) for name in missing)}: gradients needs "
                            f"the velocity u, v, w (the dump holds {', '.join(sorted(file)) or 'nothing'}{poisson})")
        order = _axis_order(file, path)
        box = _dump_box(file, path, "gradients")
        grid = tuple(int(n) for n in file.attrs["grid"]) if "grid" in file.attrs else None
        spectra = []
        for name in "uvw":
            data = _dataset(file, name)
            if data.ndim != 3:
                raise PostError(f"{path} dataset '{name}' has shape {data.shape}, expected 3 dimensions ({order})")
            values = _read(data)
            values = values.transpose() if order == "z y x" else values
            grid = grid or values.shape
            if values.shape != grid:
                raise PostError(f"{path} dataset '{name}' is {' x '.join(map(str, values.shape))} (x y z), not the "
                                f"grid {' x '.join(map(str, grid))}")
            spectra.append(np.fft.rfftn(values))
            del values
        attributes = {}
        for name in ("time", "step", "viscosity"):
            value = np.asarray(file.attrs[name]).ravel() if name in file.attrs else np.array([])
            attributes[name] = value[0].item() if value.size else None
        attributes["precision"] = _text(file.attrs["precision"]) if "precision" in file.attrs else None
    return spectra, grid, box, attributes


# The velocity gradient's components A_ij = du_i/dx_j by (i, j), u_0 = u, x_0 = x.
LONGITUDINAL = ((0, 0), (1, 1), (2, 2))
TRANSVERSE = ((0, 1), (1, 2), (2, 0))


def derivative_name(i, j):
    return f"d{'uvw'[i]}/d{'xyz'[j]}"


def gradient_statistics(spectra, grid, box):
    """The small-scale statistics of a periodic velocity from its spectra (read_velocity_spectra): every
    A_ij = du_i/dx_j as the spectral derivative i k_j u_i^ with k = 2 pi n / L per axis and the Nyquist mode of
    an even axis dropped (_wavenumbers, as the solver takes derivatives), back on the grid; its moments
    <A^2>, <A^3>, <A^4> (means over the grid points; a derivative of a periodic field has zero mean), so
    the skewness <A^3>/<A^2>^(3/2) and flatness <A^4>/<A^2>^2; <|omega|^2>, <|grad u|^2> = sum_ij <A_ij^2> and
    <(div u)^2>. For a periodic field <|grad u|^2> = <|omega|^2> + <(div u)^2> (mode by mode: |k|^2 |u^|^2 =
    |k x u^|^2 + |k.u^|^2), so <|omega|^2> / <|grad u|^2> is 1 where div u = 0: the mean dissipation
    2 nu <s_ij s_ij> of homogeneous incompressible flow is nu <|omega|^2>. Three derivatives are held at a time
    (with the spectra: about seven times a field's size in double)."""
    k = _wavenumbers(grid, box, drop_nyquist=True)

    def derivative(i, j):
        return np.fft.irfftn(1j * k[j] * spectra[i], s=grid)

    def moments(values):
        square = values * values
        return float(np.mean(square)), float(np.mean(square * values)), float(np.mean(square * square))

    result, divergence, enstrophy = {}, 0.0, 0.0
    for i, j in LONGITUDINAL:
        values = derivative(i, j)
        result[(i, j)] = moments(values)
        divergence = divergence + values
    divergence = float(np.mean(np.square(divergence)))
    # omega_x = dw/dy - dv/dz, omega_y = du/dz - dw/dx, omega_z = dv/dx - du/dy: each pair once.
    for i, j in ((2, 1), (0, 2), (1, 0)):
        first, second = derivative(i, j), derivative(j, i)
        result[(i, j)], result[(j, i)] = moments(first), moments(second)
        enstrophy += float(np.mean(np.square(first - second)))
    return {"moments": result, "gradient_squared": sum(values[0] for values in result.values()),
            "enstrophy": enstrophy, "divergence_squared": divergence}


def _derivative_line(statistics, label, pairs, which):
    """label: each derivative's skewness (which = 3) or flatness (4) and their mean. A derivative that is zero
    (rms below 1e-12 of the gradient's: a velocity component constant along that axis) has neither: n/a, and is
    left out of the mean."""
    scale = statistics["gradient_squared"]
    parts, kept, zero = [], [], []
    for i, j in pairs:
        square, cube, fourth = statistics["moments"][(i, j)]
        name = derivative_name(i, j)
        if not square > 1e-24 * scale:
            parts.append(f"{name} n/a")
            zero.append(name)
            continue
        value = cube / square ** 1.5 if which == 3 else fourth / square ** 2
        parts.append(f"{name} {_format(value)}")
        kept.append(value)
    mean = f"mean {_format(float(np.mean(kept)))}" if kept else "mean n/a"
    if zero:
        mean += f" ({', '.join(zero)} zero: left out)"
    return f"{label}: {', '.join(parts)}, {mean}"


def gradient_lines(run, step=None):
    """The gradients block of a run's newest field dump (or that of step): longitudinal skewness and flatness,
    transverse flatness, <|omega|^2> (and nu <|omega|^2> with the dump's viscosity), the ratio
    <|omega|^2> / <|grad u|^2> and rms(div u) / rms(grad u), rms(grad u) = sqrt(<|grad u|^2>)."""
    run = Path(run)
    path = choose_dump(run, step)
    spectra, grid, box, attributes = read_velocity_spectra(path)
    statistics = gradient_statistics(spectra, grid, box)
    del spectra
    where = [f"step {attributes['step']}" if attributes["step"] is not None else None,
             f"t = {_format(attributes['time'])}" if attributes["time"] is not None else None,
             f"grid {' x '.join(map(str, grid))}", f"box {' x '.join(_format(length) for length in box)}",
             f"precision {attributes['precision']}" if attributes["precision"] else None]
    lines = [f"gradients of {path.relative_to(run)}: {', '.join(part for part in where if part)}",
             _derivative_line(statistics, "longitudinal skewness", LONGITUDINAL, 3),
             _derivative_line(statistics, "longitudinal flatness", LONGITUDINAL, 4),
             _derivative_line(statistics, "transverse flatness", TRANSVERSE, 4)]
    enstrophy, scale = statistics["enstrophy"], statistics["gradient_squared"]
    viscosity = attributes["viscosity"]
    dissipation = (f" (nu <|omega|^2> = {_format(viscosity * enstrophy)} with the dump's viscosity nu = "
                   f"{_format(viscosity)})" if viscosity else "")
    lines.append(f"<|omega|^2> = {_format(enstrophy)}{dissipation}")
    if scale > 0:
        lines += [f"<|omega|^2> / <|grad u|^2> = {_format(enstrophy / scale)} (1 where div u = 0: "
                  f"2 nu <s_ij s_ij> = nu <|omega|^2>)",
                  f"divergence: rms(div u) / rms(grad u) = {np.sqrt(statistics['divergence_squared'] / scale):.3e} "
                  f"(round-off for a kolmo dump)"]
    else:
        lines.append("<|omega|^2> / <|grad u|^2> = n/a (the velocity is uniform: no gradient)")
    return lines


# ---------------------------------------------------------------------------------------------- main


def series_scalars(series):
    """The scalars of a series (each with a <name>_variance column, b's of a buoyant run among them), by name."""
    return sorted(column[: -len("_variance")] for column in series if column.endswith("_variance"))


def mean_gradient_scalars(series):
    """The scalars of a series whose production -2 G.<u theta> is not zero somewhere: those with a mean
    gradient, mixing's subject. The Boussinesq b of a buoyant run has one too (N2 along gravity) but is not a
    passive scalar: left out."""
    buoyant = "potential_energy" in series
    names = [name[: -len("_production")] for name in series if name.endswith("_production")]
    return sorted(name for name in names if not (buoyant and name == "b")
                  and np.nanmax(np.abs(series[name + "_production"]), initial=0.0) > 0)


def _not_made(run):
    """Why all makes no mixing, compare or tgmhd plot: each needs more than the run directory."""
    lines = []
    try:
        series = load_series(run)
    except PostError:
        series = {}
    scalars = mean_gradient_scalars(series)
    if scalars:
        lines.append(f"not made: mixing of {', '.join(scalars)}: it averages over the stationary state, whose "
                     f"window only you know: kolmo_post.py mixing {run} --scalar {scalars[0]} --from T0 --to T1")
    else:
        lines.append("not made: mixing: no scalar with a mean gradient (its production column is zero or absent)")
    lines.append(f"not made: compare: it needs a reference series: kolmo_post.py compare {run} REFERENCE")
    if "magnetic_energy" in series:
        lines.append(f"not made: tgmhd: it measures the MHD Taylor-Green run C2 only: kolmo_post.py tgmhd {run}")
    return lines


def _all(run):
    run = Path(run)
    if not run.is_dir():
        raise PostError(f"run directory {run} does not exist")
    made, notes = [], []
    values = config_values(run)
    if poisson_run(run, values)[0]:
        # A Poisson run writes one field dump (phi, f and perhaps the gradient), no series or spectra: its
        # slices and the summary, which checks the equation.
        for field in ("phi", "f"):
            try:
                made.append(plot_slice(run, field))
            except PostError as error:
                print(f"kolmo_post: skipped slice of {field}: {error}", file=sys.stderr)
        for path in made:
            print(f"wrote {path}")
        print("\n".join(summary_lines(run, values)))
        return
    # Every plot that needs nothing but the run directory; one whose input is missing (no scalars, not an
    # MHD run, no field dump) says why on stderr.
    for name, work in (("spectrum", lambda: plot_spectrum(run)),
                       ("scalars", lambda: plot_scalar_spectra(run)),
                       ("series", lambda: plot_series(run)),
                       ("slice", lambda: plot_slice(run)),
                       ("mhd", lambda: plot_mhd(run))):
        try:
            result = work()
        except PostError as error:
            print(f"kolmo_post: skipped {name}: {error}", file=sys.stderr)
            continue
        path, lines = result if isinstance(result, tuple) else (result, [])
        made.append(path)
        notes += lines
    for line in _not_made(run):
        print(f"kolmo_post: {line}", file=sys.stderr)
    for path in made:
        print(f"wrote {path}")
    if notes:
        print("\n".join(notes))
    print("\n".join(summary_lines(run, values)))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kolmo_post", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    spectrum = commands.add_parser("spectrum", help="energy spectrum at one time")
    spectrum.add_argument("dir")
    spectrum.add_argument("-o", "--output")
    spectrum.add_argument("--time", type=float, help="the time to plot (nearest row; default the last)")
    scalars = commands.add_parser("scalars", help="each scalar's variance spectrum at one time")
    scalars.add_argument("dir")
    scalars.add_argument("-o", "--output")
    scalars.add_argument("--time", type=float, help="the time to plot (nearest row; default the last)")
    series = commands.add_parser("series", help="energy and dissipation against time")
    series.add_argument("dir")
    series.add_argument("-o", "--output")
    plane = commands.add_parser("slice", help="a z-plane of a field dump")
    plane.add_argument("dir")
    plane.add_argument("--field", help="the dataset (default u, or phi for a Poisson run)")
    plane.add_argument("--z", type=int, help="z index of the plane (default Nz/2)")
    plane.add_argument("--step", type=int, help="the dump's step (default the last dump)")
    plane.add_argument("-o", "--output")
    mhd = commands.add_parser("mhd", help="MHD energies, dissipations, helicities, max |j| and spectra")
    mhd.add_argument("dir")
    mhd.add_argument("others", nargs="*", help="more runs to draw dashed on the same axes")
    mhd.add_argument("-o", "--output")
    mhd.add_argument("--time", type=float, help="the spectra's time (nearest row; default the last)")
    tgmhd = commands.add_parser("tgmhd", help="MHD Taylor-Green run C2 (Pouquet et al. 2010): E_M/E_V, "
                                "Omega_M/Omega_V and the dissipation against the published values")
    tgmhd.add_argument("dir")
    tgmhd.add_argument("others", nargs="*", help="more runs (e.g. another grid) on the same axes")
    tgmhd.add_argument("--reference", help="a reference series by path (columns named on its last '#' line: "
                       "t, E_V, E_M, Omega_V, Omega_M, eps; e.g. M3LB's series.dat)")
    tgmhd.add_argument("-o", "--output")
    summary = commands.add_parser("summary", help="what the run did, in numbers")
    summary.add_argument("dir")
    gradients = commands.add_parser("gradients", help="velocity-derivative skewness and flatness, <|omega|^2> "
                                    "against <|grad u|^2> and the divergence, of one field dump")
    gradients.add_argument("dir")
    gradients.add_argument("--step", type=int, help="the dump's step (default the last dump)")
    compare = commands.add_parser("compare", help="energy and -dE/dt against a reference time series")
    compare.add_argument("dir")
    compare.add_argument("reference", help="file of columns t, E, -dE/dt, enstrophy ('#' comments)")
    compare.add_argument("-o", "--output")
    mixing = commands.add_parser("mixing", help="a mean-gradient scalar's flux correlation, time-scale ratio, "
                                 "budget and compensated spectra, time-averaged")
    mixing.add_argument("dir")
    mixing.add_argument("--scalar", help="the scalar (default: the run's only scalar with a mean gradient)")
    mixing.add_argument("--from", dest="start", type=float, help="start of the window (default: half the run)")
    mixing.add_argument("--to", dest="end", type=float, help="end of the window (default: the last row)")
    mixing.add_argument("-o", "--output")
    everything = commands.add_parser("all", help="every plot into DIR/plots/ and the summary")
    everything.add_argument("dir")
    arguments = parser.parse_args(argv)

    try:
        if not Path(arguments.dir).is_dir():
            raise PostError(f"run directory {arguments.dir} does not exist")
        if getattr(arguments, "time", None) is not None and not np.isfinite(arguments.time):
            raise PostError(f"--time {arguments.time} is not a finite number")
        if arguments.command == "spectrum":
            print(f"wrote {plot_spectrum(arguments.dir, arguments.output, arguments.time)}")
        elif arguments.command == "scalars":
            print(f"wrote {plot_scalar_spectra(arguments.dir, arguments.output, arguments.time)}")
        elif arguments.command == "series":
            path, lines = plot_series(arguments.dir, arguments.output)
            print("\n".join(lines))
            print(f"wrote {path}")
        elif arguments.command == "slice":
            field = arguments.field or ("phi" if poisson_run(arguments.dir, config_values(arguments.dir))[0] else "u")
            path = plot_slice(arguments.dir, field, arguments.z, arguments.step, arguments.output)
            print(f"wrote {path}")
        elif arguments.command == "mhd":
            path, lines = plot_mhd(arguments.dir, arguments.others, arguments.output, arguments.time)
            print("\n".join(lines))
            print(f"wrote {path}")
        elif arguments.command == "tgmhd":
            path, lines = plot_taylor_green_mhd(arguments.dir, arguments.others, arguments.reference,
                                                arguments.output)
            print("\n".join(lines))
            print(f"wrote {path}")
        elif arguments.command == "summary":
            print("\n".join(summary_lines(arguments.dir, config_values(arguments.dir))))
        elif arguments.command == "gradients":
            print("\n".join(gradient_lines(arguments.dir, arguments.step)))
        elif arguments.command == "compare":
            result = comparison(load_series(arguments.dir), load_reference(arguments.reference),
                                Path(arguments.dir) / "series.h5")
            print("\n".join(comparison_lines(result, arguments.reference)))
            print(f"wrote {plot_comparison(arguments.dir, arguments.reference, result, arguments.output)}")
        elif arguments.command == "mixing":
            result = mixing_statistics(arguments.dir, arguments.scalar, arguments.start, arguments.end)
            print("\n".join(mixing_lines(result)))
            print(f"wrote {plot_mixing(arguments.dir, result, arguments.output)}")
        else:
            _all(arguments.dir)
    except PostError as error:
        print(f"kolmo_post: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
