#include "core/util/bytes.h"

#include <cstdio>

namespace oomscope {

namespace {
std::string format_magnitude(double magnitude, bool negative) {
  std::string sign = negative ? "-" : "";
  if (magnitude < 1024.0) return sign + std::to_string(static_cast<std::int64_t>(magnitude)) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = magnitude / 1024.0;
  int unit = 0;
  while (value >= 1023.5 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (value >= 99.95)
    std::snprintf(buf, sizeof buf, "%.0f %s", value, units[unit]);
  else if (value >= 9.995)
    std::snprintf(buf, sizeof buf, "%.1f %s", value, units[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", value, units[unit]);
  return sign + buf;
}
}  // namespace

std::string format_bytes(std::int64_t bytes) {
  return format_magnitude(bytes < 0 ? -static_cast<double>(bytes) : static_cast<double>(bytes), bytes < 0);
}

std::string format_bytes(std::uint64_t bytes) { return format_magnitude(static_cast<double>(bytes), false); }

std::string format_bytes_exact(std::int64_t bytes) {
  // Negating INT64_MIN is undefined: take the magnitude as unsigned.
  const std::uint64_t magnitude =
      bytes < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(bytes) : static_cast<std::uint64_t>(bytes);
  std::string digits = std::to_string(magnitude);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++count;
  }
  return bytes < 0 ? "-" + out : out;
}

}  // namespace oomscope
