#include "io/Xdmf.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

namespace kolmo::io {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string dataset_item(const XdmfFields& fields, const std::string& dims, const std::string& name,
                         const std::string& indent) {
  return indent + "<DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"" +
         std::to_string(fields.bytes_per_value) + "\" Format=\"HDF\">" + fields.h5_name + ":/" + name +
         "</DataItem>\n";
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string field_xdmf(const XdmfFields& fields) {
  // Slowest first: the datasets are [Nz][Ny][Nx].
  const auto& n = fields.grid;
  const std::string dims = std::to_string(n[2]) + " " + std::to_string(n[1]) + " " + std::to_string(n[0]);
  std::string spacing;
  for (int d = 2; d >= 0; --d) {
    spacing += number(fields.box[d] / static_cast<double>(n[d]));
    if (d > 0) spacing += ' ';
  }

  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"2.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"fields\" GridType=\"Uniform\">\n"
      << "      <Time Value=\"" << number(fields.time) << "\"/>\n"
      << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
      << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "        <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
         "Format=\"XML\">0 0 0</DataItem>\n"
      << "        <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
         "Format=\"XML\">"
      << spacing << "</DataItem>\n"
      << "      </Geometry>\n";
  for (const auto& name : fields.datasets) {
    out << "      <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        << dataset_item(fields, dims, name, "        ") << "      </Attribute>\n";
  }
  // Vector fields: the velocity and its vorticity, with MHD b and j, and a Poisson run's gradient of phi
  // (components x, y, z along ParaView's X, Y, Z).
  const std::array<std::array<const char*, 4>, 5> vectors = {
      {{"velocity", "u", "v", "w"},
       {"vorticity", "vorticity_x", "vorticity_y", "vorticity_z"},
       {"magnetic", "bx", "by", "bz"},
       {"current", "jx", "jy", "jz"},
       {"grad_phi", "phi_x", "phi_y", "phi_z"}}};
  for (const auto& vector : vectors) {
    if (!(has(fields.datasets, vector[1]) && has(fields.datasets, vector[2]) &&
          has(fields.datasets, vector[3])))
      continue;
    out << "      <Attribute Name=\"" << vector[0] << "\" AttributeType=\"Vector\" Center=\"Node\">\n"
        << "        <DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $2)\" Dimensions=\"" << dims
        << " 3\">\n";
    for (int c = 1; c <= 3; ++c) out << dataset_item(fields, dims, vector[c], "          ");
    out << "        </DataItem>\n"
        << "      </Attribute>\n";
  }
  out << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";
  return out.str();
}

}  // namespace kolmo::io
