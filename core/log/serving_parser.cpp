// Serving and communication stacks, and XLA's plain allocation failure.
// - XLA (platform allocator, PjRt): "RESOURCE_EXHAUSTED: Failed to allocate request for 6.27GiB
//   (6727663616B) on device ordinal 0".
// - vLLM: its memory profile ("Loading model weights took X GB", "Memory profiling results: total_gpu_memory=
//   ... kv_cache_size=...", "# GPU blocks: N, # CPU blocks: M"), then either "No available memory for the
//   cache blocks" (no GPU block at all) or "The model's max seq len (A) is larger than the maximum number of
//   tokens that can be stored in KV cache (B)". vLLM divides by 2^30 whether it writes "GB" or "GiB".
// - NCCL: "include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'" and "Failed to CUDA calloc N bytes".

#include "core/log/detail/serving_parser.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

constexpr std::int64_t kContextLines = 400;

// "total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB ...": every key=size pair.
void key_sizes(std::string_view text, std::vector<Figure>& out) {
  std::size_t p = 0;
  while ((p = text.find('=', p)) != std::string_view::npos) {
    std::size_t k = p;
    while (k > 0 && (is_alpha(text[k - 1]) || text[k - 1] == '_')) --k;
    if (k < p)
      if (auto f = read_size(text.substr(p + 1), std::string(text.substr(k, p - k))))
        out.push_back(std::move(*f));
    ++p;
  }
}

std::optional<Figure> count_in_parens(std::string_view text, std::string_view marker, std::string key) {
  return integer_after(text, marker, std::move(key), false);
}

}  // namespace

bool ServingParser::start(const Ctx& c) {
  std::vector<Message>& out = messages().all();
  const std::string_view t = c.t;
  if (const std::size_t at = t.find("Failed to allocate request for "); at != std::string_view::npos) {
    Message& m = messages().begin(MessageKind::XlaAllocation, c);
    m.exception = exception_before(t, at);
    m.wording = "failed-to-allocate-request";
    const std::string_view rest = t.substr(at + 31);
    std::size_t used = 0;
    std::optional<Figure> f = read_size(rest, "requested", SizeRule::Rounded, &used);
    if (f && rest.substr(used).starts_with(" (")) {
      if (const auto n = read_number(rest.substr(used + 2));
          n && n->is_integer && rest.substr(used + 2 + n->used).starts_with("B)")) {
        f->printed += " (" + std::to_string(n->integer) + "B)";
        f->value = n->integer;
        f->exact = true;
        f->error = 0;
      }
    }
    add(m, std::move(f));
    if (const auto d = after(rest, "on device ordinal ")) {
      std::size_t e = 0;
      while (e < d->size() && is_digit((*d)[e])) ++e;
      m.device = "device ordinal " + std::string(d->substr(0, e));
    }
    return true;
  }
  // vLLM's profile: kept as context for the failure that may follow.
  const auto keep_context = [&](std::vector<Figure> figures) {
    if (vllm_context_source_ != c.source || c.number - vllm_context_line_ > kContextLines)
      vllm_context_.clear();
    for (Figure& f : figures) vllm_context_.push_back(std::move(f));
    vllm_context_source_ = c.source;
    vllm_context_line_ = c.number;
  };
  const auto with_context = [&](Message& m) {
    if (vllm_context_source_ == c.source && c.number - vllm_context_line_ <= kContextLines)
      for (const Figure& f : vllm_context_) m.figures.push_back(f);
    vllm_context_.clear();
  };
  if (const auto w = after(t, "Loading model weights took ")) {
    std::vector<Figure> f;
    if (auto s = read_size(*w, "weights")) f.push_back(std::move(*s));
    keep_context(std::move(f));
    return true;
  }
  if (contains(t, "Memory profiling results") ||
      (contains(t, "total_gpu_memory=") && contains(t, "kv_cache"))) {
    std::vector<Figure> f;
    key_sizes(t, f);
    keep_context(std::move(f));
    return true;
  }
  if (const auto blocks = after(t, "GPU blocks: ")) {
    const std::optional<Number> gpu = read_number(*blocks);
    std::vector<Figure> f;
    if (auto g = integer_after(t, "GPU blocks: ", "gpu_blocks", false)) f.push_back(std::move(*g));
    if (auto cpu = integer_after(t, "CPU blocks: ", "cpu_blocks", false)) f.push_back(std::move(*cpu));
    if (gpu && gpu->is_integer && gpu->integer == 0) {
      Message& m = messages().begin(MessageKind::VllmKvCache, c);
      m.wording = "no-gpu-blocks";
      with_context(m);
      for (Figure& x : f) m.figures.push_back(std::move(x));
      return true;
    }
    keep_context(std::move(f));
    return true;
  }
  if (const std::size_t at = t.find("No available memory for the cache blocks");
      at != std::string_view::npos) {
    if (!out.empty() && out.back().kind == MessageKind::VllmKvCache && out.back().source == c.source &&
        c.number - out.back().end_line < 60) {
      out.back().end_line = c.number;
      if (out.back().exception.empty()) out.back().exception = exception_before(t, at);
      out.back().hints.emplace_back("gpu_memory_utilization");
      return true;
    }
    Message& m = messages().begin(MessageKind::VllmKvCache, c);
    m.wording = "no-available-memory";
    m.exception = exception_before(t, at);
    m.hints.emplace_back("gpu_memory_utilization");
    with_context(m);
    return true;
  }
  if (contains(t, "max seq len (") && contains(t, "stored in KV cache (")) {
    Message& m = messages().begin(MessageKind::VllmKvCache, c);
    m.wording = "max-seq-len";
    m.exception = exception_before(t, t.find("max seq len"));
    add(m, count_in_parens(t, "max seq len (", "max_seq_len"));
    add(m, count_in_parens(t, "stored in KV cache (", "kv_cache_tokens"));
    for (std::string_view h : {"gpu_memory_utilization", "max_model_len"})
      if (contains(t, h)) m.hints.emplace_back(h);
    with_context(m);
    return true;
  }
  if (contains(t, "NCCL WARN Cuda failure") && contains(t, "out of memory")) {
    Message& m = messages().begin(MessageKind::Nccl, c);
    m.wording = "cuda-failure";
    return true;
  }
  if (const auto calloc = after(t, "Failed to CUDA calloc ")) {
    std::optional<Figure> f = integer_after(t, "Failed to CUDA calloc ", "requested", true);
    if (!out.empty() && out.back().kind == MessageKind::Nccl && out.back().source == c.source &&
        c.number - out.back().end_line <= 5 && !out.back().figure("requested")) {
      out.back().end_line = c.number;
      add(out.back(), std::move(f));
      return true;
    }
    Message& m = messages().begin(MessageKind::Nccl, c);
    m.wording = "calloc";
    add(m, std::move(f));
    return true;
  }
  return false;
}

}  // namespace oomscope::log::detail
