// The ranks of a live session's store compared as one job (compare_store_ranks, recording_ranks.h): the
// same records written to a recording and held by a store (or a LiveSession) compare identically, byte
// for byte in the text and the JSON `report RECORDING` prints; thinning keeps the peaks and says so.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/live/client/recorder.h"
#include "core/live/client/recording_ranks.h"
#include "core/live/client/replay.h"
#include "core/live/client/session.h"
#include "core/live/client/store.h"
#include "core/util/error.h"
#include "tests/core/live/recorded_job.h"

namespace oomscope::live {
namespace {

using namespace testjob;

std::string text_of(const RecordingComparison& c) {
  std::ostringstream o;
  write_recording_comparison_text(o, c);
  return o.str();
}

void expect_same(const RecordingComparison& from_store, const RecordingComparison& from_file) {
  EXPECT_EQ(text_of(from_store), text_of(from_file));
  EXPECT_EQ(recording_comparison_json(from_store).dump(1), recording_comparison_json(from_file).dump(1));
}

std::string record(const Job& job, const std::string& name) {
  const std::string path = temp_path(name);
  Recorder rec(path);
  play(rec, job);
  rec.close();
  return path;
}

TEST(StoreRanks, AStoreHoldingARecordingComparesAsTheRecording) {
  for (const Job& job : {Job{}, Job{.ooms = false}, Job{.leak = 0, .ooms = false, .with_steps = false}}) {
    const std::string path = record(job, "store.oomlive");
    Store store;
    replay_recording(path, store);
    const RecordingComparison from_file = compare_recording_ranks(path);
    const RecordingComparison from_store = compare_store_ranks(store, path);
    std::filesystem::remove(path);
    expect_same(from_store, from_file);
    EXPECT_TRUE(from_store.thinned_note.empty());
  }
}

TEST(StoreRanks, TheCheckedInRecordingComparesAsTheCli) {
  const std::string path = OOMSCOPE_TEST_DATA "/live/four_ranks_rank3_leaks.oomlive";
  Store store;
  replay_recording(path, store);
  const RecordingComparison from_store = compare_store_ranks(store, path);
  expect_same(from_store, compare_recording_ranks(path));
  EXPECT_EQ(from_store.verdict.rank, 3);
  EXPECT_EQ(from_store.verdict.kind, "oom");
}

TEST(StoreRanks, ALiveSessionFedTheSameRecordsComparesAsTheirRecording) {
  const Job job;
  const std::string path = record(job, "session.oomlive");
  LiveSession session;
  play(session, job);
  const RecordingComparison live =
      session.read([&](const Store& s, const AlertEngine&) { return compare_store_ranks(s, path); });
  expect_same(live, compare_recording_ranks(path));
  std::filesystem::remove(path);
  EXPECT_EQ(live.verdict.rank, kLeaker);
  EXPECT_EQ(live.verdict.oom_ranks, (std::vector<int>{kLeaker, 1}));
}

TEST(StoreRanks, AThinnedStoreKeepsThePeaksAndCountsEverySample) {
  const Job job{.steps = 3000, .leak = kMiB};
  Store store;
  store.set_sample_budget(1);  // the floor: kMinSamplesPerRank a rank, so 3000 steps fit ...
  play(store, job);
  ASSERT_EQ(store.ranks()[0].thinned, 0);
  Store small;
  small.set_sample_budget(1);
  const Job longer{.steps = 3 * static_cast<int>(Store::kMinSamplesPerRank), .leak = kMiB};
  play(small, longer);  // ... and three times as many do not
  ASSERT_GT(small.ranks()[kLeaker].thinned, 0);
  const RecordingComparison c = compare_store_ranks(small, "live session");
  const int last = longer.steps - 1;
  EXPECT_EQ(c.ranks[kLeaker].samples, longer.steps);
  EXPECT_EQ(c.ranks[kLeaker].peak_allocated, allocated(longer, kLeaker, last));
  EXPECT_EQ(c.ranks[kLeaker].peak_reserved, reserved(longer, kLeaker, last));
  EXPECT_EQ(c.verdict.rank, kLeaker);
  EXPECT_NE(c.thinned_note.find("merged two into one"), std::string::npos) << c.thinned_note;
}

TEST(StoreRanks, AStoreWithoutSamplesIsAnErrorNamingTheSubject) {
  Store store;
  store.on_endpoint(0, "127.0.0.1:7070");
  try {
    compare_store_ranks(store, "live session");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "live session");
    EXPECT_NE(std::string(e.what()).find("the session holds no sample of any rank"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace oomscope::live
