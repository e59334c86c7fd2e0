#include "core/allocator/replay_validation.h"

#include <cstdio>

#include "core/util/bytes.h"

namespace oomscope::allocator {

namespace {

std::string hex(std::uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

std::string describe(const SegmentEvent& e) {
  return std::string(snapshot::to_string(e.action)) + " of " +
         format_bytes_exact(static_cast<std::int64_t>(e.size)) + " B at " + hex(e.addr);
}

const char* state_name(ModelBlockState s) {
  switch (s) {
    case ModelBlockState::Allocated:
      return "allocated";
    case ModelBlockState::PendingFree:
      return "pending free";
    case ModelBlockState::Free:
      return "free";
  }
  return "?";
}

// The first difference between two segment lists (address, size, then each block's size and state).
std::string layout_difference(const std::vector<ModelSegment>& got, const std::vector<ModelSegment>& want) {
  if (got.size() != want.size())
    return "the replay ends with " + std::to_string(got.size()) + " segments, the snapshot has " +
           std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const ModelSegment& g = got[i];
    const ModelSegment& w = want[i];
    if (g.addr != w.addr || g.size != w.size)
      return "segment " + std::to_string(i) + ": the replay has " +
             format_bytes_exact(static_cast<std::int64_t>(g.size)) + " B at " + hex(g.addr) +
             ", the snapshot " + format_bytes_exact(static_cast<std::int64_t>(w.size)) + " B at " +
             hex(w.addr);
    if (g.blocks.size() != w.blocks.size())
      return "the segment at " + hex(w.addr) + " holds " + std::to_string(g.blocks.size()) +
             " blocks in the replay, " + std::to_string(w.blocks.size()) + " in the snapshot";
    for (std::size_t k = 0; k < g.blocks.size(); ++k) {
      const ModelBlock& a = g.blocks[k];
      const ModelBlock& b = w.blocks[k];
      if (a.addr != b.addr || a.size != b.size || a.state != b.state)
        return "block " + std::to_string(k) + " of the segment at " + hex(w.addr) + ": the replay has " +
               format_bytes_exact(static_cast<std::int64_t>(a.size)) + " B " + state_name(a.state) + " at " +
               hex(a.addr) + ", the snapshot " + format_bytes_exact(static_cast<std::int64_t>(b.size)) +
               " B " + state_name(b.state) + " at " + hex(b.addr);
    }
  }
  return {};
}

}  // namespace

void ValidationBuilder::candidate(std::int64_t index, std::string what) {
  if (!first_ || index < first_->trace_index) first_ = Divergence{index, std::move(what)};
}

void ValidationBuilder::alloc(std::int64_t index, std::uint64_t recorded_addr, std::uint64_t model_addr) {
  if (!on_) return;
  ++v_.allocs;
  if (recorded_addr == model_addr) {
    ++v_.allocs_at_recorded_address;
  } else if (!first_ || index < first_->trace_index) {
    candidate(index, "the alloc at entry " + std::to_string(index) + " went to " + hex(model_addr) +
                         " in the replay, to " + hex(recorded_addr) + " in the recording");
  }
}

void ValidationBuilder::model_event(const SegmentEvent& e, std::int64_t index) {
  if (!on_) return;
  model_.emplace_back(e, index);
  if (e.action == snapshot::Action::SegmentAlloc) v_.segment_allocs_replayed.push_back(e.size);
}

void ValidationBuilder::recorded_event(const snapshot::TraceEntry& e, std::int64_t index) {
  if (!on_) return;
  recorded_.emplace_back(SegmentEvent{e.action, e.addr, static_cast<std::uint64_t>(e.size), 0}, index);
  if (e.action == snapshot::Action::SegmentAlloc)
    v_.segment_allocs_recorded.push_back(static_cast<std::uint64_t>(e.size));
}

void ValidationBuilder::unexplained(std::int64_t index, const std::string& what) {
  if (!on_) return;
  const std::string line = "entry " + std::to_string(index) + ": " + what;
  if (v_.unexplained.size() < 20) v_.unexplained.push_back(line);
  candidate(index, line);
}

void ValidationBuilder::note_oom(std::int64_t index) {
  unexplained(index, "the model ran out of memory where the recording allocated");
}

Validation ValidationBuilder::finish(const std::vector<ModelSegment>& replayed,
                                     const std::vector<ModelSegment>& recorded, bool complete) {
  v_.segment_events_recorded = recorded_.size();
  v_.segment_events_replayed = model_.size();
  const std::size_t n = std::min(model_.size(), recorded_.size());
  std::size_t k = 0;
  for (; k < n; ++k) {
    const SegmentEvent& a = model_[k].first;
    const SegmentEvent& b = recorded_[k].first;
    if (a.action != b.action || a.size != b.size || a.addr != b.addr) break;
  }
  v_.segment_events_matched = k;
  if (k < n) {
    candidate(std::min(model_[k].second, recorded_[k].second),
              "segment event " + std::to_string(k) + ": the replay made a " + describe(model_[k].first) +
                  ", the recording a " + describe(recorded_[k].first));
  } else if (model_.size() > n) {
    candidate(model_[n].second,
              "the replay made a " + describe(model_[n].first) + " that the recording does not have");
  } else if (recorded_.size() > n && complete) {
    candidate(recorded_[n].second,
              "the recording has a " + describe(recorded_[n].first) + " that the replay did not make");
  }
  for (const ModelSegment& s : replayed) v_.final_segments_replayed.push_back(s.size);
  for (const ModelSegment& s : recorded) v_.final_segments_recorded.push_back(s.size);
  const std::string diff = complete ? layout_difference(replayed, recorded) : "the replay stopped early";
  v_.final_layout_matched = diff.empty();
  if (!diff.empty() && !first_) first_ = Divergence{-1, "at the end: " + diff};
  v_.first_divergence = first_;
  v_.checked = v_.allocs + v_.segment_events_recorded > 0;
  v_.matched = v_.checked && complete && !first_ && v_.final_layout_matched;
  return v_;
}

}  // namespace oomscope::allocator
