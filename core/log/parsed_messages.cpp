// The messages read so far (detail/parsed_messages.h).

#include "core/log/detail/parsed_messages.h"

#include <algorithm>

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

constexpr std::size_t kFirstLineBytes = 400;
constexpr int kRepeatWindow = 50;  // lines

bool same_figures(const Message& a, const Message& b) {
  if (a.figures.size() != b.figures.size() || a.figures.empty()) return false;
  for (std::size_t i = 0; i < a.figures.size(); ++i)
    if (a.figures[i].key != b.figures[i].key || a.figures[i].value != b.figures[i].value) return false;
  return true;
}

}  // namespace

Message& ParsedMessages::begin(MessageKind kind, const Ctx& c) {
  Message m;
  m.kind = kind;
  m.source = c.source;
  m.line = m.end_line = c.number;
  m.offset = c.offset;
  m.first_line = clip(c.t, kFirstLineBytes);
  out_.push_back(std::move(m));
  current_ = out_.size() - 1;
  return out_.back();
}

void ParsedMessages::drop_last() {
  if (out_.empty()) return;
  out_.pop_back();
  current_ = out_.empty() ? 0 : out_.size() - 1;
}

void ParsedMessages::fold_repeat() {
  if (out_.size() < 2) return;
  Message& last = out_.back();
  Message& prev = out_[out_.size() - 2];
  if (last.kind != prev.kind || last.source != prev.source || last.line - prev.end_line > kRepeatWindow ||
      !same_figures(last, prev) || !last.buffers.empty() || !prev.buffers.empty())
    return;
  prev.notes.push_back("printed again at line " + std::to_string(last.line));
  prev.end_line = std::max(prev.end_line, last.end_line);
  out_.pop_back();
  current_ = out_.size() - 1;
}

}  // namespace oomscope::log::detail
