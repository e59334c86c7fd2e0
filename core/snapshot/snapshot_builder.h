#pragma once
// Turns a parsed pickle into the Snapshot model (every version of torch-snapshot-format.md §2).

#include <stop_token>

#include "core/snapshot/pickle_tree.h"
#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

namespace oomscope::snapshot {

// out.path must be set (errors name it). Throws oomscope::Error (NotACapture, Damaged) or Cancelled.
void build_snapshot(const PickleTree& tree, Snapshot& out, ProgressSink& progress, std::stop_token stop = {});

}  // namespace oomscope::snapshot
