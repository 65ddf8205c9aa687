// Field dumps: written in parallel, read back on the same and on fewer ranks, checked independently by a
// plain serial HDF5 read of the whole array, and described correctly by the XDMF file beside them.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/FieldFile.hpp"
#include "io/FieldReader.hpp"
#include "io/Hdf5.hpp"
#include "tests/TestSupport.hpp"
#include "tests/io/IoTestSupport.hpp"

using namespace kolmo;
using namespace kolmo::io;
using kolmo::testing::global_max;
using kolmo::testing::real_value;

namespace {

const std::array<long, 3> kGrid{12, 10,
                                9};  // uneven slabs on 3 ranks (12 / 3 = 4, but 10 ky planes split 4 3 3)
const std::vector<std::string> kNames{"u", "v", "w", "pressure"};

template <class Real>
std::vector<Real> test_slab(const fft::SlabLayout& layout, int component, std::size_t extra = 0) {
  const auto n = layout.global();
  std::vector<Real> slab(layout.real_size() + extra, Real(-7));
  for (long i = 0; i < layout.x_count(); ++i)
    for (long j = 0; j < n[1]; ++j)
      for (long k = 0; k < n[2]; ++k)
        slab[static_cast<std::size_t>((i * n[1] + j) * n[2] + k)] =
            static_cast<Real>(real_value(layout.x_offset() + i, j, k, component, n));
  return slab;
}

// Values of this rank's slab that differ bit for bit from the test function.
template <class Real>
long mismatches(const fft::SlabLayout& layout, int component, const std::vector<Real>& slab) {
  const std::vector<Real> expected = test_slab<Real>(layout, component);
  long wrong = 0;
  for (std::size_t m = 0; m < layout.real_size(); ++m)
    if (std::memcmp(&slab[m], &expected[m], sizeof(Real)) != 0) ++wrong;
  return wrong;
}

template <class Real>
std::vector<Real> nan_slab(const fft::SlabLayout& layout) {
  return std::vector<Real>(layout.real_size(), std::numeric_limits<Real>::quiet_NaN());
}

}  // namespace

