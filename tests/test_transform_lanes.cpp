// Transform lanes (fft/TransformLanes.hpp): several fields' transforms at once, each lane a SlabFFT of its
// own. Each field's result must be what the first lane's SlabFFT gives that field alone, whichever lane took
// it (5 fields over 1, 2 and 3 lanes: lanes taking two fields, and one taking one), in and out of place, on
// every rank count the suite runs (uneven slabs on 3 and 4 ranks). The inputs are written on the first
// lane's device just before the call and the results read from it just after, so that on a GPU a lane that
// started before its input was written, or a result read before its lane finished, would fail.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "fft/Exchange.hpp"
#include "fft/TransformLanes.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;
using namespace kolmo::fft;
using kolmo::testing::global_max;

namespace {

constexpr int kFields = 5;

template <class Real>
double tolerance() {
  return std::is_same_v<Real, double> ? 1e-12 : 2e-5;
}

// The largest difference between a and b relative to b's largest value, over every rank.
template <class T>
double relative_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double difference = 0, scale = 0;
  for (std::size_t m = 0; m < a.size(); ++m) {
    difference = std::max(difference, double(std::abs(a[m] - b[m])));
    scale = std::max(scale, double(std::abs(b[m])));
  }
  return global_max(difference) / std::max(global_max(scale), 1e-300);
}

// Field f's values on this rank's real slab (a different random field each).
template <class Real>
std::vector<Real> field_values(const SlabLayout& l, int f) {
  std::vector<Real> values(2 * l.alloc_complex(), Real(0));
  for (long i = 0; i < l.x_count(); ++i)
    for (long y = 0; y < l.ny(); ++y)
      for (long z = 0; z < l.nz(); ++z)
        values[(i * l.ny() + y) * l.nz() + z] =
            Real(kolmo::testing::random_value(l.x_offset() + i + 97 * f, y, z));
  return values;
}

// A spectral slab's values as reals; with dealiased modes only the kept ones (forward leaves the others
// unspecified), the others zero.
template <class Real>
std::vector<Real> spectrum_of(const Buffer<Complex<Real>>& buffer, const SlabLayout& l, Modes modes) {
  const auto values = buffer.host_copy();
  std::vector<Real> reals(2 * l.spectral_size(), Real(0));
  for (long i = 0; i < l.nx(); ++i)
    for (long j = 0; j < l.y_count(); ++j)
      for (long k = 0; k < l.nzc(); ++k) {
        const long m = (i * l.y_count() + j) * l.nzc() + k;
        if (modes == Modes::dealiased && !(SlabLayout::kept(l.y_offset() + j, l.ny()) && k < l.kept_z()))
          continue;
        reals[2 * m] = values[m].re;
        reals[2 * m + 1] = values[m].im;
      }
  return reals;
}

// Every field through the lanes against the first lane alone: forward, then backward of what the first lane
// gave, out of place or in place.
template <class Real>
void check_lanes(SlabFFT<Real>& first, TransformLanes<Real>& transforms, bool in_place, Modes modes) {
  using C = Complex<Real>;
  const SlabLayout& l = first.layout();
  Device& device = first.device();
  std::vector<Buffer<Real>> sources, inputs;
  std::vector<Buffer<C>> outputs;
  std::vector<std::vector<Real>> spectra_alone, fields_alone;
  for (int f = 0; f < kFields; ++f) {
    sources.push_back(first.make_real());
    sources.back().assign_from_host(field_values<Real>(l, f));
    inputs.push_back(first.make_real());
    outputs.push_back(first.make_spectral());
    // Alone, on the first lane: the spectrum, and backward from it.
    auto spectrum = first.make_spectral();
    auto back = first.make_real();
    first.forward(sources.back().data(), spectrum.data(), modes);
    spectra_alone.push_back(spectrum_of(spectrum, l, modes));
    first.backward(spectrum.data(), back.data(), modes);
    auto values = back.host_copy();
    values.resize(l.real_size());
    fields_alone.push_back(values);
  }
  auto spectral_of = [&](int f) {
    return in_place ? reinterpret_cast<C*>(inputs[f].data()) : outputs[f].data();
  };
  std::vector<std::pair<const Real*, C*>> forward;
  for (int f = 0; f < kFields; ++f) {
    device.copy(inputs[f].data(), sources[f].data(), sources[f].bytes());  // queued on the first lane
    forward.push_back({inputs[f].data(), spectral_of(f)});
  }
  transforms.forward(forward, modes);
  std::vector<std::pair<const C*, Real*>> backward;
  for (int f = 0; f < kFields; ++f) {
    Buffer<C> spectrum = first.make_spectral();
    device.copy(spectrum.data(), spectral_of(f), l.spectral_size() * sizeof(C));
    const auto got = spectrum_of(spectrum, l, modes);
    INFO("field " << f << " forward");
    CHECK(relative_difference(got, spectra_alone[f]) < tolerance<Real>());
    backward.push_back({spectral_of(f), inputs[f].data()});
  }
  transforms.backward(backward, modes);
  for (int f = 0; f < kFields; ++f) {
    auto got = inputs[f].host_copy();
    got.resize(l.real_size());
    INFO("field " << f << " backward");
    CHECK(relative_difference(got, fields_alone[f]) < tolerance<Real>());
  }
}

