// torch.cuda.memory_summary() tables (torch/cuda/memory.py): a box of '|'-separated rows. The header row
// "PyTorch CUDA memory summary, device ID N", then "CUDA OOMs: N | cudaMalloc retries: M", then one row per
// metric with Cur Usage, Peak Usage, Tot Alloc and Tot Freed. Sizes are integers after integer division by
// 1024 per unit step ("B", "KiB", "MiB", "GiB", "TiB"; older versions "KB", "MB", "GB" for the same), the
// unit chosen by the row's first column, so each value is a lower bound within one unit.

#include "core/log/detail/memory_summary_parser.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

struct Metric {
  std::string_view label;
  std::string_view key;
  bool bytes;
};
constexpr Metric kMetrics[] = {
    {"Allocated memory", "allocated", true},
    {"Active memory", "active", true},
    {"Requested memory", "requested_memory", true},
    {"GPU reserved memory", "reserved", true},
    {"Non-releasable memory", "non_releasable", true},
    {"Allocations", "allocations", false},
    {"Active allocs", "active_allocations", false},
    {"GPU reserved segments", "reserved_segments", false},
    {"Non-releasable allocs", "non_releasable_allocations", false},
};

std::vector<std::string_view> cells(std::string_view row) {
  std::vector<std::string_view> out;
  std::size_t p = 0;
  while (p < row.size()) {
    const std::size_t bar = row.find('|', p);
    const std::string_view cell = trim(row.substr(p, bar == std::string_view::npos ? bar : bar - p));
    out.push_back(cell);
    if (bar == std::string_view::npos) break;
    p = bar + 1;
  }
  return out;
}

}  // namespace

bool MemorySummaryParser::start(const Ctx& c) {
  const auto id = after(c.t, "memory summary, device ID ");
  if (!id || !contains(c.t, "PyTorch")) return false;
  Message& m = messages().begin(MessageKind::PytorchMemorySummary, c);
  std::size_t e = 0;
  while (e < id->size() && is_digit((*id)[e])) ++e;
  m.device = "GPU " + std::string(id->substr(0, e));
  m.wording = contains(c.t, "HIP") ? "memory-summary-hip" : "memory-summary";
  open_block();
  return true;
}

bool MemorySummaryParser::line(const Ctx& c) {
  if (c.t.front() != '|') return false;
  Message& m = current();
  if (contains(c.t, "OOMs:")) {
    add(m, integer_after(c.t, "OOMs: ", "ooms", false));
    add(m, integer_after(c.t, "retries: ", "alloc_retries", false));
    return true;
  }
  const std::vector<std::string_view> row = cells(c.t);
  // row[0] is the empty cell before the first '|'.
  if (row.size() < 4) return true;
  for (const Metric& metric : kMetrics) {
    if (row[1] != metric.label) continue;
    const std::string key(metric.key);
    if (metric.bytes) {
      add(m, read_size(row[2], key + "_current", SizeRule::Floored));
      add(m, read_size(row[3], key + "_peak", SizeRule::Floored));
    } else {
      // Counts print as "N", "N K" or "N M" (thousands, floored).
      for (int col = 2; col <= 3; ++col) {
        const std::optional<Number> n = read_number(row[static_cast<std::size_t>(col)]);
        if (!n || !n->is_integer) continue;
        Figure f;
        f.key = key + (col == 2 ? "_current" : "_peak");
        f.count = true;
        std::int64_t scale = 1;
        const std::string_view rest = trim(row[static_cast<std::size_t>(col)].substr(n->used));
        if (rest == "K") scale = 1000;
        if (rest == "M") scale = 1000000;
        f.value = n->integer * scale;
        f.exact = scale == 1;
        f.error = scale == 1 ? 0 : scale;
        f.printed = std::string(trim(row[static_cast<std::size_t>(col)]));
        m.figures.push_back(std::move(f));
      }
    }
  }
  return true;
}

}  // namespace oomscope::log::detail
