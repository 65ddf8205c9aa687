#!/usr/bin/python3
"""End-to-end tests of MHD runs (run by ctest; needs /usr/bin/python3 with h5py and numpy).

- Checkpoints carry b by name (bx_hat, by_hat, bz_hat) with the velocity: N steps in one go and
  N/2 + restart + N/2 give bitwise-identical fields on 1 and 2 ranks; a 1-rank checkpoint continues on 3 ranks
  to the same state within round-off.
- series.h5 has the magnetic columns, with the configured initial magnetic energy; spectra.h5 E_b(k), whose
  sum is that energy; field dumps b and j (bx ... jz) and their XDMF the vectors "magnetic" and "current";
  <|b|^2>/2 of the dump equals the series' magnetic energy.
- b read back from a field dump (physics.magnetic.initial.type file) reproduces its energy.
- Rotation, linear forcing of u, band forcing of b and pressure dumps run together: the series' injections
  are the configured powers (0.3 and 0.2) to round-off and close the energy budget d(E + E_b)/dt = injections
  - dissipations; the dump's pressure is finite.
- An independent code: spectralDNS's MHD Taylor-Green regression case (demo/TGMHD.py of
  github.com/spectralDNS/spectralDNS: u = (sin x cos y cos z, -cos x sin y cos z, 0), b = (sin x sin y cos z,
  cos x cos y cos z, 0) on a 2pi x 4pi x 6pi box of 16 x 32 x 64 points, nu = 0.000625, eta = 0.01, RK4 with
  dt = 0.01 to t = 0.1, double) ends with E_u = 0.124565408177 and E_b = 0.124637762143 there; kolmo's run of
  the same case, on 2 ranks, must give both to 1e-10 (it gave them to 4e-13).
- configs/mhd_taylor_green_c2.yaml (run C2 of Pouquet et al. 2010) runs at 16^3 for t = 0.3: at t = 0 the
  series holds the closed-form E_V = E_M = 1/8, Omega_V = 3/8, Omega_M = 1/2 <|j|^2> = 3/2 and <u.b> = 0;
  d(E_V + E_M)/dt = -(nu <|omega|^2> + eta <|j|^2>); kolmo_post.py tgmhd measures it.
- Bad MHD input is refused with one line naming the key, before anything is written.
- kolmo_post.py mhd plots the run.
"""
import os
import pathlib
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
from kolmo_test import args, check, finish, kolmo, restarts_continue, snapshot  # noqa: E402

FIELDS = ("u_hat", "v_hat", "w_hat", "bx_hat", "by_hat", "bz_hat")

# Random u and b along a background field, band forcing, CFL-adaptive steps: any difference after a restart
# would show.
CONFIG = """
grid: {n: [16, 18, 12]}
precision: double
backend: host
physics:
  viscosity: 0.01
  forcing: {type: band, k_min: 1, k_max: 2.5, power: 0.2}
  magnetic: {type: mhd, prandtl: 0.5, background: [0, 0.3, 0.6],
             initial: {type: random, energy: 0.4, k0: 3, seed: 9}}
time: {integrator: rk4, cfl: 0.6, steps: 12}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 1, progress_every: 4, spectra_every: 0.05, checkpoint_every: 100,
         fields: [velocity, magnetic, current], fields_every: 100}
"""

# The terms MHD applies from its spectral copy of u, with b forced too; fixed steps for the budget.
TERMS = """
grid: {n: 16}
precision: double
backend: host
physics:
  viscosity: 0.02
  forcing: {type: linear, power: 0.3}
  rotation: [0, 0.5, 1]
  magnetic: {type: mhd, resistivity: 0.03, background: [0.2, 0, 0],
             forcing: {type: band, k_min: 1, k_max: 2.5, power: 0.2},
             initial: {type: random, energy: 0.4, k0: 3, seed: 9}}
time: {integrator: lsrk4, dt: 0.004, steps: 6}
initial: {type: random, spectrum: {k0: 3, energy: 0.5}, seed: 7}
output: {directory: out, series_every: 1, fields: [velocity, pressure, magnetic], fields_every: 0.024}
"""


# spectralDNS's MHD Taylor-Green regression case (see the top): the fields come from a file, as that code sets
# them in physical coordinates (wavenumber 1 on every axis of the unequal box).
TAYLOR_GREEN_MHD = """
grid: {n: [16, 32, 64], box: [2pi, 4pi, 6pi]}
precision: double
backend: host
physics:
  viscosity: 0.000625
  magnetic: {type: mhd, resistivity: 0.01, initial: {type: file, file: tg.h5}}
time: {integrator: rk4, dt: 0.01, t_end: 0.1}
initial: {type: file, file: tg.h5}
output: {directory: out, series_every: 1}
"""
SPECTRALDNS_ENERGIES = (0.124565408177, 0.124637762143)  # E_u, E_b at t = 0.1 (its regression test)


