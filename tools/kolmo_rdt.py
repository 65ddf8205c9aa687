#!/usr/bin/python3
"""Rapid-distortion theory (RDT) against a kolmo run: linear, initially isotropic turbulence under stable
stratification or rotation, whose sphere-averaged answers are published in closed form.

    stratified RUN [--n2 N2] [--gravity X Y Z] [-o PNG]
        Hanazaki & Hunt, J. Fluid Mech. 318 (1996) 303-337 (the linear stage of Riley, Metcalfe & Weissman
        1981 and Pearson & Linden 1983): b = 0 at t = 0, Pr = 1. Each mode's velocity splits into a vortical
        part (horizontal, normal to k and to the vertical e; steady) and a wave part along
        e2 = (e - mu k/|k|) / s, mu = e.k/|k|, s = sqrt(1 - mu^2), which with beta = b/N turns as
        (u2, beta)' = N s (beta, -u2): u2 = u2(0) cos(N s t), b = -N u2(0) sin(N s t). Averaged over the sphere
        (half the energy in each part) with C(a) = int_0^1 cos(a s) dmu, S(a) = int_0^1 s sin(a s) dmu and
        D(a) = int_0^1 s^2 cos(a s) dmu:
            KE/KE0 = 3/4 + C(2Nt)/4        PE/KE0 = (1 - C(2Nt))/4         (KE -> 3/4, PE -> 1/4)
            <w b>/(N KE0) = -S(2Nt)/2      <w^2>/2 / KE0 = 1/6 + D(2Nt)/4
        each shell's share times exp(-2 nu k^2 t) (nu = kappa), from the run's initial spectrum E(k).
        KE, PE = <b^2>/(2 N2) and <w b> come from series.h5 (every row), <w^2>/2 (w = u.e) from the dumps.
    rotating RUN [--omega X Y Z] [-o PNG]
        Cambon & Jacquin, J. Fluid Mech. 202 (1989) 295-317: each mode turns about k at 2 Omega.k/|k|
        (u' = -2 (Omega.k/|k|) k/|k| x u), so the energy and the single-point stresses stay as they were,
        while the two-time correlation loses its phase:
            <u(t).u(0)> / <u(0).u(0)> = sin(2 |Omega| t) / (2 |Omega| t)     (phase mixing of inertial waves)
        each shell's share times exp(-nu k^2 t). Measured from the dumps (output.fields_every), with
        b33 = <u_O^2>/<u.u> - 1/3 (u_O along Omega; 0 in the theory) and KE/KE0 from series.h5.

Beside the published (isotropic) curve the tool prints this field's own exact linear solution: every mode of
the first dump evolved as above. measured - this field is what the run adds (advection, kept small by
u' k0 / N or u' k0 / (2 Omega) << 1, and the time step); this field - published is the finite sample: the
grid's modes sample the sphere of directions unevenly (the kz = 0 plane carries a finite share), and
each mode of kolmo's random field draws one polarisation (its share along a direction normal to k is uniform
on [0, 1]), which a few thousand modes average to 1/2 only approximately. The
parameters default to the run's config.yaml; --n2, --gravity and --omega predict for others (the app test
runs mutated physics against the stated parameters). Prints a table at the dump times and the largest
deviations over every row; -o draws measured, this field and published against time.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kolmo_post as post  # noqa: E402  (its readers of series.h5, spectra.h5, dumps and config.yaml)

plt = post.plt


def _quadrature(points=400):
    """s and the weights of a Gauss-Legendre rule over mu in [0, 1] taken in phi, mu = cos(phi), s = sin(phi):
    smooth in phi (in mu, s has a square root at mu = 1, which slows every rule); within 3e-11 of a sum over
    2 million points in mu up to a = 40."""
    x, w = np.polynomial.legendre.leggauss(points)
    phi = (x + 1) * np.pi / 4
    return np.sin(phi), w * np.pi / 4 * np.sin(phi)  # dmu = sin(phi) dphi


def sphere_averages(a):
    """C(a), S(a), D(a) above, for an array of a."""
    s, w = _quadrature()
    phase = np.outer(np.asarray(a, dtype=float), s)
    return np.cos(phase) @ w, np.sin(phase) @ (w * s), np.cos(phase) @ (w * s * s)


def _vector(text, what):
    values = [float(part) for part in text.strip("[] ").split(",")]
    if len(values) != 3:
        raise post.PostError(f"config.yaml: {what} is {text}, expected [x, y, z]")
    return np.array(values)


def _initial_spectrum(run):
    """k and E(k) of spectra.h5's first row (t = 0), the shells the published curves are weighted by."""
    spectra = post.load_spectra(run)
    post.require_spectra_rows(run, spectra)
    if spectra["time"][0] != 0:
        raise post.PostError(f"{Path(run) / 'spectra.h5'} starts at t = {spectra['time'][0]:g}, not 0")
    return spectra["k"], spectra["energy_spectrum"][0]


