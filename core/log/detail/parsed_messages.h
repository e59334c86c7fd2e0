#pragma once
// The messages the parser has read so far, and one line as the kind parsers see it. Each kind parser
// (detail/kind_parser.h) starts messages here and fills the current one; a message that repeats the one
// before it is folded into it (fold_repeat).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/log/log.h"

namespace oomscope::log::detail {

// One line as the parsers see it.
struct Ctx {
  std::string_view text;  // cleaned (prefixes and colour codes removed)
  std::string_view t;     // the same, trimmed
  const std::string& source;
  std::int64_t number;
  std::uint64_t offset;
};

class ParsedMessages {
 public:
  explicit ParsedMessages(std::vector<Message>& out) : out_(out) {}

  // A new message of `kind` starting at line `c`; it becomes the current one.
  Message& begin(MessageKind kind, const Ctx& c);
  // The message begun last.
  Message& current() { return out_[current_]; }
  std::vector<Message>& all() { return out_; }
  // Drops the message begun last (prose that only named the error).
  void drop_last();
  // A new message that repeats the previous one (same kind, source and figures, a few lines later) is
  // folded into it as a note.
  void fold_repeat();

 private:
  std::vector<Message>& out_;
  std::size_t current_ = 0;
};

}  // namespace oomscope::log::detail