TEMPLATE_TEST_CASE("field files round-trip bit for bit and sit where a serial reader expects them", "[io]",
                   float, double) {
  using Real = TestType;
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  std::vector<std::vector<Real>> slabs;
  // The last field's buffer is bigger than the slab, as SlabFFT's buffers are: only the slab is written.
  for (int c = 0; c < 4; ++c) slabs.push_back(test_slab<Real>(layout, c, c == 3 ? 17 : 0));
  std::vector<NamedSlab<Real>> fields;
  for (int c = 0; c < 4; ++c) fields.push_back({kNames[c], slabs[c]});
  const FieldInfo info{1.25, 123, {6.25, 6.5, 3.0}, 0.015};

  const auto path = write_field_file<Real>(directory.path(), info, layout, fields, MPI_COMM_WORLD);
  CHECK(path == directory.path() / "fields_000123.h5");
  CHECK(global_max(std::filesystem::exists(path) ? 0 : 1) == 0);
  CHECK(global_max(std::filesystem::exists(directory.path() / "fields_000123.h5.tmp") ? 1 : 0) == 0);

  SECTION("read back on the same ranks, bit for bit, with the attributes") {
    FieldReader reader(path, MPI_COMM_WORLD);
    long wrong = 0;
    for (int c = 0; c < 4; ++c) {
      auto back = nan_slab<Real>(layout);
      reader.read<Real>(kNames[c], layout, back);
      wrong += mismatches(layout, c, back);
    }
    CHECK(global_max(double(wrong)) == 0);
    const FieldInfo read_info = reader.info();
    CHECK(read_info.time == info.time);
    CHECK(read_info.step == info.step);
    CHECK(read_info.box == info.box);
    CHECK(read_info.viscosity == info.viscosity);
    CHECK(reader.grid() == kGrid);
    CHECK(reader.precision() == precision_name<Real>());
    CHECK(reader.datasets() == std::vector<std::string>{"pressure", "u", "v", "w"});
  }

  SECTION("a plain serial read of the whole array matches the function everywhere") {
    double wrong = 0;
    if (rank == 0) {
      for (int c = 0; c < 4; ++c) {
        std::vector<hsize_t> shape;
        const auto all =
            kolmo::testing::read_whole_dataset<Real>(path, kNames[c], shape, native_type<Real>());
        // Stored x fastest, [Nz][Ny][Nx], as ParaView expects (io/SlabTransfer.hpp).
        if (shape != std::vector<hsize_t>{9, 10, 12}) {
          wrong += 1;
          continue;
        }
        for (long x = 0; x < kGrid[0]; ++x)
          for (long y = 0; y < kGrid[1]; ++y)
            for (long z = 0; z < kGrid[2]; ++z)
              if (all[static_cast<std::size_t>((z * kGrid[1] + y) * kGrid[0] + x)] !=
                  static_cast<Real>(real_value(x, y, z, c, kGrid)))
                wrong += 1;
      }
      // The stored type is the run's precision.
      hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      hid_t dataset = H5Dopen2(file, "u", H5P_DEFAULT);
      hid_t type = H5Dget_type(dataset);
      if (H5Tget_size(type) != sizeof(Real)) wrong += 1;
      H5Tclose(type);
      H5Dclose(dataset);
      H5Fclose(file);
    }
    CHECK(global_max(wrong) == 0);
  }

  SECTION("read on fewer ranks and in the other precision") {
    MPI_Comm fewer = MPI_COMM_NULL;
    const int readers = std::max(1, ranks - 1);
    MPI_Comm_split(MPI_COMM_WORLD, rank < readers ? 0 : MPI_UNDEFINED, rank, &fewer);
    double wrong = 0;
    if (fewer != MPI_COMM_NULL) {
      const fft::SlabLayout small(kGrid, readers, rank);
      FieldReader reader(path, fewer);
      for (int c = 0; c < 4; ++c) {
        auto back = nan_slab<Real>(small);
        reader.read<Real>(kNames[c], small, back);
        wrong += double(mismatches(small, c, back));
      }
      using Other = std::conditional_t<std::is_same_v<Real, float>, double, float>;
      auto other = nan_slab<Other>(small);
      reader.read<Other>("v", small, other);
      wrong += double(mismatches(small, 1, other));  // the values are exact in both precisions
      MPI_Comm_free(&fewer);
    }
    CHECK(global_max(wrong) == 0);
  }

  SECTION("the XDMF file names the HDF5 file, every dataset and the grid") {
    double wrong = 0;
    if (rank == 0) {
      std::ifstream file(directory.path() / "fields_000123.xmf");
      std::stringstream text;
      text << file.rdbuf();
      const std::string xmf = text.str();
      const std::string precision = "Precision=\"" + std::to_string(sizeof(Real)) + "\"";
      auto count = [&](const std::string& part) {
        long found = 0;
        for (auto at = xmf.find(part); at != std::string::npos; at = xmf.find(part, at + 1)) ++found;
        return found;
      };
      for (const auto& name : kNames) {
        if (count("<Attribute Name=\"" + name + "\" AttributeType=\"Scalar\"") != 1) wrong += 1;
        // Once as a scalar, and u, v, w once more inside the velocity JOIN.
        if (count(">fields_000123.h5:/" + name + "</DataItem>") != (name == "pressure" ? 1 : 2)) wrong += 1;
      }
      // Slowest first, as the datasets are stored: Nz Ny Nx, and spacings Lz/Nz Ly/Ny Lx/Nx.
      if (count("TopologyType=\"3DCoRectMesh\" Dimensions=\"9 10 12\"") != 1) wrong += 1;
      if (count("Dimensions=\"9 10 12\" NumberType=\"Float\" " + precision) != 7) wrong += 1;
      if (count("<Attribute Name=\"velocity\" AttributeType=\"Vector\"") != 1) wrong += 1;
      if (count("Function=\"JOIN($0, $1, $2)\" Dimensions=\"9 10 12 3\"") != 1) wrong += 1;
      // The velocity's components along X, Y, Z are u, v, w.
      const auto join = xmf.find("JOIN(");
      const auto u = xmf.find(":/u<", join), v = xmf.find(":/v<", join), w = xmf.find(":/w<", join);
      if (join == std::string::npos || !(u < v && v < w && w != std::string::npos)) wrong += 1;
      if (count("<Time Value=\"1.25\"/>") != 1) wrong += 1;
      if (count(">0.33333333333333331 0.65000000000000002 0.52083333333333337</DataItem>") != 1) wrong += 1;
      if (count("<Xdmf") != 1 || count("</Xdmf>") != 1 || count("<Attribute") != count("</Attribute>"))
        wrong += 1;
      if (std::filesystem::exists(directory.path() / "fields_000123.xmf.tmp")) wrong += 1;
    }
    CHECK(global_max(wrong) == 0);
  }
}

