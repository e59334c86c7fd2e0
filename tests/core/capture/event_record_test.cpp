// The packed 20-byte EventRecord: what each field holds exactly, what is rounded, and that the reader keeps
// ids and durations the record cannot hold correct (renumbered metadata, exact typed tables, stats found
// from the record's offset alone); and the typed tables' time order.

#include <gtest/gtest.h>

#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/capture/capture.h"
#include "core/capture/reader.h"
#include "core/util/progress.h"

namespace {

using namespace oomscope::capture;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(EventRecord, HoldsStartMetadataAndOffsetExactly) {
  static_assert(sizeof(EventRecord) == 20);
  for (const std::int64_t t : {kMin, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1} << 40, kMax}) {
    const EventRecord r(t, 5, EventRecord::kMaxMetadataId, 0x7fffffffu);
    EXPECT_EQ(r.start_ps(), t);
    EXPECT_EQ(r.duration_ps(), 5);
    EXPECT_TRUE(r.duration_exact());
    EXPECT_EQ(r.metadata_id(), EventRecord::kMaxMetadataId);
    EXPECT_EQ(r.offset(), 0x7fffffffu);
  }
  EXPECT_EQ(EventRecord(0, 0, 0).metadata_id(), 0);
  // Ids it cannot hold read as "unknown"; the reader renumbers the ones that name metadata.
  EXPECT_EQ(EventRecord(0, 0, -3).metadata_id(), EventRecord::kUnknownMetadata);
  EXPECT_EQ(EventRecord(0, 0, std::int64_t{1} << 40).metadata_id(), EventRecord::kUnknownMetadata);
  EventRecord r(7, 1, 9, 123);
  r.set_duration_ps(-1);  // setting one field leaves the others alone
  r.set_metadata_id(11);
  r.set_start_ps(-7);
  EXPECT_EQ(r.offset(), 123u);
  EXPECT_EQ(r.metadata_id(), 11);
  EXPECT_EQ(r.start_ps(), -7);
  EXPECT_EQ(r.duration_ps(), 0);
  EXPECT_FALSE(r.duration_exact());
  r.set_duration_ps(42);
  EXPECT_TRUE(r.duration_exact());
  EXPECT_EQ(r.offset(), 123u);
}

