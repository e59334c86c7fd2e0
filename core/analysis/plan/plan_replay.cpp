#include "core/analysis/plan/detail/plan_replay.h"

#include <algorithm>

namespace oomscope::analysis::detail {
namespace {

enum EventKind : int { kAlloc = 0, kFree = 1, kShareWith = 2 };

class Replayer {
 public:
  Replayer(const PlanIndex& index, ReplayResult& out)
      : index_(index),
        out_(out),
        refcount_(index.buffer_count(), 0),
        canonical_(index.buffer_count(), -1),
        open_span_(index.buffer_count(), -1),
        allocation_seen_(static_cast<std::size_t>(index.assignment().buffer_allocations_size()), 0) {}

  void run(std::span<const xla::HeapSimulatorTrace* const> traces, bool filter_color, std::int64_t color,
           std::optional<std::pair<std::int64_t, std::int64_t>> peak_range) {
    std::size_t total = 0;
    for (const auto* trace : traces) total += static_cast<std::size_t>(trace->events_size());
    out_.heap_after.reserve(total);
    out_.events.reserve(total);
    for (const auto* trace : traces) {
      for (const auto& event : trace->events()) {
        const std::int32_t slot = index_.slot_of(event.buffer_id());
        if (filter_color && slot >= 0 && index_.buffer(slot).color() != color) {
          ++out_.skipped_other_color;
          continue;
        }
        step(event, slot);
        out_.events.push_back(&event);
        out_.heap_after.push_back(heap_);
      }
    }
    if (peak_range) {
      out_.peak_event = -1;
      out_.peak_bytes = 0;
      const auto n = static_cast<std::int64_t>(out_.heap_after.size());
      for (std::int64_t i = std::max<std::int64_t>(peak_range->first, 0); i <= peak_range->second && i < n;
           ++i)
        if (out_.peak_event < 0 || out_.heap_after[static_cast<std::size_t>(i)] > out_.peak_bytes) {
          out_.peak_event = i;
          out_.peak_bytes = out_.heap_after[static_cast<std::size_t>(i)];
        }
    }
    // Only the spans open at the peak event are wanted; spans are ordered by start already.
    if (out_.peak_event >= 0) {
      for (const LiveSpan& span : spans_) {
        if (span.start > out_.peak_event) break;
        if (span.end < 0 || span.end > out_.peak_event) out_.live_at_peak.push_back(span);
      }
    }
    for (std::size_t i = 0; i < allocation_seen_.size(); ++i)
      if (allocation_seen_[i]) out_.allocations_seen.push_back(static_cast<std::int32_t>(i));
  }

 private:
  std::int32_t root_of(std::int32_t slot) const {
    // Canonical chains are short, but a malformed trace could loop; cap the walk at the buffer count.
    std::size_t guard = canonical_.size();
    while (canonical_[static_cast<std::size_t>(slot)] >= 0 && guard-- > 0)
      slot = canonical_[static_cast<std::size_t>(slot)];
    return slot;
  }

  void step(const xla::HeapSimulatorTrace::Event& event, std::int32_t slot) {
    if (slot < 0) {
      ++out_.unknown_buffers;
      return;
    }
    const std::int32_t allocation = index_.allocation_of(slot);
    if (allocation >= 0) allocation_seen_[static_cast<std::size_t>(allocation)] = 1;
    const std::int64_t position = static_cast<std::int64_t>(out_.events.size());
    switch (event.kind()) {
      case kAlloc: {
        const std::int32_t root = root_of(slot);
        if (refcount_[static_cast<std::size_t>(root)]++ > 0) ++out_.realloc_live;
        // XProf adds the ALLOCated buffer itself (it has no canonical in a well-formed trace).
        increase(slot, slot, position);
        break;
      }
      case kFree: {
        const std::int32_t root = root_of(slot);
        auto& count = refcount_[static_cast<std::size_t>(root)];
        --count;
        if (count < 0) {
          ++out_.extra_frees;
          count = 0;
        } else if (count == 0) {
          decrease(root, position);
        }
        break;
      }
      case kShareWith: {
        const std::int32_t canonical = index_.slot_of(event.share_with_canonical_id());
        if (canonical < 0) {
          ++out_.unknown_buffers;
          break;
        }
        const std::int32_t root = root_of(canonical);
        if (root == slot) break;  // sharing with itself would make a cycle
        canonical_[static_cast<std::size_t>(slot)] = canonical;
        if (++refcount_[static_cast<std::size_t>(root)] == 1) increase(root, slot, position);
        break;
      }
      default:
        ++out_.unknown_kinds;
        break;
    }
  }

