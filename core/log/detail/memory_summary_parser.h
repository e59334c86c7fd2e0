#pragma once
// torch.cuda.memory_summary() tables (memory_summary_parser.cpp says how they are read): the header row
// begins a message, and its '|' rows are the block.

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class MemorySummaryParser final : public KindParser {
 public:
  using KindParser::KindParser;
  bool start(const Ctx& c) override;
  bool line(const Ctx& c) override;
};

}  // namespace oomscope::log::detail