TEST(EventRecord, DurationsAreExactInWholeUnitsAndRoundedUpOtherwise) {
  constexpr std::int64_t kExactPs = (std::int64_t{1} << 38) - 1;
  struct Case {
    std::int64_t in, out;
    bool exact;
  };
  const Case cases[] = {
      {0, 0, true},
      {1, 1, true},
      {kExactPs, kExactPs, true},
      {kExactPs + 1, 274'877'907'000, false},                  // 2^38 ps is no whole ns: up to the next ns
      {1'000'000'000'000, 1'000'000'000'000, true},            // 1 s, in ns
      {3'600'000'000'000'001, 3'600'000'001'000'000, false},   // an hour and 1 ps: up to the next us
      {86'400'000'000'000'000, 86'400'000'000'000'000, true},  // a day, in us
      {kMax - kMax % 1'000'000'000, kMax - kMax % 1'000'000'000, true},
      {kMax, kMax, false},  // rounded up to a whole ms, which int64 cannot hold: saturates
      {-5, 0, false},
      {kMin, 0, false},
  };
  for (const Case& c : cases) {
    const EventRecord r(0, c.in, 1);
    EXPECT_EQ(r.duration_ps(), c.out) << c.in;
    EXPECT_EQ(r.duration_exact(), c.exact) << c.in;
    EXPECT_EQ(r.metadata_id(), 1) << c.in;
  }
}

// ---- a tiny protobuf writer ----
std::string varint(std::uint64_t v, std::size_t pad_to = 0) {
  std::string s;
  while (v >= 0x80 || s.size() + 1 < pad_to) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return s + static_cast<char>(v);
}
std::string vfield(int n, std::uint64_t v) { return varint(static_cast<std::uint64_t>(n) << 3) + varint(v); }
std::string lfield(int n, const std::string& payload, std::size_t pad_length_to = 0) {
  return varint((static_cast<std::uint64_t>(n) << 3) | 2) + varint(payload.size(), pad_length_to) + payload;
}
std::string md(int field, std::uint64_t id, const std::string& name) {
  return lfield(field, vfield(1, id) + lfield(2, vfield(1, id) + lfield(2, name)));
}

TEST(EventRecord, TheReaderRenumbersWideIdsAndKeepsExactDurationsInItsTables) {
  const std::uint64_t wide = std::uint64_t{1} << 40, negative = static_cast<std::uint64_t>(-3);
  const std::uint64_t unknown_wide = std::uint64_t{1} << 50;
  const std::string stat = lfield(4, vfield(1, 1) + vfield(3, 64));  // bytes_allocated = 64
  const std::string events =
      lfield(4, vfield(1, wide) + vfield(2, 100) + vfield(3, 300'000'000'001)) +  // a retry, 0.3 s + 1 ps
      lfield(4, vfield(1, negative) + vfield(2, 200) + stat) +
      lfield(4, vfield(1, 5) + vfield(2, 300) + stat, /*pad_length_to=*/3) +  // length written in 3 bytes
      lfield(4, vfield(1, unknown_wide) + vfield(2, 400));
  // The largest id an EventRecord holds comes first, so renumbering has to look for gaps below it.
  const auto top = static_cast<std::uint64_t>(EventRecord::kMaxMetadataId);
  const std::string plane = lfield(2, "/host:CPU") +
                            lfield(3, vfield(1, 1) + events + lfield(4, vfield(1, top))) + md(4, top, "top") +
                            md(4, wide, "AllocatorRetry::AllocateRaw") + md(4, negative, "minus three") +
                            md(4, 5, "five") + md(5, 1, "bytes_allocated");
  oomscope::NullProgress none;
  const auto cap = read_capture_from_memory(lfield(1, plane), "<synthetic>", none);
  const Plane& cpu = cap->planes().at(0);
  ASSERT_EQ(cpu.lines.size(), 1u);
  const std::vector<EventRecord>& all = cpu.lines[0].events;
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(cpu.event_name(all[0].metadata_id()), "top");  // offset 0: first in time
  EXPECT_EQ(all[0].metadata_id(), EventRecord::kMaxMetadataId);
  const std::span<const EventRecord> ev(all.data() + 1, 4);
  EXPECT_EQ(cpu.event_name(ev[0].metadata_id()), "AllocatorRetry::AllocateRaw");
  EXPECT_EQ(cpu.event_name(ev[1].metadata_id()), "minus three");
  EXPECT_EQ(cpu.event_name(ev[2].metadata_id()), "five");
  EXPECT_EQ(ev[2].metadata_id(), 5);  // ids in range stay as written
  EXPECT_EQ(ev[3].metadata_id(), EventRecord::kUnknownMetadata);
  EXPECT_EQ(cpu.event_name(ev[3].metadata_id()), "");
  for (const auto& [id, m] : cpu.event_metadata) {
    EXPECT_EQ(m.id, id);
    EXPECT_GE(id, 0);
    EXPECT_LE(id, EventRecord::kMaxMetadataId);
  }
  // The record rounds the odd duration; the retry table has it exact, from the event's bytes.
  EXPECT_FALSE(ev[0].duration_exact());
  EXPECT_EQ(ev[0].duration_ps(), 300'000'001'000);
  ASSERT_EQ(cap->allocator_retries().size(), 1u);
  EXPECT_EQ(cap->allocator_retries()[0].duration_ps, 300'000'000'001);
  // Stats are found from the record's offset, the length read back from the bytes before it.
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    const auto stats = cap->event_stats(cpu, ev[i]);
    ASSERT_EQ(stats.size(), 1u) << i;
    EXPECT_EQ(stats[0].name, "bytes_allocated");
    EXPECT_EQ(stats[0].value.as_int(), 64);
  }
  EXPECT_TRUE(cap->event_stats(cpu, ev[3]).empty());
}

TEST(EventRecord, TypedTablesAreSortedByTimeKeepingFileOrderAmongEqualTimes) {
  const auto alloc = [](std::uint64_t t, std::uint64_t in_use) {
    return lfield(4, vfield(1, 1) + vfield(2, t) + lfield(4, vfield(1, 1) + lfield(5, "GPU_0_bfc")) +
                         lfield(4, vfield(1, 2) + vfield(3, in_use)));
  };
  const std::string plane = lfield(2, "/host:CPU") + lfield(3, vfield(1, 1) + alloc(100, 1) + alloc(300, 3)) +
                            lfield(3, vfield(1, 2) + alloc(100, 2) + alloc(200, 4)) +
                            md(4, 1, "MemoryAllocation") + md(5, 1, "allocator_name") +
                            md(5, 2, "bytes_allocated");
  oomscope::NullProgress none;
  const auto cap = read_capture_from_memory(lfield(1, plane), "<synthetic>", none);
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (const MemoryEvent& m : cap->memory_events()) got.emplace_back(m.time_ps, m.bytes_in_use);
  const std::vector<std::pair<std::int64_t, std::int64_t>> want{{100, 1}, {100, 2}, {200, 4}, {300, 3}};
  EXPECT_EQ(got, want);
}

}  // namespace
