#!/usr/bin/python3
"""Post-processing of a kolmo run directory: plots and a summary from the files the solver writes.

Layout read (written by the solver, see io/OutputDirectory.hpp):
    <dir>/config.yaml                       resolved configuration
    <dir>/series.h5                         1D datasets: time, step, energy, dissipation, injection, ...
    <dir>/spectra.h5                        /k, /time, /step, /energy_spectrum [t][k], /transfer, /flux, and
                                            per scalar /<name>_spectrum, /<name>_transfer, /<name>_flux
    <dir>/fields/fields_NNNNNN.h5 (+ .xmf)  u, v, w, ... as [Nz][Ny][Nx] (attribute axis_order 'z y x'); time, step, grid, box
    <dir>/checkpoints/checkpoint.h5 (+ checkpoint.prev.h5)

Subcommands:
    spectrum DIR [-o PNG] [--time T]       E(k) at the last (or the nearest to T) time, log-log, with a k^-5/3
                                           guide line through the data
    scalars DIR [-o PNG] [--time T]        each scalar's variance spectrum E_theta(k) (and b's), log-log, with a
                                           k^-5/3 (Obukhov-Corrsin) guide line through the first
    series DIR [-o PNG]                    energy, and dissipation both as written and from the energy balance
                                           (-dE/dt, plus the injection when the run is forced)
    slice DIR [--field u] [--z K] [--step N] [-o PNG]
                                           a z-plane of a field of the last (or chosen) dump
    summary DIR                            grid, steps, final time, energy, dissipation, Re_lambda, k_max eta,
                                           each scalar's variance and dissipation chi, files present
    compare DIR REFERENCE [-o PNG]         the run's energy and dissipation rate -dE/dt against a reference
                                           time series (columns t, E, -dE/dt, enstrophy, '#' comments: the
                                           format of the high-order CFD workshop's Taylor-Green files, e.g.
                                           the 512^3 spectral DNS); prints the peaks and the largest
                                           differences, plots both curves and their difference
    mixing DIR [--scalar NAME] [--from T0] [--to T1] [-o PNG]
                                           a scalar with a mean gradient in stationary turbulence, averaged over
                                           T0 <= t <= T1: the flux correlation coefficient rho = <u_g theta> /
                                           (u' theta') along the gradient, the mechanical-to-scalar time-scale
                                           ratio r = (E / eps) / (<theta^2> / chi), the variance budget, and a
                                           plot of E_theta(k) and E(k) compensated by Obukhov-Corrsin and
                                           Kolmogorov scaling against k eta
    all DIR                                every plot into DIR/plots/ and the summary; plots whose input is
                                           missing are skipped with a line saying so

A missing file or dataset gives one line on stderr and exit code 1.
"""

import argparse
import os
import re
import sys
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


def _open(path):
    if h5py is None:
        raise PostError("h5py is not installed for " + sys.executable)
    if not path.is_file():
        raise PostError(f"{path} is missing")
    try:
        return h5py.File(path, "r")
    except OSError as error:
        raise PostError(f"{path} is not a readable HDF5 file ({error})") from None


def _dataset(file, name):
    if name not in file:
        raise PostError(f"{file.filename} has no dataset '{name}'")
    return file[name]


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def load_series(run):
    """All 1D datasets of series.h5 as float arrays of equal length, keyed by name."""
    path = Path(run) / "series.h5"
    with _open(path) as file:
        columns = {name: np.asarray(data[()], dtype=float) for name, data in file.items()
                   if isinstance(data, h5py.Dataset) and data.ndim == 1}
    for name in ("time", "energy"):
        if name not in columns:
            raise PostError(f"{path} has no dataset '{name}'")
    return columns


def load_spectra(run):
    """k, time, step and every [time][shell] spectrum of spectra.h5."""
    path = Path(run) / "spectra.h5"
    with _open(path) as file:
        spectra = {"k": np.asarray(_dataset(file, "k")[()], dtype=float),
                   "time": np.asarray(_dataset(file, "time")[()], dtype=float),
                   "step": np.asarray(_dataset(file, "step")[()])}
        for name, data in file.items():
            if isinstance(data, h5py.Dataset) and data.ndim == 2:
                spectra[name] = np.asarray(data[()], dtype=float)
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
        raise PostError(f"no field dumps (fields_*.h5) in {Path(run) / 'fields'}")
    if step is None:
        return dumps[-1][1]
    for dump_step, path in dumps:
        if dump_step == step:
            return path
    raise PostError(f"no field dump of step {step} in {Path(run) / 'fields'}")