def _shell_weights(k, spectrum, nu, times, power):
    """Each shell's share of the initial energy times exp(-power nu k^2 t): [time][shell]."""
    return spectrum / spectrum.sum() * np.exp(-power * nu * np.outer(times, k * k))


def _dumps(run):
    dumps = post.field_dumps(run)
    if not dumps:
        raise post.PostError(f"no field dumps in {Path(run) / 'fields'}: the comparison needs output.fields_every")
    return [path for _, path in dumps]


def _read_dump(path, names):
    """Fields [x][y][z] of a dump, and its time, grid and box."""
    with post._open(path) as file:
        order = post._axis_order(file, path)
        fields = {}
        for name in names:
            values = post._read(post._dataset(file, name))
            fields[name] = values.transpose() if order == "z y x" else values
        box = post._dump_box(file, path, "the RDT comparison")
        return fields, float(file.attrs["time"]), fields[names[0]].shape, box


class Modes:
    """The modes of a dump's fields (numpy's rfftn, divided by the point count so that <f g> = sum of
    weight Re(f^ g^*)), their unit wavevectors, |k|^2 and Parseval weights (2 for kz > 0 but Nyquist)."""

    def __init__(self, fields, grid, box):
        count = np.prod(grid)
        self.hat = {name: np.fft.rfftn(values) / count for name, values in fields.items()}
        k = post._wavenumbers(grid, box)
        self.k = [np.broadcast_to(axis, self.hat[next(iter(self.hat))].shape) for axis in k]
        self.k2 = sum(axis * axis for axis in self.k)
        norm = np.sqrt(np.where(self.k2 > 0, self.k2, 1.0))
        self.unit = [axis / norm for axis in self.k]
        nz = np.fft.rfftfreq(grid[2], 1.0 / grid[2])
        weight = np.where((nz == 0) | (2 * nz == grid[2]), 1.0, 2.0)
        self.weight = np.broadcast_to(weight.reshape(1, 1, -1), self.k2.shape)

    def mean(self, f, g):
        """<f g> of two real fields from their modes."""
        return float(np.sum(self.weight * np.real(f * np.conj(g))))


def _direction(values, what):
    norm = np.linalg.norm(values)
    if not norm > 0:
        raise post.PostError(f"{what} is zero")
    return values / norm


# ---------------------------------------------------------------------------------------------- stratified


