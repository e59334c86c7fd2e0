// The demo trainer end to end (its binary, run as a user would): resume and restart give bitwise the
// weights of an uninterrupted run, and its trace reads with core/sim's trace reader.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/sim/simulator.h"
#include "core/sim/trace_json.h"
#include "core/sim/trace_reader.h"

namespace oomscope::train {
namespace {

namespace fs = std::filesystem;

class Trainer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("oomscope-train-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "sizes.txt") << "3000\n5000\n4000\n6000\n2500\n7000\n";
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Runs the trainer with the common options plus `extra`; returns its exit code.
  int run(const std::string& extra, const std::string& log_name) const {
    const std::string cmd = std::string(OOMSCOPE_DEMO_TRAINER) + " --sizes " + path("sizes.txt") +
                            " --batch 3 --epochs 2 --width 16 --seed 3 " + extra + " > " + path(log_name) +
                            " 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string log(const std::string& name) const { return read_file(path(name)); }
  static std::string read_file(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
};

TEST_F(Trainer, ResumeIsBitwiseIdenticalToAnUninterruptedRun) {
  // 4 MiB (about 4,600 points): batches and the larger scenes run out of memory, so the run splits in space.
  const std::string common = "--budget 4MiB --policy corrected --on-floor drop ";
  ASSERT_EQ(run(common + "--trace " + path("full.jsonl") + " --weights-out " + path("full.bin"), "full.log"),
            0)
      << log("full.log");
  ASSERT_EQ(run(common + "--steps 2 --checkpoint " + path("ck") + " --trace " + path("part.jsonl"), "a.log"),
            0)
      << log("a.log");
  ASSERT_EQ(run(common + "--resume --checkpoint " + path("ck") + " --trace " + path("part.jsonl") +
                    " --weights-out " + path("resumed.bin"),
                "b.log"),
            0)
      << log("b.log");
  EXPECT_NE(log("b.log").find("resumed from"), std::string::npos) << log("b.log");
  const std::string full = read_file(path("full.bin")), resumed = read_file(path("resumed.bin"));
  ASSERT_GT(full.size(), 1000u);
  EXPECT_TRUE(full == resumed) << "resumed weights differ from the uninterrupted run";

  // Both traces read with the simulator's reader and hold the same tree.
  const sim::Trace a = sim::read_trace_file(path("full.jsonl"));
  const sim::Trace b = sim::read_trace_file(path("part.jsonl"));
  EXPECT_EQ(a.header.source, "libtorch");
  EXPECT_EQ(a.header.config.at("policy").at("catch"), "oom-only");
  ASSERT_TRUE(a.totals && b.totals);
  EXPECT_GT(a.totals->oom_attempts, 0);
  EXPECT_GT(a.totals->points_spatial, 0);
  ASSERT_EQ(a.log.events.size(), b.log.events.size());
  for (std::size_t i = 0; i < a.log.events.size(); ++i) {
    EXPECT_EQ(a.log.events[i].outcome, b.log.events[i].outcome) << "event " << i;
    EXPECT_EQ(a.log.events[i].points, b.log.events[i].points) << "event " << i;
    EXPECT_EQ(a.log.events[i].parent, b.log.events[i].parent) << "event " << i;
  }
  EXPECT_EQ(a.totals->attempts, b.totals->attempts);
  EXPECT_EQ(a.totals->points_applied, b.totals->points_applied);

  // The header is a simulator configuration, and every batch holds the scenes the simulator puts in it
  // (what lets the GUI predict this run beside it).
  const sim::SimConfig sc = sim::config_from_json(a.header.config, path("full.jsonl"));
  EXPECT_EQ(sc.memory.fragmentation_penalty, 0);
  EXPECT_EQ(sc.policy.catch_mode, sim::CatchMode::OomOnly);
  sim::Simulator predicted(sc);
  std::size_t batches = 0;
  for (const auto& e : a.log.events) {
    if (e.parent != -1) continue;
    ++batches;
    const auto scenes = a.log.scenes(e);
    const auto expected = predicted.batch_scenes(e.batch);
    ASSERT_EQ(scenes.size(), expected.size()) << "batch " << e.batch;
    for (std::size_t i = 0; i < scenes.size(); ++i)
      EXPECT_EQ(std::int64_t(scenes[i]), expected[i]) << "batch " << e.batch;
  }
  EXPECT_EQ(batches, 4u);
  // With the figures the trainer measured, the simulator predicts the same tree.
  predicted.run_to_end();
  ASSERT_EQ(predicted.log().events.size(), a.log.events.size());
  for (std::size_t i = 0; i < a.log.events.size(); ++i) {
    EXPECT_EQ(predicted.log().events[i].outcome, a.log.events[i].outcome) << "event " << i;
    EXPECT_EQ(predicted.log().events[i].points, a.log.events[i].points) << "event " << i;
  }
  for (const auto& e : a.log.events) EXPECT_GT(e.outcome == sim::Outcome::Dropped ? 1 : e.duration_ns, 0);
}

TEST_F(Trainer, RestartAboveReExecutesAndStaysBitwiseIdentical) {
  // 10 MiB (about 11,600 points): the batches run out of memory, every scene fits even beside the memory
  // held across steps.
  const std::string common = "--budget 10MiB --policy original ";
  ASSERT_EQ(run(common + "--weights-out " + path("full.bin"), "full.log"), 0) << log("full.log");
  ASSERT_EQ(run(common + "--hold-per-step 1MiB --restart-above 1536KiB --checkpoint " + path("ck") +
                    " --trace " + path("r.jsonl") + " --weights-out " + path("restarted.bin"),
                "r.log"),
            0)
      << log("r.log");
  const std::string out = log("r.log");
  std::size_t restarts = 0;
  for (auto p = out.find("restart: live bytes"); p != std::string::npos;
       p = out.find("restart: live bytes", p + 1))
    ++restarts;
  EXPECT_EQ(restarts, 1u) << out;  // after step 2 of 4 (two held MiB); the new process ends before its second
  EXPECT_NE(out.find("resumed from"), std::string::npos) << out;
  EXPECT_TRUE(read_file(path("full.bin")) == read_file(path("restarted.bin")))
      << "weights after a restart differ from the uninterrupted run";
  const sim::Trace t = sim::read_trace_file(path("r.jsonl"));
  ASSERT_TRUE(t.totals);
  EXPECT_EQ(t.totals->optimizer_steps, 4);
  EXPECT_EQ(t.totals->oom_attempts, 4);  // each batch once
}

TEST_F(Trainer, BadInputIsAClearError) {
  std::ofstream(dir_ / "bad.txt") << "3000\nlots\n";
  EXPECT_EQ(run("--sizes " + path("bad.txt"), "bad.log"), 1);
  EXPECT_NE(log("bad.log").find("bad.txt"), std::string::npos) << log("bad.log");
  EXPECT_EQ(run("--budget lots", "usage.log"), 2);
  std::ofstream(dir_ / "ck") << "not a checkpoint";
  EXPECT_EQ(run("--resume --checkpoint " + path("ck"), "ck.log"), 1);
  EXPECT_NE(log("ck.log").find("not an oomscope-demo-trainer checkpoint"), std::string::npos)
      << log("ck.log");
}

TEST_F(Trainer, PlantedBugCrashesWithExitCode4UnderOomOnly) {
  EXPECT_EQ(run("--policy corrected --bug-scene 1 --trace " + path("c.jsonl"), "c.log"), 4) << log("c.log");
  const sim::Trace t = sim::read_trace_file(path("c.jsonl"));
  ASSERT_TRUE(t.totals);
  EXPECT_EQ(t.totals->crashes, 1);
  EXPECT_EQ(t.log.events.back().outcome, sim::Outcome::Crash);
}

}  // namespace
}  // namespace oomscope::train
