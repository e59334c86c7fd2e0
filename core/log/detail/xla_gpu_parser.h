#pragma once
// XLA GPU out-of-memory errors and their BufferAssignment dumps (xla_gpu_parser.cpp): the request line, or
// a dump's header when the log starts mid-dump, begins a message, and the dump's stats and peak buffers are
// the block.

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class XlaGpuParser final : public KindParser {
 public:
  using KindParser::KindParser;
  bool start(const Ctx& c) override;
  bool line(const Ctx& c) override;
  bool end() override;

 private:
  bool in_buffer_ = false;  // the last peak buffer is still being read
};

}  // namespace oomscope::log::detail
