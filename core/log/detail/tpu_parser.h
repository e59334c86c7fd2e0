#pragma once
// TPU out-of-memory reports (tpu_parser.cpp): the compiler's "Ran out of memory in memory space", the
// runtime's "Attempting to reserve", or a section header when the log starts mid-report, begins a message;
// the report's sections (usage, program requirement, largest allocations, capacity, heap, persistent) are
// the block.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class TpuParser final : public KindParser {
 public:
  using Lookback = std::function<std::vector<std::string>(std::size_t n)>;
  // `lookback` (the parser's) gives the cleaned lines before the current one, for a report that starts
  // mid-block.
  TpuParser(ParsedMessages& messages, const Lookback& lookback) : KindParser(messages), lookback_(lookback) {}
  bool start(const Ctx& c) override;
  bool line(const Ctx& c) override;
  bool end() override;

 private:
  // One "label  size" row of the current section.
  void row(Message& m, std::string_view t);

  const Lookback& lookback_;
  std::string section_;     // "total", "program", "allocations", "capacity", "heap", "persistent"
  bool in_buffer_ = false;  // the last allocation is still being read
};

}  // namespace oomscope::log::detail
