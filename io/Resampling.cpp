#include "io/Resampling.hpp"

#include <algorithm>

namespace kolmo::io {

std::vector<AxisSegment> full_axis_segments(long file_n, long run_n) {
  if (file_n == run_n) return {{0, 0, file_n, 1}};
  const long n = std::min(file_n, run_n);
  // k = 0 ... (n - 1) / 2, and -1 ... -(n - 1) / 2
  const long positive = (n + 1) / 2, negative = (n - 1) / 2;
  std::vector<AxisSegment> segments{{0, 0, positive, 1}};
  if (negative > 0) segments.push_back({file_n - negative, run_n - negative, negative, 1});
  if (file_n < run_n && file_n % 2 == 0) {
    segments.push_back({file_n / 2, file_n / 2, 1, 0.5});
    segments.push_back({file_n / 2, run_n - file_n / 2, 1, 0.5});
  }
  return segments;
}

std::vector<AxisSegment> half_axis_segments(long file_n, long run_n) {
  if (file_n == run_n) return {{0, 0, file_n / 2 + 1, 1}};
  const long n = std::min(file_n, run_n);
  std::vector<AxisSegment> segments{{0, 0, (n + 1) / 2, 1}};
  if (file_n < run_n && file_n % 2 == 0) segments.push_back({file_n / 2, file_n / 2, 1, 0.5});
  return segments;
}

std::vector<std::array<long, 2>> file_ranges(std::vector<AxisSegment> segments) {
  std::sort(segments.begin(), segments.end(),
            [](const AxisSegment& a, const AxisSegment& b) { return a.file < b.file; });
  std::vector<std::array<long, 2>> ranges;
  for (const AxisSegment& s : segments) {
    if (!ranges.empty() && s.file <= ranges.back()[1])
      ranges.back()[1] = std::max(ranges.back()[1], s.file + s.count);
    else
      ranges.push_back({s.file, s.file + s.count});
  }
  return ranges;
}

}  // namespace kolmo::io
