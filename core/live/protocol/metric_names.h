#pragma once
// oomscope's Prometheus metric families, written once: the agents' `/metrics` writer
// (prometheus_text.cpp) and the Prometheus source's reader (core/live/prom) both use these names, and
// tests/core/live/metric_names_test.cpp fails when the Python agent's table
// (app/python-agent/oomscope_agent/metrics.py) says anything else. docs/prometheus.md lists them for users.

#include <string_view>

#include "core/live/protocol/protocol.h"

namespace oomscope::live {

// One metric family: its name, its Prometheus type ("gauge" or "counter") and its HELP text.
struct MetricFamily {
  std::string_view name;
  std::string_view type;
  std::string_view help;
};

// A family that exports one sample field. Gauges are in bytes unless the name says otherwise.
struct FieldMetric {
  Field field;
  MetricFamily family;
};

// In the order the writer writes them; the Prometheus source's reader indexes its series by position here.
inline constexpr FieldMetric kFieldMetrics[] = {
    {Field::Allocated,
     {"oomscope_allocated_bytes", "gauge", "Bytes the framework's allocator has handed out."}},
    {Field::Reserved,
     {"oomscope_reserved_bytes", "gauge", "Bytes the caching allocator holds from the device."}},
    {Field::Active, {"oomscope_active_bytes", "gauge", "Bytes in active allocator blocks."}},
    {Field::InactiveSplit,
     {"oomscope_inactive_split_bytes", "gauge", "Bytes in inactive split blocks (fragmentation)."}},
    {Field::PeakAllocated, {"oomscope_peak_allocated_bytes", "gauge", "Peak of allocated bytes."}},
    {Field::DeviceUsed,
     {"oomscope_device_used_bytes", "gauge",
      "Device memory the driver reports in use for the process or device."}},
    {Field::Driver,
     {"oomscope_driver_bytes", "gauge", "Bytes the MPS driver has allocated for the process."}},
    {Field::RecommendedMax,
     {"oomscope_recommended_max_bytes", "gauge", "The MPS recommended maximum working set."}},
    {Field::Rss, {"oomscope_rss_bytes", "gauge", "Resident set size of the process."}},
    {Field::Ooms, {"oomscope_ooms_total", "counter", "Out-of-memory errors the allocator counted."}},
    {Field::AllocRetries,
     {"oomscope_alloc_retries_total", "counter", "Allocations retried after freeing cached blocks."}},
    {Field::Step, {"oomscope_optimizer_step", "gauge", "The optimizer step the trainer reached."}},
};

// The families that are not a sample field. The capacity comes right after oomscope_rss_bytes.
inline constexpr MetricFamily kCapacityMetric{"oomscope_device_capacity_bytes", "gauge",
                                              "Device memory in total (the hello's total_bytes)."};
inline constexpr MetricFamily kSplitsMetric{"oomscope_splits_total", "counter",
                                            "Split events the trainer posted."};
inline constexpr MetricFamily kRestartsMetric{"oomscope_restarts_total", "counter",
                                              "Restart events the trainer posted."};
inline constexpr MetricFamily kDroppedMetric{"oomscope_dropped_samples_total", "counter",
                                             "Lines the agent dropped because a client's queue was full."};
inline constexpr MetricFamily kShapesMetric{"oomscope_distinct_input_shapes", "gauge",
                                            "Distinct padded batch shapes seen so far."};
inline constexpr MetricFamily kEventsMetric{"oomscope_events_total", "counter",
                                            "Events the trainer posted, by kind."};
inline constexpr MetricFamily kAgentInfoMetric{"oomscope_agent_info", "gauge",
                                               "The agent serving these figures (value is always 1)."};

inline constexpr MetricFamily kOtherMetrics[] = {kCapacityMetric, kSplitsMetric, kRestartsMetric,
                                                 kDroppedMetric,  kShapesMetric, kEventsMetric,
                                                 kAgentInfoMetric};

// The metric name of a sample field ("oomscope_driver_bytes", "oomscope_ooms_total"), or empty for a field
// not exported (micro).
constexpr std::string_view metric_for_field(Field field) noexcept {
  for (const auto& m : kFieldMetrics)
    if (m.field == field) return m.family.name;
  return {};
}
constexpr bool metric_is_counter(Field field) noexcept {
  for (const auto& m : kFieldMetrics)
    if (m.field == field) return m.family.type == "counter";
  return false;
}

}  // namespace oomscope::live
