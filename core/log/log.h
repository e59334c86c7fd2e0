#pragma once
// The log of a failed run: every out-of-memory message that PyTorch (CUDA, HIP, MPS, memory_summary), XLA
// (GPU buffer-assignment dumps, TPU compile-time and runtime HBM/VMEM reports), TensorFlow's BFC allocator
// and the serving / communication stacks (vLLM, NCCL) print, found anywhere in a text file and read into
// figures in bytes. The kinds, their wordings and the unit rules of each framework: docs/logs.md.
//
// The reader streams the file in fixed-size chunks (bounded memory whatever the file's size), finds the
// lines that can start a message in one pass per chunk that looks for every anchor at once, and reads only
// those lines and the blocks that follow them. Line prefixes (torchrun "[rank3]:", Ray "(pid=489)", absl
// "I0309 12:51:51 ...", Docker timestamps, copied line numbers), CRLF, leftovers of ANSI colour codes, NUL
// bytes and invalid UTF-8 are tolerated; the text of a message is kept as bytes and made safe where it is
// shown (core/util/safe_text.h).

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/enum_names.h"
#include "core/util/progress.h"

namespace oomscope::log {

enum class MessageKind : std::uint8_t {
  PytorchCuda,           // "CUDA out of memory. Tried to allocate ..." (every generation of the wording)
  PytorchHip,            // "HIP out of memory. ..."
  PytorchMps,            // "MPS backend out of memory (MPS allocated: ...)"
  PytorchMemorySummary,  // a torch.cuda.memory_summary() table
  XlaGpu,                // "BufferAssignment OOM Debugging." dump, or its stats / peak buffers alone
  XlaTpu,                // "Ran out of memory in memory space hbm|vmem", "Attempting to reserve ..."
  XlaAllocation,         // "RESOURCE_EXHAUSTED: Failed to allocate request for X (NB) on device ordinal N"
  Bfc,                   // "Allocator (GPU_0_bfc) ran out of memory trying to allocate ...", its dump, Stats
  BfcWarning,            // "... The caller indicates that this is not a failure": not an OOM
  TensorflowOom,         // "OOM when allocating tensor with shape[...]"
  StreamExecutor,        // "failed to allocate X (N bytes) from device: CUDA_ERROR_OUT_OF_MEMORY"
  VllmKvCache,           // vLLM: no room for the KV cache ("# GPU blocks: 0", max seq len > KV tokens)
  Nccl,                  // NCCL "Failed to CUDA calloc N bytes" / "Cuda failure 'out of memory'"
};
inline constexpr EnumName<MessageKind> kMessageKindNames[] = {
    {MessageKind::PytorchCuda, "pytorch-cuda"},
    {MessageKind::PytorchHip, "pytorch-hip"},
    {MessageKind::PytorchMps, "pytorch-mps"},
    {MessageKind::PytorchMemorySummary, "pytorch-memory-summary"},
    {MessageKind::XlaGpu, "xla-gpu"},
    {MessageKind::XlaTpu, "xla-tpu"},
    {MessageKind::XlaAllocation, "xla-allocation"},
    {MessageKind::Bfc, "bfc"},
    {MessageKind::BfcWarning, "bfc-warning"},
    {MessageKind::TensorflowOom, "tensorflow-oom"},
    {MessageKind::StreamExecutor, "stream-executor"},
    {MessageKind::VllmKvCache, "vllm-kv-cache"},
    {MessageKind::Nccl, "nccl"},
};
static_assert(names_every_value(kMessageKindNames, MessageKind::Nccl));
const char* to_string(MessageKind k) noexcept;

// One figure as the log printed it, in bytes (or a count). `key` is stable and documented in docs/logs.md
// ("requested", "capacity", "free", "allocated", "reserved", "reserved_unallocated", ...).
struct Figure {
  std::string key;
  std::int64_t value = 0;  // bytes, or a count when `count` is set
  bool count = false;      // a number of things (blocks, tokens, allocations), not bytes
  bool exact = false;      // printed as an integer number of bytes; else rounded as printed
  std::int64_t error = 0;  // half a unit of the last printed digit (0 when exact): value is +- error
  std::string printed;     // "1.78 GiB", "4770354232 bytes"
};

// A buffer an XLA dump lists at the peak ("Peak buffers:" on GPU, "Largest program allocations in hbm:" on
// TPU), with every attribute the log gave.
struct PeakBuffer {
  int index = 0;  // "Buffer 15" / "2."
  Figure size;
  std::string op_name, op_type, source_file;
  int source_line = 0;
  std::string xla_label, shape, allocation_type;
  bool entry_parameter = false;         // "Entry Parameter Subshape"
  std::optional<Figure> unpadded;       // TPU "Unpadded size"
  std::optional<Figure> padding_extra;  // TPU "Extra memory due to padding"
  std::string padding_expansion;        // "2.0x"
  bool complete = false;                // its closing "=====" line was seen
};

// One row of a BFC bin table or chunk summary.
struct BfcChunks {
  std::int64_t chunk_bytes = 0;  // "N Chunks of size S totalling T": S
  std::int64_t count = 0;
  std::int64_t total_bytes = 0;  // read as printed (rounded)
};

struct Message {
  MessageKind kind = MessageKind::PytorchCuda;
  std::string wording;    // which generation of the wording: "torch>=2.1", "torch-1.4..1.13", "torch<=1.3",
                          // "bfc-dump", "tpu-compile", "tpu-runtime-reserve", ... (docs/logs.md)
  std::string exception;  // "torch.cuda.OutOfMemoryError", "RuntimeError", "XlaRuntimeError", ""
  std::string source;     // the rank, process or host that printed it: "rank 3", "pid 489", "" (none)
  std::string device;     // "GPU 0", "hbm", "vmem", "GPU_0_bfc", "device ordinal 0", "" (not stated)
  std::int64_t line = 0;  // 1-based line of its first line
  std::int64_t end_line = 0;
  std::uint64_t offset = 0;  // byte offset of the line that was recognised (its first line, but for a TPU
                             // report whose rows before the trigger were taken in)
  std::string first_line;    // that line without the prefix, at most 400 bytes (raw bytes: make it safe)
  std::vector<Figure> figures;
  std::vector<PeakBuffer> buffers;
  std::vector<BfcChunks> chunks;
  std::vector<std::string> hints;  // settings the message itself suggests: "max_split_size_mb",
                                   // "expandable_segments", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", ...
  std::string allocation_pool;     // MPS "private" / "shared"
  std::string op;                  // BFC "requested by op Mul", TF "node XRTExecute"
  std::string tensor_shape;        // TF "OOM when allocating tensor with shape[2048,436631]"
  bool complete = true;            // false when the log cut the message short (a dump without its end)
  std::vector<std::string> notes;  // what the reader saw of the message's shape: "starts mid-dump", ...

