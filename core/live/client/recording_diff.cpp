// Two runs' live recordings compared (recording_diff.h).

#include "core/live/client/recording_diff.h"

#include <algorithm>

namespace oomscope::live {

namespace {

int key_of(const RecordingRankFigures& f, bool by_hello) { return by_hello ? *f.hello_rank : f.rank; }

void align(RecordingRankDiff& d) {
  if (!d.a || !d.b) {
    d.not_aligned = d.a ? "the rank is in A only" : "the rank is in B only";
    return;
  }
  if (d.steps_a.by_step.empty() || d.steps_b.by_step.empty()) {
    d.not_aligned = d.steps_a.by_step.empty() && d.steps_b.by_step.empty()
                        ? "neither run's samples carry a step"
                    : d.steps_a.by_step.empty() ? "A's samples carry no step"
                                                : "B's samples carry no step";
    return;
  }
  RecordingStepAlignment al;
  std::int64_t largest = -1;
  for (const auto& [step, pa] : d.steps_a.by_step) {
    auto it = d.steps_b.by_step.find(step);
    if (it == d.steps_b.by_step.end()) continue;
    if (al.common_steps++ == 0) al.first_step = step;
    al.last_step = step;
    const RecordingStepPeak& pb = it->second;
    if (!pa.allocated || !pb.allocated) continue;
    const std::int64_t change =
        *pb.allocated > *pa.allocated ? *pb.allocated - *pa.allocated : *pa.allocated - *pb.allocated;
    if (change > largest) {
      largest = change;
      al.largest_change_step = step;
      al.a_allocated = *pa.allocated;
      al.b_allocated = *pb.allocated;
    }
  }
  if (al.common_steps == 0) {
    d.not_aligned = "the runs sampled no step in common (A steps " + std::to_string(*d.steps_a.first_step) +
                    " to " + std::to_string(*d.steps_a.last_step) + ", B steps " +
                    std::to_string(*d.steps_b.first_step) + " to " + std::to_string(*d.steps_b.last_step) +
                    ")";
    return;
  }
  d.aligned = al;
}

}  // namespace

RecordingDiff diff_recordings(const std::string& a, const std::string& b, const std::stop_token& stop) {
  RecordingDiff d;
  d.a = compare_recording_ranks(a, stop);
  d.b = compare_recording_ranks(b, stop);
  std::map<int, RecordingRankSteps> steps_a = read_recording_steps(a, stop),
                                    steps_b = read_recording_steps(b, stop);

  const bool by_hello = hello_ranks_unique(d.a.ranks) && hello_ranks_unique(d.b.ranks);
  d.matched_by = by_hello ? "hello rank" : "recording index";
  if (!by_hello)
    d.matched_by_reason =
        "not every rank's hello gives a rank of its own, so ranks are matched by their index in each "
        "recording (the order the endpoints were given)";
  std::map<int, RecordingRankDiff> by_key;
  for (const RecordingRankFigures& f : d.a.ranks) {
    RecordingRankDiff& r = by_key[key_of(f, by_hello)];
    r.key = key_of(f, by_hello);
    r.a = f;
    r.steps_a = std::move(steps_a[f.rank]);
  }
  for (const RecordingRankFigures& f : d.b.ranks) {
    RecordingRankDiff& r = by_key[key_of(f, by_hello)];
    r.key = key_of(f, by_hello);
    r.b = f;
    r.steps_b = std::move(steps_b[f.rank]);
  }
  for (auto& [key, r] : by_key) {
    align(r);
    d.ranks.push_back(std::move(r));
  }
  d.cannot_tell.push_back(
      "a live recording holds each rank's sampled totals (allocated, reserved, ...) and its events, not its "
      "allocations: no stacks and no categories, so the difference cannot be told by allocation site or "
      "category; dump snapshots (torch.cuda.memory._dump_snapshot) of both runs and diff those for that");
  d.cannot_tell.push_back(
      "peaks are the largest sampled values (and the agents' peak_allocated where sent): a peak between two "
      "samples that the agent's peak_allocated does not carry is not seen");
  return d;
}

}  // namespace oomscope::live
