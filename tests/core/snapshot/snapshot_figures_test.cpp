// The seven real snapshots against docs/snapshot-format.md section 5 and the invariants of section 2.

#include <gtest/gtest.h>

#include <string>

#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/snapshot/timeline.h"

namespace oomscope::snapshot {
namespace {

struct Expected {
  const char* file;
  std::size_t segments, large, blocks, active, inactive;
  std::int64_t reserved, allocated, requested_active;
  std::size_t trace_entries;
  std::int64_t viz_peak;
  std::int64_t peak_index;  // -1: at the start
  std::size_t ghosts;
  std::int64_t ghost_bytes;
  std::int64_t inactive_bytes;
  SnapshotFormat format;
};

const Expected kFiles[] = {
    {"torch_snapshot_decomfl_windows_with_trace.pickle", 61, 44, 468, 397, 71, 1897922560, 1014430208,
     1011485828, 23105, 1783664516, 11205, 0, 0, 883492352, SnapshotFormat::V2_3},
    {"torch_snapshot_cs336_bf16_ctx128.pickle", 43, 40, 178, 137, 41, 861929472, 525286400, 523811840, 2811,
     779837440, 2630, 137, 523811840, 336643072, SnapshotFormat::V2_3},
    {"torch_snapshot_cs336_fp32_ctx128.pickle", 29, 28, 164, 137, 27, 610271232, 525286400, 523811840, 2043,
     556843008, 144, 137, 523811840, 84984832, SnapshotFormat::V2_3},
    {"torch_snapshot_cs336_small_peak.pickle", 9, 8, 20, 10, 10, 3781165056, 31719936, 31719428, 97,
     3249143816, 52, 0, 0, 3749445120, SnapshotFormat::V2_3},
    {"torch_snapshot_segments_only_diffusion_vit.pickle", 499, 270, 2974, 2524, 450, 16236150784, 8548367872,
     8521811504, 0, 8521811504, -1, 2524, 8521811504, 7687782912, SnapshotFormat::V2_1},
    {"torch2.0_snapshot_flexgen_oom.pickle", 176, 174, 463, 460, 3, 11844714496, 11840159744, 11840159744, 1,
     11840159744, -1, 460, 11840159744, 4554752, SnapshotFormat::V2_0},
    {"torch2.0_snapshot_flexgen_opt1.3b.pickle", 257, 254, 948, 785, 163, 7608467456, 5683450880, 5683449864,
     1, 5692346376, -1, 785, 5683449864, 1925016576, SnapshotFormat::V2_0},
};

class RealSnapshot : public ::testing::TestWithParam<Expected> {};

TEST_P(RealSnapshot, FiguresOfSection5) {
  const Expected& x = GetParam();
  const auto snap = read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + x.file);
  EXPECT_EQ(snap->segments.size(), x.segments);
  std::size_t large = 0, active = 0, inactive = 0;
  std::int64_t inactive_bytes = 0;
  for (const Segment& s : snap->segments) large += s.large;
  for (const Block& b : snap->blocks) {
    if (b.active())
      ++active;
    else
      ++inactive, inactive_bytes += b.size;
  }
  EXPECT_EQ(large, x.large);
  EXPECT_EQ(snap->blocks.size(), x.blocks);
  EXPECT_EQ(active, x.active);
  EXPECT_EQ(inactive, x.inactive);
  EXPECT_EQ(inactive_bytes, x.inactive_bytes);
  EXPECT_EQ(snap->reserved_bytes(), x.reserved);
  EXPECT_EQ(snap->allocated_bytes(), x.allocated);
  EXPECT_EQ(snap->requested_active_bytes(), x.requested_active);
  EXPECT_EQ(snap->trace_entries(), x.trace_entries);
  EXPECT_EQ(snap->format, x.format);

  const Timeline t = active_memory_timeline(*snap, default_device(*snap));
  EXPECT_EQ(t.peak_bytes, x.viz_peak);
  EXPECT_EQ(t.peak_index, x.peak_index);
  EXPECT_EQ(t.ghosts, x.ghosts);
  EXPECT_EQ(t.ghost_bytes, x.ghost_bytes);
}

TEST_P(RealSnapshot, InvariantsOfSection2) {
  const auto snap = read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + GetParam().file);
  std::uint64_t prev_end = 0;
  std::int64_t prev_device = -1;
  for (const Segment& s : snap->segments) {
    std::int64_t sum = 0, alloc = 0, act = 0, req = 0;
    std::uint64_t addr = s.address;
    for (std::uint32_t i = s.first_block; i < s.first_block + s.block_count; ++i) {
      const Block& b = snap->blocks[i];
      EXPECT_EQ(b.address, addr);
      addr += static_cast<std::uint64_t>(b.size);
      sum += b.size;
      if (b.state == BlockState::ActiveAllocated) alloc += b.size;
      if (b.active()) act += b.size, req += b.requested_size;
      EXPECT_EQ(b.size % 512, 0);
    }
    EXPECT_EQ(sum, s.total_size);
    EXPECT_EQ(alloc, s.allocated_size);
    EXPECT_EQ(act, s.active_size);
    EXPECT_EQ(req, s.requested_size);
    EXPECT_EQ(s.total_size % (2 << 20), 0);
    if (!s.large) {
      EXPECT_EQ(s.total_size, 2 << 20);
    }
    if (s.device == prev_device) {
      EXPECT_GE(s.address, prev_end);
    }
    prev_device = s.device;
    prev_end = s.address + static_cast<std::uint64_t>(s.total_size);
  }
}

