#pragma once
// Reading a PyTorch allocator snapshot file (.pickle): memory-mapped, parsed by the safe pickle reader,
// built into the model. The mapping and the pickle tree are released before returning.

#include <memory>
#include <stop_token>
#include <string>

#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

namespace oomscope::snapshot {

// Largest snapshot file accepted (the model needs about as much memory again as the file).
inline constexpr std::uint64_t kMaxSnapshotBytes = 64ull << 30;

std::shared_ptr<const Snapshot> read_snapshot(const std::string& path, ProgressSink& progress,
                                              std::stop_token stop = {});
inline std::shared_ptr<const Snapshot> read_snapshot(const std::string& path) {
  NullProgress none;
  return read_snapshot(path, none);
}
// For the fuzzer and tests: bytes that never touched the disk; `name` stands for the file in errors.
std::shared_ptr<const Snapshot> read_snapshot_from_memory(std::string bytes, const std::string& name,
                                                          ProgressSink& progress, std::stop_token stop = {});

}  // namespace oomscope::snapshot
