// JSON forms of the config, the totals and the baselines (trace header and totals lines, CLI --json).

#include "core/sim/trace_json.h"

#include "core/sim/json_fields.h"
#include "core/sim/trace.h"
#include "core/util/error.h"

namespace oomscope::sim {

using nlohmann::json;
using namespace detail;

const char* to_string(Outcome v) { return enum_name(kOutcomeNames, v, "ok"); }

const char* to_string(Origin v) { return enum_name(kOriginNames, v, "batch"); }

json config_to_json(const SimConfig& c) {
  json scenes = {{"dist", to_string(c.scenes.dist)}, {"count", c.scenes.count}};
  if (c.scenes.dist == SizeDist::File) {
    scenes["sizes_file"] = c.scenes.sizes_file;
    // The sizes themselves, so that the trace reproduces without the file.
    scenes["sizes"] = c.scenes.sizes;
  }
  return json{
      {"preset", preset_name(c.policy)},
      {"policy",
       {{"catch", to_string(c.policy.catch_mode)},
        {"grad", to_string(c.policy.grad)},
        {"split", to_string(c.policy.split)},
        {"axis", to_string(c.policy.axis)},
        {"floor", c.policy.floor},
        {"on_floor", to_string(c.policy.on_floor)},
        {"norm", to_string(c.policy.norm)}}},
      {"scenes", scenes},
      {"batch", c.batch},
      {"epochs", c.epochs},
      {"max_batches", c.max_batches},
      {"seed", c.seed},
      {"memory",
       {{"bytes_per_point", c.memory.bytes_per_point},
        {"fixed_bytes", c.memory.fixed_bytes},
        {"budget", c.memory.budget},
        {"fragmentation_penalty", c.memory.fragmentation_penalty},
        {"empty_cache_relief_permille", c.memory.empty_cache_relief_permille}}},
      {"time",
       {{"forward_ps_per_point", c.time.forward_ps_per_point},
        {"backward_ps_per_point", c.time.backward_ps_per_point},
        {"fixed_ns_per_attempt", c.time.fixed_ns_per_attempt},
        {"host_copy_ps_per_point", c.time.host_copy_ps_per_point},
        {"cache_flush_ns", c.time.cache_flush_ns},
        {"shape_bug_forward_permille", c.time.shape_bug_forward_permille}}},
      {"fault", {{"kind", to_string(c.fault.kind)}, {"scene", c.fault.scene}}},
  };
}

SimConfig config_from_json(const json& j, const std::string& name) {
  try {
    SimConfig c;
    const json& p = field(j, "policy");
    c.policy.catch_mode = get_enum(p, "catch", kCatchModeNames);
    c.policy.grad = get_enum(p, "grad", kGradModeNames);
    c.policy.split = get_enum(p, "split", kSplitPointNames);
    c.policy.axis = get_enum(p, "axis", kAxisRuleNames);
    c.policy.floor = get_int(p, "floor");
    if (p.contains("on_floor")) c.policy.on_floor = get_enum(p, "on_floor", kFloorActionNames);
    if (p.contains("norm")) c.policy.norm = get_enum(p, "norm", kNormModeNames);
    const json& s = field(j, "scenes");
    c.scenes.dist = get_enum(s, "dist", kSizeDistNames);
    c.scenes.count = get_int(s, "count");
    if (c.scenes.dist == SizeDist::File) {
      c.scenes.sizes_file = get_string(s, "sizes_file");
      const json& sizes = field(s, "sizes");
      if (!sizes.is_array()) throw FieldError{"field 'sizes' must be an array of point counts"};
      for (const auto& v : sizes) {
        if (!v.is_number_integer())
          throw FieldError{"field 'sizes' holds " + v.dump() + ", not a point count"};
        c.scenes.sizes.push_back(v.get<std::int64_t>());
      }
    }
    c.batch = get_int(j, "batch");
    c.epochs = get_int(j, "epochs");
    if (j.contains("max_batches")) c.max_batches = get_int(j, "max_batches");
    c.seed = get_uint(j, "seed");
    const json& m = field(j, "memory");
    c.memory.bytes_per_point = get_int(m, "bytes_per_point");
    c.memory.fixed_bytes = get_int(m, "fixed_bytes");
    c.memory.budget = get_int(m, "budget");
    c.memory.fragmentation_penalty = get_int(m, "fragmentation_penalty");
    // Absent in traces written before empty_cache() relief was modelled: they had none.
    c.memory.empty_cache_relief_permille =
        m.contains("empty_cache_relief_permille") ? get_int(m, "empty_cache_relief_permille") : 0;
    const json& t = j.contains("time") ? j["time"] : config_to_json(SimConfig{})["time"];
    c.time.forward_ps_per_point = get_int(t, "forward_ps_per_point");
    c.time.backward_ps_per_point = get_int(t, "backward_ps_per_point");
    c.time.fixed_ns_per_attempt = get_int(t, "fixed_ns_per_attempt");
    c.time.host_copy_ps_per_point = get_int(t, "host_copy_ps_per_point");
    c.time.cache_flush_ns = get_int(t, "cache_flush_ns");
    c.time.shape_bug_forward_permille = get_int(t, "shape_bug_forward_permille");
    if (j.contains("fault")) {
      const json& f = j["fault"];
      c.fault.kind = get_enum(f, "kind", kBugKindNames);
      c.fault.scene = get_int(f, "scene");
    }
    validate(c);
    return c;
  } catch (const FieldError& e) {
    throw Error(ErrorKind::InvalidArgument, name, "config: " + e.message);
  } catch (const Error& e) {
    throw Error(ErrorKind::InvalidArgument, name, "config: " + e.message());
  }
}

// Every Totals field by its JSON key, so that writing and reading cannot drift apart.
// clang-format 14 re-indents this list differently on every pass: kept as written.
// clang-format off
#define OOMSCOPE_TOTALS_FIELDS(X)                                                                      \
  X(epochs_done) X(batches) X(optimizer_steps) X(scenes) X(points) X(attempts) X(ok_attempts)          \
  X(oom_attempts) X(bug_attempts) X(retries) X(wasted_forward_passes) X(discarded_gradients)           \
  X(dropped_fragments) X(unsplittable_fragments) X(points_dropped) X(scenes_dropped)                   \
  X(scenes_partially_dropped) X(points_trained) X(points_applied) X(scenes_applied) X(points_spatial)  \
  X(crashes) X(crash_scene) X(crash_event) X(time_ns) X(oom_free_time_ns) X(ok_bytes_sum)              \
  X(peak_ok_bytes)
// Added later: optional when reading.
#define OOMSCOPE_TOTALS_OPTIONAL_FIELDS(X)                                                             \
  X(empty_cache_calls) X(renormalised_steps) X(floor_kept_fragments) X(norm_biased_points)             \
  X(norm_small_fragments) X(floor_raised)
// clang-format on

json totals_to_json(const Totals& t) {
  json j;
#define X(name) j[#name] = t.name;
  OOMSCOPE_TOTALS_FIELDS(X)
  OOMSCOPE_TOTALS_OPTIONAL_FIELDS(X)
#undef X
  j["applied_point_fraction"] = t.applied_point_fraction();
  j["applied_scene_fraction"] = t.applied_scene_fraction();
  j["overhead"] = t.overhead();
  return j;
}

Totals totals_from_json(const json& j) {
  Totals t;
#define X(name) t.name = get_int(j, #name);
  OOMSCOPE_TOTALS_FIELDS(X)
#undef X
#define X(name) \
  if (j.contains(#name)) t.name = get_int(j, #name);
  OOMSCOPE_TOTALS_OPTIONAL_FIELDS(X)
#undef X
  return t;
}

namespace {
json baseline_to_json(const BaselineResult& b) {
  return json{{"feasible", b.feasible},
              {"scenes_per_attempt", b.scenes_per_attempt},
              {"accumulation", b.accumulation},
              {"attempts", b.attempts},
              {"oom_attempts", b.oom_attempts},
              {"optimizer_steps", b.optimizer_steps},
              {"time_ns", b.time_ns},
              {"mean_utilisation", b.mean_utilisation},
              {"peak_utilisation", b.peak_utilisation}};
}

BaselineResult baseline_from_json(const json& j) {
  BaselineResult b;
  const json& f = field(j, "feasible");
  if (!f.is_boolean()) throw FieldError{"field 'feasible' must be true or false"};
  b.feasible = f.get<bool>();
  b.scenes_per_attempt = get_int(j, "scenes_per_attempt");
  b.accumulation = get_int(j, "accumulation");
  b.attempts = get_int(j, "attempts");
  b.oom_attempts = get_int(j, "oom_attempts");
  b.optimizer_steps = get_int(j, "optimizer_steps");
  b.time_ns = get_int(j, "time_ns");
  b.mean_utilisation = get_number(j, "mean_utilisation");
  b.peak_utilisation = get_number(j, "peak_utilisation");
  return b;
}
}  // namespace

json baselines_to_json(const Baselines& b) {
  return json{{"lazy_fix", baseline_to_json(b.lazy_fix)}, {"micro_batch", baseline_to_json(b.micro_batch)}};
}

Baselines baselines_from_json(const json& j) {
  return Baselines{baseline_from_json(field(j, "lazy_fix")), baseline_from_json(field(j, "micro_batch"))};
}

}  // namespace oomscope::sim