def stratified(run, n2=None, gravity=None):
    """Measured, this field's linear solution and published, each as {quantity: array over times}, with the
    times: KE/KE0, PE/KE0, <w b>/(N KE0) at every series row, vertical KE/KE0 at the dump times."""
    run = Path(run)
    values = post.config_values(run) or {}
    if values.get("physics.buoyancy.type") != "boussinesq":
        raise post.PostError(f"{run} has no Boussinesq buoyancy (physics.buoyancy.type)")
    n2 = float(values["physics.buoyancy.n2"]) if n2 is None else n2
    up = 0.0 - _direction(_vector(values["physics.buoyancy.gravity"], "physics.buoyancy.gravity")
                     if gravity is None else np.asarray(gravity, dtype=float), "gravity")
    if not n2 > 0:
        raise post.PostError(f"N2 = {n2:g}: RDT of a stable stratification needs N2 > 0")
    if float(values.get("physics.buoyancy.prandtl", "1")) != 1:
        raise post.PostError("the solution used needs physics.buoyancy.prandtl 1 (nu = kappa)")
    nu, n = float(values["physics.viscosity"]), np.sqrt(n2)

    series = post.load_series(run)
    for name in ("potential_energy", "buoyancy_flux"):
        if name not in series:
            raise post.PostError(f"{run / 'series.h5'} has no column {name}")
    ke0 = series["energy"][0]
    times = series["time"]
    paths = _dumps(run)
    dump_times, vertical = [], []
    for path in paths:
        fields, time, grid, box = _read_dump(path, ["u", "v", "w"])
        w = sum(up[d] * fields[name] for d, name in enumerate("uvw"))
        dump_times.append(time)
        vertical.append(0.5 * np.mean(w * w) / ke0)
    dump_times = np.array(dump_times)
    measured = {"KE": series["energy"] / ke0, "PE": series["potential_energy"] / ke0,
                "flux": series["buoyancy_flux"] / (n * ke0), "vertical KE": np.array(vertical)}

    # Published: the sphere averages, shell by shell.
    k, spectrum = _initial_spectrum(run)
    published = {}
    for name, at in (("KE", times), ("PE", times), ("flux", times), ("vertical KE", dump_times)):
        c, s, d = sphere_averages(2 * n * at)
        part = {"KE": 0.75 + c / 4, "PE": (1 - c) / 4, "flux": -s / 2, "vertical KE": 1 / 6 + d / 4}[name]
        published[name] = _shell_weights(k, spectrum, nu, at, 2).sum(axis=1) * part

    # This field: every mode of the first dump evolved exactly (b from the dump too, so b(0) need not be 0).
    fields, time0, grid, box = _read_dump(paths[0], ["u", "v", "w", "b"])
    if time0 != 0:
        raise post.PostError(f"the first dump {paths[0]} is at t = {time0:g}, not 0")
    modes = Modes(fields, grid, box)
    u = [modes.hat[name] for name in "uvw"]
    mu = sum(up[d] * modes.unit[d] for d in range(3))
    s = np.sqrt(np.clip(1 - mu * mu, 0, None))
    safe = np.where(s > 0, s, 1.0)
    e2 = [np.where(s > 0, (up[d] - mu * modes.unit[d]) / safe, 0.0) for d in range(3)]
    u2 = sum(e2[d] * u[d] for d in range(3))
    toroidal = sum(modes.weight * np.abs(u[d] - u2 * e2[d]) ** 2 for d in range(3))
    beta = modes.hat["b"] / n

    def linear(t):
        decay = np.exp(-nu * modes.k2 * t)
        turn = n * s * t
        wave = decay * (u2 * np.cos(turn) + beta * np.sin(turn))
        buoyancy = n * decay * (beta * np.cos(turn) - u2 * np.sin(turn))
        return decay, wave, buoyancy

    sample = {name: [] for name in measured}
    for t in times:
        decay, wave, buoyancy = linear(t)
        sample["KE"].append(0.5 * (np.sum(decay ** 2 * toroidal) + np.sum(modes.weight * np.abs(wave) ** 2)))
        sample["PE"].append(0.5 * np.sum(modes.weight * np.abs(buoyancy) ** 2) / n2)
        sample["flux"].append(modes.mean(s * wave, buoyancy) / n)
    for t in dump_times:
        _, wave, _ = linear(t)
        sample["vertical KE"].append(0.5 * np.sum(modes.weight * np.abs(s * wave) ** 2))
    sample = {name: np.array(values) / ke0 for name, values in sample.items()}
    at = {"KE": times, "PE": times, "flux": times, "vertical KE": dump_times}
    return {"times": at, "measured": measured, "sample": sample, "published": published,
            "parameters": f"N2 = {n2:g} (N = {n:g}), up = {up.round(6).tolist()}, nu = kappa = {nu:g}",
            "scale": f"N t (the buoyancy period is {2 * np.pi / n:g} in t)", "rate": n, "label": "N t",
            "grid": grid, "dumps": dump_times}


