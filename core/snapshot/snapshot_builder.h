#pragma once
// Turns a parsed pickle into the Snapshot model (every version of docs/snapshot-format.md section 2).

#include <array>
#include <stop_token>
#include <utility>
#include <vector>

#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/pickle_tree.h"
#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

namespace oomscope::snapshot {

// Takes trace-entry dicts (those with an 'action' and only known keys) straight into TraceEntry records
// while the pickle is parsed. `frames` holds the frames list's node index + 1 until build_snapshot maps it.
class TraceEntrySink final : public DictRecordSink {
 public:
  explicit TraceEntrySink(Snapshot& snap) : snap_(snap) {}
  bool take(const PickleTree& tree, const Ref* pairs, std::size_t count, std::uint32_t& record) override;
  std::vector<TraceEntry> records;
  std::size_t compile_context_entries = 0;  // records taken with compile_context 'N/A'

 private:
  int field_of(const PickleTree& tree, Ref key);
  Snapshot& snap_;
  std::vector<std::pair<std::uint64_t, int>> keys_;        // str node -> field
  std::vector<std::pair<std::uint64_t, Action>> actions_;  // str node -> action
  std::uintptr_t warmed_ = 0;                              // warm_reserved() of records
  // The last field and action seen per key slot: a trace's keys are a few memoized strs, met millions
  // of times (~0 is no node).
  std::array<std::pair<std::uint64_t, int>, 32> key_cache_ = filled_key_cache();
  std::pair<std::uint64_t, Action> last_action_{~0ull, Action::Other};
  static std::array<std::pair<std::uint64_t, int>, 32> filled_key_cache() {
    std::array<std::pair<std::uint64_t, int>, 32> c;
    c.fill({~0ull, 0});
    return c;
  }
};

// The index of `stream` in snap.streams, added when new (at most 65,536 streams).
std::uint16_t stream_index(Snapshot& snap, std::int64_t stream);
Action action_named(std::string_view name);

// out.path must be set (errors name it). Throws oomscope::Error (NotACapture, Damaged) or Cancelled.
// `sink`: the one given to parse_pickle, if any (its records are moved into the model).
void build_snapshot(const PickleTree& tree, Snapshot& out, ProgressSink& progress, std::stop_token stop = {},
                    TraceEntrySink* sink = nullptr);

}  // namespace oomscope::snapshot
