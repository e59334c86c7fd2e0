#include "core/allocator/allocator_config.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "core/util/error.h"

namespace oomscope::allocator {

namespace {

[[noreturn]] void bad(std::string_view setting, const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, "", "allocator setting '" + std::string(setting) + "': " + why);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\'' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\'' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  s = trim(s);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

bool parse_i64(std::string_view s, std::int64_t& out) {
  s = trim(s);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

std::size_t interval_of_mib(std::uint64_t mib) {
  return std::min<std::size_t>(mib <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(mib) - 1),
                               kRoundupIntervals - 1);
}

// "[256:1,512:2,>:4]" or "{'1': 0, '2': 0, ...}" (the snapshot's dict): keys are interval starts in MiB
// (powers of two); a value holds up to the next key, the first also below it, ">" for all after the last.
void parse_divisions(std::string_view setting, std::string_view text, AllocatorConfig& c) {
  text = trim(text);
  if (text.empty()) bad(setting, "no value");
  if (text.front() != '[' && text.front() != '{') {
    std::uint64_t n = 0;
    if (!parse_u64(text, n) || (n > 1 && !std::has_single_bit(n)))
      bad(setting, "expected a power of two or a list such as [256:1,512:2,>:4]");
    c.roundup_power2_divisions.fill(static_cast<std::uint32_t>(n));
    return;
  }
  text = text.substr(1, text.size() >= 2 ? text.size() - 2 : 0);
  std::map<std::size_t, std::uint32_t> given;
  std::optional<std::uint32_t> rest;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) bad(setting, "expected key:value in '" + std::string(item) + "'");
    std::uint64_t value = 0;
    if (!parse_u64(item.substr(colon + 1), value) || (value > 1 && !std::has_single_bit(value)))
      bad(setting, "divisions must be powers of two, not '" + std::string(item.substr(colon + 1)) + "'");
    const std::string_view key = trim(item.substr(0, colon));
    if (key == ">") {
      rest = static_cast<std::uint32_t>(value);
      continue;
    }
    std::uint64_t mib = 0;
    if (!parse_u64(key, mib) || !std::has_single_bit(mib))
      bad(setting, "interval starts must be powers of two (MiB), not '" + std::string(key) + "'");
    given[interval_of_mib(mib)] = static_cast<std::uint32_t>(value);
  }
  if (given.empty() && !rest) return;
  std::uint32_t current = given.empty() ? *rest : given.begin()->second;
  std::size_t last = 0;
  for (std::size_t i = 0; i < kRoundupIntervals; ++i) {
    if (auto it = given.find(i); it != given.end()) {
      current = it->second;
      last = i;
    }
    c.roundup_power2_divisions[i] = current;
  }
  if (rest)
    for (std::size_t i = given.empty() ? 0 : last + 1; i < kRoundupIntervals; ++i)
      c.roundup_power2_divisions[i] = *rest;
}

bool parse_bool(std::string_view setting, std::string_view v) {
  v = trim(v);
  if (v == "True" || v == "true" || v == "1") return true;
  if (v == "False" || v == "false" || v == "0") return false;
  bad(setting, "expected True or False, not '" + std::string(v) + "'");
}

std::string mib_text(std::uint64_t bytes) {
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) : std::to_string(static_cast<double>(bytes) / kMiB);
}

}  // namespace

std::uint32_t AllocatorConfig::divisions_for(std::uint64_t size) const {
  // The interval is the power of two at or below the size, counted from 1 MiB.
  const std::size_t log = size == 0 ? 0 : static_cast<std::size_t>(std::bit_width(size) - 1);
  const std::size_t index = log > 20 ? log - 20 : 0;
  return roundup_power2_divisions[std::min(index, kRoundupIntervals - 1)];
}