# ---------------------------------------------------------------------------------------------- rotating


def rotating(run, omega=None):
    """Measured, this field's linear solution and published, as for stratified: the two-time correlation
    <u(t).u(0)>/<u(0).u(0)> and b33 at the dump times, KE/KE0 at every series row."""
    run = Path(run)
    values = post.config_values(run) or {}
    omega = _vector(values.get("physics.rotation", "[0, 0, 0]"), "physics.rotation") if omega is None \
        else np.asarray(omega, dtype=float)
    axis = _direction(omega, "the rotation rate Omega")
    rate = 2 * np.linalg.norm(omega)
    nu = float(values["physics.viscosity"])
    series = post.load_series(run)
    times = series["time"]

    paths = _dumps(run)
    first, time0, grid, box = _read_dump(paths[0], ["u", "v", "w"])
    if time0 != 0:
        raise post.PostError(f"the first dump {paths[0]} is at t = {time0:g}, not 0")
    norm0 = sum(np.mean(first[name] ** 2) for name in "uvw")
    dump_times, correlation, b33 = [], [], []
    for path in paths:
        fields, time, _, _ = _read_dump(path, ["u", "v", "w"])
        dump_times.append(time)
        correlation.append(sum(np.mean(fields[name] * first[name]) for name in "uvw") / norm0)
        along = sum(axis[d] * fields[name] for d, name in enumerate("uvw"))
        b33.append(np.mean(along * along) / sum(np.mean(fields[name] ** 2) for name in "uvw") - 1 / 3)
    dump_times = np.array(dump_times)
    measured = {"correlation": np.array(correlation), "b33": np.array(b33),
                "KE": series["energy"] / series["energy"][0]}

    k, spectrum = _initial_spectrum(run)
    x = rate * dump_times
    phase = np.sin(x) / np.where(x > 0, x, 1.0)
    phase[x == 0] = 1.0
    published = {"correlation": _shell_weights(k, spectrum, nu, dump_times, 1).sum(axis=1) * phase,
                 "b33": np.zeros(dump_times.size),
                 "KE": _shell_weights(k, spectrum, nu, times, 2).sum(axis=1)}

    # This field: u^(t) = exp(-nu k^2 t) (u^ cos(sigma t) - (k/|k| x u^) sin(sigma t)), sigma = 2 Omega.k/|k|.
    modes = Modes(first, grid, box)
    u = [modes.hat[name] for name in "uvw"]
    e = modes.unit
    cross = [e[1] * u[2] - e[2] * u[1], e[2] * u[0] - e[0] * u[2], e[0] * u[1] - e[1] * u[0]]
    sigma = 2 * sum(omega[d] * e[d] for d in range(3))
    energy0 = sum(np.sum(modes.weight * np.abs(c) ** 2) for c in u)
    sample = {"correlation": [], "b33": [], "KE": []}
    for t in dump_times:
        decay = np.exp(-nu * modes.k2 * t)
        turned = [decay * (u[d] * np.cos(sigma * t) - cross[d] * np.sin(sigma * t)) for d in range(3)]
        sample["correlation"].append(sum(modes.mean(turned[d], u[d]) for d in range(3)) / energy0)
        along = sum(axis[d] * turned[d] for d in range(3))
        total = sum(np.sum(modes.weight * np.abs(c) ** 2) for c in turned)
        sample["b33"].append(np.sum(modes.weight * np.abs(along) ** 2) / total - 1 / 3)
    for t in times:
        sample["KE"].append(np.sum(modes.weight * np.exp(-2 * nu * modes.k2 * t) * sum(np.abs(c) ** 2 for c in u))
                            / energy0)
    sample = {name: np.array(values) for name, values in sample.items()}
    at = {"correlation": dump_times, "b33": dump_times, "KE": times}
    return {"times": at, "measured": measured, "sample": sample, "published": published,
            "parameters": f"Omega = {omega.round(6).tolist()}, nu = {nu:g}",
            "scale": f"2 |Omega| t (the fastest inertial period is {2 * np.pi / rate:g} in t)", "rate": rate,
            "label": "2|O|t",
            "grid": grid, "dumps": dump_times}