def read_slice(path, field, z_index=None):
    """The plane [x][y] at z = z_index (default: the middle) of a field dump, and the dump's attributes.
    kolmo's dumps are stored x fastest, [Nz][Ny][Nx] (attribute axis_order "z y x"); files without the
    attribute are taken as [Nx][Ny][Nz]."""
    with _open(path) as file:
        data = _dataset(file, field)
        order = file.attrs.get("axis_order", "x y z")
        order = order.decode() if isinstance(order, bytes) else str(order)
        if order not in ("x y z", "z y x"):
            raise PostError(f"{path} has axis_order '{order}', expected 'x y z' or 'z y x'")
        if data.ndim != 3:
            raise PostError(f"{path} dataset '{field}' has shape {data.shape}, expected 3 dimensions ({order})")
        nz = data.shape[0] if order == "z y x" else data.shape[2]
        z = nz // 2 if z_index is None else z_index
        if not 0 <= z < nz:
            raise PostError(f"z index {z} is outside 0..{nz - 1} for {path} dataset '{field}'")
        plane = np.asarray(data[z, :, :].T if order == "z y x" else data[:, :, z], dtype=float)
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


def dissipation_from_energy(time, energy, injection=None):
    """The dissipation the energy balance implies, injection - dE/dt, by second-order finite differences
    (one-sided at the ends; uneven time steps allowed). Rows with repeated or non-finite times are dropped."""
    time = np.asarray(time, dtype=float)
    energy = np.asarray(energy, dtype=float)
    keep = np.isfinite(time) & np.isfinite(energy)
    keep[1:] &= np.diff(time) > 0
    time, energy = time[keep], energy[keep]
    if time.size < 3:
        return time, np.full(time.shape, np.nan)
    balance = -np.gradient(energy, time, edge_order=2)
    if injection is not None:
        balance = balance + np.nan_to_num(np.asarray(injection, dtype=float)[keep])
    return time, balance


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


def comparison(series, reference):
    """The run's energy and -dE/dt (from the energy balance, and 2 nu * enstrophy as the series writes it)
    against a reference, at the reference's times inside the run's time span."""
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


def nearest_row(times, time=None):
    if time is None:
        return len(times) - 1
    return int(np.argmin(np.abs(np.asarray(times) - time)))


def last_finite(values):
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    return finite[-1] if finite.size else None


# ---------------------------------------------------------------------------------------------- plots


def _save(figure, output):
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=120)
    plt.close(figure)
    return output


def plot_spectrum(run, output=None, time=None):
    spectra = load_spectra(run)
    if spectra["time"].size == 0:
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no spectra yet")
    row = nearest_row(spectra["time"], time)
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


def scalar_names(spectra):
    """The scalars of a run, sorted by name: every <name>_spectrum of spectra.h5 but the energy's."""
    return sorted(name[: -len("_spectrum")] for name in spectra
                  if name.endswith("_spectrum") and name != "energy_spectrum")


def plot_scalar_spectra(run, output=None, time=None):
    spectra = load_spectra(run)
    names = scalar_names(spectra)
    if not names:
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no scalar spectra (the run has no scalars)")
    if spectra["time"].size == 0:
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no spectra yet")
    row = nearest_row(spectra["time"], time)
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


def mixing_statistics(run, scalar="theta", start=None, end=None):
    """Time averages over start <= t <= end (default: the second half of the series) of a scalar with a mean
    gradient. The flux along the gradient is the flux component of largest mean magnitude; u' = sqrt(2E/3)
    (isotropy). d<theta^2>/dt over the window closes the budget production - chi."""
    series = load_series(run)
    names = [f"{scalar}_{part}" for part in ("variance", "dissipation", "production", "flux_x", "flux_y",
                                              "flux_z")]
    missing = [name for name in names + ["dissipation"] if name not in series]
    if missing:
        raise PostError(f"{Path(run) / 'series.h5'} has no {', '.join(missing)} (a scalar with a mean gradient "
                        f"named '{scalar}'?)")
    time = series["time"]
    start = time[-1] / 2 if start is None else start
    end = time[-1] if end is None else end
    rows = (time >= start) & (time <= end)
    if np.count_nonzero(rows) < 2:
        raise PostError(f"fewer than two rows of {Path(run) / 'series.h5'} between t = {start} and {end}")
    mean = {name: float(np.mean(values[rows])) for name, values in series.items()}
    fluxes = {axis: mean[f"{scalar}_flux_{axis}"] for axis in "xyz"}
    axis = max(fluxes, key=lambda a: abs(fluxes[a]))
    variance, chi, energy, eps = (mean[f"{scalar}_variance"], mean[f"{scalar}_dissipation"], mean["energy"],
                                  mean["dissipation"])
    window_time, window_variance = time[rows], series[f"{scalar}_variance"][rows]
    growth = (window_variance[-1] - window_variance[0]) / (window_time[-1] - window_time[0])
    result = {"from": float(window_time[0]), "to": float(window_time[-1]), "rows": int(np.count_nonzero(rows)),
              "axis": axis, "flux": fluxes[axis], "variance": variance, "chi": chi, "energy": energy,
              "dissipation": eps, "production": mean[f"{scalar}_production"], "variance_growth": growth,
              "rho": fluxes[axis] / (np.sqrt(2 * energy / 3) * np.sqrt(variance)),
              "r": (energy / eps) / (variance / chi)}
    for name in ("reynolds_lambda", "kmax_eta", "kolmogorov_eta"):
        if name in mean:
            result[name] = mean[name]
    return result


