// XLA GPU out-of-memory reports: "RESOURCE_EXHAUSTED: Out of memory while trying to allocate N bytes." (or
// the older "Execution of replica 0 failed: Resource exhausted: Out of memory ..."), followed by the
// "BufferAssignment OOM Debugging." dump: "BufferAssignment stats:" rows (parameter, constant,
// maybe_live_out, preallocated temp allocation, an optional preallocated temp fragmentation row, total
// allocation, total fragmentation), then "Peak buffers:" with "Buffer N:" entries (Size, Operator with
// op_name / source_file / source_line, XLA Label, Shape or Entry Parameter Subshape, a closing "=====" line).
// Sizes come from tsl's HumanReadableNumBytes: B, KiB, MiB, GiB with base 1024. Indentation is not relied on
// (tabs, 4/8/16 spaces and none all occur in posted logs).

#include "core/log/detail/xla_gpu_parser.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

// "Buffer 15:" -> 15; 0 when the line is not a buffer header.
int buffer_header(std::string_view t) {
  if (!t.starts_with("Buffer ") || !t.ends_with(":")) return 0;
  const std::string_view digits = t.substr(7, t.size() - 8);
  if (digits.empty() || digits.size() > 6) return 0;
  int n = 0;
  for (char c : digits) {
    if (!is_digit(c)) return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

bool dump_header(std::string_view t) {
  return t.starts_with("BufferAssignment OOM Debugging") || t.starts_with("BufferAssignment stats:") ||
         t == "Peak buffers:" || buffer_header(t) > 0;
}

struct StatRow {
  std::string_view label, key;
};
constexpr StatRow kStats[] = {
    {"parameter allocation", "parameters"},
    {"constant allocation", "constants"},
    {"maybe_live_out allocation", "live_out"},
    {"preallocated temp allocation", "temp"},
    {"preallocated temp fragmentation", "temp_fragmentation"},
    {"total allocation", "total"},
    {"total fragmentation", "fragmentation"},
};

}  // namespace

bool XlaGpuParser::start(const Ctx& c) {
  static constexpr std::string_view kRequest = "Out of memory while trying to allocate ";
  if (const std::size_t at = c.text.find(kRequest); at != std::string_view::npos) {
    Message& m = messages().begin(MessageKind::XlaGpu, c);
    m.exception = exception_before(c.text, at);
    m.wording = contains(c.text, "Execution of replica") ? "replica-execution" : "buffer-assignment";
    add(m, integer_after(c.text.substr(at), "allocate ", "requested", true));
    if (const auto r = after(c.text, "Execution of replica ")) {
      std::size_t e = 0;
      while (e < r->size() && is_digit((*r)[e])) ++e;
      m.device = "replica " + std::string(r->substr(0, e));
    }
    open_block();
    return true;
  }
  if (!dump_header(c.t)) return false;
  Message& m = messages().begin(MessageKind::XlaGpu, c);
  m.wording = "buffer-assignment";
  m.complete = false;
  m.notes.emplace_back(c.t.starts_with("BufferAssignment OOM")
                           ? "the request line before the dump is not in the log"
                           : "starts mid-dump: the lines before it (the request) are not in the log");
  open_block();
  line(c);
  return true;
}

bool XlaGpuParser::line(const Ctx& c) {
  Message& m = current();
  const std::string_view t = c.t;
  if (t.starts_with("BufferAssignment OOM Debugging") || t == "BufferAssignment stats:" ||
      t == "Peak buffers:")
    return true;
  if (const int n = buffer_header(t)) {
    m.buffers.push_back(PeakBuffer{});
    m.buffers.back().index = n;
    in_buffer_ = true;
    return true;
  }
  if (t.starts_with("====") && t.find_first_not_of('=') == std::string_view::npos) {
    if (in_buffer_ && !m.buffers.empty()) m.buffers.back().complete = true;
    in_buffer_ = false;
    return true;
  }
  if (in_buffer_ && !m.buffers.empty()) {
    PeakBuffer& b = m.buffers.back();
    if (const auto size = after(t, "Size: "); size && t.starts_with("Size: ")) {
      if (auto f = read_size(*size, "size")) b.size = std::move(*f);
      return true;
    }
    if (read_operator_or_shape(b, t)) return true;
    if (t.starts_with("XLA Label: ")) {
      b.xla_label = std::string(trim(t.substr(11)));
      return true;
    }
    if (t.starts_with("Entry Parameter Subshape: ")) {
      b.shape = std::string(trim(t.substr(26)));
      b.entry_parameter = true;
      return true;
    }
    if (t.starts_with("deduplicated_name") || t.starts_with("Deduplicated")) return true;
  }
  const std::size_t colon = t.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view label = trim(t.substr(0, colon));
    for (const StatRow& row : kStats) {
      if (label != row.label) continue;
      add(m, read_size(t.substr(colon + 1), std::string(row.key)));
      return true;
    }
  }
  return false;
}

bool XlaGpuParser::end() {
  Message& m = current();
  if (in_buffer_ && !m.buffers.empty() && !m.buffers.back().complete) m.complete = false;
  in_buffer_ = false;
  return true;
}

}  // namespace oomscope::log::detail
