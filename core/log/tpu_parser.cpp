// XLA TPU memory reports. Compile time: "Ran out of memory in memory space hbm|vmem. Used X of Y hbm.
// Exceeded hbm capacity by Z." (after "XLA:TPU compile permanent error.", "Compilation failure:" or the
// error code "E1000: CompileTimeHbmOom:"), then optional sections: "Total hbm usage >= X:" (reserved,
// program, arguments rows), "Output size X; shares Y with arguments.", "Program hbm requirement X:"
// (reserved, global, scoped, "HLO temp X (U% utilization: Unpadded (A) Padded (B), F% fragmentation (C))"),
// "Largest program allocations in hbm:" with "N. Size: X", Operator, Shape, "Unpadded size: X", "Extra memory
// due to padding: X (Nx expansion)", "XLA label: ...", "Allocation type: ...", "=====". Run time: "Attempting
// to reserve X at the bottom of memory. That was not possible. There are F free, R reserved, and V
// reservable." then "HBM capacity X:" rows with exact bytes in parentheses, "Heap allocator status:" and
// "Persistent allocations include ...". Sizes are tsl's HumanReadableNumBytes without the "iB": K, M, G, base
// 1024.

#include "core/log/detail/tpu_parser.h"

#include <cctype>

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

std::string normalise(std::string_view label) {
  std::string out;
  for (char c : label) {
    if (is_alpha(c) || is_digit(c))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

bool section_header(std::string_view t) {
  return (t.starts_with("Total hbm usage >=") || t.starts_with("Total vmem usage >=") ||
          t.starts_with("Program hbm requirement") || t.starts_with("Program vmem requirement") ||
          t.starts_with("Largest program allocations in") || t.starts_with("HBM capacity "));
}

// "1. Size: 1.46G" -> 1; 0 otherwise.
int allocation_header(std::string_view t) {
  std::size_t e = 0;
  while (e < t.size() && is_digit(t[e])) ++e;
  if (e == 0 || e > 6 || t.substr(e, 8) != ". Size: ") return 0;
  int n = 0;
  for (std::size_t i = 0; i < e; ++i) n = n * 10 + (t[i] - '0');
  return n;
}

// "reserved        530.00M", "Currently allocated:    6.08G (   6,532,939,776 bytes)": the label and
// where its size starts; false when the line is no such row.
bool split_row(std::string_view t, std::string_view& label, std::size_t& size_at) {
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (!(t[i - 1] == ' ' || t[i - 1] == '\t')) continue;
    if (!(is_digit(t[i]) || t[i] == '-')) continue;
    if (!read_size(t.substr(i), "")) continue;
    label = trim(t.substr(0, i));
    if (label.ends_with(":")) label.remove_suffix(1);
    size_at = i;
    return !label.empty() && label.size() <= 60 && !contains(label, ". ");
  }
  return false;
}

}  // namespace

void TpuParser::row(Message& m, std::string_view t) {
  std::string_view label;
  std::size_t at = 0;
  if (!split_row(t, label, at)) return;
  std::string prefix;
  if (section_ == "total") prefix = "usage_";
  if (section_ == "program") prefix = "program_";
  if (section_ == "heap") prefix = "heap_";
  if (section_ == "persistent") prefix = "persistent_";
  if (section_ == "capacity") prefix = "hbm_";
  const std::string key = prefix + normalise(label);
  std::size_t used = 0;
  std::optional<Figure> f = read_size(t.substr(at), key, SizeRule::Rounded, &used);
  if (!f) return;
  // "( 554,696,704 bytes)": the exact figure.
  const std::string_view rest = t.substr(at + used);
  if (const auto open = rest.find('('); open != std::string_view::npos && contains(rest, "bytes)")) {
    if (const auto n = read_number(rest.substr(open + 1)); n && n->is_integer) {
      f->value = n->integer;
      f->exact = true;
      f->error = 0;
      f->printed += " (" + std::string(trim(rest.substr(open + 1, rest.find(')') - open - 1))) + ")";
    }
  }
  m.figures.push_back(std::move(*f));
  if (normalise(label) == "hlo_temp") {
    add(m, size_after(rest, "Unpadded (", key + "_unpadded"));
    add(m, size_after(rest, "Padded (", key + "_padded"));
    add(m, size_after(rest, "fragmentation (", key + "_fragmentation"));
  }
}

