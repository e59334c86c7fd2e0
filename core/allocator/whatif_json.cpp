#include "core/allocator/whatif_json.h"

#include <nlohmann/json.hpp>

namespace oomscope::allocator {

namespace {

using json = nlohmann::ordered_json;

json opt(const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); }

json oom_json(const OomReport& o) {
  json j;
  j["trace_index"] = o.trace_index;
  j["size"] = o.detail.requested;
  j["rounded_size"] = o.detail.rounded;
  j["alloc_size"] = o.detail.alloc_size;
  j["time_us"] = o.time_us >= 0 ? json(o.time_us) : json(nullptr);
  j["stream"] = o.detail.stream;
  j["pool"] = o.detail.small_pool ? "small" : "large";
  j["largest_free_block_bytes"] = o.detail.largest_free_in_pool;
  j["cached_free_bytes"] = o.detail.cached_free;
  j["released_by_retry_bytes"] = o.detail.released_by_retry;
  j["reserved_bytes"] = o.detail.reserved_after;
  j["allocated_bytes"] = o.detail.allocated_after;
  j["recorded"] = o.recorded;
  if (o.recorded) j["device_free_bytes"] = o.device_free;
  return j;
}

json validation_json(const Validation& v) {
  json j;
  j["segment_allocs_recorded"] = v.segment_allocs_recorded;
  j["segment_allocs_replayed"] = v.segment_allocs_replayed;
  j["segment_events_recorded"] = v.segment_events_recorded;
  j["segment_events_replayed"] = v.segment_events_replayed;
  j["segment_events_matched"] = v.segment_events_matched;
  j["allocs"] = v.allocs;
  j["allocs_at_recorded_address"] = v.allocs_at_recorded_address;
  j["final_segments_recorded"] = v.final_segments_recorded;
  j["final_segments_replayed"] = v.final_segments_replayed;
  j["final_layout_matched"] = v.final_layout_matched;
  j["checked"] = v.checked;
  j["matched"] = v.matched;
  if (v.first_divergence) {
    json d;
    d["trace_index"] =
        v.first_divergence->trace_index >= 0 ? json(v.first_divergence->trace_index) : json(nullptr);
    d["what"] = v.first_divergence->what;
    j["first_divergence"] = d;
  } else {
    j["first_divergence"] = nullptr;
  }
  j["unexplained"] = v.unexplained;
  return j;
}

json scenario_json(const Scenario& s) {
  const ReplayResult& r = s.result;
  json j;
  j["name"] = s.name;
  j["kind"] = s.kind == ScenarioKind::Recorded    ? "recorded"
              : s.kind == ScenarioKind::Requested ? "requested"
                                                  : "single_setting";
  j["settings"] = settings_json(r.config);
  j["capacity_bytes"] = r.capacity == kNoLimit ? json(nullptr) : json(r.capacity);
  j["start_reserved_bytes"] = r.start_reserved;
  j["peak_reserved_bytes"] = r.peak_reserved;
  j["peak_allocated_bytes"] = r.peak_allocated;
  j["peak_requested_bytes"] = r.peak_requested;
  j["final_reserved_bytes"] = r.final_reserved;
  j["entries_replayed"] = r.replayed;
  j["saved_reserved_bytes"] = s.saved_vs_recorded ? json(*s.saved_vs_recorded) : json(nullptr);
  j["first_oom"] = r.first_oom ? oom_json(*r.first_oom) : json(nullptr);
  if (r.validation) j["validation"] = validation_json(*r.validation);
  return j;
}

}  // namespace

json settings_json(const AllocatorConfig& c) {
  json j;
  j["expandable_segments"] = c.expandable_segments;
  j["max_split_size_mb"] =
      c.max_split_size == kNoLimit ? json(nullptr) : json(static_cast<double>(c.max_split_size) / kMiB);
  json div = json::object();
  for (std::size_t i = 0; i < kRoundupIntervals; ++i)
    div[std::to_string(1ull << i)] = c.roundup_power2_divisions[i];
  j["roundup_power2_divisions"] = div;
  j["garbage_collection_threshold"] = c.garbage_collection_threshold;
  j["max_non_split_rounding_mb"] = static_cast<double>(c.max_non_split_rounding) / kMiB;
  return j;
}

json whatif_json(const WhatIfResult& w) {
  json j;
  j["file"] = w.path;
  j["device"] = w.device;
  j["trace_entries"] = w.trace_entries;
  j["settings_recorded"] = w.settings_recorded;
  j["recorded_settings"] = settings_json(w.recorded_config);
  j["capacity_bytes"] = opt(w.capacity);
  j["capacity_source"] = !w.capacity ? "unlimited" : w.capacity_from_oom ? "oom_entry" : "option";
  j["validated"] = w.validated();
  j["predictions"] = w.validated();
  json scenarios = json::array();
  scenarios.push_back(scenario_json(w.recorded));
  for (const Scenario& s : w.scenarios) scenarios.push_back(scenario_json(s));
  j["scenarios"] = scenarios;
  j["best"] = w.best ? json(w.scenarios[*w.best].name) : json(nullptr);
  json caps = json::array();
  for (const CapacitySearch& c : w.capacity_searches)
    caps.push_back({{"settings", c.settings},
                    {"capacity_bytes", opt(c.capacity)},
                    {"searched_up_to_bytes", c.searched_up_to},
                    {"replays", c.replays}});
  j["min_capacity"] = caps;
  const auto& oom = w.recorded.result.first_oom;
  if (oom && oom->recorded) {
    json e = oom_json(*oom);
    json avoided = json::array();
    for (const Scenario& s : w.scenarios)
      if (!s.result.first_oom && s.result.replayed == s.result.entries) avoided.push_back(s.name);
    e["avoided_by"] = avoided;
    j["oom_explanation"] = e;
  } else {
    j["oom_explanation"] = nullptr;
  }
  j["notes"] = w.notes;
  return j;
}

}  // namespace oomscope::allocator
