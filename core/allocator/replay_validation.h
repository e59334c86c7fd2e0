#pragma once
// Collects, during a replay under the recorded settings, what the model did beside what the recording
// says the real allocator did, and finds where they first disagree.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator/allocator_ledger.h"
#include "core/allocator/caching_allocator.h"
#include "core/allocator/replay.h"

namespace oomscope::allocator {

class ValidationBuilder {
 public:
  explicit ValidationBuilder(bool on) : on_(on) {}

  void alloc(std::int64_t index, std::uint64_t recorded_addr, std::uint64_t model_addr);
  void model_event(const SegmentEvent& e, std::int64_t index);
  void recorded_event(const snapshot::TraceEntry& e, std::int64_t index);
  void unexplained(std::int64_t index, const std::string& what);
  void note_oom(std::int64_t index);
  // `complete`: the whole trace was replayed.
  Validation finish(const std::vector<ModelSegment>& replayed, const std::vector<ModelSegment>& recorded,
                    bool complete);

 private:
  void candidate(std::int64_t index, std::string what);
  bool on_;
  Validation v_;
  std::vector<std::pair<SegmentEvent, std::int64_t>> model_, recorded_;
  std::optional<Divergence> first_;
};

}  // namespace oomscope::allocator
