// The host backend's FFTW plans: measured plans agreed on by all ranks and kept in a wisdom file, estimated
// plans for small grids, arrays aligned otherwise than FFTW's going through plans for unaligned data, and the
// shapes they are planned from, exact for planes of more than 2^31 - 1 values.
#include <fftw3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fft/Fftw.hpp"
#include "fft/FftwShapes.hpp"
#include "fft/SlabFFT.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::testing::global_max;
using kolmo::testing::TemporaryDirectory;

namespace {

// FFTW's (double-precision) wisdom as a set of entries, hashed: the same on two ranks when they hold the
// same entries, in whatever order.
std::uint64_t wisdom_hash() {
  char* text = fftw_export_wisdom_to_string();
  std::istringstream in(text);
  fftw_free(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const auto& line : lines) joined += line + "\n";
  return std::hash<std::string>{}(joined);
}

// Whether a value is the same on every rank.
bool same_everywhere(std::uint64_t value) {
  std::uint64_t low = 0, high = 0;
  MPI_Allreduce(&value, &low, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &high, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

// A directory of its own for this test run, the same on every rank, removed at the end.
template <class Real>
std::vector<Real> random_slab(const SlabLayout& l) {
  std::vector<Real> f(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long y = 0; y < l.ny(); ++y)
      for (long z = 0; z < l.nz(); ++z)
        f[(i * l.ny() + y) * l.nz() + z] = Real(kolmo::testing::random_value(l.x_offset() + i, y, z));
  return f;
}

}  // namespace

TEST_CASE("ranks that measure their plans adopt one choice for each problem", "[fft]") {
  // Uneven slabs on 2 to 4 ranks: ranks measure different problems, and the same ones, at the same time.
  fftw_forget_wisdom();
  FftOptions options;
  options.fftw_planning = FftwPlanning::measure;
  SlabFFT<double> fft(std::array<long, 3>{15, 17, 14}, MPI_COMM_WORLD, Device::create(Backend::host),
                      options);
  INFO(fft.planning_report());
  CHECK(fft.planning_report().find("FFTW_MEASURE") != std::string::npos);
  CHECK(same_everywhere(wisdom_hash()));
}

TEST_CASE("measured plans are kept in the wisdom file and found there again", "[fft]") {
  TemporaryDirectory directory;
  FftOptions options;
  options.fftw_planning = FftwPlanning::measure;
  options.fftw_wisdom_directory = directory.path().string();
  auto host = Device::create(Backend::host);
  const std::string file = (directory.path() / "fftw-double.wisdom").string();
  // Rank 0 writes the file at the end of its constructor and reports it; the verdicts are its own.
  const bool writer = kolmo::testing::world_rank() == 0;
  auto on_rank_0 = [&](bool verdict) { return global_max(writer && !verdict ? 1.0 : 0.0) == 0.0; };
  {
    SlabFFT<double> fft(std::array<long, 3>{12, 10, 9}, MPI_COMM_WORLD, host, options);
    INFO(fft.planning_report());
    CHECK(on_rank_0(fft.planning_report().find("wisdom saved to " + file) != std::string::npos));
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    CHECK(on_rank_0(text.str().rfind("(fftw-3", 0) == 0));
  }
  // The same grid again: nothing new to measure, and the file stays as it was.
  SlabFFT<double> again(std::array<long, 3>{12, 10, 9}, MPI_COMM_WORLD, host, options);
  INFO(again.planning_report());
  CHECK(on_rank_0(again.planning_report().find("wisdom " + file + " unchanged") != std::string::npos));
  // Single precision keeps a file of its own.
  SlabFFT<float> single(std::array<long, 3>{12, 10, 9}, MPI_COMM_WORLD, host, options);
  CHECK(on_rank_0(std::filesystem::exists(directory.path() / "fftw-float.wisdom")));
}

TEST_CASE("plans just measured transform bit for bit as plans made from the wisdom file alone", "[fft]") {
  // What a later run does: its plans come from the file. Before the plans were made again from the settled
  // wisdom, a run that measured could differ from later ones in the last bits (a 48^3 run on 2 ranks, one
  // time in two under load: a rank's own choice among near ties stayed in its plans).
  TemporaryDirectory directory;
  fftw_forget_wisdom();
  FftOptions options;
  options.fftw_planning = FftwPlanning::measure;
  options.fftw_wisdom_directory = directory.path().string();
  auto host = Device::create(Backend::host);
  const std::array<long, 3> n{24, 20, 18};
  auto transform = [&](SlabFFT<double>& fft) {
    auto data = fft.make_real();
    data.assign_from_host(random_slab<double>(fft.layout()));
    auto spectral = fft.make_spectral();
    fft.forward(data.data(), spectral.data());
    // What the transforms define: the spectral slab and the real slab, not the rest of their buffers (which
    // a route may leave as it found it: on a rank holding fewer ky planes than another, out's end).
    std::vector<Complex<double>> out(fft.layout().spectral_size());
    host->copy_to_host(out.data(), spectral.data(), out.size() * sizeof(Complex<double>));
    fft.backward(spectral.data(), data.data());
    std::vector<double> back(fft.layout().real_size());
    host->copy_to_host(back.data(), data.data(), back.size() * sizeof(double));
    return std::make_pair(out, back);
  };
  SlabFFT<double> measured(n, MPI_COMM_WORLD, host, options);
  const auto first = transform(measured);
  fftw_forget_wisdom();
  std::ifstream in(directory.path() / "fftw-double.wisdom");
  std::ostringstream text;
  text << in.rdbuf();
  REQUIRE(fftw_import_wisdom_from_string(text.str().c_str()) == 1);
  options.fftw_wisdom_directory = "";
  SlabFFT<double> from_file(n, MPI_COMM_WORLD, host, options);
  const auto second = transform(from_file);
  const bool same = std::memcmp(first.first.data(), second.first.data(),
                                first.first.size() * sizeof(Complex<double>)) == 0 &&
                    first.second == second.second;
  CHECK(global_max(same ? 0.0 : 1.0) == 0.0);
}

TEST_CASE("automatic planning measures grids of 2^16 points or more and estimates smaller ones", "[fft]") {
  auto host = Device::create(Backend::host);
  SlabFFT<float> small(std::array<long, 3>{63, 32, 32}, MPI_COMM_WORLD, host);
  CHECK(small.planning_report().find("FFTW_ESTIMATE") != std::string::npos);
  SlabFFT<float> large(std::array<long, 3>{64, 32, 32}, MPI_COMM_WORLD, host);
  CHECK(large.planning_report().find("FFTW_MEASURE") != std::string::npos);
}

TEMPLATE_TEST_CASE("arrays aligned otherwise than FFTW's give the same transforms", "[fft]", float, double) {
  using C = Complex<TestType>;
  auto host = Device::create(Backend::host);
  // Plans are made for aligned arrays (FFTW's SIMD codelets need them), which these are not.
  const std::array<long, 3> n{18, 20, 24};
  SlabFFT<TestType> fft(n, MPI_COMM_WORLD, host);
  const auto& l = fft.layout();
  const auto f = random_slab<TestType>(l);
  // The reference: aligned buffers.
  auto real = fft.make_real();
  auto spectral = fft.make_spectral();
  real.assign_from_host(f);
  fft.forward(real.data(), spectral.data());
  const auto expected = spectral.host_copy();
  auto back = fft.make_real();
  fft.backward(spectral.data(), back.data());
  const auto returned = back.host_copy();
  const double scale = double(n[0]) * n[1] * n[2];
  const double tolerance = std::is_same_v<TestType, double> ? 1e-13 : 2e-6;
  for (bool in_place : {false, true}) {
    INFO("in place " << in_place);
    // Past an aligned start, so no longer aligned as FFTW's SIMD code needs (16 bytes), but as the arrays'
    // own types need: a real array one real on, a complex array (and an in-place one) one complex value on.
    // In double precision a complex value is 16 bytes, so only the real input of the out-of-place
    // transforms is then misaligned for FFTW.
    Buffer<TestType> input(host, 2 * l.alloc_complex() + 2), output(host, 2 * l.alloc_complex() + 2);
    TestType* in = input.data() + (in_place ? 2 : 1);
    C* out = reinterpret_cast<C*>(in_place ? in : output.data() + 2);
    std::copy(f.begin(), f.end(), in);
    fft.forward(in, out);
    double error = 0;
    for (std::size_t m = 0; m < l.spectral_size(); ++m)
      error = std::max(error, double(std::hypot(out[m].re - expected[m].re, out[m].im - expected[m].im)));
    CHECK(global_max(error) / scale < tolerance);
    TestType* result = in_place ? reinterpret_cast<TestType*>(out) : input.data() + 1;
    fft.backward(out, result);
    double difference = 0;
    for (std::size_t m = 0; m < l.real_size(); ++m)
      difference = std::max(difference, std::abs(double(result[m]) - double(returned[m])) / scale);
    CHECK(global_max(difference) < tolerance);
  }
}

namespace {

// Elements an array of a shape spans: 1 + the offset of the last element its transforms touch (the complex
// side of an R2C or C2R transform holds n/2 + 1 values along the last dimension).
long span(const FftwShape& s, bool input) {
  const bool complex_side = s.kind == (input ? FftwKind::c2r : FftwKind::r2c);
  long last = (s.batch.n - 1) * (input ? s.batch.is : s.batch.os);
  for (int d = 0; d < s.rank; ++d) {
    const long n = complex_side && d == s.rank - 1 ? s.dims[d].n / 2 + 1 : s.dims[d].n;
    last += (n - 1) * (input ? s.dims[d].is : s.dims[d].os);
  }
  return last + 1;
}

}  // namespace

TEST_CASE("FFTW shapes of planes of more than 2^31 - 1 values keep every size exact", "[fft]") {
  // Ny = Nz = 65536: a real plane holds 2^32 values, a complex one 65536 x 32769 = 2147549184, a slab of one
  // rank as many columns; casts to int (FFTW's advanced interface) wrapped them. Only the layout is made.
  const long ny = 65536, nz = 65536, nzc = nz / 2 + 1;
  for (int ranks : {1, 2}) {
    INFO(ranks << " ranks");
    const SlabLayout l({6, ny, nz}, ranks, 0);
    const long planes = l.x_count();
    const FftwShape r2c = plane_shape(l, FftwKind::r2c, planes), c2r = plane_shape(l, FftwKind::c2r, planes);
    CHECK((r2c.rank == 2 && r2c.dims[0].n == ny && r2c.dims[1].n == nz && r2c.batch.n == planes));
    CHECK((r2c.dims[0].is == nz && r2c.dims[0].os == nzc && r2c.dims[1].is == 1 && r2c.dims[1].os == 1));
    CHECK(r2c.batch.is == 4294967296L);
    CHECK(r2c.batch.os == 2147549184L);
    CHECK((c2r.dims[0].n == ny && c2r.dims[1].n == nz && c2r.dims[0].is == nzc && c2r.dims[0].os == nz));
    CHECK((c2r.batch.is == 2147549184L && c2r.batch.os == 4294967296L));
    // The batches tile the slab in either form exactly.
    CHECK(span(r2c, true) == static_cast<long>(l.real_size()));
    CHECK(span(r2c, false) == static_cast<long>(l.planes_size()));
    CHECK(span(c2r, true) == static_cast<long>(l.planes_size()));
    CHECK(span(c2r, false) == static_cast<long>(l.real_size()));
    const long columns = l.y_count() * nzc;  // 2147549184 on one rank, 1073774592 on two
    const FftwShape x = x_shape(l, FftwKind::forward, columns, columns);
    CHECK((x.rank == 1 && x.dims[0].n == 6 && x.batch.n == columns && x.in_place));
    CHECK((x.dims[0].is == columns && x.dims[0].os == columns && x.batch.is == 1 && x.batch.os == 1));
    CHECK(span(x, true) == static_cast<long>(l.spectral_size()));
  }
}

TEMPLATE_TEST_CASE("FFTW shapes pose the problems of FFTW's advanced interface: the same plans and wisdom",
                   "[fft]", float, double) {
  // For sizes within int, the guru shapes must plan exactly what the advanced interface planned before them
  // (the old plans, and wisdom files written by earlier runs still found): a plan measured through the
  // advanced interface leaves wisdom from which the shape's plan is made (FFTW_WISDOM_ONLY), the same one.
  using W = Fftw<TestType>;
  using Complex = typename W::complex;
  std::lock_guard<std::mutex> guard(fftw_planner_lock());
  char* saved = W::export_wisdom();
  for (int ranks : {1, 3}) {
    const SlabLayout l({12, 10, 9}, ranks, ranks - 1);
    INFO(l.describe());
    const int ny = static_cast<int>(l.ny()), nz = static_cast<int>(l.nz()), nzc = static_cast<int>(l.nzc());
    const int planes = static_cast<int>(l.x_count()), nx = static_cast<int>(l.nx());
    const int columns = static_cast<int>(l.y_count() * l.nzc());
    auto* in = static_cast<TestType*>(W::malloc(2 * l.alloc_complex() * sizeof(TestType)));
    auto* out = static_cast<TestType*>(W::malloc(2 * l.alloc_complex() * sizeof(TestType)));
    auto* complex_in = reinterpret_cast<Complex*>(in);
    auto* complex_out = reinterpret_cast<Complex*>(out);
    const int real_plane[2] = {ny, nz}, complex_plane[2] = {ny, nzc}, line[2] = {nx, 1};
    // Each shape of the backend with the advanced interface's plan of it, as fft/HostTransforms.cpp made
    // them before (measuring overwrites the arrays: they are scratch).
    const std::vector<std::pair<FftwShape, std::function<typename W::plan(unsigned)>>> cases{
        {plane_shape(l, FftwKind::r2c, planes),
         [&](unsigned f) {
           return W::plan_r2c(2, real_plane, planes, in, real_plane, 1, ny * nz, complex_out, complex_plane,
                              1, ny * nzc, f);
         }},
        {plane_shape(l, FftwKind::r2c, 1),
         [&](unsigned f) {
           return W::plan_r2c(2, real_plane, 1, in, real_plane, 1, ny * nz, complex_out, complex_plane, 1,
                              ny * nzc, f);
         }},
        {plane_shape(l, FftwKind::c2r, planes),
         [&](unsigned f) {
           return W::plan_c2r(2, real_plane, planes, complex_in, complex_plane, 1, ny * nzc, out, real_plane,
                              1, ny * nz, f | FFTW_DESTROY_INPUT);
         }},
        {x_shape(l, FftwKind::forward, columns, columns),
         [&](unsigned f) {
           return W::plan_c2c(1, line, columns, complex_in, line, columns, 1, complex_in, line, columns, 1,
                              FFTW_FORWARD, f);
         }},
        {x_shape(l, FftwKind::backward, 3, columns), [&](unsigned f) {
           return W::plan_c2c(1, line, 3, complex_in, line, columns, 1, complex_in, line, columns, 1,
                              FFTW_BACKWARD, f);
         }}};
    for (const auto& [shape, advanced] : cases) {
      INFO("kind " << static_cast<int>(shape.kind) << ", " << shape.batch.n << " transforms");
      W::forget_wisdom();
      W::threads(1);
      typename W::plan old = advanced(FFTW_MEASURE);
      REQUIRE(old != nullptr);
      void* shape_out = shape.in_place ? static_cast<void*>(in) : static_cast<void*>(out);
      typename W::plan guru = plan_fftw<TestType>(shape, FFTW_MEASURE | FFTW_WISDOM_ONLY, in, shape_out);
      CHECK(guru != nullptr);
      if (guru != nullptr) {
        char* old_text = W::sprint_plan(old);
        char* guru_text = W::sprint_plan(guru);
        CHECK(std::string(guru_text) == std::string(old_text));
        std::free(old_text);
        std::free(guru_text);
        W::destroy(guru);
      }
      W::destroy(old);
    }
    W::free(in);
    W::free(out);
  }
  W::forget_wisdom();
  W::import_wisdom(saved);
  W::free(saved);
}
