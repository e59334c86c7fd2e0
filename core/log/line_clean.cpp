// Colour codes and logger prefixes off a log line (detail/line_clean.h).

#include "core/log/detail/line_clean.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

// Copies `raw` without CR, NUL and ANSI escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ST",
// two-byte escapes) and without the "[1;36m" leftovers of CSI colour codes whose ESC was lost.
void strip_codes(std::string_view raw, std::string& out) {
  out.clear();
  out.reserve(raw.size());
  const std::size_t n = raw.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = raw[i];
    if (c == '\r' || c == '\0') continue;
    if (c == '\x1b') {
      if (i + 1 < n && raw[i + 1] == '[') {
        std::size_t j = i + 2;
        while (j < n && !(raw[j] >= 0x40 && raw[j] <= 0x7e)) ++j;
        i = j;  // the final byte
      } else if (i + 1 < n && raw[i + 1] == ']') {
        std::size_t j = i + 2;
        while (j < n && raw[j] != '\x07' && !(raw[j] == '\x1b' && j + 1 < n && raw[j + 1] == '\\')) ++j;
        i = j < n && raw[j] == '\x1b' ? j + 1 : j;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '[' && i + 2 < n && is_digit(raw[i + 1])) {
      std::size_t j = i + 1;
      while (j < n && j < i + 12 && (is_digit(raw[j]) || raw[j] == ';')) ++j;
      if (j < n && raw[j] == 'm') {
        i = j;
        continue;
      }
    }
    out.push_back(c);
  }
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// "2025-11-14T08:52:38.3746210Z", "2019-03-11 09:52:43.509896:", "2024-04-27 10:13:05": its length with the
// spaces after it, or 0.
std::size_t iso_timestamp(std::string_view s) {
  if (s.size() < 19 || !all_digits(s.substr(0, 4)) || s[4] != '-' || !all_digits(s.substr(5, 2)) ||
      s[7] != '-' || !all_digits(s.substr(8, 2)) || (s[10] != 'T' && s[10] != ' ') ||
      !all_digits(s.substr(11, 2)) || s[13] != ':' || !all_digits(s.substr(14, 2)) || s[16] != ':' ||
      !all_digits(s.substr(17, 2)))
    return 0;
  std::size_t p = 19;
  if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
    ++p;
    while (p < s.size() && is_digit(s[p])) ++p;
  }
  if (p < s.size() && s[p] == 'Z') ++p;
  if (p < s.size() && s[p] == ':') ++p;
  while (p < s.size() && s[p] == ' ') ++p;
  return p;
}

// The length of "X... file.ext:N] " ending within `limit` characters, or 0: the end of a logger's header.
std::size_t through_bracket(std::string_view s, std::size_t limit) {
  const std::size_t end = s.substr(0, limit).find("] ");
  if (end == std::string_view::npos) return 0;
  const std::string_view head = s.substr(0, end);
  if (head.find(':') == std::string_view::npos || head.find('[') != std::string_view::npos) return 0;
  return end + 2;
}

bool level_letter(char c) { return c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'D'; }

