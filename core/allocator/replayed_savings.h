#pragma once
// The snapshot report's expandable_segments advice from the replay itself (issue 24: "instead of a rule of
// thumb"). core/snapshot cannot link this model (allocator links snapshot), so the front ends call this
// after analyse_snapshot(): the CLI's report and info (app/cli/other_formats.cpp) and the GUI's snapshot
// document. For each "over-reserved" line whose fix is expandable_segments:True, on a device with a
// trace, the trace is replayed under the recorded settings and with expandable_segments:True; when the
// first replay reproduced the recording (validated) and neither ran out of memory, the fix's saving
// becomes the replayed difference of the peak reserved (never below 0) and its note says both peaks,
// tagged derived by replay. Otherwise the rule of thumb stays, and the note says why the replay could not
// give the figure.

#include <stop_token>

#include "core/snapshot/snapshot.h"
#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::allocator {

void apply_replayed_savings(const snapshot::Snapshot& snap, snapshot::SnapshotReport& report,
                            const std::stop_token& stop = {});

}  // namespace oomscope::allocator
