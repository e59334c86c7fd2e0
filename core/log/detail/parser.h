#pragma once
// The message parser: fed one cleaned line at a time, it offers each line outside a block to the kind
// parsers in turn (PyTorch, memory_summary tables, XLA GPU, TPU, BFC, serving and NCCL: detail/*_parser.h)
// and, while one of them has a block open (a multi-line dump, a wrapped message), feeds that one the lines
// that belong to it. It owns the life of a block: when it ends and what is folded afterwards.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/log/detail/kind_parser.h"
#include "core/log/detail/line_clean.h"
#include "core/log/log.h"

namespace oomscope::log::detail {

class Parser {
 public:
  explicit Parser(std::vector<Message>& out);
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  void feed(const CleanLine& line, std::int64_t number, std::uint64_t offset);
  // Ends an open block at the end of the input.
  void finish();
  // True while a block is open: the reader must feed every line, not only those with a trigger.
  bool wants_every_line() const { return active_ != nullptr; }
  // The cleaned lines before the current one (nearest last), at most `n`, as far as the reader still holds
  // them; used when a TPU report starts mid-block and its first rows came before the trigger.
  std::function<std::vector<std::string>(std::size_t n)> lookback;

 private:
  void dispatch(const Ctx& c);
  void end_block();

  ParsedMessages messages_;
  // In the order a line is offered to them.
  std::array<std::unique_ptr<KindParser>, 6> kinds_;
  KindParser* active_ = nullptr;  // the kind whose block is open
  int blank_run_ = 0;
};

}  // namespace oomscope::log::detail
