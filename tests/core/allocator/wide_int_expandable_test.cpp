// Hand-built snapshots (tests/data/hand_snapshots, written by tests/data/tools/make_hand_snapshots.py) with
// what no real file here has, end to end through the reader, the report's state and the replay's
// validation: an expandable segment whose trace maps, unmaps (empty_cache) and maps again, in a protocol-5
// pickle whose addresses all lie at 2^63 and above (9-byte LONG1, one LONG4) and must be read exactly; and
// the same file with a size of 2^64 + 512 or a total_size of 2^63, which no byte count holds: refused,
// naming the file.

#include <gtest/gtest.h>

#include <string>

#include "core/allocator/replay.h"
#include "core/allocator/whatif.h"
#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::allocator {
namespace {

using snapshot::Action;

constexpr std::uint64_t MiB = kMiB;
constexpr std::uint64_t kBase = (1ull << 63) + 0x7f0000000200ull;  // the script's BASE: no double holds it

std::string hand(const char* name) { return std::string(OOMSCOPE_TEST_DATA) + "/hand_snapshots/" + name; }

std::string error_of(const char* name) {
  try {
    snapshot::read_snapshot(hand(name));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(WideIntExpandable, AddressesAbove2To63AreReadExactly) {
  const auto snap = snapshot::read_snapshot(hand("torch_snapshot_expandable_wide_p5.pickle"));
  EXPECT_EQ(snap->protocol, 5);
  ASSERT_EQ(snap->segments.size(), 1u);
  EXPECT_EQ(snap->segments[0].address, kBase);  // through a double it became a multiple of 2048
  EXPECT_TRUE(snap->segments[0].is_expandable);
  EXPECT_TRUE(snap->expandable_segments);
  ASSERT_EQ(snap->device_traces.size(), 1u);
  const auto& t = snap->device_traces[0];
  ASSERT_EQ(t.size(), 10u);
  EXPECT_EQ(t[2].addr, kBase + 8 * MiB);
  EXPECT_EQ(t[9].addr, kBase);  // written as LONG4
  EXPECT_EQ(t[7].action, Action::SegmentUnmap);
  EXPECT_EQ(t[8].action, Action::SegmentMap);
  EXPECT_EQ(t[8].size, static_cast<std::int64_t>(40 * MiB));
}

TEST(WideIntExpandable, StateFollowsMapAndUnmap) {
  const auto snap = snapshot::read_snapshot(hand("torch_snapshot_expandable_wide_p5.pickle"));
  const auto at = [&](std::int64_t i) { return snapshot::allocator_state_at(*snap, 0, i); };
  EXPECT_EQ(at(-1).reserved, 0);
  EXPECT_EQ(at(0).reserved, static_cast<std::int64_t>(20 * MiB));
  EXPECT_EQ(at(2).active_allocated_bytes, static_cast<std::int64_t>(16 * MiB));
  EXPECT_EQ(at(6).reserved, static_cast<std::int64_t>(20 * MiB));
  EXPECT_EQ(at(7).reserved, 0);  // unmapped by empty_cache()
  const auto end = at(9);
  EXPECT_EQ(end.reserved, static_cast<std::int64_t>(40 * MiB));
  ASSERT_EQ(end.segments.size(), 1u);
  EXPECT_EQ(end.segments[0].address, kBase);
  EXPECT_EQ(end.segments[0].largest_free, static_cast<std::int64_t>(10 * MiB));
}

TEST(WideIntExpandable, ReplayReproducesMapUnmapMap) {
  const auto snap = snapshot::read_snapshot(hand("torch_snapshot_expandable_wide_p5.pickle"));
  std::vector<std::string> notes;
  ReplayOptions o;
  o.config = config_from_snapshot(*snap, notes);
  EXPECT_TRUE(o.config.expandable_segments);
  o.validate = true;
  const ReplayResult r = replay(*snap, o);
  ASSERT_TRUE(r.validation);
  const Validation& v = *r.validation;
  EXPECT_EQ(v.segment_events_recorded, 3u);
  EXPECT_EQ(v.segment_events_matched, 3u) << (v.first_divergence ? v.first_divergence->what : "");
  EXPECT_EQ(v.allocs, 3u);
  EXPECT_EQ(v.allocs_at_recorded_address, 3u);
  EXPECT_TRUE(v.final_layout_matched);
  EXPECT_TRUE(v.matched) << (v.first_divergence ? v.first_divergence->what : "");
  EXPECT_EQ(r.peak_reserved, 40 * MiB);
  EXPECT_EQ(r.final_reserved, 40 * MiB);
  // Without expandable segments the same program needs a 20 MiB segment, then a 30 MiB one.
  WhatIfOptions w;
  w.settings = {"expandable_segments:False"};
  NullProgress none;
  const WhatIfResult x = run_whatif(*snap, w, none);
  EXPECT_TRUE(x.validated());
  ASSERT_EQ(x.scenarios.size(), 1u);
  EXPECT_EQ(x.scenarios[0].result.peak_reserved, 30 * MiB);
}

TEST(WideIntExpandable, SizesNoByteCountHoldsAreRefusedNamingTheFile) {
  const std::string over = error_of("torch_snapshot_size_over_2p64.pickle");
  EXPECT_NE(over.find("torch_snapshot_size_over_2p64.pickle"), std::string::npos) << over;
  EXPECT_NE(over.find("9-byte integer is negative or at least 2^64"), std::string::npos) << over;
  const std::string signed63 = error_of("torch_snapshot_size_2p63.pickle");
  EXPECT_NE(signed63.find("torch_snapshot_size_2p63.pickle"), std::string::npos) << signed63;
  EXPECT_NE(signed63.find("segment 0 has the value 9223372036854775808, 2^63 or more"), std::string::npos)
      << signed63;
}

}  // namespace
}  // namespace oomscope::allocator