def taylor_green_mhd_file(path):
    n, box = (16, 32, 64), (2 * np.pi, 4 * np.pi, 6 * np.pi)
    x, y, z = np.meshgrid(*(np.arange(k) * size / k for k, size in zip(n, box)), indexing="ij")
    with h5py.File(path, "w") as f:  # no axis_order attribute: [Nx][Ny][Nz], as h5py users write
        f["u"], f["v"], f["w"] = np.sin(x) * np.cos(y) * np.cos(z), -np.cos(x) * np.sin(y) * np.cos(z), 0 * x
        f["bx"], f["by"], f["bz"] = np.sin(x) * np.sin(y) * np.cos(z), np.cos(x) * np.cos(y) * np.cos(z), 0 * x


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    tg = root / "taylor_green_mhd"
    tg.mkdir()
    taylor_green_mhd_file(tg / "tg.h5")
    (tg / "run.yaml").write_text(TAYLOR_GREEN_MHD)
    r = kolmo(2, "run", str(tg / "run.yaml"), cwd=tg)
    check(r.returncode == 0, f"the MHD Taylor-Green case runs ({r.stderr.strip()[:300]})")
    with h5py.File(tg / "out" / "series.h5", "r") as f:
        ended = (f["time"][-1], f["energy"][-1], f["magnetic_energy"][-1])
    check(abs(ended[0] - 0.1) < 1e-12 and abs(ended[1] - SPECTRALDNS_ENERGIES[0]) < 1e-10 and
          abs(ended[2] - SPECTRALDNS_ENERGIES[1]) < 1e-10,
          f"E_u, E_b at t = 0.1 equal spectralDNS's {SPECTRALDNS_ENERGIES} to 1e-10 ({ended})")

    (root / "run.yaml").write_text(CONFIG)
    r = restarts_continue(root, root / "run.yaml", FIELDS, "u and b")
    check("incompressible MHD" in r.stdout, "the run says it is MHD")

    # The outputs of the one-go run.
    out = root / "one_1/out"
    with h5py.File(out / "series.h5", "r") as f:
        columns = set(f.keys())
        e_b = f["magnetic_energy"][...]
        steps = f["step"][...]
        check(all(np.isfinite(f[n][...]).all() for n in ("magnetic_dissipation", "cross_helicity",
                                                           "magnetic_helicity", "current_max")),
              "series.h5 has finite magnetic dissipation, cross and magnetic helicity and max |j|")
    check({"magnetic_energy", "magnetic_dissipation", "cross_helicity", "magnetic_helicity",
           "current_max"} <= columns, f"series.h5 has the magnetic columns ({sorted(columns)})")
    check(abs(e_b[0] - 0.4) < 1e-12, f"the initial magnetic energy is the configured 0.4 ({e_b[0]!r})")
    with h5py.File(out / "spectra.h5", "r") as f:
        names = set(f.keys())
        sum_b = f["magnetic_spectrum"][0].sum() if "magnetic_spectrum" in f else float("nan")
        transfer = (f["transfer"][0] + f["magnetic_transfer"][0]).sum() if "magnetic_transfer" in f else 1.0
    check(abs(sum_b - 0.4) < 1e-12, f"E_b(k) sums to the magnetic energy ({sum_b!r})")
    check(abs(transfer) < 1e-12, f"kinetic + magnetic transfers sum to zero ({transfer:.1e})")
    dumps = sorted((out / "fields").glob("fields_*.h5"))
    with h5py.File(dumps[-1], "r") as f:
        held = set(f.keys())
        step = int(f.attrs["step"])
        dumped = 0.5 * np.mean(f["bx"][...] ** 2 + f["by"][...] ** 2 + f["bz"][...] ** 2)
    check({"u", "v", "w", "bx", "by", "bz", "jx", "jy", "jz"} <= held, f"the dump holds u, b and j ({held})")
    row = list(steps).index(step)
    check(abs(dumped - e_b[row]) < 1e-12 * max(1.0, e_b[row]),
          f"<|b|^2>/2 of the dump equals the series' magnetic energy ({dumped!r}, {e_b[row]!r})")
    xmf = dumps[-1].with_suffix(".xmf").read_text()
    check('Name="magnetic" AttributeType="Vector"' in xmf and 'Name="current" AttributeType="Vector"' in xmf,
          "the XDMF has the magnetic and current vectors")

    # b from the field dump.
    again = root / "again"
    again.mkdir()
    r = kolmo(1, "run", str(root / "run.yaml"), "--set", "time.steps=1", "--set",
              "physics.magnetic.initial.type=file", "--set", f"physics.magnetic.initial.file={dumps[-1]}",
              *[x for key in ("energy", "k0", "seed") for x in ("--set", f"physics.magnetic.initial.{key}=")],
              cwd=again)
    check(r.returncode == 0, f"b read from a field dump ({r.stderr.strip()[:300]})")
    with h5py.File(again / "out/series.h5", "r") as f:
        start = f["magnetic_energy"][0]
    check(abs(start - e_b[row]) < 1e-10 * e_b[row], f"b from the dump has its energy ({start!r}, {e_b[row]!r})")

    # Rotation, linear forcing, b's band forcing and the pressure together.
    terms = root / "terms"
    terms.mkdir()
    (terms / "run.yaml").write_text(TERMS)
    r = kolmo(2, "run", "run.yaml", cwd=terms)
    check(r.returncode == 0, f"MHD with rotation, linear forcing, forcing of b and pressure runs ({r.stderr.strip()[:300]})")
    with h5py.File(terms / "out/series.h5", "r") as f:
        s = {name: f[name][...] for name in ("time", "energy", "magnetic_energy", "injection", "magnetic_injection",
                                             "dissipation", "magnetic_dissipation")}
    check(np.abs(s["injection"] - 0.3).max() < 1e-12 and np.abs(s["magnetic_injection"] - 0.2).max() < 1e-12,
          f"the injections are the powers 0.3 and 0.2 ({s['injection']}, {s['magnetic_injection']})")
    total = s["energy"] + s["magnetic_energy"]
    rate = (total[2:] - total[:-2]) / (s["time"][2:] - s["time"][:-2])
    budget = (s["injection"] + s["magnetic_injection"] - s["dissipation"] - s["magnetic_dissipation"])[1:-1]
    check(np.abs(rate - budget).max() < 1e-3 * 0.5, f"d(E + E_b)/dt closes the budget ({rate}, {budget})")
    with h5py.File(sorted((terms / "out/fields").glob("fields_*.h5"))[-1], "r") as f:
        pressure = f["pressure"][...] if "pressure" in f else np.array([np.nan])
    check(np.isfinite(pressure).all() and np.abs(pressure).max() > 0, "the dump holds a finite pressure")

    # The shipped C2 configuration, on a small grid in double precision.
    c2 = root / "c2"
    c2.mkdir()
    c2_config = pathlib.Path(args.source) / "configs" / "mhd_taylor_green_c2.yaml"
    r = kolmo(2, "run", str(c2_config), "--set", "grid.n=16", "--set", "precision=double", "--set", "backend=host",
              "--set", "time.t_end=0.3", "--set", "output.directory=out", "--set", "output.series_every=1",
              "--set", "output.spectra_every=0", cwd=c2)
    check(r.returncode == 0, f"configs/mhd_taylor_green_c2.yaml runs at 16^3 ({r.stderr.strip()[:300]})")
    with h5py.File(c2 / "out/series.h5", "r") as f:
        s = {name: f[name][...] for name in ("time", "energy", "magnetic_energy", "enstrophy", "magnetic_enstrophy",
                                             "cross_helicity", "dissipation", "magnetic_dissipation")}
    start = [s[name][0] for name in ("energy", "magnetic_energy", "enstrophy", "magnetic_enstrophy")]
    check(np.abs(np.array(start) - [0.125, 0.125, 0.375, 1.5]).max() < 1e-13 and
          abs(s["cross_helicity"][0]) < 1e-15, f"C2 at t = 0: E_V = E_M = 1/8, Omega_V = 3/8, Omega_M = 3/2, <u.b> = 0 ({start}, {s['cross_helicity'][0]})")
    total = s["energy"] + s["magnetic_energy"]
    rate = (total[2:] - total[:-2]) / (s["time"][2:] - s["time"][:-2])
    budget = -(s["dissipation"] + s["magnetic_dissipation"])[1:-1]
    check(np.abs(rate / budget - 1).max() < 1e-2, f"C2: d(E_V + E_M)/dt = -(dissipations) ({rate}, {budget})")
    post = pathlib.Path(args.source) / "tools" / "kolmo_post.py"
    p = subprocess.run(["/usr/bin/python3", str(post), "tgmhd", str(c2 / "out")], capture_output=True, text=True)
    check(p.returncode == 0 and (c2 / "out/plots/tgmhd.png").is_file() and
          p.stdout.startswith(f"{c2 / 'out'}: min E_M/E_V"),
          f"kolmo_post.py tgmhd measures C2 ({p.stderr.strip()[:300]})")

    # Bad input: one line naming the key, nothing written.
    for override, key in (("physics.magnetic.forcing.type=linear", "physics.magnetic.forcing.type"),
                          ("physics.magnetic.resistivity=0.01", "physics.magnetic.prandtl"),
                          ("physics.magnetic.forcing.type=band", "physics.magnetic.forcing.power"),
                          ("physics.magnetic.type=none", "output.fields")):
        bad = root / "bad"
        bad.mkdir(exist_ok=True)
        before = snapshot(bad)
        r = kolmo(1, "run", str(root / "run.yaml"), "--set", override, cwd=bad)
        lines = r.error_lines()
        check(r.returncode != 0 and len(lines) == 1 and key in lines[0] and snapshot(bad) == before,
              f"{override}: refused with one line naming {key} ({lines})")

    # kolmo_post.py plots the run.
    post = pathlib.Path(args.source) / "tools" / "kolmo_post.py"
    p = subprocess.run(["/usr/bin/python3", str(post), "mhd", str(out), str(root / "one_2/out")],
                       capture_output=True, text=True)
    check(p.returncode == 0 and (out / "plots" / "mhd.png").is_file() and "peak total dissipation" in p.stdout,
          f"kolmo_post.py mhd plots the run ({p.stderr.strip()[:300]})")

finish()
