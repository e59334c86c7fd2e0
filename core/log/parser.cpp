// Dispatching lines to the message kinds, and the life of a block (detail/parser.h).

#include "core/log/detail/parser.h"

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

Message& Parser::begin(MessageKind kind, const Ctx& c) {
  end_block();
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

void Parser::fold_repeat() {
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

void Parser::end_block() {
  if (block_ == Block::TorchWrap && !out_.empty() && !cur().figure("requested") &&
      cur().kind != MessageKind::PytorchMps) {
    // Only "CUDA out of memory." and no request after it: prose naming the error, not a message.
    out_.pop_back();
    block_ = Block::None;
    wrap_text_.clear();
    wrap_lines_ = 0;
    wrap_needs_request_ = false;
    return;
  }
  if (block_ == Block::TorchWrap && !out_.empty()) {
    Message& m = cur();
    read_torch(m, wrap_text_);
    if (!torch_complete(m, wrap_text_)) {
      m.complete = false;
      m.notes.push_back("the message is cut short in the log");
    }
  }
  if ((block_ == Block::XlaGpu || block_ == Block::Tpu) && in_buffer_ && !out_.empty() &&
      !cur().buffers.empty() && !cur().buffers.back().complete) {
    cur().complete = false;
  }
  const bool had_block = block_ != Block::None;
  block_ = Block::None;
  in_buffer_ = false;
  wrap_text_.clear();
  wrap_lines_ = 0;
  wrap_needs_request_ = false;
  tpu_section_.clear();
  if (had_block) fold_repeat();
}

void Parser::feed(const CleanLine& line, std::int64_t number, std::uint64_t offset) {
  const Ctx c{line.text, trim(line.text), line.source, number, offset};
  if (block_ != Block::None) {
    if (c.t.empty()) {
      // Blank lines separate the parts of a dump; three in a row end it (a wrapped message ends at one).
      if (block_ == Block::TorchWrap || ++blank_run_ >= 3) end_block();
      return;
    }
    bool consumed = false;
    switch (block_) {
      case Block::TorchWrap:
        consumed = torch_wrap_line(c);
        break;
      case Block::XlaGpu:
        consumed = xla_gpu_line(c);
        break;
      case Block::Tpu:
        consumed = tpu_line(c);
        break;
      case Block::Bfc:
        consumed = bfc_line(c);
        break;
      case Block::MemSummary:
        consumed = mem_summary_line(c);
        break;
      case Block::None:
        break;
    }
    if (consumed) {
      blank_run_ = 0;
      if (!out_.empty()) cur().end_line = number;
      return;
    }
    end_block();
  }
  if (!c.t.empty()) dispatch(c);
}

void Parser::dispatch(const Ctx& c) {
  const std::size_t before = out_.size();
  if (start_torch(c) || start_mem_summary(c) || start_xla_gpu(c) || start_tpu(c) || start_bfc(c) ||
      start_serving(c)) {
    if (block_ == Block::None && out_.size() > before) fold_repeat();
  }
}

void Parser::finish() { end_block(); }

}  // namespace oomscope::log::detail
