#include "core/snapshot/hta_raw.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::snapshot {

const char* hta_category_name(int c) noexcept {
  static const char* kNames[kHtaCategories] = {"parameter",       "optimizer state", "input",
                                               "temporary",       "activation",      "gradient",
                                               "autograd detail", "unknown"};
  return c >= 0 && c < kHtaCategories ? kNames[c] : "?";
}

std::shared_ptr<const HtaTimeline> read_hta_raw_from_text(const std::string& text, const std::string& name) {
  nlohmann::json rows;
  try {
    rows = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number too large for a double
    throw Error(ErrorKind::Damaged, name, std::string("the memory timeline is not valid JSON: ") + e.what());
  }
  if (!rows.is_array())
    throw Error(ErrorKind::NotACapture, name,
                "is JSON but not a list of [time, action, bytes, category] rows");
  auto t = std::make_shared<HtaTimeline>();
  t->path = name;
  struct Row {
    std::int64_t t, action, bytes, cat;
  };
  std::vector<Row> parsed;
  parsed.reserve(rows.size());
  std::int64_t min_t = -1;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (!r.is_array() || r.size() != 4 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
        !r[2].is_number_integer() || !r[3].is_number_integer())
      throw Error(ErrorKind::Damaged, name,
                  "row " + std::to_string(i) + " is not four integers [time, action, bytes, category]");
    Row row{r[0].get<std::int64_t>(), r[1].get<std::int64_t>(), r[2].get<std::int64_t>(),
            r[3].get<std::int64_t>()};
    if (row.action < 1 || row.action > 4)
      throw Error(ErrorKind::Damaged, name,
                  "row " + std::to_string(i) + " has action " + std::to_string(row.action) + " (1..4 exist)");
    if (row.cat < 0 || row.cat >= kHtaCategories)
      throw Error(ErrorKind::Damaged, name,
                  "row " + std::to_string(i) + " has category " + std::to_string(row.cat) + " (0..7 exist)");
    if (row.t >= 0 && (min_t < 0 || row.t < min_t)) min_t = row.t;
    ++t->action_rows[static_cast<std::size_t>(row.action)];
    if (row.t == -1) ++t->preexisting_rows, t->preexisting_bytes += row.bytes;
    parsed.push_back(row);
  }
  t->rows = parsed.size();
  for (Row& r : parsed)
    if (r.t < 0) r.t = min_t < 0 ? 0 : min_t;
  std::stable_sort(parsed.begin(), parsed.end(), [](const Row& a, const Row& b) { return a.t < b.t; });
  HtaStep cur;
  bool open = false;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const Row& r = parsed[i];
    if (open && r.t != cur.t_ns) t->steps.push_back(cur);
    cur.t_ns = r.t;
    open = true;
    cur.total += r.bytes;
    cur.by_category[static_cast<std::size_t>(r.cat)] += r.bytes;
  }
  if (open) t->steps.push_back(cur);
  for (const HtaStep& s : t->steps) {
    if (s.total > t->peak_bytes)
      t->peak_bytes = s.total, t->peak_t_ns = s.t_ns, t->category_at_peak = s.by_category;
    for (int c = 0; c < kHtaCategories; ++c)
      t->category_peak[static_cast<std::size_t>(c)] =
          std::max(t->category_peak[static_cast<std::size_t>(c)], s.by_category[static_cast<std::size_t>(c)]);
  }
  if (!t->steps.empty()) {
    t->category_final = t->steps.back().by_category;
    t->final_bytes = t->steps.back().total;
    t->first_t_ns = t->steps.front().t_ns;
    t->last_t_ns = t->steps.back().t_ns;
  }
  return t;
}

std::shared_ptr<const HtaTimeline> read_hta_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::uint64_t size = bytes.size();
  if (is_gzip(bytes)) bytes = gunzip(bytes, path);
  auto t = std::const_pointer_cast<HtaTimeline>(read_hta_raw_from_text(bytes, path));
  t->file_size = size;
  return t;
}

}  // namespace oomscope::snapshot