INSTANTIATE_TEST_SUITE_P(Section5, RealSnapshot, ::testing::ValuesIn(kFiles), [](const auto& info) {
  std::string n = info.param.file;
  n = n.substr(0, n.rfind('.'));
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

TEST(SnapshotDetails, DecomflFramesAndTraceActions) {
  const auto snap =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_decomfl_windows_with_trace.pickle");
  std::size_t counts[11] = {};
  for (const TraceEntry& e : snap->device_traces.at(0)) ++counts[static_cast<int>(e.action)];
  EXPECT_EQ(counts[static_cast<int>(Action::SegmentAlloc)], 61u);
  EXPECT_EQ(counts[static_cast<int>(Action::Alloc)], 7946u);
  EXPECT_EQ(counts[static_cast<int>(Action::FreeRequested)], 7549u);
  EXPECT_EQ(counts[static_cast<int>(Action::FreeCompleted)], 7549u);
  EXPECT_EQ(snap->device_traces[0].front().time_us, 1763324225770003);
  EXPECT_EQ(snap->device_traces[0].back().time_us, 1763324227620449);
  // 175 frame dicts in the file (shared by memo), 137 distinct (filename, name, line): equal frames are one.
  EXPECT_EQ(snap->frames.size(), 137u);
  std::size_t blocks_with_frames = 0;
  for (const Block& b : snap->blocks) blocks_with_frames += !snap->frames_of(b.frames).empty();
  EXPECT_EQ(blocks_with_frames, 397u);
  EXPECT_EQ(snap->annotations.size(), 8u);
  const Timeline t = active_memory_timeline(*snap, 0);
  EXPECT_EQ(t.trace_only_peak, 1783664516);
  EXPECT_EQ(t.final_bytes, 1011485828);
  EXPECT_EQ(t.never_freed, 397u);
  EXPECT_EQ(snap->device_traces[0][static_cast<std::size_t>(t.peak_index)].time_us, 1763324227392471);
}

TEST(SnapshotDetails, FlexgenOomHasASnapshotEntryAndHistory) {
  const auto snap = read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch2.0_snapshot_flexgen_oom.pickle");
  ASSERT_EQ(snap->device_traces.size(), 1u);
  ASSERT_EQ(snap->device_traces[0].size(), 1u);
  EXPECT_EQ(snap->device_traces[0][0].action, Action::Snapshot);
  EXPECT_EQ(snap->device_traces[0][0].size, 11840159744);
  std::size_t with_history = 0;
  for (const Block& b : snap->blocks) with_history += b.history_count > 0;
  EXPECT_EQ(with_history, 460u);
}

TEST(SnapshotDetails, DiffusionHasTwoEmptyDevices) {
  const auto snap =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_segments_only_diffusion_vit.pickle");
  EXPECT_EQ(snap->device_traces.size(), 2u);
  EXPECT_EQ(snap->trace_entries(), 0u);
}

}  // namespace
}  // namespace oomscope::snapshot

namespace oomscope::snapshot {
namespace {

// docs/snapshot-format.md, 3: the allocator state reconstructed backwards from the snapshot.
TEST(AllocatorState, HeaderFiguresOfSection3) {
  const auto decomfl =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_decomfl_windows_with_trace.pickle");
  const auto last =
      allocator_state_at(*decomfl, 0, static_cast<std::int64_t>(decomfl->device_traces[0].size()) - 1);
  EXPECT_EQ(last.allocated, 1011485828);
  EXPECT_EQ(last.reserved, 1897922560);
  EXPECT_EQ(last.segments.size(), 61u);
  EXPECT_EQ(last.free_bytes,
            883492352);  // the inactive bytes of the decomfl file (docs/snapshot-format.md, 5)
  EXPECT_EQ(last.largest_free, 155189248);
  const auto first = allocator_state_at(*decomfl, 0, 0);
  EXPECT_EQ(first.allocated, 0);
  EXPECT_EQ(first.reserved, 155189248);
  EXPECT_EQ(first.outside_segments, 0u);

  const auto small =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_cs336_small_peak.pickle");
  const auto s0 = allocator_state_at(*small, 0, 0);
  EXPECT_EQ(s0.allocated, 0);
  EXPECT_EQ(s0.reserved, 20971520);
  const auto flex = read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch2.0_snapshot_flexgen_oom.pickle");
  const auto fs = allocator_state_at(*flex, 0, 0);
  EXPECT_EQ(fs.free_bytes, 4554752);
  EXPECT_EQ(fs.largest_free, 2080768);
}

}  // namespace
}  // namespace oomscope::snapshot