// One prefix at the start of `s` (after its leading spaces): how many characters it takes, 0 for none.
std::size_t one_prefix(std::string_view s, bool after_timestamp, CleanLine& out) {
  std::size_t lead = 0;
  while (lead < s.size() && (s[lead] == ' ' || s[lead] == '\t')) ++lead;
  const std::string_view t = s.substr(lead);
  if (t.empty()) return 0;
  // Line numbers copied in front of another prefix: "71(MeshHostWorker pid=489)".
  if (is_digit(t[0])) {
    std::size_t d = 0;
    while (d < t.size() && is_digit(t[d])) ++d;
    if (d < t.size() && d <= 9 && (t[d] == '(' || t.substr(d).starts_with("[rank"))) return lead + d;
  }
  // Ray: "(MeshHostWorker pid=489)", "(pid=489, ip=10.0.0.1)".
  if (t[0] == '(') {
    const std::size_t close = t.substr(0, 120).find(')');
    if (close != std::string_view::npos) {
      const std::string_view inner = t.substr(1, close - 1);
      const std::size_t pid = inner.find("pid=");
      if (pid != std::string_view::npos) {
        std::string who(trim(inner.substr(0, pid)));
        std::size_t e = pid + 4;
        while (e < inner.size() && is_digit(inner[e])) ++e;
        out.source =
            (who.empty() ? "" : who + " ") + "pid " + std::string(inner.substr(pid + 4, e - pid - 4));
        return lead + close + 1;
      }
    }
  }
  // torchrun: "[rank3]:", "[default3]:".
  for (std::string_view tag : {std::string_view("[rank"), std::string_view("[default")}) {
    if (!t.starts_with(tag)) continue;
    std::size_t e = tag.size();
    while (e < t.size() && is_digit(t[e])) ++e;
    if (e > tag.size() && e + 1 < t.size() && t[e] == ']' && t[e + 1] == ':') {
      out.source = "rank " + std::string(t.substr(tag.size(), e - tag.size()));
      return lead + e + 2;
    }
  }
  if (const std::size_t ts = iso_timestamp(t)) return lead + ts;
  // After a timestamp: "| ERROR | stderr | " (loguru-style columns).
  if (after_timestamp && t[0] == '|') {
    std::size_t p = 1;
    while (p < t.size() && t[p] == ' ') ++p;
    std::size_t w = p;
    while (w < t.size() && (is_alpha(t[w]) || is_digit(t[w]) || t[w] == '_' || t[w] == '.')) ++w;
    if (w > p && w + 1 < t.size() && t[w] == ' ' && t[w + 1] == '|') return lead + w + 1;
    return lead + p;
  }
  // absl / glog: "I0309 12:51:51.372677 1234 file.cc:12] ".
  if (t.size() > 6 && level_letter(t[0]) && all_digits(t.substr(1, 4)) && t[5] == ' ')
    if (const std::size_t b = through_bracket(t, 200)) return lead + b;
  // TensorFlow after its timestamp, or alone: "I tensorflow/core/common_runtime/bfc_allocator.cc:641] ".
  if (t.size() > 3 && level_letter(t[0]) && t[1] == ' ')
    if (const std::size_t b = through_bracket(t, 200)) return lead + b;
  // vLLM: "INFO 04-27 10:11:03 llm_engine.py:70] ", Python logging: "ERROR:tensorflow:".
  for (std::string_view level : {"INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL"}) {
    if (!t.starts_with(level) || t.size() <= level.size() + 1) continue;
    const char next = t[level.size()];
    if (next == ' ' && is_digit(t[level.size() + 1]))
      if (const std::size_t b = through_bracket(t, 120)) return lead + b;
    if (next == ':') {
      const std::size_t second = t.find(':', level.size() + 1);
      if (second != std::string_view::npos && second < level.size() + 40) {
        bool word = true;
        for (char c : t.substr(level.size() + 1, second - level.size() - 1))
          word = word && (is_alpha(c) || is_digit(c) || c == '_' || c == '.');
        if (word) return lead + second + 1;
      }
    }
  }
  // NCCL: "ng30903:3063028:3066152 [3] ".
  {
    std::size_t p = 0;
    while (p < t.size() && p < 64 &&
           (is_alpha(t[p]) || is_digit(t[p]) || t[p] == '-' || t[p] == '.' || t[p] == '_'))
      ++p;
    if (p > 0 && p < t.size() && t[p] == ':') {
      std::size_t a = p + 1;
      while (a < t.size() && is_digit(t[a])) ++a;
      if (a > p + 1 && a < t.size() && t[a] == ':') {
        std::size_t b = a + 1;
        while (b < t.size() && is_digit(t[b])) ++b;
        if (b > a + 1 && b + 2 < t.size() && t[b] == ' ' && t[b + 1] == '[') {
          std::size_t c = b + 2;
          while (c < t.size() && is_digit(t[c])) ++c;
          if (c > b + 2 && c < t.size() && t[c] == ']') {
            out.source = std::string(t.substr(0, p)) + " pid " + std::string(t.substr(p + 1, a - p - 1));
            return lead + c + 1;
          }
        }
      }
    }
  }
  // A comment marker put in front of pasted lines: "# RuntimeError: ...".
  if (t[0] == '#' && t.size() > 1 && t[1] == ' ') return lead + 2;
  return 0;
}

}  // namespace

void clean_line(std::string_view raw, CleanLine& out) {
  out.source.clear();
  strip_codes(raw, out.text);
  std::size_t start = 0;
  bool after_timestamp = false;
  for (int round = 0; round < 8 && start < out.text.size(); ++round) {
    const std::string_view rest = std::string_view(out.text).substr(start);
    const std::size_t ts = iso_timestamp(trim(rest));
    const std::size_t used = one_prefix(rest, after_timestamp, out);
    if (used == 0) break;
    after_timestamp = ts != 0 || (after_timestamp && trim(rest).starts_with("|"));
    start += used;
  }
  if (start > 0) out.text.erase(0, start);
}

}  // namespace oomscope::log::detail
