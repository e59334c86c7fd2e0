#pragma once
// Where a replay starts: the snapshot's segments of one device with everything its trace did undone (the
// backwards reconstruction of core/snapshot/allocator_state.h), as model segments. A trace that begins
// before any segment existed starts on an empty device. Segments of private pools (CUDA graphs, MemPool)
// are set apart: the model serves the default pools only.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator/caching_allocator.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

struct AddressRange {
  std::uint64_t begin = 0, end = 0;
};

struct StartState {
  std::vector<ModelSegment> segments;       // default pools, address order
  std::vector<AddressRange> private_pools;  // segments of other pools (start or end), never modelled
  std::size_t outside_segments = 0;  // re-created blocks that fell in no segment (from allocator_state)
  bool empty_device = false;         // no segment existed before the trace
  std::vector<std::string> notes;
};

StartState build_start_state(const snapshot::Snapshot& snap, std::int64_t device);

// The snapshot's own final segments of the device in the default pools, as model segments (for the
// validation's comparison of the final layout).
std::vector<ModelSegment> recorded_final_segments(const snapshot::Snapshot& snap, std::int64_t device);

bool in_ranges(const std::vector<AddressRange>& ranges, std::uint64_t addr);

}  // namespace oomscope::allocator
