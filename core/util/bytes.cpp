#include "core/util/bytes.h"

#include <algorithm>
#include <charconv>
#include <cmath>
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

std::string format_bytes_exact(std::int64_t bytes) { return format_thousands(bytes); }

std::string format_thousands(std::int64_t n) {
  // Negating INT64_MIN is undefined: take the magnitude as unsigned.
  const std::uint64_t magnitude =
      n < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::string digits = std::to_string(magnitude);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++count;
  }
  return n < 0 ? "-" + out : out;
}

const char* const kByteUnitsHelp = "B, K/KiB, KB, M/MiB, MB, G/GiB, GB, T/TiB, TB (any case)";

namespace {

std::string quoted(std::string_view text) {
  std::string out = "'";  // appended, not "'" + std::string: GCC 12 warns falsely (-Wrestrict) about that
  out.append(text).append("'");
  return out;
}

// The factor of a unit, case-insensitive; 0 when the unit is unknown.
double unit_factor(std::string_view unit) {
  std::string u(unit);
  std::transform(u.begin(), u.end(), u.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (u.empty() || u == "b") return 1;
  static constexpr std::string_view prefixes = "kmgt";
  const std::size_t power = prefixes.find(u[0]);
  if (power == std::string_view::npos) return 0;
  const std::string rest = u.substr(1);
  const double binary = std::pow(1024.0, static_cast<double>(power + 1));
  if (rest.empty() || rest == "i" || rest == "ib") return binary;
  if (rest == "b") return std::pow(1000.0, static_cast<double>(power + 1));
  return 0;
}

}  // namespace

ParsedBytes parse_byte_size(std::string_view text) {
  ParsedBytes out;
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  // The number: digits, an optional fraction, an optional exponent. Scanned by hand so that signs, "inf",
  // "nan" and hexadecimal never reach from_chars.
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  std::size_t mantissa = digits();
  const std::size_t integer_end = i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) {
    if (!s.empty() && (s[0] == '-' || s[0] == '+'))
      out.error = quoted(text) + " is not a size: give it without a sign";
    else
      out.error = quoted(text) + " is not a size such as 4GiB, 2.5GiB, 512MiB or 4e9";
    return out;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && s[j] >= '0' && s[j] <= '9') {
      i = j;
      digits();
    }
  }
  const std::size_t number_end = i;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::string_view unit = s.substr(i);
  const double factor = unit_factor(unit);
  if (factor == 0) {
    out.error = "unknown unit " + quoted(unit) + " in " + quoted(text) + " (use " + kByteUnitsHelp + ")";
    return out;
  }
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  const auto too_large = [&] { out.error = quoted(text) + " is too large (a size is below 8 EiB)"; };
  // Whole bytes without a unit or exponent are read exactly (a double holds integers exactly to 2^53 only).
  if (factor == 1 && integer_end == number_end) {
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + number_end, v);
    if (r.ec == std::errc::result_out_of_range)
      too_large();
    else if (r.ec != std::errc() || r.ptr != s.data() + number_end)
      out.error = quoted(text) + " is not a size";
    else
      out.bytes = v;
    return out;
  }
  double number = 0;
  const auto r = std::from_chars(s.data(), s.data() + number_end, number);
  if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc() && !std::isfinite(number))) {
    too_large();
    return out;
  }
  if (r.ec != std::errc() || r.ptr != s.data() + number_end) {
    out.error = quoted(text) + " is not a size";
    return out;
  }
  const double value = number * factor;
  if (!std::isfinite(value) || value >= kLimit) {
    too_large();
    return out;
  }
  if ((factor == 1 && value != std::floor(value)) || (value > 0 && std::llround(value) == 0)) {
    out.error = quoted(text) + " is a fraction of a byte; give whole bytes or a unit (2.79GiB)";
    return out;
  }
  out.bytes = static_cast<std::int64_t>(std::llround(value));
  return out;
}

}  // namespace oomscope
