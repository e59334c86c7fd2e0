#pragma once
// Presentation helpers of the plan (plan_curve.cpp): the min/max downsampler that keeps a chart's peaks
// exact (also used for the runtime allocator series) and XProf's merged view of the small buffers.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/analysis/plan/plan_buffer.h"

namespace oomscope::analysis {

struct CurvePoint {
  std::int64_t index = 0;  // x: position in the input series
  std::int64_t value = 0;  // y
  bool operator==(const CurvePoint&) const = default;
};

// Min/max-preserving bucket downsampler for charts. Splits the series into about max_points/2 buckets of
// consecutive indices and keeps each bucket's minimum and maximum point (in index order), plus the first
// and last points and the point at `keep_index` (default: the first global maximum) exactly. Output is
// sorted by index, without duplicates, at most max(max_points, 4) points; a series that already fits is
// returned whole. max_points < 4 is treated as 4.
std::vector<CurvePoint> downsample_min_max(std::span<const std::int64_t> values, std::size_t max_points,
                                           std::optional<std::size_t> keep_index = std::nullopt);

// Buffers smaller than this are merged into one "small" entry by merge_small_buffers (XProf's
// kSmallBufferSize).
inline constexpr std::int64_t kSmallBufferBytes = 16 * 1024;

// A copy of `buffers` with every buffer of size < threshold (that is not indefinite) replaced by one entry
// with logical_buffer_id -1, instruction "small (<16384 bytes)", role Other and the summed size, appended
// last. The input order of the kept buffers is preserved. No merged entry when nothing is small.
std::vector<PlanBuffer> merge_small_buffers(std::span<const PlanBuffer> buffers,
                                            std::int64_t threshold = kSmallBufferBytes);

}  // namespace oomscope::analysis
