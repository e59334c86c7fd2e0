#pragma once
// What is live at a device's active-memory peak, by allocation site: the shared reading behind `diff`,
// the per-rank comparison and the two-run overlay.

#include <cstdint>
#include <map>
#include <string>

#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

// The analysis of the snapshot's default device, else the first device analysed; nullptr with none.
const DeviceAnalysis* main_device(const Snapshot& s, const SnapshotReport& r);

// Bytes live at the device's peak per allocation site (the innermost user frame, see user_frame();
// "(no stack)" for an element without frames). Every live element counts, not only the report's top rows.
std::map<std::string, std::int64_t> sites_at_peak(const Snapshot& s, const DeviceAnalysis* d);

}  // namespace oomscope::snapshot
