#pragma once
// Two runs' live recordings compared (`diff A.oomlive B.oomlive`): each recording's ranks are compared as
// one job (recording_ranks.h), then the ranks of A and B are matched and, per rank, the peaks, capacity,
// OOM events and steps of both are laid side by side, aligned by step where both carry a step counter.
// A recording holds sampled totals and events, not allocations: there are no stacks and no categories, and
// the result says so (cannot_tell) instead of giving an empty site table. docs/pytorch-files.md, "diff".

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/live/client/recording_ranks.h"
#include "core/live/client/recording_steps.h"

namespace oomscope::live {

// A and B laid over each other by step: the steps both ranks sampled.
struct RecordingStepAlignment {
  std::int64_t common_steps = 0, first_step = 0, last_step = 0;
  // The common step where the largest sampled allocated of B differs most from A's (the first such step);
  // none when no common step has `allocated` in both.
  std::optional<std::int64_t> largest_change_step;
  std::int64_t a_allocated = 0, b_allocated = 0;
};

struct RecordingRankDiff {
  int key = 0;                               // the rank both are matched by (RecordingDiff::matched_by)
  std::optional<RecordingRankFigures> a, b;  // none: the rank is in one recording only
  RecordingRankSteps steps_a, steps_b;
  std::optional<RecordingStepAlignment> aligned;
  std::string not_aligned;  // why there is no alignment ("" when aligned)
};

struct RecordingDiff {
  RecordingComparison a, b;              // each run's ranks compared as one job, with its verdict
  std::string matched_by;                // "hello rank" or "recording index"
  std::string matched_by_reason;         // why the recording index, when it is
  std::vector<RecordingRankDiff> ranks;  // by key
  std::vector<std::string> cannot_tell;  // what a recording cannot tell, one sentence each
};

// Replays both recordings (each twice: once for recording_ranks.h's figures, once for the steps) and
// compares them. Throws oomscope::Error naming the file that is not a recording, is damaged, or holds no
// sample.
RecordingDiff diff_recordings(const std::string& a, const std::string& b, const std::stop_token& stop = {});

}  // namespace oomscope::live
