// The host backend's FFTW plans: measured plans agreed on by all ranks and kept in a wisdom file, estimated
// plans for small grids, and arrays aligned otherwise than FFTW's going through plans for unaligned data.
#include <fftw3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
