// Presentation helpers of the plan: chart downsampling, the merged "small" view and enum names.

#include "core/analysis/plan/plan_curve.h"

#include <algorithm>

#include "core/analysis/plan/plan.h"

namespace oomscope::analysis {

std::vector<CurvePoint> downsample_min_max(std::span<const std::int64_t> values, std::size_t max_points,
                                           std::optional<std::size_t> keep_index) {
  std::vector<CurvePoint> out;
  const std::size_t n = values.size();
  max_points = std::max<std::size_t>(max_points, 4);
  if (n <= max_points) {
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back({static_cast<std::int64_t>(i), values[i]});
    return out;
  }
  std::size_t keep = 0;
  if (keep_index && *keep_index < n) {
    keep = *keep_index;
  } else {
    keep = static_cast<std::size_t>(std::max_element(values.begin(), values.end()) - values.begin());
  }
  // First, last and the kept point are reserved; every bucket yields at most two points.
  const std::size_t buckets = (max_points - 3) / 2;
  std::vector<std::size_t> picked;
  picked.reserve(2 * buckets + 3);
  picked.push_back(0);
  picked.push_back(n - 1);
  picked.push_back(keep);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t lo = b * n / buckets;
    const std::size_t hi = (b + 1) * n / buckets;
    if (lo >= hi) continue;
    std::size_t lo_at = lo;
    std::size_t hi_at = lo;
    for (std::size_t i = lo + 1; i < hi; ++i) {
      if (values[i] < values[lo_at]) lo_at = i;
      if (values[i] > values[hi_at]) hi_at = i;
    }
    picked.push_back(lo_at);
    picked.push_back(hi_at);
  }
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  out.reserve(picked.size());
  for (std::size_t i : picked) out.push_back({static_cast<std::int64_t>(i), values[i]});
  return out;
}

std::vector<PlanBuffer> merge_small_buffers(std::span<const PlanBuffer> buffers, std::int64_t threshold) {
  std::vector<PlanBuffer> out;
  PlanBuffer small;
  small.instruction = "small (<" + std::to_string(threshold) + " bytes)";
  small.role = BufferRole::Other;
  int merged = 0;
  for (const PlanBuffer& buffer : buffers) {
    if (!buffer.indefinite && buffer.size_bytes < threshold) {
      small.size_bytes += buffer.size_bytes;
      ++merged;
    } else {
      out.push_back(buffer);
    }
  }
  if (merged > 0) out.push_back(std::move(small));
  return out;
}

std::string SourceLocation::to_string() const {
  if (file.empty()) return {};
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::int64_t PlanAnalysis::role_bytes(BufferRole role) const {
  for (const RoleTotal& total : role_totals)
    if (total.role == role) return total.bytes;
  return 0;
}

const char* to_string(BufferRole role) noexcept { return enum_name(kBufferRoleNames, role, "other"); }

const char* to_string(TraceSelection selection) noexcept {
  return enum_name(kTraceSelectionNames, selection, "none");
}

const char* to_string(PlanStatus status) noexcept { return enum_name(kPlanStatusNames, status, "ok"); }

}  // namespace oomscope::analysis
