#pragma once
// One-line messages of serving stacks and collectives (serving_parser.cpp): XLA's "Failed to allocate
// request", vLLM's KV-cache failures (with the profile figures vLLM printed before them as context) and
// NCCL's CUDA failures. None opens a block.

#include <cstdint>
#include <string>
#include <vector>

#include "core/log/detail/kind_parser.h"

namespace oomscope::log::detail {

class ServingParser final : public KindParser {
 public:
  using KindParser::KindParser;
  bool start(const Ctx& c) override;

 private:
  std::vector<Figure> vllm_context_;  // vLLM figures printed before its failure
  std::string vllm_context_source_;
  std::int64_t vllm_context_line_ = 0;
};

}  // namespace oomscope::log::detail
