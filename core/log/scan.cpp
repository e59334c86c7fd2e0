// Numbers and sizes as the frameworks print them (detail/scan.h).

#include "core/log/detail/scan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace oomscope::log::detail {

namespace {

// The unit at the start of `s`: its factor and how many characters it took; nullopt for no known unit.
// "B", "bytes", "K", "KB", "KiB", "M", "MB", "MiB", "G", "GB", "GiB", "T", "TB", "TiB", "P", "PB", "PiB".
std::optional<std::int64_t> read_unit(std::string_view s, std::size_t& used) {
  used = 0;
  if (s.starts_with("bytes")) {
    used = 5;
    return 1;
  }
  if (s.empty()) return std::nullopt;
  int power = -1;
  switch (s[0]) {
    case 'B':
      power = 0;
      break;
    case 'K':
    case 'k':
      power = 1;
      break;
    case 'M':
      power = 2;
      break;
    case 'G':
      power = 3;
      break;
    case 'T':
      power = 4;
      break;
    case 'P':
      power = 5;
      break;
    default:
      return std::nullopt;
  }
  used = 1;
  if (power > 0) {
    if (s.size() > 2 && s[1] == 'i' && s[2] == 'B')
      used = 3;
    else if (s.size() > 1 && s[1] == 'B')
      used = 2;
  }
  // A unit is a whole word: "Buffer", "GPU" or "Kernel" are not units.
  if (used < s.size() && is_alpha(s[used])) return std::nullopt;
  return std::int64_t{1} << (10 * power);
}

}  // namespace

std::optional<Number> read_number(std::string_view s) {
  std::size_t p = 0;
  while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) ++p;
  Number n;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  const std::size_t digits_start = p;
  std::int64_t whole = 0;
  bool overflow = false;
  // A comma between digit groups: "6,532,939,776" (exactly three digits follow, then no digit).
  const auto group_comma = [&](std::size_t q) {
    if (q == digits_start || q + 3 >= s.size()) return false;
    if (!is_digit(s[q + 1]) || !is_digit(s[q + 2]) || !is_digit(s[q + 3])) return false;
    return q + 4 >= s.size() || !is_digit(s[q + 4]);
  };
  while (p < s.size() && (is_digit(s[p]) || (s[p] == ',' && group_comma(p)))) {
    if (s[p] != ',') {
      if (whole > (std::numeric_limits<std::int64_t>::max() - 9) / 10) overflow = true;
      if (!overflow) whole = whole * 10 + (s[p] - '0');
    }
    ++p;
  }
  if (p == digits_start) return std::nullopt;
  double value = static_cast<double>(whole);
  if (p + 1 < s.size() && s[p] == '.' && is_digit(s[p + 1])) {
    ++p;
    double scale = 0.1;
    while (p < s.size() && is_digit(s[p])) {
      value += scale * (s[p] - '0');
      scale /= 10;
      ++n.decimals;
      ++p;
    }
    n.is_integer = false;
  }
  if (overflow) {
    n.is_integer = false;
    value = static_cast<double>(std::numeric_limits<std::int64_t>::max());
  }
  n.value = negative ? -value : value;
  n.integer = negative ? -whole : whole;
  n.used = p;
  return n;
}

std::optional<Figure> read_size(std::string_view s, std::string key, SizeRule rule, std::size_t* used) {
  const std::optional<Number> n = read_number(s);
  if (!n) return std::nullopt;
  std::size_t p = n->used;
  const std::size_t number_end = p;
  while (p < s.size() && s[p] == ' ') ++p;
  std::size_t unit_used = 0;
  const std::optional<std::int64_t> unit = read_unit(s.substr(p), unit_used);
  if (!unit) return std::nullopt;
  p += unit_used;
  const double bytes = n->value * static_cast<double>(*unit);
  if (!std::isfinite(bytes) || std::fabs(bytes) >= 9.2e18) return std::nullopt;
  Figure f;
  f.key = std::move(key);
  f.value = static_cast<std::int64_t>(std::llround(bytes));
  f.exact = n->is_integer && *unit == 1;
  if (rule == SizeRule::Floored) {
    f.error = *unit == 1 ? 0 : *unit;
  } else if (!f.exact) {
    f.error = static_cast<std::int64_t>(
        std::llround(0.5 * std::pow(10.0, -n->decimals) * static_cast<double>(*unit)));
  }
  std::size_t start = 0;
  while (start < number_end && (s[start] == ' ' || s[start] == '\t')) ++start;
  f.printed = std::string(s.substr(start, p - start));
  if (used) *used = p;
  return f;
}

