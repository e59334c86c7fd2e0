#include "core/snapshot/snapshot.h"

#include <algorithm>
#include <set>

namespace oomscope::snapshot {

const char* to_string(BlockState s) noexcept { return enum_name(kBlockStateNames, s, "?"); }

const char* to_string(Action a) noexcept { return enum_name(kActionNames, a, "?"); }

const char* describe(SnapshotFormat f) noexcept {
  switch (f) {
    case SnapshotFormat::V2_0:
      return "PyTorch 2.0 (blocks with history, no block addresses)";
    case SnapshotFormat::V2_1:
      return "PyTorch 2.1+ (block addresses and frames)";
    case SnapshotFormat::V2_3:
      return "PyTorch 2.3+ (with allocator settings)";
    case SnapshotFormat::SegmentsOnly:
      return "segments only (torch.cuda.memory_snapshot() list)";
  }
  return "?";
}

std::int64_t Snapshot::reserved_bytes() const {
  std::int64_t n = 0;
  for (const Segment& s : segments) n += s.total_size;
  return n;
}

std::int64_t Snapshot::allocated_bytes() const {
  std::int64_t n = 0;
  for (const Segment& s : segments) n += s.allocated_size;
  return n;
}

std::int64_t Snapshot::requested_active_bytes() const {
  std::int64_t n = 0;
  for (const Block& b : blocks)
    if (b.state == BlockState::ActiveAllocated) n += b.effective_requested;
  return n;
}

std::size_t Snapshot::trace_entries() const {
  std::size_t n = 0;
  for (const auto& d : device_traces) n += d.size();
  return n;
}

const EntryExtra* Snapshot::extra_of(std::int64_t device, std::int64_t index) const {
  if (device < 0 || index < 0 || entry_extras.empty()) return nullptr;
  const auto key = std::pair<std::uint64_t, std::uint64_t>(static_cast<std::uint64_t>(device),
                                                           static_cast<std::uint64_t>(index));
  auto it = std::lower_bound(entry_extras.begin(), entry_extras.end(), key, [](const EntryExtra& e, auto k) {
    return std::pair<std::uint64_t, std::uint64_t>(e.device, e.index) < k;
  });
  if (it == entry_extras.end() || it->device != key.first || it->index != key.second) return nullptr;
  return &*it;
}

std::vector<std::int64_t> Snapshot::devices() const {
  std::set<std::int64_t> d;
  for (const Segment& s : segments) d.insert(s.device);
  for (std::size_t i = 0; i < device_traces.size(); ++i)
    if (!device_traces[i].empty()) d.insert(static_cast<std::int64_t>(i));
  return {d.begin(), d.end()};
}

}  // namespace oomscope::snapshot