  const Figure* figure(std::string_view key) const noexcept;
};

// Whether the message reports a failed allocation: false for a BfcWarning (the allocator says itself that
// it is not a failure) and for a memory_summary table whose "OOMs" count is 0.
bool is_out_of_memory(const Message& m) noexcept;

struct LogFile {
  std::string path;  // as given; "-" for standard input, "" for pasted text
  std::uint64_t bytes = 0;
  std::int64_t lines = 0;
  std::int64_t long_lines = 0;    // lines over kMaxLineBytes (only their first kMaxLineBytes were read)
  bool nul_bytes = false;         // the file holds NUL bytes (read as text anyway)
  std::vector<Message> messages;  // in the order their first lines appear
  // When no message was found: what the text looks like ("a Python traceback without an out-of-memory
  // error", "text starting '...'", "binary data").
  std::string looks_like;

  // The sources (ranks / processes) in the order of their first message; "" when a message had none.
  std::vector<std::string> sources() const;
  // Index of the first message for which is_out_of_memory() holds; nullopt when there is none.
  std::optional<std::size_t> first_oom() const;
};

// Lines longer than this are read for their first kMaxLineBytes only (a 1 GB single line costs one pass).
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

// Reads a log file ("-" reads standard input). Throws oomscope::Error naming the file when it cannot be
// read; Cancelled when `stop` is requested. A file with no message is not an error: messages is empty.
LogFile read_log(const std::string& path, ProgressSink& progress, std::stop_token stop = {});
// The same over text in memory (pasted from the clipboard, a test, the fuzzer); `name` is LogFile::path.
LogFile read_log_text(std::string_view text, std::string name);

// True when `head` (the first bytes of a file) holds a line that starts an out-of-memory message. A log
// whose message comes later is still a log: file_kind treats text as a log candidate and the reader decides.
bool has_oom_marker(std::string_view head);

}  // namespace oomscope::log
