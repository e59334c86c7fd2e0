// The model against every real snapshot with a trace: replayed with the snapshot's own allocator_settings,
// how much of what the real allocator recorded it reproduces (segment events in order, allocations at the
// recorded address, the final segments and their blocks). The figures are pinned so that a change of the
// model that loses agreement fails here; docs/allocator-model.md lists them.

#include <gtest/gtest.h>

#include <string>

#include "core/allocator/replay.h"
#include "core/allocator/whatif.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::allocator {
namespace {

struct Agreement {
  const char* file;
  std::size_t segment_events;  // recorded = replayed = matched
  std::size_t allocs;
  std::size_t allocs_at_recorded_address;
  std::size_t final_segments;
  bool matched;
  std::int64_t first_divergence;  // trace index; -2: none, -1: at the end
};

const Agreement kFiles[] = {
    {"torch_snapshot_decomfl_windows_with_trace.pickle", 61, 7946, 7946, 61, true, -2},
    {"torch_snapshot_cs336_bf16_ctx128.pickle", 0, 937, 937, 43, true, -2},
    {"torch_snapshot_cs336_fp32_ctx128.pickle", 0, 681, 681, 29, true, -2},
    {"torch_snapshot_cs336_small_peak.pickle", 9, 36, 36, 9, true, -2},
    // One trace entry each (a snapshot call, a free): nothing to check the model against.
    {"torch2.0_snapshot_flexgen_oom.pickle", 0, 0, 0, 176, false, -2},
    {"torch2.0_snapshot_flexgen_opt1.3b.pickle", 0, 0, 0, 257, false, -2},
};

class RealReplay : public ::testing::TestWithParam<Agreement> {};

TEST_P(RealReplay, RecordedSettingsReproduceTheRecording) {
  const Agreement& x = GetParam();
  const auto snap = snapshot::read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + x.file);
  std::vector<std::string> notes;
  ReplayOptions o;
  o.config = config_from_snapshot(*snap, notes);
  o.validate = true;
  const ReplayResult r = replay(*snap, o);
  ASSERT_TRUE(r.validation);
  const Validation& v = *r.validation;
  EXPECT_EQ(v.segment_events_recorded, x.segment_events);
  EXPECT_EQ(v.segment_events_replayed, x.segment_events);
  EXPECT_EQ(v.segment_events_matched, x.segment_events);
  EXPECT_EQ(v.segment_allocs_replayed, v.segment_allocs_recorded);
  EXPECT_EQ(v.allocs, x.allocs);
  EXPECT_EQ(v.allocs_at_recorded_address, x.allocs_at_recorded_address);
  EXPECT_EQ(v.final_segments_recorded.size(), x.final_segments);
  EXPECT_EQ(v.final_segments_replayed, v.final_segments_recorded);
  EXPECT_EQ(v.matched, x.matched);
  EXPECT_EQ(v.checked, x.allocs + x.segment_events > 0);
  EXPECT_TRUE(v.final_layout_matched);
  EXPECT_EQ(v.first_divergence ? v.first_divergence->trace_index : -2, x.first_divergence)
      << (v.first_divergence ? v.first_divergence->what : "");
  EXPECT_EQ(r.replayed, r.entries);
  EXPECT_FALSE(r.first_oom);
  // The replay's peak reserved is the snapshot's reserved or more (segments are never freed in these runs).
  EXPECT_GE(r.peak_reserved, static_cast<std::uint64_t>(snap->reserved_bytes()));
}

INSTANTIATE_TEST_SUITE_P(Files, RealReplay, ::testing::ValuesIn(kFiles), [](const auto& info) {
  std::string n = info.param.file;
  n = n.substr(0, n.rfind('.'));
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

TEST(RealWhatIf, StandardScenariosOnDecomfl) {
  const auto snap = snapshot::read_snapshot(std::string(OOMSCOPE_TEST_DATA) +
                                            "/torch_snapshot_decomfl_windows_with_trace.pickle");
  NullProgress none;
  const WhatIfResult w = run_whatif(*snap, {}, none);
  EXPECT_TRUE(w.validated());
  EXPECT_TRUE(w.standard);
  EXPECT_FALSE(w.capacity);
  ASSERT_FALSE(w.scenarios.empty());
  EXPECT_EQ(w.scenarios[0].name, "expandable_segments:True");
  // No setting saves more than the recorded peak reserved minus the peak of requested bytes.
  const ReplayResult& rec = w.recorded.result;
  for (const Scenario& s : w.scenarios) {
    if (s.saved_vs_recorded) {
      EXPECT_LE(*s.saved_vs_recorded, static_cast<std::int64_t>(rec.peak_reserved - rec.peak_requested))
          << s.name;
    }
  }
  ASSERT_FALSE(w.capacity_searches.empty());
  ASSERT_TRUE(w.capacity_searches[0].capacity);
  EXPECT_LE(*w.capacity_searches[0].capacity, rec.peak_reserved);
  EXPECT_GE(*w.capacity_searches[0].capacity, rec.peak_allocated);
  // The capacity found runs without an OOM, 2 MiB less does not (the bisection's two ends).
  ReplayOptions o;
  o.config = w.recorded_config;
  o.capacity = *w.capacity_searches[0].capacity;
  EXPECT_FALSE(replay(*snap, o).first_oom);
  o.capacity -= kSmallBuffer;
  EXPECT_TRUE(replay(*snap, o).first_oom);
}

}  // namespace
}  // namespace oomscope::allocator
