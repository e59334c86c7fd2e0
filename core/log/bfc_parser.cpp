// TensorFlow / XLA BFC allocator messages (tensorflow/core/common_runtime/bfc_allocator.cc, later
// tsl/framework/bfc_allocator.cc). A failure: "Allocator (GPU_0_bfc) ran out of memory trying to allocate X
// (rounded to N)requested by op OP", a TF_GPU_ALLOCATOR=cuda_malloc_async hint, "Current allocation summary
// follows.", then the dump: "BFCAllocator dump for GPU_0_bfc", "Bin (256): Total Chunks: ..." rows, chunk
// lines, "N Chunks of size S totalling T", "Sum Total of in-use chunks: X", "Stats:" with Limit, InUse,
// MaxInUse, NumAllocs, MaxAllocSize, Reserved, PeakReserved, LargestFreeBlock (exact integers), a picture of
// '*' and '_', and the op's "OOM when allocating tensor with shape[...]". The warning "... ran out of memory
// trying to allocate X with freed_by_count=0. The caller indicates that this is not a failure, ..." (and the
// TF 1.x "Ran out of memory trying to allocate X. The caller indicates that this is not a failure") is not an
// out-of-memory error: the allocation was retried and the run went on. The stream executor's "failed to
// allocate X (N bytes) from device: CUDA_ERROR_OUT_OF_MEMORY" is read here too.

#include "core/log/detail/bfc_parser.h"

#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

struct StatKey {
  std::string_view label, key;
  bool bytes;
};
constexpr StatKey kStats[] = {
    {"Limit:", "limit", true},
    {"InUse:", "in_use", true},
    {"MaxInUse:", "max_in_use", true},
    {"NumAllocs:", "num_allocs", false},
    {"MaxAllocSize:", "max_alloc_size", true},
    {"Reserved:", "reserved", true},
    {"PeakReserved:", "peak_reserved", true},
    {"LargestFreeBlock:", "largest_free_block", true},
};

bool stat_row(std::string_view t) {
  for (const StatKey& s : kStats)
    if (t.starts_with(s.label)) {
      const std::string_view v = trim(t.substr(s.label.size()));
      return !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
    }
  return false;
}

bool dump_line(std::string_view t) {
  return (t.starts_with("Bin (") && contains(t, "Total Chunks")) ||
         (contains(t, " Chunks of size ") && contains(t, "totalling")) ||
         t.starts_with("Sum Total of in-use chunks") || t.starts_with("BFCAllocator dump for") ||
         (t.starts_with("Limit:") && stat_row(t));
}

std::string allocator_name(std::string_view t) {
  const auto a = after(t, "Allocator (");
  if (!a) return "";
  return std::string(a->substr(0, std::min<std::size_t>(a->find(')'), 64)));
}

}  // namespace

