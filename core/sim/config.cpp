#include "core/sim/config.h"

#include <cmath>
#include <limits>

#include "core/sim/scene.h"
#include "core/util/error.h"

namespace oomscope::sim {

Policy preset_original() {
  return Policy{
      CatchMode::Everything, GradMode::LastFragment, SplitPoint::Midpoint, AxisRule::AlternateXY, 500,
      FloorAction::Drop,     NormMode::BatchNorm};
}

Policy preset_corrected() {
  return Policy{CatchMode::OomOnly, GradMode::Accumulate, SplitPoint::Median, AxisRule::Longest, 500,
                FloorAction::Keep,  NormMode::Frozen};
}

Preset preset_of(const Policy& policy) {
  if (policy == preset_original()) return Preset::Original;
  if (policy == preset_corrected()) return Preset::Corrected;
  return Preset::Custom;
}

std::optional<Policy> preset_policy(Preset preset) {
  if (preset == Preset::Original) return preset_original();
  if (preset == Preset::Corrected) return preset_corrected();
  return std::nullopt;
}

std::optional<Policy> preset_by_name(std::string_view name) {
  const auto preset = parse_enum(kPresetNames, name);
  return preset ? preset_policy(*preset) : std::nullopt;
}

std::string preset_name(const Policy& policy) { return enum_name(kPresetNames, preset_of(policy)); }

SimConfig default_config() { return SimConfig{}; }

namespace {
[[noreturn]] void bad(const std::string& what) { throw Error(ErrorKind::InvalidArgument, "", what); }
}  // namespace

void validate(const SimConfig& c) {
  if (c.policy.floor < 0) bad("floor must be >= 0, got " + std::to_string(c.policy.floor));
  const bool from_file = c.scenes.dist == SizeDist::File;
  if (!from_file && c.scenes.count < 1)
    bad("scene count must be >= 1, got " + std::to_string(c.scenes.count));
  if (c.scenes.count > 10'000'000) bad("scene count must be <= 10,000,000");
  if (from_file && c.scenes.sizes.empty() && c.scenes.sizes_file.empty()) bad("a sizes file is required");
  if (c.scenes.sizes.size() > 10'000'000) bad("at most 10,000,000 scene sizes");
  for (std::size_t i = 0; i < c.scenes.sizes.size(); ++i) {
    if (c.scenes.sizes[i] < 1) bad("scene " + std::to_string(i) + " has no points");
    // Its points are generated when it is split in space: 12 bytes each.
    if (c.scenes.sizes[i] > kMaxScenePoints)
      bad("scene " + std::to_string(i) + " has " + std::to_string(c.scenes.sizes[i]) +
          " points; the simulator takes at most 100,000,000 per scene");
  }
  if (c.batch < 1) bad("batch must be >= 1 scene, got " + std::to_string(c.batch));
  if (c.batch > 65'536) bad("batch must be <= 65,536 scenes");
  if (c.epochs < 1 || c.epochs > 1'000'000)
    bad("epochs must be in 1..1,000,000, got " + std::to_string(c.epochs));
  if (c.max_batches < 0)
    bad("max batches must be >= 0 (0: every batch), got " + std::to_string(c.max_batches));
  const auto& m = c.memory;
  if (m.bytes_per_point < 1) bad("bytes per point must be >= 1");
  if (m.fixed_bytes < 0) bad("fixed bytes per attempt must be >= 0");
  if (m.budget < 1) bad("budget must be > 0");
  if (m.fragmentation_penalty < 0) bad("fragmentation penalty must be >= 0");
  if (m.empty_cache_relief_permille < 0 || m.empty_cache_relief_permille > 1000)
    bad("empty_cache() relief must be in 0..1000 per mille, got " +
        std::to_string(m.empty_cache_relief_permille));
  // Keeps bytes_needed of any batch (<= 65,536 x 100,000,000 points) inside int64.
  if (m.bytes_per_point > (std::int64_t{1} << 20)) bad("bytes per point must be <= 1 MiB");
  if (m.fixed_bytes > (std::int64_t{1} << 60) || m.budget > (std::int64_t{1} << 60) ||
      m.fragmentation_penalty > (std::int64_t{1} << 60))
    bad("fixed bytes, budget and fragmentation penalty must be <= 1 EiB");
  const auto& t = c.time;
  if (t.forward_ps_per_point < 0 || t.backward_ps_per_point < 0 || t.fixed_ns_per_attempt < 0 ||
      t.host_copy_ps_per_point < 0 || t.cache_flush_ns < 0)
    bad("time model costs must be >= 0");
  if (t.forward_ps_per_point > 1'000'000'000 || t.backward_ps_per_point > 1'000'000'000 ||
      t.host_copy_ps_per_point > 1'000'000'000)
    bad("per-point costs must be <= 1 ms (1,000,000,000 ps)");
  if (t.shape_bug_forward_permille < 0 || t.shape_bug_forward_permille > 1000)
    bad("shape bug forward fraction must be in 0..1000 per mille");
  if (c.fault.kind != BugKind::None) {
    const std::int64_t n =
        from_file && c.scenes.count == 0 ? std::int64_t(c.scenes.sizes.size()) : c.scenes.count;
    if (c.fault.scene < 0 || (n > 0 && c.fault.scene >= n))
      bad("bug scene " + std::to_string(c.fault.scene) + " is not a scene (0.." + std::to_string(n - 1) +
          ")");
  }
}

const char* to_string(CatchMode v) { return enum_name(kCatchModeNames, v); }
const char* to_string(FloorAction v) { return enum_name(kFloorActionNames, v); }
const char* to_string(NormMode v) { return enum_name(kNormModeNames, v); }
const char* to_string(GradMode v) { return enum_name(kGradModeNames, v); }
const char* to_string(SplitPoint v) { return enum_name(kSplitPointNames, v); }
const char* to_string(AxisRule v) { return enum_name(kAxisRuleNames, v); }
const char* to_string(BugKind v) { return enum_name(kBugKindNames, v); }
const char* to_string(SizeDist v) { return enum_name(kSizeDistNames, v); }

std::optional<CatchMode> parse_catch_mode(std::string_view s) { return parse_enum(kCatchModeNames, s); }
std::optional<GradMode> parse_grad_mode(std::string_view s) { return parse_enum(kGradModeNames, s); }
std::optional<SplitPoint> parse_split_point(std::string_view s) { return parse_enum(kSplitPointNames, s); }
std::optional<AxisRule> parse_axis_rule(std::string_view s) { return parse_enum(kAxisRuleNames, s); }
std::optional<BugKind> parse_bug_kind(std::string_view s) { return parse_enum(kBugKindNames, s); }
std::optional<SizeDist> parse_size_dist(std::string_view s) { return parse_enum(kSizeDistNames, s); }

}  // namespace oomscope::sim