  void increase(std::int32_t root, std::int32_t display, std::int64_t position) {
    add_bytes(heap_, index_.buffer(root).size());
    LiveSpan span;
    span.root_slot = root;
    span.display_slot = display;
    span.start = position;
    span.prev_open = open_span_[static_cast<std::size_t>(root)];
    open_span_[static_cast<std::size_t>(root)] = static_cast<std::int32_t>(spans_.size());
    spans_.push_back(span);
    if (heap_ > out_.peak_bytes) {
      out_.peak_bytes = heap_;
      out_.peak_event = position;
    }
  }

  void decrease(std::int32_t root, std::int64_t position) {
    sub_bytes(heap_, index_.buffer(root).size());
    if (heap_ < 0) ++out_.negative_heap;
    // Like XProf's list::remove, every open entry of this buffer leaves the live list.
    std::int32_t open = open_span_[static_cast<std::size_t>(root)];
    while (open >= 0) {
      spans_[static_cast<std::size_t>(open)].end = position;
      open = spans_[static_cast<std::size_t>(open)].prev_open;
    }
    open_span_[static_cast<std::size_t>(root)] = -1;
  }

  const PlanIndex& index_;
  ReplayResult& out_;
  std::int64_t heap_ = 0;
  std::vector<std::int64_t> refcount_;
  std::vector<std::int32_t> canonical_;
  std::vector<std::int32_t> open_span_;
  std::vector<char> allocation_seen_;
  std::vector<LiveSpan> spans_;
};

}  // namespace

std::vector<std::int64_t> trace_peaks(const PlanIndex& index,
                                      std::span<const xla::HeapSimulatorTrace* const> traces) {
  // Same counting rules as Replayer, peak only. The per-buffer arrays are allocated once and only the
  // entries a trace touched are reset, so many small traces over a big module stay cheap.
  std::vector<std::int64_t> refcount(index.buffer_count(), 0);
  std::vector<std::int32_t> canonical(index.buffer_count(), -1);
  std::vector<std::int32_t> touched;
  std::vector<std::int64_t> peaks;
  peaks.reserve(traces.size());
  auto root_of = [&](std::int32_t slot) {
    std::size_t guard = canonical.size();
    while (canonical[static_cast<std::size_t>(slot)] >= 0 && guard-- > 0)
      slot = canonical[static_cast<std::size_t>(slot)];
    return slot;
  };
  for (const auto* trace : traces) {
    std::int64_t heap = 0, peak = 0;
    for (const auto& event : trace->events()) {
      const std::int32_t slot = index.slot_of(event.buffer_id());
      if (slot < 0) continue;
      touched.push_back(slot);
      if (event.kind() == kAlloc) {
        ++refcount[static_cast<std::size_t>(root_of(slot))];
        add_bytes(heap, index.buffer(slot).size());
      } else if (event.kind() == kFree) {
        const std::int32_t root = root_of(slot);
        auto& count = refcount[static_cast<std::size_t>(root)];
        if (--count < 0)
          count = 0;
        else if (count == 0)
          sub_bytes(heap, index.buffer(root).size());
      } else if (event.kind() == kShareWith) {
        const std::int32_t target = index.slot_of(event.share_with_canonical_id());
        if (target < 0) continue;
        const std::int32_t root = root_of(target);
        if (root == slot) continue;
        touched.push_back(root);  // its count changes although it may never be an event's buffer here
        canonical[static_cast<std::size_t>(slot)] = target;
        if (++refcount[static_cast<std::size_t>(root)] == 1) add_bytes(heap, index.buffer(root).size());
      }
      peak = std::max(peak, heap);
    }
    peaks.push_back(peak);
    for (std::int32_t slot : touched) {
      refcount[static_cast<std::size_t>(slot)] = 0;
      canonical[static_cast<std::size_t>(slot)] = -1;
    }
    touched.clear();
  }
  return peaks;
}

ReplayResult replay_traces(const PlanIndex& index, std::span<const xla::HeapSimulatorTrace* const> traces,
                           bool filter_color, std::int64_t color,
                           std::optional<std::pair<std::int64_t, std::int64_t>> peak_range) {
  ReplayResult result;
  Replayer(index, result).run(traces, filter_color, color, peak_range);
  return result;
}

}  // namespace oomscope::analysis::detail
