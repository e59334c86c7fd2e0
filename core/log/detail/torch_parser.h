#pragma once
// PyTorch's allocator messages (CUDA, HIP, MPS; torch_parser.cpp lists the wordings of each version). A
// message wrapped over several lines is a block: its lines are joined and read again until the wording is
// complete, or the block ends with the message marked cut short.

#include <string>
#include <string_view>

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class TorchParser final : public KindParser {
 public:
  using KindParser::KindParser;
  bool start(const Ctx& c) override;
  bool line(const Ctx& c) override;
  bool end() override;
  bool ends_at_first_blank() const override { return true; }

 private:
  // Reads the figures of `text` (the whole message so far) into `m`, replacing what was read before.
  static void read(Message& m, std::string_view text);
  // True when `text` holds the wording's last clause.
  static bool complete(const Message& m, std::string_view text);
  void reset();

  std::string wrap_text_;  // the message's text so far, its lines joined by spaces
  int wrap_lines_ = 0;
  bool wrap_needs_request_ = false;  // the first line ended at "out of memory."; the next must ask
};

}  // namespace oomscope::log::detail
