#pragma once
// Two runs on one axis: the Active Memory Timelines of two snapshots (A the baseline, B the changed run) as
// downsampled series on a shared x axis, aligned by step when both carry ProfilerStep#N markers
// (external_annotations), else by time from each trace's first entry, else by trace entry; the user may
// shift B further (x_offset). Series are downsampled here, every peak kept exactly, so the chart only draws.

#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_analysis.h"
#include "core/util/enum_names.h"

namespace oomscope::snapshot {

enum class OverlayAxis : std::uint8_t { Step, Time, Entry };
inline constexpr EnumName<OverlayAxis> kOverlayAxisNames[] = {
    {OverlayAxis::Step, "step"}, {OverlayAxis::Time, "time"}, {OverlayAxis::Entry, "entry"}};
static_assert(names_every_value(kOverlayAxisNames, OverlayAxis::Entry));

struct StepMarker {
  std::int64_t step = 0;     // N of ProfilerStep#N
  std::int64_t time_us = 0;  // its START
};

struct OverlayPoint {
  double x = 0;  // µs since the run's first trace entry (Time, Step), or the raw trace index (Entry)
  std::int64_t bytes = 0;
};

struct OverlayRun {
  std::string path;
  std::int64_t device = 0;
  bool has_time = false;  // every trace entry of the device has a time_us
  std::int64_t first_time_us = -1;
  std::vector<StepMarker> steps;     // in time order, on the run's device
  std::vector<OverlayPoint> series;  // before the alignment offset; min and max of each bucket, peak exact
  std::int64_t peak_bytes = 0;
  double peak_x = 0;
};

struct RunOverlay {
  OverlayRun a, b;
  OverlayAxis axis = OverlayAxis::Entry;
  double b_offset = 0;             // added to B's x to lay it on A's axis
  std::int64_t aligned_step = -1;  // Step: the first step number both carry
  std::string why;                 // the alignment in one sentence, true for the files at hand
};

// ProfilerStep#N START markers of `device`, in time order.
std::vector<StepMarker> step_markers(const Snapshot& s, std::int64_t device);

// Aligns B on the first ProfilerStep#N that both runs carry (axis Step, b_offset, why naming `runs`, "runs"
// or "traces"); false, and `o` untouched, when they carry none in common.
bool align_on_common_step(RunOverlay& o, const char* runs);

// `points` bounds each series (at least 4).
RunOverlay overlay_runs(const Snapshot& a, const SnapshotReport& ra, const Snapshot& b,
                        const SnapshotReport& rb, std::size_t points = 2000);

}  // namespace oomscope::snapshot
