#pragma once
// Readers of the snapshot's newer, optional top-level parts, shared by snapshot_builder.cpp.

#include "core/snapshot/pickle_tree.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::snapshot {

// host_segments and host_traces (pinned host memory). Tolerant: an item of another shape is counted in
// HostMemory::unreadable, never an error (no real file with these keys has been seen).
void read_host_memory(const PickleTree& t, Ref root, HostMemory& out);

}  // namespace oomscope::snapshot
