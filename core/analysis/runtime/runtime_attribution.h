#pragma once
// Naming live memory by the host event that allocated it, and listing what the host did between two
// executions. Reads the generic host events of /host:CPU through HostTimeline, a view that tests can build
// by hand (EventRecords + a name function) and the report builds over the capture without copying events.

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

struct HostTimeline {
  // Events of each /host:CPU line; index = MemoryEvent::line. Sorted by start, as read_capture() leaves them
  // (host_events_between relies on it; the enclosing-span sweep checks and sorts an index when needed).
  std::vector<std::span<const capture::EventRecord>> lines;
  std::function<std::string_view(std::int64_t metadata_id)> name;
  // Per line, whether it is sorted by start and its longest event, found on first use: the enclosing-span
  // sweep then starts at the first event that can still be open at the earliest query instead of at the
  // line's first event (a long capture's lines hold millions). Filled lazily, so a HostTimeline is not
  // shared between threads.
  struct LineFacts {
    bool known = false;
    bool sorted = false;
    std::int64_t longest_ps = 0;
  };
  mutable std::vector<LineFacts> facts;
};

// The /host:CPU plane of a capture as a HostTimeline (no copies: views of its lines); host_plane is set to
// that plane's index. Without a /host:CPU plane, an empty timeline whose names are all "".
HostTimeline host_timeline(const capture::Capture& capture, std::uint32_t& host_plane);

// Counts of host event names whose start lies in [t0, t1), on every line, most frequent first (ties by
// name). Allocator events are left out (the runtime section reports them). total = all events counted.
std::vector<NameCount> host_events_between(const HostTimeline& timeline, std::int64_t t0, std::int64_t t1,
                                           std::int64_t& total);

// Groups the live allocations `live` (indices into memory) by the host event that made them:
//   inside an execution span on the same line -> "outputs of <module> execution <number>";
//   else the innermost enclosing host span on the allocating line (Python-tracer "$..." spans only when
//   nothing else encloses it) -> its name;
//   else "no enclosing host event".
// bytes_in_use is the allocator's figure at that moment; what the live allocations do not explain is the
// "allocated before the capture started" residual. Groups are sorted by bytes, largest first.
//
// An allocation's group does not depend on when it is asked about, so callers that group the live memory of
// many executions (the plan timeline) pass one LiveLabelCache for the same memory, executions, host plane
// and timeline: each allocation is then named once, not once per execution it outlives (long-lived
// allocations made the naming a pass over the whole host line per execution).
struct LiveLabelCache {
  std::unordered_map<std::size_t, std::string> labels;   // memory index -> group label
  std::unordered_map<std::size_t, std::string> modules;  // memory index -> execution label (outputs only)
  std::map<std::uint32_t, std::vector<const RuntimeExecution*>> executions_on_line;  // sorted by start
  bool executions_known = false;
};
std::vector<LiveGroup> group_live_by_host_event(std::span<const capture::MemoryEvent> memory,
                                                std::span<const std::size_t> live,
                                                std::span<const RuntimeExecution> executions,
                                                std::uint32_t host_plane, const HostTimeline& timeline,
                                                std::int64_t bytes_in_use, LiveLabelCache* cache = nullptr);

}  // namespace oomscope::analysis
