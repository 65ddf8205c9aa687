// XDMF descriptions of field dumps, so ParaView and VisIt open an HDF5 dump directly (open the .xmf).
//
// Contract:
// - field_xdmf() returns an XDMF 2 document for one dump: a 3DCoRectMesh of Nx x Ny x Nz nodes with origin
//   0 and spacing L/N per axis, the dump's time, one scalar node-centred Attribute per dataset ("<h5
//   name>:/<dataset>", Dimensions "Nx Ny Nz"), and, when u, v and w are all present, a Vector attribute
//   "velocity" built with a JOIN function.
// - Axis order: XDMF lists dimensions slowest first, and kolmo's arrays are [x][y][z] with z fastest, so
//   ParaView shows kolmo's z along its X axis and kolmo's x along its Z axis; the data are not transposed.
//   The velocity vector is therefore joined as (w, v, u), its components along ParaView's (X, Y, Z), so
//   glyphs and streamlines follow the flow. (The swap is a reflection: a curl computed in ParaView has the
//   opposite sign of kolmo's vorticity_* datasets, which are written as they are.)
#pragma once

#include <array>
#include <string>
#include <vector>

namespace kolmo::io {

struct XdmfFields {
  std::string h5_name;  // the HDF5 file's name, relative to the .xmf file
  std::array<long, 3> grid{};
  std::array<double, 3> box{};
  double time = 0;
  std::vector<std::string> datasets;
  int bytes_per_value = 8;  // 4 (float) or 8 (double)
};

std::string field_xdmf(const XdmfFields& fields);

}  // namespace kolmo::io