bool TpuParser::start(const Ctx& c) {
  if (const std::size_t at = c.text.find("Ran out of memory in memory space ");
      at != std::string_view::npos) {
    Message& m = messages().begin(MessageKind::XlaTpu, c);
    const std::string_view rest = c.text.substr(at + 34);
    std::size_t e = 0;
    while (e < rest.size() && (is_alpha(rest[e]) || is_digit(rest[e]))) ++e;
    m.device = std::string(rest.substr(0, e));
    m.exception = exception_before(c.text, at);
    m.wording = "compile";
    if (contains(c.text, "E1000")) m.notes.emplace_back("error code E1000 (CompileTimeHbmOom)");
    if (const auto used = after(rest, "Used ")) {
      std::size_t n = 0;
      if (auto f = read_size(*used, "used", SizeRule::Rounded, &n)) {
        m.figures.push_back(std::move(*f));
        if (used->substr(n).starts_with(" of ")) add(m, read_size(used->substr(n + 4), "capacity"));
      }
    }
    add(m, size_after(rest, "capacity by ", "exceeded"));
    open_block();
    return true;
  }
  if (const std::size_t at = c.text.find("Attempting to reserve "); at != std::string_view::npos) {
    Message& m = messages().begin(MessageKind::XlaTpu, c);
    m.wording = "runtime-reserve";
    m.device = "hbm";
    m.exception = exception_before(c.text, at);
    const std::string_view rest = c.text.substr(at);
    add(m, size_after(rest, "Attempting to reserve ", "requested"));
    add(m, size_after(rest, "There are ", "free"));
    if (const auto r = after(rest, " free, ")) add(m, read_size(*r, "reserved"));
    if (const auto v = after(rest, "reserved, and ")) add(m, read_size(*v, "reservable"));
    open_block();
    return true;
  }
  if (!section_header(c.t)) return false;
  Message& m = messages().begin(MessageKind::XlaTpu, c);
  m.wording = "compile";
  m.device = contains(c.t, "vmem") ? "vmem" : "hbm";
  m.complete = false;
  m.notes.emplace_back("starts mid-report: the 'Ran out of memory' line is not in the log");
  // Rows of a "Total hbm usage" block whose header was cut off ("program 97.92G", "arguments 0B"), and the
  // "Output size" line after them, when the reader still holds the lines before this one.
  if (lookback_) {
    const std::vector<std::string> before = lookback_(8);
    std::size_t first = before.size();
    std::size_t rows = 0;
    while (first > 0) {
      std::string_view label;
      std::size_t at = 0;
      const std::string_view t = trim(before[first - 1]);
      const bool row = !t.empty() && split_row(t, label, at) && !t.starts_with("Output size");
      if (!(t.empty() || t.starts_with("Output size ") || row)) break;
      rows += row;
      --first;
    }
    while (first < before.size() && trim(before[first]).empty()) ++first;
    if (rows > 0) {
      section_ = "total";
      for (std::size_t i = first; i < before.size(); ++i) {
        const std::string_view t = trim(before[i]);
        if (t.starts_with("Output size ")) {
          add(m, size_after(t, "Output size ", "output"));
          add(m, size_after(t, "shares ", "output_shared_with_arguments"));
        } else if (!t.empty()) {
          row(m, t);
        }
      }
      m.line -= static_cast<std::int64_t>(before.size() - first);
    }
  }
  open_block();
  line(c);
  return true;
}

bool TpuParser::line(const Ctx& c) {
  Message& m = current();
  const std::string_view t = c.t;
  if (t.starts_with("Total hbm usage >=") || t.starts_with("Total vmem usage >=")) {
    add(m, size_after(t, ">= ", "total_usage"));
    section_ = "total";
    return true;
  }
  if (t.starts_with("Output size ")) {
    add(m, size_after(t, "Output size ", "output"));
    add(m, size_after(t, "shares ", "output_shared_with_arguments"));
    return true;
  }
  if (t.starts_with("Program hbm requirement") || t.starts_with("Program vmem requirement")) {
    add(m, size_after(t, "requirement ", "program_requirement"));
    section_ = "program";
    return true;
  }
  if (t.starts_with("Largest program allocations in")) {
    section_ = "allocations";
    return true;
  }
  if (t.starts_with("HBM capacity ")) {
    if (!m.figure("capacity")) add(m, size_after(t, "HBM capacity ", "capacity"));
    section_ = "capacity";
    return true;
  }
  if (t.starts_with("Heap allocator status")) {
    section_ = "heap";
    return true;
  }
  if (t.starts_with("Persistent allocations include")) {
    section_ = "persistent";
    return true;
  }
  if (t.find_first_not_of('-') == std::string_view::npos || t.starts_with("; attempting reservation"))
    return true;
  if (const int n = allocation_header(t)) {
    section_ = "allocations";
    PeakBuffer b;
    b.index = n;
    if (auto f = read_size(t.substr(t.find("Size: ") + 6), "size")) b.size = std::move(*f);
    m.buffers.push_back(std::move(b));
    in_buffer_ = true;
    return true;
  }
  if (section_ == "allocations") {
    if (t.starts_with("====") && t.find_first_not_of('=') == std::string_view::npos) {
      if (in_buffer_ && !m.buffers.empty()) m.buffers.back().complete = true;
      in_buffer_ = false;
      return true;
    }
    if (!in_buffer_ || m.buffers.empty()) return false;
    PeakBuffer& b = m.buffers.back();
    if (read_operator_or_shape(b, t)) return true;
    if (t.starts_with("Unpadded size: ")) {
      b.unpadded = read_size(t.substr(15), "unpadded");
      return true;
    }
    if (t.starts_with("Extra memory due to padding: ")) {
      b.padding_extra = read_size(t.substr(29), "padding_extra");
      if (const auto x = after(t, "(")) b.padding_expansion = std::string(x->substr(0, x->find(' ')));
      return true;
    }
    if (t.starts_with("XLA label: ")) {
      b.xla_label = std::string(trim(t.substr(11)));
      return true;
    }
    if (t.starts_with("Allocation type: ")) {
      b.allocation_type = std::string(trim(t.substr(17)));
      return true;
    }
    return false;
  }
  if (section_.empty()) return false;
  std::string_view label;
  std::size_t at = 0;
  if (!split_row(t, label, at)) return false;
  row(m, t);
  return true;
}

bool TpuParser::end() {
  Message& m = current();
  if (in_buffer_ && !m.buffers.empty() && !m.buffers.back().complete) m.complete = false;
  in_buffer_ = false;
  section_.clear();
  return true;
}

}  // namespace oomscope::log::detail
