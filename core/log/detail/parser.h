#pragma once
// The message parser: fed one cleaned line at a time, it starts a message on a line that opens one and,
// for the multi-line kinds (XLA dumps, TPU reports, BFC dumps, memory_summary tables, wrapped PyTorch
// messages), keeps reading the lines that belong to it. parser.cpp dispatches and ends blocks; the kinds
// are read in parse_torch.cpp, parse_xla.cpp, parse_tpu.cpp, parse_bfc.cpp and parse_serving.cpp.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log/detail/line_clean.h"
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

class Parser {
 public:
  explicit Parser(std::vector<Message>& out) : out_(out) {}
  void feed(const CleanLine& line, std::int64_t number, std::uint64_t offset);
  // Ends an open block at the end of the input.
  void finish();
  // True while a block is open: the reader must feed every line, not only those with a trigger.
  bool wants_every_line() const { return block_ != Block::None; }
  // The cleaned lines before the current one (nearest last), at most `n`, as far as the reader still holds
  // them; used when a TPU report starts mid-block and its first rows came before the trigger.
  std::function<std::vector<std::string>(std::size_t n)> lookback;

 private:
  enum class Block { None, TorchWrap, XlaGpu, Tpu, Bfc, MemSummary };

  void dispatch(const Ctx& c);
  void end_block();
  Message& begin(MessageKind kind, const Ctx& c);
  Message& cur() { return out_[current_]; }
  void open(Block b) {
    block_ = b;
    blank_run_ = 0;
  }
  // A new message that repeats the previous one (same kind, source and figures, a few lines later) is
  // folded into it as a note.
  void fold_repeat();

  // parse_torch.cpp
  bool start_torch(const Ctx& c);
  bool torch_wrap_line(const Ctx& c);
  void read_torch(Message& m, std::string_view text);
  bool torch_complete(const Message& m, std::string_view text) const;
  bool start_mem_summary(const Ctx& c);
  bool mem_summary_line(const Ctx& c);
  // parse_xla.cpp
  bool start_xla_gpu(const Ctx& c);
  bool xla_gpu_line(const Ctx& c);
  // parse_tpu.cpp
  bool start_tpu(const Ctx& c);
  bool tpu_line(const Ctx& c);
  void tpu_row(Message& m, std::string_view t);
  // parse_bfc.cpp
  bool start_bfc(const Ctx& c);
  bool bfc_line(const Ctx& c);
  // parse_serving.cpp
  bool start_serving(const Ctx& c);

  std::vector<Message>& out_;
  Block block_ = Block::None;
  std::size_t current_ = 0;
  int blank_run_ = 0;
  std::string wrap_text_;  // TorchWrap: the message's text so far, its lines joined by spaces
  int wrap_lines_ = 0;
  bool wrap_needs_request_ = false;  // TorchWrap: the first line ended at "out of memory."; the next must ask
  bool in_buffer_ = false;           // XlaGpu / Tpu: the last buffer is still being read
  std::string tpu_section_;          // Tpu: "total", "program", "allocations", "capacity", "persistent"
  std::vector<Figure> vllm_context_;  // vLLM figures printed before its failure
  std::string vllm_context_source_;
  std::int64_t vllm_context_line_ = 0;
};

}  // namespace oomscope::log::detail