std::optional<Figure> size_after(std::string_view s, std::string_view marker, std::string key,
                                 SizeRule rule) {
  const auto rest = after(s, marker);
  if (!rest) return std::nullopt;
  return read_size(*rest, std::move(key), rule);
}

std::optional<Figure> integer_after(std::string_view s, std::string_view marker, std::string key,
                                    bool bytes) {
  const auto rest = after(s, marker);
  if (!rest) return std::nullopt;
  const std::optional<Number> n = read_number(*rest);
  if (!n || !n->is_integer) return std::nullopt;
  Figure f;
  f.key = std::move(key);
  f.value = n->integer;
  f.count = !bytes;
  f.exact = true;
  std::size_t start = 0;
  while (start < n->used && ((*rest)[start] == ' ' || (*rest)[start] == '\t')) ++start;
  f.printed = std::string(rest->substr(start, n->used - start));
  return f;
}

void add(Message& m, std::optional<Figure> f) {
  if (f) m.figures.push_back(std::move(*f));
}

std::string exception_before(std::string_view text, std::size_t at) {
  const std::string_view head = text.substr(0, std::min(at, text.size()));
  std::size_t colon = std::string_view::npos;
  for (std::string_view tail : {std::string_view("Error:"), std::string_view("Exception:")}) {
    const std::size_t p = head.rfind(tail);
    if (p != std::string_view::npos && (colon == std::string_view::npos || p + tail.size() > colon))
      colon = p + tail.size() - 1;
  }
  if (colon == std::string_view::npos) return "";
  std::size_t start = colon;
  while (start > 0 && (is_alpha(head[start - 1]) || is_digit(head[start - 1]) || head[start - 1] == '_' ||
                       head[start - 1] == '.'))
    --start;
  return std::string(head.substr(start, colon - start));
}

std::string quoted_attr(std::string_view text, std::string_view name) {
  std::size_t p = 0;
  while ((p = text.find(name, p)) != std::string_view::npos) {
    // A whole attribute name: "op_name=" must not match inside "deduplicated_op_name=".
    if (p > 0 && (is_alpha(text[p - 1]) || text[p - 1] == '_')) {
      p += name.size();
      continue;
    }
    const std::size_t open = p + name.size();
    if (open >= text.size() || text[open] != '"') return "";
    const std::size_t close = text.find('"', open + 1);
    return std::string(text.substr(open + 1, close == std::string_view::npos ? close : close - open - 1));
  }
  return "";
}

std::string clip(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80) --end;
  return std::string(s.substr(0, end));
}

bool read_operator_or_shape(PeakBuffer& b, std::string_view t) {
  if (t.starts_with("Operator: ")) {
    b.op_name = quoted_attr(t, "op_name=");
    b.op_type = quoted_attr(t, "op_type=");
    b.source_file = quoted_attr(t, "source_file=");
    if (const auto line = after(t, "source_line="))
      if (const auto n = read_number(*line); n && n->is_integer && n->integer < 100000000)
        b.source_line = static_cast<int>(n->integer);
    return true;
  }
  if (t.starts_with("Shape: ")) {
    b.shape = std::string(trim(t.substr(7)));
    return true;
  }
  return false;
}

}  // namespace oomscope::log::detail