# ---------------------------------------------------------------------------------------------- output


def largest(result, first, second):
    """{quantity: (largest |first - second| over its times, the time)}."""
    out = {}
    for name, times in result["times"].items():
        difference = np.abs(result[first][name] - result[second][name])
        row = int(np.nanargmax(difference))
        out[name] = (float(difference[row]), float(times[row]))
    return out


def report_lines(case, run, result):
    """The table (each quantity measured, this field, published at the dump times) and the largest deviations."""
    names = list(result["times"])
    lines = [f"{case} RDT of {run}: {result['parameters']}, grid {' x '.join(map(str, result['grid']))}",
             f"{'t':>7} {result['label']:>7}" + "".join(f" | {name:<26}" for name in names),
             " " * 15 + f" | {'meas.':>8} {'field':>8} {'publ.':>8}" * len(names)]
    for t in result["dumps"]:
        row = f"{t:7.3f} {result['rate'] * t:7.2f}"
        for name in names:
            i = int(np.argmin(np.abs(result["times"][name] - t)))
            row += " | " + " ".join(f"{round(result[which][name][i], 5) + 0.0:8.5f}"  # no -0.00000
                                    for which in ("measured", "sample", "published"))
        lines.append(row)
    for first, second, what in (("measured", "published", "measured - published"),
                                ("measured", "sample", "measured - this field (advection, time step)"),
                                ("sample", "published", "this field - published (the finite sample)")):
        parts = [f"{name} {value:.2e} (t = {time:g})" for name, (value, time) in largest(result, first, second).items()]
        lines.append(f"largest |{what}|: " + ", ".join(parts))
    return [line.rstrip() for line in lines]


def plot(result, title, output):
    names = list(result["times"])
    figure, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6))
    for axis, name in zip(np.atleast_1d(axes), names):
        x = result["rate"] * result["times"][name]
        axis.plot(x, result["published"][name], "k-", label="published (isotropic)")
        axis.plot(x, result["sample"][name], "C1--", label="this field, linear")
        axis.plot(x, result["measured"][name], "C0.", markersize=3, label="kolmo")
        axis.set_xlabel(result["scale"].split(" (")[0])
        axis.set_title(name)
    np.atleast_1d(axes)[0].legend(fontsize=8)
    figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    return post._save(figure, output)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kolmo_rdt", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    cases = parser.add_subparsers(dest="case", required=True)
    layered = cases.add_parser("stratified", help="stable stratification, b = 0 at t = 0 (Hanazaki & Hunt, "
                               "J. Fluid Mech. 318, 1996)")
    layered.add_argument("dir")
    layered.add_argument("--n2", type=float, help="N2 of the prediction (default: the run's)")
    layered.add_argument("--gravity", type=float, nargs=3, help="gravity of the prediction (default: the run's)")
    layered.add_argument("-o", "--output")
    spinning = cases.add_parser("rotating", help="rotation: the two-time correlation (Cambon & Jacquin, "
                                "J. Fluid Mech. 202, 1989)")
    spinning.add_argument("dir")
    spinning.add_argument("--omega", type=float, nargs=3, help="Omega of the prediction (default: the run's)")
    spinning.add_argument("-o", "--output")
    arguments = parser.parse_args(argv)
    try:
        if not Path(arguments.dir).is_dir():
            raise post.PostError(f"run directory {arguments.dir} does not exist")
        if arguments.case == "stratified":
            result = stratified(arguments.dir, arguments.n2, arguments.gravity)
            title = "stratified RDT (Hanazaki & Hunt 1996): " + result["parameters"]
        else:
            result = rotating(arguments.dir, arguments.omega)
            title = "rotating RDT (Cambon & Jacquin 1989): " + result["parameters"]
        print("\n".join(report_lines(arguments.case, arguments.dir, result)))
        if arguments.output:
            print(f"wrote {plot(result, title, arguments.output)}")
    except post.PostError as error:
        print(f"kolmo_rdt: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
