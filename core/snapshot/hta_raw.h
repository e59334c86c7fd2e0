#pragma once
// The raw memory timeline torch.profiler writes with export_memory_timeline("….raw.json.gz") and HTA reads
// (docs/snapshot-format.md section 4): rows [t_ns, action, bytes, category]. t = −1 means the tensor existed
// before profiling; it is replaced by the smallest real time. Equal times form one step (HTA's reading).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oomscope::snapshot {

inline constexpr int kHtaCategories = 8;
// "parameter", "optimizer state", "input", "temporary", "activation", "gradient", "autograd detail",
// "unknown"
const char* hta_category_name(int c) noexcept;

struct HtaStep {
  std::int64_t t_ns = 0;
  std::int64_t total = 0;
  std::array<std::int64_t, kHtaCategories> by_category{};
};

struct HtaTimeline {
  std::string path;
  std::uint64_t file_size = 0;
  std::size_t rows = 0, preexisting_rows = 0;
  std::array<std::size_t, 5> action_rows{};  // index = action 1..4
  std::int64_t preexisting_bytes = 0;
  std::int64_t first_t_ns = 0, last_t_ns = 0;  // real times only
  std::vector<HtaStep> steps;                  // running totals after each step, time order
  std::int64_t peak_bytes = 0;
  std::int64_t peak_t_ns = 0;
  std::array<std::int64_t, kHtaCategories> category_peak{}, category_final{}, category_at_peak{};
  std::int64_t final_bytes = 0;
};

// Throws oomscope::Error naming the file when a row is not four integers or an action/category is out of
// range.
std::shared_ptr<const HtaTimeline> read_hta_raw(const std::string& path);
std::shared_ptr<const HtaTimeline> read_hta_raw_from_text(const std::string& text, const std::string& name);

}  // namespace oomscope::snapshot
