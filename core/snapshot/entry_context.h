#pragma once
// What a snapshot says about one allocation beyond its stack: the compiled region it was made in
// (compile_context), the user's metadata (_set_memory_metadata) and later annotations (_annotate_memory,
// 'annotate' entries), the forward stack of a backward allocation (forward_frames) and the FX node of
// generated code (fx_node_op / fx_node_name / fx_original_trace frame keys).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/snapshot/snapshot.h"

namespace oomscope::snapshot {

struct EntryContext {
  std::string compile_context;           // '' = not recorded or 'N/A' (outside compiled regions)
  std::string user_metadata;             // at the alloc
  std::vector<std::string> annotations;  // 'annotate' entries for the allocation while it was live
  std::string forward_where;             // user_frame() of forward_frames
  std::string fx;                        // "FX call_function 'linear' traced from model.py:12 in forward"
  bool empty() const {
    return compile_context.empty() && user_metadata.empty() && annotations.empty() && forward_where.empty() &&
           fx.empty();
  }
  std::string text() const;  // "compiled region '...'; metadata '...'; ..." (terminal-safe)
};

// Per device: which entries carry extras, and the 'annotate' entries by address.
class EntryContextIndex {
 public:
  EntryContextIndex(const Snapshot& snap, std::int64_t device);
  // The allocation made by raw trace entry `alloc_index` at `addr`, live until `end` (-1: to the end).
  EntryContext at(std::int64_t alloc_index, std::uint64_t addr, std::int64_t end, FramesId frames) const;
  std::size_t extras() const { return extras_.size(); }
  std::size_t annotate_entries() const { return annotate_count_; }

 private:
  const Snapshot& snap_;
  std::unordered_map<std::uint32_t, const EntryExtra*> extras_;              // raw index -> extra
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> annotates_;  // addr -> raw indices
  std::size_t annotate_count_ = 0;
};

// The FX node of the innermost frame that names one, or "".
std::string fx_frame_text(const Snapshot& snap, FramesId frames);
// Frames of the snapshot that name an FX node.
std::size_t fx_frame_count(const Snapshot& snap);

}  // namespace oomscope::snapshot
