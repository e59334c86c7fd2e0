#pragma once
// Per-allocator view of the memory events: capacity, peak, bytes in use over time, and the pairing of
// allocations with frees by chunk address. Works on plain vectors so that tests can build inputs by hand.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

// Allocator events sorted by time (as Capture::memory_events() gives them); names[i] is allocator i.
// series_points bounds the downsampled series of each allocator.
std::vector<AllocatorRuntime> analyze_allocators(std::span<const capture::MemoryEvent> events,
                                                 std::span<const std::string> names,
                                                 std::size_t series_points = 1000);

// Bytes in use on `allocator` just before time t (events at exactly t are not yet applied). Before the
// allocator's first event, the in-use figure is derived backwards from that event.
std::int64_t bytes_in_use_before(std::span<const capture::MemoryEvent> events, std::uint32_t allocator,
                                 std::int64_t t);

// The allocations of `allocator` made before t and not freed before t, in time order (indices into events).
std::vector<std::size_t> live_allocations_before(std::span<const capture::MemoryEvent> events,
                                                 std::uint32_t allocator, std::int64_t t);

}  // namespace oomscope::analysis
