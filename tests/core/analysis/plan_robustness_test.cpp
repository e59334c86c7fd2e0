// Damaged or hostile input: absurd sizes, random malformed traces. The analysis must never crash and
// must stay internally consistent (run these under the dev-asan preset too).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "core/analysis/plan/plan.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using testing::PlanBuilder;
using testing::temps;

TEST(PlanRobustness, AbsurdSizesSaturateInsteadOfOverflowing) {
  PlanBuilder p = temps({INT64_MAX, INT64_MAX, 8});
  p.proto().mutable_buffer_assignment()->mutable_buffer_allocations(0)->set_size(INT64_MAX);
  p.allocation(1, INT64_MAX, {3}).set_maybe_live_out(true);
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1);
  PlanBuilder::alloc(t, 2);
  PlanBuilder::free(t, 1);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.heap_peak_bytes, INT64_MAX);
  EXPECT_EQ(a.peak_bytes, INT64_MAX);
  EXPECT_EQ(a.total_allocation_bytes, INT64_MAX);
  ASSERT_GT(a.curve.size(), 0u);
  for (std::size_t i = 0; i < a.curve.size(); ++i)  // the live-out buffer is added to every point
    EXPECT_EQ(a.curve.total_at(i), INT64_MAX) << "point " << i;
}

// Random, often malformed traces (unknown ids, double frees, share cycles, bad kinds) must never crash;
// the curve and the peak must stay consistent, and for well-formed traces the live list adds up.
TEST(PlanRobustness, RandomTracesNeverCrashAndStayConsistent) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    const bool well_formed = round % 2 == 0;
    PlanBuilder p = temps({64, 128, 256, 512, 1024, 2048, 4096, 8192});
    auto& t = p.trace();
    std::vector<int> refs(9, 0);
    for (int e = 0; e < 60; ++e) {
      const int id = 1 + static_cast<int>(rng() % (well_formed ? 8 : 10));
      const int other = 1 + static_cast<int>(rng() % 8);
      if (!well_formed) {
        const int kind = static_cast<int>(rng() % 4);
        auto* ev = t.add_events();
        ev->set_kind(kind);
        ev->set_buffer_id(id);
        ev->set_share_with_canonical_id(other);
        continue;
      }
      // Well formed: ALLOC only dead, never-shared buffers; FREE only what holds a reference.
      if (refs[static_cast<std::size_t>(id)] == 0) {
        PlanBuilder::alloc(t, id);
        refs[static_cast<std::size_t>(id)] = 1;
      } else {
        PlanBuilder::free(t, id);
        refs[static_cast<std::size_t>(id)] = 0;
      }
    }
    const PlanAnalysis a = analyze_plan(p.proto());
    ASSERT_EQ(a.curve.size(), static_cast<std::size_t>(t.events_size()));
    const std::int64_t max = a.curve.heap_bytes.empty()
                                 ? 0
                                 : std::max<std::int64_t>(0, *std::max_element(a.curve.heap_bytes.begin(),
                                                                               a.curve.heap_bytes.end()));
    EXPECT_EQ(a.heap_peak_bytes, max) << "round " << round;
    if (well_formed) {
      std::int64_t live = 0;
      for (const auto& b : a.live_at_peak) live += b.size_bytes;
      EXPECT_EQ(live, a.heap_peak_bytes) << "round " << round;
      EXPECT_TRUE(a.notes.empty());
    }
  }
}

// The per-trace peaks (computed in one pass that reuses its state between traces) must equal each
// trace replayed on its own, whatever the traces hold.
TEST(PlanRobustness, PerTracePeaksEqualSeparateReplays) {
  std::mt19937 rng(99);
  for (int round = 0; round < 50; ++round) {
    PlanBuilder p = temps({64, 128, 256, 512, 1024, 2048});
    for (int trace = 0; trace < 4; ++trace) {
      auto& t = p.trace();
      for (int e = 0; e < 30; ++e) {
        auto* ev = t.add_events();
        ev->set_kind(static_cast<int>(rng() % 3));
        ev->set_buffer_id(1 + static_cast<int>(rng() % 7));
        ev->set_share_with_canonical_id(1 + static_cast<int>(rng() % 6));
      }
    }
    const PlanAnalysis all = analyze_plan(p.proto());
    ASSERT_EQ(all.traces.size(), 4u);
    for (int i = 0; i < 4; ++i) {
      PlanOptions one;
      one.trace = TraceChoice::Index;
      one.trace_index = i;
      EXPECT_EQ(all.traces[static_cast<std::size_t>(i)].heap_peak_bytes,
                analyze_plan(p.proto(), one).heap_peak_bytes)
          << "round " << round << " trace " << i;
    }
  }
}

}  // namespace
}  // namespace oomscope::analysis
