// PyTorch's allocator messages (CUDA, HIP, MPS): TorchParser (detail/torch_parser.h).
//
// Wordings (docs/logs.md): torch <= 1.3 "Tried to allocate X (GPU 0; T total capacity; A already allocated;
// F free; C cached)"; 1.4 to 2.0 the same with "R reserved in total by PyTorch" (and a max_split_size_mb hint
// from 1.10); 2.1 on "Tried to allocate X. GPU 0 has a total capacity of T of which F is free. [Process N has
// P memory in use. | Including non-PyTorch memory, this process has P memory in use.] [L allowed;] Of the
// allocated memory A is allocated by PyTorch, [with G allocated in private pools (e.g., CUDA Graphs),] and R
// is reserved by PyTorch but unallocated." (2.1 spelled "capacty"). Sizes come from c10's format_size: "N
// bytes" up to 1 KiB, then KiB, MiB, GiB with two decimals, base 1024. MPS: "MPS backend out of memory (MPS
// allocated: A, other allocations: O, max allowed: M). Tried to allocate X on private|shared pool." with the
// MPS allocator's own format_size (KB, MB, GB for 2^10, 2^20, 2^30) or, in newer versions, KiB/MiB/GiB.

#include "core/log/detail/torch_parser.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

void add_hints(Message& m, std::string_view text) {
  for (std::string_view h : {"max_split_size_mb", "expandable_segments", "PYTORCH_CUDA_ALLOC_CONF",
                             "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_MPS_HIGH_WATERMARK_RATIO"})
    if (contains(text, h)) m.hints.emplace_back(h);
}

// "Process 20398 has 14.52 GiB memory in use." (one per process NVML lists, torch 2.1 on).
void add_processes(Message& m, std::string_view text) {
  std::size_t p = 0;
  while ((p = text.find("Process ", p)) != std::string_view::npos) {
    p += 8;
    std::size_t e = p;
    while (e < text.size() && is_digit(text[e])) ++e;
    if (e == p || text.substr(e, 5) != " has ") continue;
    add(m, read_size(text.substr(e + 5), "process_" + std::string(text.substr(p, e - p)) + "_in_use"));
  }
}

}  // namespace

void TorchParser::read(Message& m, std::string_view text) {
  m.figures.clear();
  m.hints.clear();
  m.notes.clear();
  if (m.kind == MessageKind::PytorchMps) {
    m.wording = contains(text, "GiB") || contains(text, "MiB") ? "mps-gib" : "mps-gb";
    m.device = "mps";
    add(m, size_after(text, "Tried to allocate ", "requested"));
    add(m, size_after(text, "MPS allocated: ", "mps_allocated"));
    add(m, size_after(text, "other allocations: ", "other_allocations"));
    add(m, size_after(text, "max allowed: ", "max_allowed"));
    if (const auto pool = after(text, " on ")) {
      if (pool->starts_with("private pool")) m.allocation_pool = "private";
      if (pool->starts_with("shared pool")) m.allocation_pool = "shared";
    }
    add_hints(m, text);
    return;
  }
  add(m, size_after(text, "Tried to allocate ", "requested"));
  if (const auto gpu = after(text, "(GPU ")) {  // torch <= 2.0
    std::size_t e = 0;
    while (e < gpu->size() && is_digit((*gpu)[e])) ++e;
    m.device = "GPU " + std::string(gpu->substr(0, e));
    const std::string_view body = gpu->substr(0, gpu->find(')'));
    // Clauses separated by ';': "T total capacity", "A already allocated", "F free", "R reserved in total by
    // PyTorch" or "C cached".
    std::size_t p = body.find(';');
    while (p != std::string_view::npos) {
      const std::size_t next = body.find(';', p + 1);
      const std::string_view clause =
          trim(body.substr(p + 1, next == std::string_view::npos ? next : next - p - 1));
      std::string key;
      if (clause.ends_with("total capacity")) key = "capacity";
      if (clause.ends_with("already allocated")) key = "allocated";
      if (clause.ends_with(" free")) key = "free";
      if (clause.ends_with("reserved in total by PyTorch")) key = "reserved";
      // torch <= 1.3 printed the cache's unused part as "cached" (it is below "already allocated" in real
      // logs, so it cannot be the whole cache).
      if (clause.ends_with(" cached")) key = "reserved_unallocated";
      if (!key.empty()) add(m, read_size(clause, key));
      p = next;
    }
    m.wording = contains(body, "reserved in total") ? "reserved-in-total" : "cached";
  } else if (const auto has = after(text, "GPU ")) {  // torch >= 2.1
    std::size_t e = 0;
    while (e < has->size() && is_digit((*has)[e])) ++e;
    m.device = "GPU " + std::string(has->substr(0, e));
    m.wording = "total-capacity";
    add(m, size_after(text, "total capacity of ", "capacity"));
    if (!m.figure("capacity")) {
      add(m, size_after(text, "total capacty of ", "capacity"));
      if (m.figure("capacity")) m.notes.emplace_back("spelled 'total capacty' (torch 2.1)");
    }
    add(m, size_after(text, "of which ", "free"));
    add(m, size_after(text, "this process has ", "process_in_use"));
    add_processes(m, text);
    if (const auto allowed = text.find(" allowed;"); allowed != std::string_view::npos) {
      std::size_t s = text.rfind(". ", allowed);
      if (s != std::string_view::npos) add(m, read_size(text.substr(s + 2), "allowed"));
    }
    add(m, size_after(text, "Of the allocated memory ", "allocated"));
    if (const auto pools = text.find(" allocated in private pools"); pools != std::string_view::npos) {
      const std::size_t w = text.rfind("with ", pools);
      if (w != std::string_view::npos) add(m, read_size(text.substr(w + 5), "private_pools"));
    }
    if (const auto r = text.find(" is reserved by PyTorch but unallocated"); r != std::string_view::npos) {
      const std::size_t a = text.rfind("and ", r);
      if (a != std::string_view::npos) add(m, read_size(text.substr(a + 4), "reserved_unallocated"));
    }
  }
  add_hints(m, text);
}

