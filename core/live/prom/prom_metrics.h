#pragma once
// Internal to the Prometheus source (prom_reader.cpp, prom_history.cpp): which oomscope metric feeds which
// sample field, the other series read, and small label helpers. See docs/prometheus-source.md.

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/live/protocol/protocol.h"

namespace oomscope::live::prom_detail {

// The sample fields read from Prometheus, by metric name (docs/prometheus-source.md).
struct MetricField {
  const char* name;
  Field field;
};
inline constexpr MetricField kFields[] = {
    {"oomscope_allocated_bytes", Field::Allocated},
    {"oomscope_reserved_bytes", Field::Reserved},
    {"oomscope_active_bytes", Field::Active},
    {"oomscope_inactive_split_bytes", Field::InactiveSplit},
    {"oomscope_peak_allocated_bytes", Field::PeakAllocated},
    {"oomscope_device_used_bytes", Field::DeviceUsed},
    {"oomscope_driver_bytes", Field::Driver},
    {"oomscope_recommended_max_bytes", Field::RecommendedMax},
    {"oomscope_rss_bytes", Field::Rss},
    {"oomscope_ooms_total", Field::Ooms},
    {"oomscope_alloc_retries_total", Field::AllocRetries},
    {"oomscope_optimizer_step", Field::Step},
};
// Read besides the fields: capacity (the hello's total_bytes), distinct shapes, restarts (as events).
inline constexpr const char* kCapacity = "oomscope_device_capacity_bytes";
inline constexpr const char* kShapes = "oomscope_distinct_input_shapes";
inline constexpr const char* kRestarts = "oomscope_restarts_total";
inline constexpr const char* kInfo = "oomscope_agent_info";
inline constexpr const char* kDcgmUsed = "DCGM_FI_DEV_FB_USED";
inline constexpr std::int64_t kMiB = 1 << 20;
// History queries in flight at once: Prometheus encodes one answer while this side reads another.
inline constexpr int kHistoryConnections = 3;
inline constexpr int kExtraCapacity = -1, kExtraShapes = -2, kExtraRestarts = -3;

inline int metric_slot(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kFields); ++i)
    if (name == kFields[i].name) return static_cast<int>(i);
  if (name == kCapacity) return kExtraCapacity;
  if (name == kShapes) return kExtraShapes;
  if (name == kRestarts) return kExtraRestarts;
  return -100;
}

inline int to_int(const std::string& s, int fallback = -1) {
  if (s.empty()) return fallback;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  return *end == '\0' ? static_cast<int>(v) : fallback;
}

// The trailing number of a device label ("cuda:1" -> 1, "3" -> 3), else -1.
inline int device_index(const std::string& device) {
  std::size_t i = device.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(device[i - 1]))) --i;
  return i == device.size() ? -1 : to_int(device.substr(i));
}

inline std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += "\\\\";
    if (c == '"') out += '\\';
    out += c;
  }
  return out;
}

inline std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline std::int64_t as_bytes(double v) { return static_cast<std::int64_t>(std::llround(v)); }

}  // namespace oomscope::live::prom_detail