bool BfcParser::start(const Ctx& c) {
  if (std::size_t at = c.text.find("an out of memory trying to allocate "); at != std::string_view::npos) {
    const bool warning = contains(c.text, "not a failure") || contains(c.text, "freed_by_count");
    Message& m = messages().begin(warning ? MessageKind::BfcWarning : MessageKind::Bfc, c);
    m.device = allocator_name(c.text);
    const std::string_view rest = c.text.substr(at + 36);
    add(m, read_size(rest, "requested"));
    add(m, integer_after(rest, "(rounded to ", "rounded", true));
    m.wording = warning ? "not-a-failure" : "bfc";
    if (const auto op = after(rest, "requested by op")) {
      const std::string_view name = trim(*op);
      m.op = std::string(name.substr(0, std::min<std::size_t>(name.find(' '), 200)));
    }
    if (!warning) open_block();
    return true;
  }
  if (const std::size_t at = c.text.find("OOM when allocating tensor"); at != std::string_view::npos) {
    std::string shape;
    if (const auto s = after(c.text.substr(at), "shape")) shape = std::string(s->substr(0, s->find(']') + 1));
    // The op's error after a BFC dump of the same process belongs to that dump's message.
    for (std::size_t i = messages().all().size(); i-- > 0 && i + 3 > messages().all().size();) {
      Message& prev = messages().all()[i];
      if (prev.kind == MessageKind::Bfc && prev.source == c.source && prev.tensor_shape.empty() &&
          c.number - prev.end_line < 300) {
        prev.tensor_shape = shape;
        prev.notes.push_back("the op's error at line " + std::to_string(c.number));
        return true;
      }
    }
    Message& m = messages().begin(MessageKind::TensorflowOom, c);
    m.tensor_shape = shape;
    m.exception = exception_before(c.text, at);
    m.wording = "oom-when-allocating";
    if (const auto d = after(c.text, "/device:")) m.device = std::string(d->substr(0, d->find(' ')));
    if (const auto a = after(c.text, "by allocator "))
      m.device += " " + std::string(a->substr(0, a->find(' ')));
    m.device = std::string(trim(m.device));
    return true;
  }
  if (const std::size_t at = c.text.find("CUDA_ERROR_OUT_OF_MEMORY"); at != std::string_view::npos) {
    const auto fa = after(c.text, "failed to allocate ");
    if (!fa) return false;
    Message& m = messages().begin(MessageKind::StreamExecutor, c);
    m.wording = "cuda-error-out-of-memory";
    std::optional<Figure> f = read_size(*fa, "requested");
    if (const auto exact = after(*fa, "("); exact && f) {
      if (const auto n = read_number(*exact);
          n && n->is_integer && exact->substr(n->used).starts_with(" bytes")) {
        f->printed += " (" + std::to_string(n->integer) + " bytes)";
        f->value = n->integer;
        f->exact = true;
        f->error = 0;
      }
    }
    add(m, std::move(f));
    return true;
  }
  if (!dump_line(c.t)) return false;
  Message& m = messages().begin(MessageKind::Bfc, c);
  m.wording = "bfc";
  m.complete = false;
  m.notes.emplace_back("starts mid-dump: the failing request line is not in the log");
  open_block();
  line(c);
  return true;
}

bool BfcParser::line(const Ctx& c) {
  Message& m = current();
  const std::string_view t = c.t;
  if (contains(t, "TF_GPU_ALLOCATOR=cuda_malloc_async")) {
    m.hints.emplace_back("TF_GPU_ALLOCATOR=cuda_malloc_async");
    return true;
  }
  if (t.starts_with("Current allocation summary follows") || t == "Stats:" || t.starts_with("Bin for ") ||
      t.starts_with("Chunk at ") || t.starts_with("Free at ") || t.starts_with("InUse at ") ||
      t.starts_with("Next region of size") || t.starts_with("Summary of in-use Chunks") ||
      (t.starts_with("Size: ") && contains(t, "Requested Size")) ||
      (t.starts_with("Bin (") && contains(t, "Chunks")))
    return true;
  if (t.find_first_not_of("*_") == std::string_view::npos) return true;  // the memory picture
  if (t.starts_with("BFCAllocator dump for ")) {
    if (m.device.empty()) m.device = std::string(trim(t.substr(22)));
    return true;
  }
  if (const auto chunks = t.find(" Chunks of size ");
      chunks != std::string_view::npos && contains(t, "totalling")) {
    BfcChunks row;
    if (const auto n = read_number(t); n && n->is_integer) row.count = n->integer;
    if (const auto s = read_number(t.substr(chunks + 16)); s && s->is_integer) row.chunk_bytes = s->integer;
    if (const auto total = size_after(t, "totalling ", "")) row.total_bytes = total->value;
    m.chunks.push_back(row);
    return true;
  }
  if (t.starts_with("Sum Total of in-use chunks")) {
    add(m, size_after(t, ": ", "in_use_chunks_total"));
    return true;
  }
  if (t.starts_with("total_region_allocated_bytes_")) {
    add(m, integer_after(t, "total_region_allocated_bytes_: ", "region_allocated", true));
    add(m, integer_after(t, "memory_limit_: ", "memory_limit", true));
    add(m, integer_after(t, "available bytes: ", "available", true));
    return true;
  }
  for (const StatKey& s : kStats) {
    if (!t.starts_with(s.label) || !stat_row(t)) continue;
    add(m, integer_after(t, s.label, std::string(s.key), s.bytes));
    return true;
  }
  if (contains(t, "OOM when allocating tensor")) {
    if (const auto s = after(t, "shape")) m.tensor_shape = std::string(s->substr(0, s->find(']') + 1));
    return true;
  }
  return false;
}

}  // namespace oomscope::log::detail