TEST_CASE("a field file's axis_order reads in every string type other tools write", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const int ranks = kolmo::testing::world_size(), rank = kolmo::testing::world_rank();
  const fft::SlabLayout layout(kGrid, ranks, rank);
  const std::vector<double> slab = test_slab<double>(layout, 0);
  const auto path = write_field_file<double>(directory.path(), FieldInfo{0, 0, {1, 1, 1}, 0.1}, layout,
                                             {{"u", slab}}, MPI_COMM_WORLD);
  // kolmo's dump holds [Nz][Ny][Nx]: read as [Nx][Ny][Nz] (a misread attribute), its values land elsewhere.
  // Variable-length UTF-8 is what h5py writes for a Python str (f.attrs["axis_order"] = "z y x"). It goes
  // first: HDF5 keeps the conversions it has made, and one from variable-length ASCII serves UTF-8 later on.
  const std::pair<bool, H5T_cset_t> kinds[] = {
      {true, H5T_CSET_UTF8}, {false, H5T_CSET_ASCII}, {false, H5T_CSET_UTF8}, {true, H5T_CSET_ASCII}};
  for (const auto& [variable, cset] : kinds) {
    if (rank == 0) {
      File file = open_serial(path, true);
      KOLMO_CHECK_HDF5(H5Adelete(file.get(), "axis_order"));
      const char* text = "z y x";
      Type type(KOLMO_CHECK_HDF5(H5Tcopy(H5T_C_S1)));
      KOLMO_CHECK_HDF5(H5Tset_size(type.get(), variable ? H5T_VARIABLE : std::strlen(text)));
      KOLMO_CHECK_HDF5(H5Tset_cset(type.get(), cset));
      Dataspace scalar(KOLMO_CHECK_HDF5(H5Screate(H5S_SCALAR)));
      Attribute attribute(KOLMO_CHECK_HDF5(
          H5Acreate2(file.get(), "axis_order", type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT)));
      KOLMO_CHECK_HDF5(H5Awrite(attribute.get(), type.get(),
                                variable ? static_cast<const void*>(&text) : static_cast<const void*>(text)));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    INFO((variable ? "variable-length " : "fixed-length ") << (cset == H5T_CSET_UTF8 ? "UTF-8" : "ASCII"));
    auto back = nan_slab<double>(layout);
    read_field<double>(path, "u", layout, back, MPI_COMM_WORLD);
    CHECK(global_max(mismatches(layout, 0, back)) == 0);
  }
}

TEST_CASE("a field file goes into its folder made again where the folder was removed", "[io]") {
  kolmo::testing::TemporaryDirectory directory;
  const fft::SlabLayout layout(kGrid, kolmo::testing::world_size(), kolmo::testing::world_rank());
  const std::vector<double> slab = test_slab<double>(layout, 0);
  const auto removed = directory.path() / "out" / "fields";  // never made: as if deleted during the run
  const auto path = write_field_file<double>(removed, FieldInfo{0, 3, {1, 1, 1}, 0.1}, layout, {{"u", slab}},
                                             MPI_COMM_WORLD);
  CHECK(path.parent_path() == removed);
  auto back = nan_slab<double>(layout);
  read_field<double>(path, "u", layout, back, MPI_COMM_WORLD);
  CHECK(global_max(mismatches(layout, 0, back)) == 0);
}

TEST_CASE("a field file's XDMF joins the vorticity's and phi's gradient's components into vectors, in order",
          "[io]") {
  // The vector's name, then its datasets' names x, y, z: written in another order, joined in this one.
  const std::array<std::array<std::string, 4>, 2> vectors = {
      {{"vorticity", "vorticity_x", "vorticity_y", "vorticity_z"}, {"grad_phi", "phi_x", "phi_y", "phi_z"}}};
  for (const auto& names : vectors) {
    INFO(names[0]);
    kolmo::testing::TemporaryDirectory directory;
    const fft::SlabLayout layout(kGrid, kolmo::testing::world_size(), kolmo::testing::world_rank());
    std::vector<std::vector<double>> slabs;
    for (int c = 0; c < 3; ++c) slabs.push_back(test_slab<double>(layout, c));
    write_field_file<double>(directory.path(), FieldInfo{0, 5, {1, 1, 1}, 0.1}, layout,
                             {{names[2], slabs[1]}, {names[1], slabs[0]}, {names[3], slabs[2]}},
                             MPI_COMM_WORLD);
    long wrong = 0;
    if (kolmo::testing::world_rank() == 0) {
      std::ifstream file(directory.path() / "fields_000005.xmf");
      std::stringstream text;
      text << file.rdbuf();
      const std::string xmf = text.str();
      const auto vector = xmf.find("<Attribute Name=\"" + names[0] + "\" AttributeType=\"Vector\"");
      const auto x = xmf.find(":/" + names[1] + "<", vector), y = xmf.find(":/" + names[2] + "<", vector),
                 z = xmf.find(":/" + names[3] + "<", vector);
      if (vector == std::string::npos || !(x < y && y < z && z != std::string::npos)) wrong = 1;
      // The components stay datasets of their own names, each a scalar too, as u, v and w are.
      for (int c = 1; c <= 3; ++c)
        if (xmf.find("<Attribute Name=\"" + names[c] + "\" AttributeType=\"Scalar\"") == std::string::npos)
          wrong = 1;
    }
    CHECK(global_max(wrong) == 0);
    for (int c = 0; c < 3; ++c) {
      auto back = nan_slab<double>(layout);
      read_field<double>(directory.path() / "fields_000005.h5", names[c + 1], layout, back, MPI_COMM_WORLD);
      CHECK(global_max(mismatches(layout, c, back)) == 0);
    }
  }
}
