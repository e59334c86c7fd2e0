// A live recording's ranks compared as one job (core/live/client/recording_ranks.h): a recording of four
// ranks written with the Recorder, one of them leaking until it runs out first; the verdict and the
// figures are checked against the arithmetic that made the samples.

#include "core/live/client/recording_ranks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/live/client/recorder.h"
#include "core/util/error.h"
#include "tests/core/live/recorded_job.h"

namespace oomscope::live {
namespace {

using testjob::kCapacity;
using testjob::kGiB;
using testjob::kLeaker;
using testjob::kMiB;
using testjob::kTick;
constexpr int kSteps = 20;

std::string temp_path(const char* name) { return testjob::temp_path(std::string("recranks") + name); }

// The job of recorded_job.h: rank r at step i holds 4 GiB + r * 256 MiB, the leaker (rank 3) 500 MiB a step
// more; rank 1 runs out too, 500 ms after its last sample, later than the leaker, whose event carries no
// step.
testjob::Job job(bool ooms) {
  testjob::Job j;
  j.steps = kSteps;
  j.ooms = ooms;
  return j;
}
std::int64_t allocated(int r, int i) { return testjob::allocated(job(true), r, i); }
std::int64_t reserved(int r, int i) { return testjob::reserved(job(true), r, i); }
std::int64_t when(int r, int i) { return testjob::when(job(true), r, i); }  // ranks sample a little apart

struct Plan {
  bool ooms = true;
};

void write(const std::string& path, const Plan& plan) {
  Recorder rec(path);
  testjob::play(rec, job(plan.ooms));
  rec.close();
}

double median4(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
  std::vector<std::int64_t> v{a, b, c, d};
  std::sort(v.begin(), v.end());
  return (static_cast<double>(v[1]) + static_cast<double>(v[2])) / 2;
}

TEST(RecordingRanks, TheLeakingRankRanOutFirst) {
  const std::string path = temp_path("-oom.oomlive");
  write(path, Plan{});
  const RecordingComparison c = compare_recording_ranks(path);
  std::filesystem::remove(path);
  ASSERT_EQ(c.ranks.size(), 4u);
  EXPECT_EQ(c.t0, when(0, 0));
  for (int r = 0; r < 4; ++r) {
    const RecordingRankFigures& f = c.ranks[static_cast<std::size_t>(r)];
    EXPECT_EQ(f.rank, r);
    EXPECT_EQ(f.samples, kSteps);
    EXPECT_EQ(f.peak_allocated, allocated(r, kSteps - 1)) << "rank " << r;
    EXPECT_EQ(f.peak_reserved, reserved(r, kSteps - 1)) << "rank " << r;
    ASSERT_TRUE(f.capacity);
    EXPECT_EQ(*f.capacity, kCapacity);
    ASSERT_TRUE(f.tightest);
    EXPECT_EQ(f.tightest->headroom(), kCapacity - reserved(r, kSteps - 1));
    EXPECT_EQ(f.tightest->used_field, "reserved");
  }
  ASSERT_EQ(c.ranks[kLeaker].ooms.size(), 1u);
  const RecordingOom& oom = c.ranks[kLeaker].ooms[0];
  EXPECT_EQ(oom.t, when(kLeaker, kSteps - 1) + kTick);
  ASSERT_TRUE(oom.step);
  EXPECT_EQ(*oom.step, kSteps - 1);  // the rank's last sample before it
  EXPECT_FALSE(oom.step_from_event);
  ASSERT_TRUE(oom.requested);
  EXPECT_EQ(*oom.requested, 5 * kGiB / 2);
  ASSERT_TRUE(c.ranks[1].ooms[0].requested);
  EXPECT_EQ(*c.ranks[1].ooms[0].requested, 512 * kMiB);

  EXPECT_EQ(c.verdict.rank, kLeaker);
  EXPECT_EQ(c.verdict.kind, "oom");
  EXPECT_EQ(c.verdict.oom_ranks, (std::vector<int>{kLeaker, 1}));
  ASSERT_TRUE(c.verdict.clocks_comparable);
  EXPECT_TRUE(*c.verdict.clocks_comparable);  // every hello names node0

  const int last = kSteps - 1;
  const double med = median4(allocated(0, last), allocated(1, last), allocated(2, last), allocated(3, last));
  EXPECT_EQ(c.peak_allocated.max_rank, kLeaker);
  EXPECT_EQ(c.peak_allocated.max_bytes, allocated(kLeaker, last));
  EXPECT_DOUBLE_EQ(c.peak_allocated.median, med);
  ASSERT_TRUE(c.peak_allocated.ratio);
  EXPECT_DOUBLE_EQ(*c.peak_allocated.ratio, static_cast<double>(allocated(kLeaker, last)) / med);

  const nlohmann::json j = recording_comparison_json(c);
  EXPECT_EQ(j["kind"], "live-recording-ranks");
  EXPECT_EQ(j["ranks"].size(), 4u);
  EXPECT_EQ(j["verdict"]["rank"], kLeaker);
  EXPECT_EQ(j["verdict"]["case"], "oom");
  EXPECT_EQ(j["ranks"][kLeaker]["ooms"][0]["requested_bytes"], 5 * kGiB / 2);
  std::ostringstream text;
  write_recording_comparison_text(text, c);
  EXPECT_NE(text.str().find("verdict: rank 3 (oom)"), std::string::npos) << text.str();
}

TEST(RecordingRanks, WithoutAnOomTheRankClosestToItsCapacity) {
  const std::string path = temp_path("-nooom.oomlive");
  write(path, Plan{false});
  const RecordingComparison c = compare_recording_ranks(path);
  std::filesystem::remove(path);
  EXPECT_EQ(c.verdict.kind, "closest-to-capacity");
  EXPECT_EQ(c.verdict.rank, kLeaker);
  EXPECT_TRUE(c.verdict.oom_ranks.empty());
  ASSERT_TRUE(c.ranks[kLeaker].tightest);
  EXPECT_EQ(c.ranks[kLeaker].tightest->t, when(kLeaker, kSteps - 1));
}

TEST(RecordingRanks, ARecordingWithNoSamplesIsAnErrorNamingTheFile) {
  const std::string path = temp_path("-empty.oomlive");
  {
    Recorder rec(path);
    rec.on_endpoint(0, "127.0.0.1:7070");
  }
  try {
    compare_recording_ranks(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no sample"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(RecordingRanks, ReadsTheRequestOfAnOomMessage) {
  EXPECT_EQ(requested_bytes_in("Tried to allocate 20.00 MiB (GPU 0"), 20 * kMiB);
  EXPECT_EQ(requested_bytes_in("Tried to allocate 1024 bytes"), 1024);
  EXPECT_FALSE(requested_bytes_in("out of memory"));
}

}  // namespace
}  // namespace oomscope::live
