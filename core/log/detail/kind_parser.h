#pragma once
// What the parser (detail/parser.h) asks of the reader of one family of messages. Outside any block the
// parser offers each line to every kind in turn (start); a kind that opens a block (a multi-line dump, a
// wrapped message) is then fed the lines that follow (line) until one is not its own, blank lines end it
// (ends_at_first_blank) or the input ends, and is told so (end).

#include "core/log/detail/parsed_messages.h"

namespace oomscope::log::detail {

class KindParser {
 public:
  explicit KindParser(ParsedMessages& messages) : messages_(messages) {}
  virtual ~KindParser() = default;
  KindParser(const KindParser&) = delete;
  KindParser& operator=(const KindParser&) = delete;

  // A line outside any block: true when it is this kind's (it may have begun a message and opened a block).
  virtual bool start(const Ctx& c) = 0;
  // A line inside this kind's open block: true when it belongs to the block.
  virtual bool line(const Ctx& /*c*/) { return false; }
  // The block ends. False when the message it began was dropped (so nothing is folded into it).
  virtual bool end() { return true; }
  // One blank line ends the block (a wrapped message); otherwise three in a row do (a dump).
  virtual bool ends_at_first_blank() const { return false; }

  bool block_open() const { return open_; }

 protected:
  ParsedMessages& messages() { return messages_; }
  Message& current() { return messages_.current(); }
  void open_block() { open_ = true; }
  // The kind closes its own block (a wrapped message read to its end).
  void close_block() { open_ = false; }

 private:
  friend class Parser;
  ParsedMessages& messages_;
  bool open_ = false;
};

}  // namespace oomscope::log::detail
