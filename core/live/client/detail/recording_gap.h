#pragma once
// The gap between two recordings as far as they can tell (recording_overlay.h): per rank index the peaks
// of A and B, the OOM events of each, the sentences and the note on allocation sites.

#include "core/live/client/recording_overlay.h"

namespace oomscope::live::detail {

// Fills o.ranks, o.gap, o.sentences and o.sites_note from the two runs' rank comparisons.
void explain_gap(const RecordingComparison& a, const RecordingComparison& b, RecordingOverlay& o);

}  // namespace oomscope::live::detail
