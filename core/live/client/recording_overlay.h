#pragma once
// Two live recordings on one axis (the Live page's "Compare with Recording"): a rank's allocated and
// reserved bytes of run A and run B, aligned by the trainer's step when that rank's samples carry one in
// both runs and by the time since each run's first sample otherwise, with B shifted by a number of steps
// or seconds; downsampled to a few hundred points with every bucket's maximum kept at its own x, so each
// peak is drawn exactly. Below the chart, the gap as far as a recording can tell: each rank's peaks in A and
// B and their change, and the OOM events of each. Recordings carry device totals, not allocation stacks,
// so no allocation site can be named (`sites_note` says so).

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/live/client/recording_ranks.h"
#include "core/live/client/store.h"

namespace oomscope::live {

// One recording read for the overlay: its samples (a Store, as the Live page holds them) and its ranks
// compared as `report RECORDING` compares them.
struct OverlayRun {
  std::string path;
  std::shared_ptr<const Store> store;
  RecordingComparison ranks;
};

// Replays `path`. Throws oomscope::Error naming the file when it is not a live recording (a snapshot, a
// trace or anything else is refused before it is read), is damaged or holds no sample.
OverlayRun read_overlay_run(const std::string& path, const std::stop_token& stop = {});

enum class OverlayAxis { Step, Time };

struct OverlayOptions {
  int rank = 0;        // the rank index drawn, in both runs
  double shift_b = 0;  // added to B's x: steps on a step axis, seconds on a time axis
  int buckets = 400;   // points per line at most
};

struct OverlayPoint {
  double x = 0;  // the step, or seconds since the run's first sample (B: plus the shift)
  std::int64_t bytes = 0;
};

struct OverlayLine {
  std::vector<OverlayPoint> allocated, reserved;  // x rising; empty when the run has no such field
  std::optional<std::int64_t> peak_allocated, peak_reserved;  // of the drawn rank [derived], exact
};

struct OverlayRankGap {  // one rank index present in A or B
  int rank = 0;
  std::optional<std::int64_t> peak_allocated_a, peak_allocated_b, peak_reserved_a, peak_reserved_b;
  int ooms_a = 0, ooms_b = 0;
  // B minus A [derived]; none unless both runs have the figure.
  std::optional<std::int64_t> allocated_change() const { return change(peak_allocated_a, peak_allocated_b); }
  std::optional<std::int64_t> reserved_change() const { return change(peak_reserved_a, peak_reserved_b); }

 private:
  static std::optional<std::int64_t> change(const std::optional<std::int64_t>& a,
                                            const std::optional<std::int64_t>& b) {
    return a && b ? std::optional(*b - *a) : std::nullopt;
  }
};

struct RecordingOverlay {
  OverlayAxis axis = OverlayAxis::Time;
  std::string axis_note;  // why this axis: "aligned by step: ..." or "aligned by time: ..."
  int rank = 0;
  double shift_b = 0;
  double x_min = 0, x_max = 0;  // over both lines, B shifted
  OverlayLine a, b;
  std::vector<int> ranks;              // the rank indices either run has samples of, rising
  std::vector<OverlayRankGap> gap;     // by rank index
  std::vector<std::string> sentences;  // the gap in words, each with its [read] / [derived] tag
  std::string sites_note;              // why there is no site table
};

// Throws oomscope::Error (Empty, naming the runs) when neither run has a sample of opts.rank.
RecordingOverlay overlay_recordings(const OverlayRun& a, const OverlayRun& b, const OverlayOptions& opts,
                                    const std::stop_token& stop = {});

}  // namespace oomscope::live
