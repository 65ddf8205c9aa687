// XDMF descriptions of field dumps, so ParaView and VisIt open an HDF5 dump directly (open the .xmf).
//
// Contract:
// - field_xdmf() returns an XDMF 2 document for one dump written x fastest (datasets [Nz][Ny][Nx], see
//   io/SlabTransfer.hpp): a 3DCoRectMesh with Dimensions "Nz Ny Nx", origin 0 and spacings "Lz/Nz Ly/Ny
//   Lx/Nx" (XDMF lists them slowest first), the dump's time, one scalar node-centred Attribute per dataset
//   ("<h5 name>:/<dataset>"), and, when u, v and w are all present, a Vector attribute "velocity" (u, v, w)
//   built with a JOIN function; likewise "vorticity" (vorticity_x, _y, _z), "magnetic" (bx, by, bz) and
//   "current" (jx, jy, jz) for MHD, and "grad_phi" (phi_x, phi_y, phi_z) for a Poisson run's gradient. The
//   datasets keep their names in the HDF5 file.
// - So ParaView and VisIt show kolmo's x, y, z along their X, Y, Z axes, with each axis's spacing, and a
//   curl computed there has the sign of kolmo's vorticity_* datasets.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace kolmo::io {

struct XdmfFields {
  std::string h5_name;          // the HDF5 file's name, relative to the .xmf file
  std::array<long, 3> grid{};   // Nx, Ny, Nz
  std::array<double, 3> box{};  // Lx, Ly, Lz
  double time = 0;
  std::vector<std::string> datasets;
  int bytes_per_value = 8;  // 4 (float) or 8 (double)
};

std::string field_xdmf(const XdmfFields& fields);

}  // namespace kolmo::io
