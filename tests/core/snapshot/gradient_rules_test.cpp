// The gradient rules on small hand-made snapshots: C++-only stacks of the autograd engine count as
// backward, and zero_grad(set_to_none=True) is offered only for gradients a previous step left live.
#include <gtest/gtest.h>

#include <string>

#include "core/snapshot/categories.h"
#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

// A snapshot of one device whose trace is filled by alloc()/free(); frame lists: 1 forward (Python),
// 2 backward on the engine thread (C++ only), 3 a plain user line.
struct Builder {
  Snapshot snap;
  std::uint64_t next_addr = 0x10000000;
  Builder() {
    snap.path = "hand.pickle";
    snap.frames = {{"/home/u/model.py", "forward", 12},
                   {"??", "torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)", 0},
                   {"??", "torch::autograd::Engine::thread_main(std::shared_ptr<GraphTask> const&)", 0},
                   {"/home/u/train.py", "main", 40}};
    snap.frame_lists = {{}, {0, 3}, {1, 2}, {3}};
    snap.device_traces.resize(1);
  }
  std::uint64_t alloc(std::int64_t bytes, FramesId frames) {
    const std::uint64_t addr = next_addr;
    next_addr += static_cast<std::uint64_t>(bytes);
    snap.device_traces[0].push_back({addr, bytes, -1, frames, 0, Action::Alloc});
    return addr;
  }
  void free(std::uint64_t addr, std::int64_t bytes) {
    snap.device_traces[0].push_back({addr, bytes, -1, 0, 0, Action::FreeRequested});
    snap.device_traces[0].push_back({addr, bytes, -1, 0, 0, Action::FreeCompleted});
  }
};

bool offersZeroGrad(const std::vector<analysis::DiagnosisLine>& lines, std::int64_t* saving) {
  for (const auto& l : lines)
    for (const auto& f : l.fixes)
      if (f.action.find("zero_grad") != std::string::npos) {
        if (saving && f.saving_bytes) *saving = *f.saving_bytes;
        return true;
      }
  return false;
}

TEST(GradientRules, EngineThreadStackIsBackwardAndNamesItsNode) {
  Builder b;
  b.alloc(64 * MiB, 2);
  const SnapshotReport r = analyse_snapshot(b.snap);
  ASSERT_EQ(r.devices.size(), 1u);
  ASSERT_FALSE(r.devices[0].at_peak.empty());
  const PeakAllocation& a = r.devices[0].at_peak.front();
  EXPECT_EQ(a.category.category, Category::Gradients);
  EXPECT_EQ(a.where, "no Python frame; in torch::autograd::generated::MmBackward0::apply");
}

TEST(GradientRules, GradientsOfThePeaksOwnBackwardAreNotOfferedZeroGrad) {
  Builder b;
  const auto act = b.alloc(100 * MiB, 1);  // forward
  b.alloc(300 * MiB, 2);                   // backward: the peak is here, inside the step's own backward
  b.free(act, 100 * MiB);
  const SnapshotReport r = analyse_snapshot(b.snap);
  EXPECT_FALSE(offersZeroGrad(diagnose_snapshot(b.snap, r), nullptr));
}

TEST(GradientRules, GradientsCarriedIntoTheNextForwardAreOfferedZeroGrad) {
  Builder b;
  const auto act1 = b.alloc(100 * MiB, 1);  // step 1 forward
  b.alloc(300 * MiB, 2);                    // step 1 backward: gradients kept (zeroed, not freed)
  b.free(act1, 100 * MiB);
  b.alloc(200 * MiB, 1);  // step 2 forward: the peak, with step 1's gradients still live
  const SnapshotReport r = analyse_snapshot(b.snap);
  std::int64_t saving = 0;
  EXPECT_TRUE(offersZeroGrad(diagnose_snapshot(b.snap, r), &saving));
  EXPECT_EQ(saving, 300 * MiB);
}

}  // namespace
}  // namespace oomscope::snapshot
