#pragma once
// external_annotations cut the trace into windows: each record_function scope (ProfilerStep#N, the
// optimizer's step and zero_grad, a DataLoader's __next__, user scopes) has a START and an END time on the
// trace's clock (time_us). For each window: the trace entries inside it and the active-memory peak there,
// so a report can say which step and which stage (forward / backward / optimizer) the peak fell in.

#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/snapshot.h"
#include "core/snapshot/timeline.h"

namespace oomscope::snapshot {

enum class WindowKind : std::uint8_t { Step, Optimizer, Other };

struct AnnotationWindow {
  std::string name;
  WindowKind kind = WindowKind::Other;
  std::int64_t start_us = -1, end_us = -1;         // end -1: no END (the snapshot was taken inside it)
  std::int64_t first_index = -1, last_index = -1;  // raw trace entries inside; -1: none
  std::int64_t peak_bytes = 0, peak_index = -1;    // active memory inside the window
  std::int64_t bytes_at_start = 0, bytes_at_end = 0;
};

struct AnnotationWindows {
  std::vector<AnnotationWindow> windows;  // in START order
  std::size_t unpaired_ends = 0;          // END without a START (the START fell before recording)
  bool trace_has_time = false;            // the trace has time_us (2.2+); without it nothing can be placed
};

// The windows of one device. `t` is that device's Active Memory Timeline.
AnnotationWindows annotation_windows(const Snapshot& snap, std::int64_t device, const Timeline& t);
// The window of a kind holding a raw index (innermost: the latest START), or nullptr.
const AnnotationWindow* window_at(const AnnotationWindows& w, std::int64_t index);

}  // namespace oomscope::snapshot
