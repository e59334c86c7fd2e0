#pragma once
// TensorFlow / XLA BFC allocator messages, TensorFlow's "OOM when allocating tensor" and the stream
// executor's CUDA_ERROR_OUT_OF_MEMORY (bfc_parser.cpp): a failure line, or a dump line when the log starts
// mid-dump, begins a message, and the allocator's dump is the block.

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class BfcParser final : public KindParser {
 public:
  using KindParser::KindParser;
  bool start(const Ctx& c) override;
  bool line(const Ctx& c) override;
};

}  // namespace oomscope::log::detail
