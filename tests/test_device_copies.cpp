// The devices' strided copies (Device::copy_2d, copy_3d) against memcpy row by row on the host, on the whole
// destination: the box arrives, and nothing outside it changes. Shapes with every alignment the copies pick
// their unit by (16 down to 1 byte), short and long lines, several slices, and more lines or longer lines
// than one launch's grid covers (the GPU kernel's loops).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Device.hpp"
#include "tests/TestSupport.hpp"

using namespace kolmo;

namespace {

struct Box {
  std::size_t src_offset, dst_offset, spitch, srows, dpitch, drows, width, rows, depth;
  std::size_t src_bytes() const { return src_offset + spitch * srows * depth; }
  std::size_t dst_bytes() const { return dst_offset + dpitch * drows * depth; }
  std::string name() const {
    return "offsets " + std::to_string(src_offset) + "/" + std::to_string(dst_offset) + ", pitches " +
           std::to_string(spitch) + "/" + std::to_string(dpitch) + ", " + std::to_string(depth) + " x " +
           std::to_string(rows) + " x " + std::to_string(width) + " bytes";
  }
};

const std::vector<Box> boxes = {
    {0, 0, 4112, 512, 2056, 341, 2048, 341, 3},               // 16-byte units
    {8, 16, 2056, 512, 1368, 341, 1368, 341, 2},              // 8
    {4, 12, 1028, 40, 516, 33, 512, 33, 2},                   // 4
    {2, 6, 130, 10, 98, 9, 96, 9, 3},                         // 2
    {1, 3, 131, 10, 97, 9, 95, 7, 4},                         // 1
    {0, 0, 48, 9, 16, 9, 16, 9, 1},                           // lines of one unit, many a block
    {0, 0, 2056 * 512, 64, 2056 * 64, 64, 2056 * 64, 64, 1},  // a rank's own chunk, long lines
    {4, 4, 8, 600000, 4, 600000, 4, 600000, 1},               // more lines than the grid's 65535 x 8
    {1, 0, 17000001, 1, 17000001, 1, 17000000, 1, 1},  // a line longer than the grid's 65535 x 256 units
    {0, 0, 64, 4, 64, 4, 0, 4, 2},                     // nothing: width 0
    {0, 0, 64, 4, 64, 4, 64, 0, 2},                    // nothing: no rows
};

std::vector<unsigned char> pattern(std::size_t bytes, unsigned seed) {
  std::vector<unsigned char> values(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    values[i] = static_cast<unsigned char>((i * 131 + seed * 7 + i / 251) & 0xff);
  return values;
}

void check_copies(const std::shared_ptr<Device>& device) {
  for (const Box& box : boxes)
    for (bool three_d : {true, false}) {
      if (!three_d && (box.depth != 1 || box.drows != box.rows || box.srows != box.rows)) continue;
      INFO(box.name() << (three_d ? ", copy_3d" : ", copy_2d"));
      const auto src = pattern(box.src_bytes(), 1);
      auto expected = pattern(box.dst_bytes(), 2);
      Buffer<unsigned char> from(device, src.size()), to(device, expected.size());
      device->copy_from_host(from.data(), src.data(), src.size());
      device->copy_from_host(to.data(), expected.data(), expected.size());
      if (three_d)
        device->copy_3d(to.data() + box.dst_offset, box.dpitch, box.drows, from.data() + box.src_offset,
                        box.spitch, box.srows, box.width, box.rows, box.depth);
      else
        device->copy_2d(to.data() + box.dst_offset, box.dpitch, from.data() + box.src_offset, box.spitch,
                        box.width, box.rows);
      for (std::size_t s = 0; s < box.depth; ++s)
        for (std::size_t r = 0; r < box.rows; ++r)
          std::memcpy(expected.data() + box.dst_offset + (s * box.drows + r) * box.dpitch,
                      src.data() + box.src_offset + (s * box.srows + r) * box.spitch, box.width);
      std::vector<unsigned char> got(expected.size());
      device->copy_to_host(got.data(), to.data(), got.size());
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != expected[i];
      CHECK(wrong == 0);
    }
}

}  // namespace

TEST_CASE("an empty buffer's operations do nothing, and a buffer of elements needs a device", "[fft]") {
  auto host = Device::create(Backend::host);
  Buffer<double> empty, none(host, 0), some(host, 3);
  some.assign_from_host({1.0, 2.0, 3.0});
  empty.fill_zero();
  empty.copy_from(some);
  some.copy_from(empty);  // nothing to copy: some keeps its values
  none.fill_zero();
  CHECK(empty.host_copy().empty());
  CHECK(some.host_copy() == std::vector<double>{1.0, 2.0, 3.0});
  Buffer<double> moved(std::move(some));
  some.fill_zero();  // moved from: empty
  CHECK(moved.host_copy() == std::vector<double>{1.0, 2.0, 3.0});
  CHECK_THROWS_WITH((Buffer<double>(nullptr, 4)), Catch::Contains("needs a device"));
}

TEST_CASE("the host device's strided copies move the box and nothing else", "[fft]") {
  check_copies(Device::create(Backend::host));
}

TEST_CASE("GPU: the strided copy kernel moves the box and nothing else", "[fft][gpu]") {
  auto gpu = testing::gpu_or_skip("the strided copy kernel");
  if (!gpu) return;
  check_copies(gpu);
}