def mixing_lines(result, scalar="theta"):
    lines = [f"window: t = {result['from']:.6g} .. {result['to']:.6g} ({result['rows']} rows)"]
    if "reynolds_lambda" in result:
        lines.append(f"Re_lambda: {result['reynolds_lambda']:.4g}")
    if "kmax_eta" in result:
        lines.append(f"k_max eta: {result['kmax_eta']:.4g}")
    lines += [f"flux correlation rho: {result['rho']:.4g} (<u_{result['axis']} {scalar}> = {result['flux']:.6g})",
              f"time-scale ratio r: {result['r']:.4g} ((E/eps) / (<{scalar}^2>/chi))",
              f"variance budget: production {result['production']:.6g}, chi {result['chi']:.6g}, "
              f"d<{scalar}^2>/dt {result['variance_growth']:.6g}, residual "
              f"{result['production'] - result['chi'] - result['variance_growth']:.3g}"]
    return lines


def plot_mixing(run, result, scalar="theta", output=None):
    spectra = load_spectra(run)
    if scalar + "_spectrum" not in spectra:
        raise PostError(f"{Path(run) / 'spectra.h5'} has no {scalar}_spectrum")
    rows = (spectra["time"] >= result["from"]) & (spectra["time"] <= result["to"])
    if not np.any(rows):
        raise PostError(f"{Path(run) / 'spectra.h5'} holds no spectra between t = {result['from']} and "
                        f"{result['to']}")
    k = spectra["k"]
    good = k > 0
    eta = result.get("kolmogorov_eta", 1.0)
    eps, eps_theta = result["dissipation"], result["chi"] / 2
    energy = np.mean(spectra["energy_spectrum"][rows], axis=0)
    variance = np.mean(spectra[scalar + "_spectrum"][rows], axis=0)
    figure, axes = plt.subplots(figsize=(6.5, 4.5))
    x = k[good] * eta
    axes.semilogx(x, energy[good] * k[good] ** (5 / 3) / eps ** (2 / 3), "o-", markersize=3,
                  label=r"$E(k)\,k^{5/3}\varepsilon^{-2/3}$")
    axes.semilogx(x, variance[good] * k[good] ** (5 / 3) * eps ** (1 / 3) / eps_theta, "s-", markersize=3,
                  label=rf"$E_{{{scalar}}}(k)\,k^{{5/3}}\varepsilon^{{1/3}}/\varepsilon_{{{scalar}}}$, "
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
    series = load_series(run)
    time, energy = series["time"], series["energy"]
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
    top.plot(time, energy)
    top.set_ylabel("energy")
    if "dissipation" in series:
        bottom.plot(time, series["dissipation"], label="dissipation (series)")
    injection = series.get("injection")
    forced = injection is not None and np.nanmax(np.abs(injection), initial=0.0) > 0
    balance_time, balance = dissipation_from_energy(time, energy, injection if forced else None)
    bottom.plot(balance_time, balance, "--", label="injection - dE/dt" if forced else "-dE/dt")
    bottom.set_xlabel("time")
    bottom.set_ylabel("dissipation")
    bottom.legend()
    figure.tight_layout()
    return _save(figure, output or Path(run) / "plots" / "series.png")


def plot_slice(run, field="u", z_index=None, step=None, output=None):
    path = choose_dump(run, step)
    plane, z, attributes = read_slice(path, field, z_index)
    box = np.asarray(attributes.get("box", plane.shape + (1,)), dtype=float)
    figure, axes = plt.subplots(figsize=(6, 5))
    limit = float(np.nanmax(np.abs(plane))) or 1.0  # a diverging map centred on zero
    image = axes.imshow(plane.T, origin="lower", extent=(0, box[0], 0, box[1]), cmap="RdBu_r", aspect="equal",
                        vmin=-limit, vmax=limit)
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


def summary_lines(run):
    run = Path(run)
    series = load_series(run)
    grid, grid_source = _grid(run)
    steps = series.get("step")
    lines = [f"run directory: {run}",
             f"grid: {grid} (from {grid_source})" if grid else "grid: unknown (no field dump or checkpoint)",
             f"series rows: {series['time'].size}"]
    if steps is not None and steps.size:
        lines.append(f"steps: {int(steps[0])} .. {int(steps[-1])}")
    lines += [f"final time: {_format(last_finite(series['time']))}",
              f"final energy: {_format(last_finite(series['energy']))}",
              f"final dissipation: {_format(last_finite(series.get('dissipation', [])))}",
              f"Re_lambda: {_format(last_finite(series.get('reynolds_lambda', [])))}",
              f"k_max eta: {_format(last_finite(series.get('kmax_eta', [])))}"]
    for name in sorted(column[: -len("_variance")] for column in series if column.endswith("_variance")):
        lines.append(f"{name}: final variance {_format(last_finite(series[name + '_variance']))}, "
                     f"chi {_format(last_finite(series.get(name + '_dissipation', [])))}")
    lines.append("files: " + (", ".join(files_present(run)) or "none"))
    return lines


# ---------------------------------------------------------------------------------------------- main


def _all(run):
    run = Path(run)
    if not run.is_dir():
        raise PostError(f"run directory {run} does not exist")
    made = []
    has_scalars = (run / "spectra.h5").is_file() and scalar_names(load_spectra(run))
    for name, work in (("spectrum", lambda: plot_spectrum(run)),
                       *((("scalars", lambda: plot_scalar_spectra(run)),) if has_scalars else ()),
                       ("series", lambda: plot_series(run)),
                       ("slice", lambda: plot_slice(run))):
        try:
            made.append(work())
        except PostError as error:
            print(f"kolmo_post: skipped {name}: {error}", file=sys.stderr)
    for path in made:
        print(f"wrote {path}")
    print("\n".join(summary_lines(run)))


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
    plane.add_argument("--field", default="u")
    plane.add_argument("--z", type=int, help="z index of the plane (default Nz/2)")
    plane.add_argument("--step", type=int, help="the dump's step (default the last dump)")
    plane.add_argument("-o", "--output")
    summary = commands.add_parser("summary", help="what the run did, in numbers")
    summary.add_argument("dir")
    compare = commands.add_parser("compare", help="energy and -dE/dt against a reference time series")
    compare.add_argument("dir")
    compare.add_argument("reference", help="file of columns t, E, -dE/dt, enstrophy ('#' comments)")
    compare.add_argument("-o", "--output")
    mixing = commands.add_parser("mixing", help="a mean-gradient scalar's flux correlation, time-scale ratio, "
                                 "budget and compensated spectra, time-averaged")
    mixing.add_argument("dir")
    mixing.add_argument("--scalar", default="theta")
    mixing.add_argument("--from", dest="start", type=float, help="start of the window (default: half the run)")
    mixing.add_argument("--to", dest="end", type=float, help="end of the window (default: the last row)")
    mixing.add_argument("-o", "--output")
    everything = commands.add_parser("all", help="every plot into DIR/plots/ and the summary")
    everything.add_argument("dir")
    arguments = parser.parse_args(argv)

    try:
        if not Path(arguments.dir).is_dir():
            raise PostError(f"run directory {arguments.dir} does not exist")
        if arguments.command == "spectrum":
            print(f"wrote {plot_spectrum(arguments.dir, arguments.output, arguments.time)}")
        elif arguments.command == "scalars":
            print(f"wrote {plot_scalar_spectra(arguments.dir, arguments.output, arguments.time)}")
        elif arguments.command == "series":
            print(f"wrote {plot_series(arguments.dir, arguments.output)}")
        elif arguments.command == "slice":
            path = plot_slice(arguments.dir, arguments.field, arguments.z, arguments.step, arguments.output)
            print(f"wrote {path}")
        elif arguments.command == "summary":
            print("\n".join(summary_lines(arguments.dir)))
        elif arguments.command == "compare":
            result = comparison(load_series(arguments.dir), load_reference(arguments.reference))
            print("\n".join(comparison_lines(result, arguments.reference)))
            print(f"wrote {plot_comparison(arguments.dir, arguments.reference, result, arguments.output)}")
        elif arguments.command == "mixing":
            result = mixing_statistics(arguments.dir, arguments.scalar, arguments.start, arguments.end)
            print("\n".join(mixing_lines(result, arguments.scalar)))
            print(f"wrote {plot_mixing(arguments.dir, result, arguments.scalar, arguments.output)}")
        else:
            _all(arguments.dir)
    except PostError as error:
        print(f"kolmo_post: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
