// Dispatching lines to the kind parsers, and the life of a block (detail/parser.h).

#include "core/log/detail/parser.h"

#include "core/log/detail/bfc_parser.h"
#include "core/log/detail/memory_summary_parser.h"
#include "core/log/detail/scan.h"
#include "core/log/detail/serving_parser.h"
#include "core/log/detail/torch_parser.h"
#include "core/log/detail/tpu_parser.h"
#include "core/log/detail/xla_gpu_parser.h"

namespace oomscope::log::detail {

Parser::Parser(std::vector<Message>& out)
    : messages_(out), kinds_{std::make_unique<TorchParser>(messages_),
                             std::make_unique<MemorySummaryParser>(messages_),
                             std::make_unique<XlaGpuParser>(messages_),
                             std::make_unique<TpuParser>(messages_, lookback),
                             std::make_unique<BfcParser>(messages_),
                             std::make_unique<ServingParser>(messages_)} {}

Parser::~Parser() = default;

void Parser::end_block() {
  if (active_ == nullptr) return;
  KindParser* const ended = active_;
  active_ = nullptr;
  ended->close_block();
  if (ended->end()) messages_.fold_repeat();
}

void Parser::feed(const CleanLine& line, std::int64_t number, std::uint64_t offset) {
  const Ctx c{line.text, trim(line.text), line.source, number, offset};
  if (active_ != nullptr) {
    if (c.t.empty()) {
      // Blank lines separate the parts of a dump; three in a row end it (a wrapped message ends at one).
      if (active_->ends_at_first_blank() || ++blank_run_ >= 3) end_block();
      return;
    }
    if (active_->line(c)) {
      blank_run_ = 0;
      if (!messages_.all().empty()) messages_.current().end_line = number;
      // A kind that read its message to the end closed its block itself (and folded it).
      if (!active_->block_open()) active_ = nullptr;
      return;
    }
    end_block();
  }
  if (!c.t.empty()) dispatch(c);
}

void Parser::dispatch(const Ctx& c) {
  const std::size_t before = messages_.all().size();
  for (const std::unique_ptr<KindParser>& kind : kinds_) {
    if (!kind->start(c)) continue;
    if (kind->block_open()) {
      active_ = kind.get();
      blank_run_ = 0;
    } else if (messages_.all().size() > before) {
      messages_.fold_repeat();
    }
    return;
  }
}

void Parser::finish() { end_block(); }

}  // namespace oomscope::log::detail
