#pragma once
// Each rank's steps in a live recording, read from its samples' `step` field: how many and which steps were
// sampled, the step at which the rank's peaks were reached, and the largest sampled figures at each step.
// `diff` of two recordings aligns them by step with these (recording_diff.h); `info` gives their range.

#include <cstdint>
#include <map>
#include <optional>
#include <stop_token>
#include <string>

namespace oomscope::live {

// The largest sampled `allocated` and `reserved` of one rank at one step [derived].
struct RecordingStepPeak {
  std::optional<std::int64_t> allocated, reserved;
};

// What one rank's samples say about its steps (the `step` field) [read / derived].
struct RecordingRankSteps {
  std::int64_t samples_with_step = 0;
  std::optional<std::int64_t> first_step, last_step;  // the smallest and largest step sampled
  // The step of the sample at which the rank's peak allocated (as recording_ranks.h takes it: the largest
  // `allocated` or `peak_allocated`, the first such sample) and peak reserved were reached; none when that
  // sample carries no step.
  std::optional<std::int64_t> step_at_peak_allocated, step_at_peak_reserved;
  std::map<std::int64_t, RecordingStepPeak> by_step;
  std::size_t steps() const { return by_step.size(); }  // distinct step values sampled
};

// Replays the recording; by rank index (the ranks with samples). Throws oomscope::Error naming the file.
std::map<int, RecordingRankSteps> read_recording_steps(const std::string& path,
                                                       const std::stop_token& stop = {});

}  // namespace oomscope::live
