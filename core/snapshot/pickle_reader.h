#pragma once
// A safe reader of Python pickle streams holding only data (the PyTorch allocator snapshot and anything
// shaped like it). It builds a PickleTree and never runs pickle code: every opcode that names or calls a
// Python callable (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID,
// EXT1/2/4, out-of-band buffers) is refused with its name and byte offset. Protocols 2 to 5 are accepted,
// including the C++ (TorchScript) pickler's flavour (BINPUT after a complete container, MARK/SETITEMS on
// empty dicts). Lengths are checked against the bytes left, memo references against what was stored,
// open MARKs against a nesting limit; a cut file is a Truncated error saying where it ends.

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "core/capture/mapped_file.h"
#include "core/snapshot/pickle_tree.h"
#include "core/util/progress.h"

namespace oomscope::snapshot {

// Open MARKs allowed at once (real snapshots need 9 at most).
inline constexpr std::size_t kMaxPickleNesting = 64;

// Optional: lets the caller keep small dicts as its own compact records instead of generic items (the
// snapshot reader turns the millions of trace entries into its model this way, so that a big trace is
// not held twice). Offered at the first SETITEMS of an empty dict with its key/value refs (2n of them).
class DictRecordSink {
 public:
  virtual ~DictRecordSink() = default;
  // True when the sink took the pairs as record `record` (then PickleTree::record_of gives it back).
  virtual bool take(const PickleTree& tree, const Ref* pairs, std::size_t count, std::uint32_t& record) = 0;
};

struct PickleSource {
  const std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
  std::shared_ptr<const void> keep;  // owns the bytes for the tree's lifetime
  std::function<void(std::uint64_t end)>
      release;  // may drop [0, end) from memory (it is faulted back if read)
  // With a DictRecordSink: read the record dicts' usual shape by the fast path (record_dict_decoder.h).
  // The tree and the errors are the same without it; tests turn it off to compare.
  bool fast_records = true;
  std::uint64_t* fast_records_taken = nullptr;  // if set: how many records the fast path read
};

// Parses the whole stream up to STOP (bytes after STOP, such as memory_viz's NUL padding, are ignored).
// Throws oomscope::Error naming `name` (Truncated, Damaged, NotACapture) or oomscope::Cancelled.
std::shared_ptr<const PickleTree> parse_pickle(PickleSource source, const std::string& name,
                                               ProgressSink& progress, std::stop_token stop = {},
                                               DictRecordSink* sink = nullptr);
std::shared_ptr<const PickleTree> parse_pickle(std::shared_ptr<const capture::MappedFile> file,
                                               const std::string& name, ProgressSink& progress,
                                               std::stop_token stop = {}, DictRecordSink* sink = nullptr);

// Faults in, with one system call, the next few MiB of a growing table's reserved storage (bytes
// [used, capacity) of the block at `data`) before its pushes write them; `warmed` is where the last call
// stopped. For the reader's tables and a DictRecordSink's records: see pickle_reader.cpp for why.
void warm_reserved(const void* data, std::size_t used_bytes, std::size_t capacity_bytes,
                   std::uintptr_t& warmed);

// The opcode's name as pickletools spells it ("GLOBAL", "SHORT_BINUNICODE"), or "" for a byte that is no
// opcode.
const char* pickle_opcode_name(std::uint8_t op);

}  // namespace oomscope::snapshot
