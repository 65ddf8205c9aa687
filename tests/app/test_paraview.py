#!/usr/bin/python3
"""ParaView opens a kolmo field dump with kolmo's x, y, z along its X, Y, Z axes (run by ctest).

A Taylor-Green run on a grid and box of three different sizes (16 x 12 x 8 points, 2 pi x 4 pi x 6 pi) writes
a dump on 2 ranks; ParaView's own XDMF reader (pvbatch, this script run a second time inside it) must report
dimensions Nx Ny Nz and spacings Lx/Nx Ly/Ny Lz/Nz, every point's value of u and of the velocity vector
must equal the HDF5 array's value at that point's (x, y, z), and ParaView's curl of the velocity must have
the sign of kolmo's vorticity_z. Skipped (exit 77, saying so) where ParaView's pvbatch is not installed
(CI: it is not a dependency; Debian's paraview and python3-paraview packages provide it).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile


def inside_paraview(xmf):
    import h5py
    import numpy as np
    from paraview.simple import Gradient, XDMFReader, servermanager
    from vtk.util.numpy_support import vtk_to_numpy

    reader = XDMFReader(FileNames=[xmf])
    reader.UpdatePipeline()
    image = servermanager.Fetch(reader)
    with h5py.File(xmf.replace(".xmf", ".h5"), "r") as f:
        u, w = f["u"][...], f["w"][...]  # [z][y][x]
        n, box = f.attrs["grid"], f.attrs["box"]
    spacing = box / n
    failures = []
    if tuple(image.GetDimensions()) != tuple(n):
        failures.append(f"ParaView's dimensions {image.GetDimensions()}, kolmo's grid {tuple(n)}")
    if not np.allclose(image.GetSpacing(), spacing):
        failures.append(f"ParaView's spacing {image.GetSpacing()}, kolmo's {tuple(spacing)}")
    values = vtk_to_numpy(image.GetPointData().GetArray("u"))
    velocity = vtk_to_numpy(image.GetPointData().GetArray("velocity"))
    worst = 0.0
    for point in range(image.GetNumberOfPoints()):
        i, j, k = (int(round(c / s)) for c, s in zip(image.GetPoint(point), spacing))
        worst = max(worst, abs(values[point] - u[k, j, i]), abs(velocity[point][0] - u[k, j, i]),
                    abs(velocity[point][2] - w[k, j, i]))
    if worst != 0:
        failures.append(f"values at ParaView's (X, Y, Z) differ from kolmo's at (x, y, z) by up to {worst}")
    gradient = Gradient(Input=reader, ScalarArray=["POINTS", "velocity"], ComputeVorticity=1)
    gradient.UpdatePipeline()
    result = servermanager.Fetch(gradient)
    curl_z = vtk_to_numpy(result.GetPointData().GetArray("Vorticity"))[:, 2]
    correlation = np.corrcoef(curl_z, vtk_to_numpy(result.GetPointData().GetArray("vorticity_z")))[0, 1]
    if correlation < 0.9:
        failures.append(f"ParaView's curl_z correlates with kolmo's vorticity_z by {correlation:.3f}")
    for failure in failures:
        print("FAIL " + failure)
    print(f"ParaView: dimensions {image.GetDimensions()}, spacing {image.GetSpacing()}, largest value "
          f"difference {worst}, curl_z against vorticity_z correlation {correlation:.4f}")
    sys.exit(1 if failures else 0)


CONFIG = """
grid: {n: [16, 12, 8], box: [2pi, 4pi, 6pi]}
precision: double
backend: host
physics: {viscosity: 0.01}
time: {integrator: rk4, dt: 0.001, steps: 1}
initial: {type: taylor_green}
output: {directory: out, fields: [velocity, vorticity], fields_every: 1, checkpoint_every: 0}
"""

if __name__ == "__main__" and len(sys.argv) == 2:  # inside pvbatch
    inside_paraview(sys.argv[1])

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kolmo_test import check, finish, kolmo  # noqa: E402

pvbatch = shutil.which("pvbatch")
if pvbatch is None:
    print("SKIPPED: ParaView's pvbatch is not installed (Debian: paraview python3-paraview)")
    sys.exit(77)
with tempfile.TemporaryDirectory(prefix="kolmo_paraview_") as scratch:
    root = pathlib.Path(scratch)
    (root / "tg.yaml").write_text(CONFIG)
    r = kolmo(2, "run", "tg.yaml", cwd=root)
    check(r.returncode == 0, f"the run writes its dumps ({r.stderr.strip()[:200]})")
    xmf = root / "out/fields/fields_000001.xmf"
    seen = subprocess.run([pvbatch, os.path.abspath(__file__), str(xmf)], capture_output=True, text=True,
                          timeout=600)
    print(seen.stdout.strip())
    check(seen.returncode == 0, f"ParaView shows x, y, z along X, Y, Z ({seen.stderr.strip()[-300:]})")
finish()