const std::array<long, 3> kGrid{12, 10, 9};

}  // namespace

TEMPLATE_TEST_CASE("transform lanes give each field the transform of the first lane alone", "[fft]", float,
                   double) {
  auto host = Device::create(Backend::host);
  FftOptions options;
  options.fftw_planning = FftwPlanning::estimate;
  SlabFFT<TestType> first(kGrid, MPI_COMM_WORLD, host, options);
  CHECK(TransformLanes<TestType>::automatic_lanes(first) == 1);  // the host runs lanes one after another
  for (int lanes : {1, 2, 3}) {
    TransformLanes<TestType> transforms(first, lanes);
    REQUIRE(transforms.lanes() == lanes);
    for (bool in_place : {false, true})
      for (Modes modes : {Modes::all, Modes::dealiased}) {
        INFO(lanes << " lanes, in place " << in_place << ", dealiased " << (modes == Modes::dealiased));
        check_lanes(first, transforms, in_place, modes);
      }
  }
}

TEST_CASE("transform lanes refuse a count below 1 and ranks that disagree, on every rank", "[fft]") {
  auto host = Device::create(Backend::host);
  FftOptions options;
  options.fftw_planning = FftwPlanning::estimate;
  SlabFFT<double> first(kGrid, MPI_COMM_WORLD, host, options);
  CHECK_THROWS_WITH(TransformLanes<double>(first, 0), "transform lanes must be 1 or more, not 0");
  if (kolmo::testing::world_size() > 1) {
    const int lanes = kolmo::testing::world_rank() == 0 ? 2 : 1;
    CHECK_THROWS_WITH(TransformLanes<double>(first, lanes),
                      "the ranks disagree on the count of transform lanes (from 1 to 2): every rank must ask "
                      "for the same");
  }
}

// On a GPU the lanes run at once on streams of their own: 3 lanes (two take two fields, one takes one). An
// exchange by MPI and one by p2p (NCCL's is refused, below; one rank's automatic one too), with the routes'
// defaults (p2p by the strided route, its own rows placed), and emulated ranks (loopback). (Each transform's
// construction times its routes among ranks sharing the GPU: the lanes are made once for every case of a
// method.)
TEMPLATE_TEST_CASE("GPU: transform lanes give each field the transform of the first lane alone", "[fft][gpu]",
                   float, double) {
  auto gpu = kolmo::testing::gpu_or_skip("transform lanes on the GPU");
  if (!gpu) return;
  const int ranks = kolmo::testing::world_size();
  std::vector<ExchangeMethod> methods{ExchangeMethod::isend_irecv, ExchangeMethod::p2p};
  // One rank's automatic exchange may report nccl though it exchanges nothing: lanes there are no NCCL lanes.
  if (ranks == 1) methods.push_back(ExchangeMethod::automatic);
  for (ExchangeMethod method : methods) {
    FftOptions options{method};
    SlabFFT<TestType> first(kGrid, MPI_COMM_WORLD, gpu, options);
    INFO("method " << to_string(first.exchange_method()) << ", " << ranks << " ranks");
    const bool copies_alone = ranks > 1 && first.exchange_method() == ExchangeMethod::p2p;
    CHECK(TransformLanes<TestType>::automatic_lanes(first) == (copies_alone ? 3 : 1));
    TransformLanes<TestType> transforms(first, 3);
    for (bool in_place : {false, true})
      for (Modes modes : {Modes::all, Modes::dealiased}) {
        INFO("in place " << in_place << ", dealiased " << (modes == Modes::dealiased));
        check_lanes(first, transforms, in_place, modes);
      }
  }
  if (ranks == 1) {  // rank 1 of 3 emulated, its exchange by local copies
    FftOptions options;
    options.emulated_ranks = 3;
    options.emulated_rank = 1;
    SlabFFT<TestType> first({32, 16, 32}, MPI_COMM_WORLD, gpu, options);
    CHECK(TransformLanes<TestType>::automatic_lanes(first) == 3);
    TransformLanes<TestType> transforms(first, 3);
    for (Modes modes : {Modes::all, Modes::dealiased}) check_lanes(first, transforms, false, modes);
  }
}

TEST_CASE("GPU: transform lanes refuse the nccl exchange", "[fft][gpu]") {
  auto gpu = kolmo::testing::gpu_or_skip("transform lanes with NCCL");
  if (!gpu || !nccl_usable(MPI_COMM_WORLD) || kolmo::testing::world_size() == 1) return;
  SlabFFT<float> first(kGrid, MPI_COMM_WORLD, gpu, FftOptions{ExchangeMethod::nccl});
  CHECK_THROWS_WITH(
      TransformLanes<float>(first, 2),
      "transform lanes: 2 with the nccl exchange, whose communicators (one a lane) may deadlock "
      "when used at once; use 1 lane, or the p2p exchange inside a node");
  CHECK(TransformLanes<float>::automatic_lanes(first) == 1);
}
