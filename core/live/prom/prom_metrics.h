#pragma once
// Internal to the Prometheus source (prom_reader.cpp, prom_source.cpp): which oomscope metric feeds which
// sample field, the other series read, and small label helpers. See docs/prometheus-source.md.

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/live/protocol/metric_names.h"

namespace oomscope::live::prom_detail {

// The sample fields read from Prometheus, by metric name: kFieldMetrics (metric_names.h), indexed by
// position. Read besides the fields: capacity (the hello's total_bytes), distinct shapes, restarts (as
// events).
inline constexpr const char* kDcgmUsed = "DCGM_FI_DEV_FB_USED";
inline constexpr std::int64_t kMiB = 1 << 20;
// History queries in flight at once: Prometheus encodes one answer while this side reads another.
inline constexpr int kHistoryConnections = 3;
inline constexpr int kExtraCapacity = -1, kExtraShapes = -2, kExtraRestarts = -3;

inline int metric_slot(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kFieldMetrics); ++i)
    if (name == kFieldMetrics[i].family.name) return static_cast<int>(i);
  if (name == kCapacityMetric.name) return kExtraCapacity;
  if (name == kShapesMetric.name) return kExtraShapes;
  if (name == kRestartsMetric.name) return kExtraRestarts;
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