void apply_setting(AllocatorConfig& c, std::string_view kv) {
  const auto colon = kv.find(':');
  if (colon == std::string_view::npos) bad(kv, "expected key:value");
  const std::string_view key = trim(kv.substr(0, colon));
  const std::string_view value = trim(kv.substr(colon + 1));
  if (key == "expandable_segments") {
    c.expandable_segments = parse_bool(kv, value);
  } else if (key == "max_split_size_mb") {
    std::uint64_t mb = 0;
    if (value == "none" || value == "None") {
      c.max_split_size = kNoLimit;
    } else if (!parse_u64(value, mb) || mb <= kLargeBuffer / kMiB || mb > (1ull << 40)) {
      bad(kv, "expected a whole number of MiB above 20 (PyTorch refuses 20 or less), or none");
    } else {
      c.max_split_size = mb * kMiB;
    }
  } else if (key == "max_non_split_rounding_mb") {
    std::uint64_t mb = 0;
    if (!parse_u64(value, mb) || mb > (1ull << 40)) bad(kv, "expected a whole number of MiB");
    c.max_non_split_rounding = mb * kMiB;
  } else if (key == "roundup_power2_divisions") {
    parse_divisions(kv, value, c);
  } else if (key == "garbage_collection_threshold") {
    double f = -1;
    const std::string text(value);
    char* end = nullptr;
    f = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(f > 0.0 && f < 1.0))
      bad(kv, "expected a fraction between 0 and 1 (exclusive)");
    c.garbage_collection_threshold = f;
  } else {
    bad(kv,
        "not a setting the model knows (expandable_segments, max_split_size_mb, roundup_power2_divisions, "
        "garbage_collection_threshold, max_non_split_rounding_mb)");
  }
}

AllocatorConfig config_from_snapshot(const snapshot::Snapshot& snap, std::vector<std::string>& notes) {
  AllocatorConfig c;
  for (const auto& [key, value] : snap.allocator_settings) {
    try {
      if (key == "expandable_segments") {
        c.expandable_segments = parse_bool(key, value);
      } else if (key == "max_split_size") {
        std::int64_t n = 0;
        if (!parse_i64(value, n)) bad(key, "not an integer: " + value);
        c.max_split_size = n < 0 ? kNoLimit : static_cast<std::uint64_t>(n);
      } else if (key == "garbage_collection_threshold") {
        c.garbage_collection_threshold = std::strtod(std::string(trim(value)).c_str(), nullptr);
      } else if (key == "roundup_power2_divisions") {
        parse_divisions(key, value, c);
      } else if (key == "max_non_split_rounding_size") {
        std::int64_t n = 0;
        if (parse_i64(value, n) && n >= 0) c.max_non_split_rounding = static_cast<std::uint64_t>(n);
      }
    } catch (const Error& e) {
      std::string note = "allocator_settings." + key;
      note += " (" + value + ") was not understood; the default is used: ";
      note += e.message();
      notes.push_back(std::move(note));
    }
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> setting_values(const AllocatorConfig& c) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("expandable_segments", c.expandable_segments ? "True" : "False");
  out.emplace_back("max_split_size_mb", c.max_split_size == kNoLimit ? "none" : mib_text(c.max_split_size));
  const auto& d = c.roundup_power2_divisions;
  if (std::all_of(d.begin(), d.end(), [&](std::uint32_t x) { return x == d[0]; })) {
    out.emplace_back("roundup_power2_divisions", std::to_string(d[0]));
  } else {
    std::string div = "[";
    for (std::size_t i = 0; i < kRoundupIntervals; ++i) {
      if (i) div += ",";
      div += std::to_string(1ull << i) + ":" + std::to_string(d[i]);
    }
    out.emplace_back("roundup_power2_divisions", div + "]");
  }
  char gc[32];
  std::snprintf(gc, sizeof gc, "%g", c.garbage_collection_threshold);
  out.emplace_back("garbage_collection_threshold", gc);
  out.emplace_back("max_non_split_rounding_mb", mib_text(c.max_non_split_rounding));
  return out;
}

std::string describe_change(const AllocatorConfig& c, const AllocatorConfig& base) {
  const auto now = setting_values(c), was = setting_values(base);
  std::string out;
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (now[i].second == was[i].second) continue;
    if (!out.empty()) out += ",";
    out += now[i].first + ":" + now[i].second;
  }
  return out.empty() ? "recorded" : out;
}

}  // namespace oomscope::allocator