bool TorchParser::complete(const Message& m, std::string_view text) {
  if (m.kind == MessageKind::PytorchMps)
    return contains(text, "Tried to allocate") && m.figure("max_allowed");
  if (m.wording == "total-capacity") return contains(text, "unallocated");
  const auto gpu = after(text, "(GPU ");
  return gpu && contains(*gpu, ")");
}

bool TorchParser::start(const Ctx& c) {
  std::size_t at = c.text.find("CUDA out of memory");
  MessageKind kind = MessageKind::PytorchCuda;
  if (at == std::string_view::npos) {
    at = c.text.find("HIP out of memory");
    kind = MessageKind::PytorchHip;
  }
  if (at == std::string_view::npos) {
    at = c.text.find("MPS backend out of memory");
    kind = MessageKind::PytorchMps;
  }
  if (at == std::string_view::npos) return false;
  const std::string_view text = c.text.substr(at);
  // Prose that only names the error ("if you see CUDA out of memory, ...") has no figure to read; a message
  // wrapped right after "out of memory." continues on the next line with "Tried to allocate".
  const bool cut_after_name = trim(text).ends_with("out of memory.");
  if (kind != MessageKind::PytorchMps && !contains(text, "Tried to allocate") && !cut_after_name)
    return false;
  Message& m = messages().begin(kind, c);
  m.exception = exception_before(c.text, at);
  m.first_line = clip(trim(text), 400);
  wrap_text_ = std::string(trim(text));
  wrap_lines_ = 1;
  read(m, wrap_text_);
  if (complete(m, wrap_text_)) {
    reset();
    return true;
  }
  open_block();
  wrap_needs_request_ = !contains(text, "Tried to allocate");
  return true;
}

// A line that continues a wrapped message: it holds a clause of the wording.
bool TorchParser::line(const Ctx& c) {
  static constexpr std::string_view kClauses[] = {"free",
                                                  "reserved in total",
                                                  "cached",
                                                  "already allocated",
                                                  "total capacity",
                                                  "Process ",
                                                  "Including non-PyTorch",
                                                  "this process has",
                                                  "Of the allocated memory",
                                                  "allocated by PyTorch",
                                                  "reserved by PyTorch",
                                                  "unallocated",
                                                  "is free",
                                                  "allowed;",
                                                  "private pools",
                                                  "Tried to allocate",
                                                  "other allocations",
                                                  "max allowed",
                                                  "pool."};
  bool clause = false;
  for (std::string_view k : kClauses) clause = clause || contains(c.t, k);
  if (wrap_needs_request_ && !contains(c.t, "Tried to allocate")) clause = false;
  wrap_needs_request_ = false;
  if (!clause || wrap_lines_ >= 5) return false;
  wrap_text_ += ' ';
  wrap_text_ += c.t;
  ++wrap_lines_;
  read(current(), wrap_text_);
  if (complete(current(), wrap_text_)) {
    current().end_line = c.number;
    current().notes.push_back("wrapped over " + std::to_string(wrap_lines_) + " lines");
    const std::string keep = current().notes.back();
    wrap_text_.clear();
    wrap_lines_ = 0;
    close_block();
    // read() cleared the notes; the wrap note stays.
    if (current().notes.empty() || current().notes.back() != keep) current().notes.push_back(keep);
    messages().fold_repeat();
  }
  return true;
}

bool TorchParser::end() {
  Message& m = current();
  if (!m.figure("requested") && m.kind != MessageKind::PytorchMps) {
    // Only "CUDA out of memory." and no request after it: prose naming the error, not a message.
    messages().drop_last();
    reset();
    return false;
  }
  read(m, wrap_text_);
  if (!complete(m, wrap_text_)) {
    m.complete = false;
    m.notes.push_back("the message is cut short in the log");
  }
  reset();
  return true;
}

void TorchParser::reset() {
  wrap_text_.clear();
  wrap_lines_ = 0;
  wrap_needs_request_ = false;
}

}  // namespace oomscope::log::detail
