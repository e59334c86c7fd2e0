// Categories: the KV cache and communication rules, the stage between external_annotations markers, and a
// user's rules file (docs/categories.md): good files, every kind of bad one (each error names the file and
// the line), and rules applied to hand-made and real snapshots.
#include "core/snapshot/category_rules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/snapshot/categoriser.h"
#include "core/snapshot/peak_sites.h"
#include "core/snapshot/snapshot_analysis.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

// One device; frame lists: 1 a DDP reducer bucket (C++), 2 transformers' KV cache update in forward,
// 3 a plain user line, 4 a model forward, 5 torch/distributed's all_gather (Python).
struct Hand {
  Snapshot snap;
  std::uint64_t next = 0x7f0000000000;
  Hand() {
    snap.path = "hand.pickle";
    snap.frames = {
        {"??", "c10d::Reducer::initialize_buckets(std::vector<c10d::Reducer::BucketIndices>)", 0},
        {"/venv/lib/site-packages/transformers/cache_utils.py", "update", 88},
        {"/home/u/model.py", "forward", 12},
        {"/home/u/train.py", "main", 40},
        {"/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", "all_gather", 2900},
    };
    snap.frame_lists = {{}, {0, 3}, {1, 2, 3}, {3}, {2, 3}, {4, 3}};
    snap.device_traces.resize(1);
  }
  void alloc(std::int64_t bytes, FramesId frames, std::int64_t t = -1) {
    snap.device_traces[0].push_back({next, bytes, t, frames, 0, Action::Alloc});
    next += static_cast<std::uint64_t>(bytes);
  }
};

Categorised first_at_peak(const Snapshot& s, const CategoryRules* rules = nullptr) {
  const SnapshotReport r = analyse_snapshot(s, 25, rules);
  EXPECT_FALSE(r.devices.empty());
  EXPECT_FALSE(r.devices.front().at_peak.empty());
  return r.devices.front().at_peak.front().category;
}

TEST(BuiltInCategories, CommunicationFromC10dAndTorchDistributedFrames) {
  Hand h;
  h.alloc(64 * MiB, 1);
  EXPECT_EQ(first_at_peak(h.snap).category, Category::Communication);
  EXPECT_NE(first_at_peak(h.snap).rule.find("c10d::Reducer"), std::string::npos);
  Hand g;
  g.alloc(64 * MiB, 5);
  EXPECT_EQ(first_at_peak(g.snap).category, Category::Communication);
}

TEST(BuiltInCategories, KvCacheWinsOverTheForwardThatCallsIt) {
  Hand h;
  h.alloc(64 * MiB, 2);
  const Categorised c = first_at_peak(h.snap);
  EXPECT_EQ(c.category, Category::KvCache);
  EXPECT_NE(c.rule.find("cache_utils.py:88 in update"), std::string::npos);
  EXPECT_EQ(c.label(), "KV cache");
}

TEST(BuiltInCategories, UnknownAndOtherStayWhatTheyAre) {
  Hand h;
  h.alloc(64 * MiB, 0);
  EXPECT_EQ(first_at_peak(h.snap).category, Category::Unknown);
  Hand g;
  g.alloc(64 * MiB, 3);
  EXPECT_EQ(first_at_peak(g.snap).category, Category::Other);
}

TEST(StageCategories, OptimizerStepWindowNamesOnlyWhatTheStackLeavesOpen) {
  Hand h;
  h.snap.annotations = {{"Optimizer.step#AdamW.step", "START", 0, 1000},
                        {"Optimizer.step#AdamW.step", "END", 0, 2000}};
  h.alloc(64 * MiB, 3, 1500);  // inside the window, a stack no rule matches
  h.alloc(32 * MiB, 4, 1600);  // inside, but a forward frame says what it is
  h.alloc(16 * MiB, 3, 2500);  // after the window
  const SnapshotReport r = analyse_snapshot(h.snap);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& top = r.devices[0].at_peak;
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].category.category, Category::OptimizerState);
  EXPECT_NE(top[0].category.rule.find("Optimizer.step#AdamW.step"), std::string::npos);
  EXPECT_EQ(top[1].category.category, Category::Activations);
  EXPECT_EQ(top[2].category.category, Category::Other);
}

TEST(CategoryRulesFile, ParsesTargetsBuiltInAndOwnNames) {
  const CategoryRules rules = CategoryRules::parse(
      "# team rules\n\n"
      "function  ^main$  -> Replay Buffer\n"
      "file /home/u/ -> activations\n"
      "  site model\\.py:12 in forward ->  Optimizer State  \n"
      "annotation ^ProfilerStep# -> step 3 -> four\n",
      "team.rules");
  ASSERT_EQ(rules.rules().size(), 4u);
  EXPECT_EQ(rules.rules()[0].target, RuleTarget::Function);
  EXPECT_EQ(rules.rules()[0].line, 3u);
  EXPECT_EQ(rules.rules()[0].category.category, Category::Custom);
  EXPECT_EQ(rules.rules()[0].category.label(), "Replay Buffer");
  EXPECT_EQ(rules.rules()[1].category.category, Category::Activations);
  EXPECT_EQ(rules.rules()[2].category.category, Category::OptimizerState);  // any case
  EXPECT_EQ(rules.rules()[2].pattern, "model\\.py:12 in forward");
  // The last '->' splits: the expression keeps the first one.
  EXPECT_EQ(rules.rules()[3].pattern, "^ProfilerStep# -> step 3");
  EXPECT_EQ(rules.rules()[3].category.label(), "four");
}

std::string error_of(const std::string& text) {
  try {
    (void)CategoryRules::parse(text, "bad.rules");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CategoryRulesFile, BadFilesNameTheFileAndTheLine) {
  EXPECT_EQ(error_of("# ok\nframes x -> y\n").rfind("bad.rules: line 2: 'frames' is not a rule target", 0),
            0u)
      << error_of("# ok\nframes x -> y\n");
  EXPECT_NE(error_of("frame x y\n").find("bad.rules: line 1: no '->'"), std::string::npos);
  EXPECT_NE(error_of("\n\nfile    -> y\n").find("line 3: no regular expression"), std::string::npos);
  EXPECT_NE(
      error_of("file (unclosed -> y\n").find("line 1: the regular expression /(unclosed/ does not compile"),
      std::string::npos);
  EXPECT_NE(error_of("file x ->   \n").find("line 1: no category name"), std::string::npos);
  EXPECT_NE(error_of("file x -> CUSTOM\n").find("line 1: 'custom' is reserved"), std::string::npos);
  EXPECT_EQ(error_of("metadata x -> y\ncompile_context x -> z\n"), "(no error)");
  EXPECT_NE(error_of("\nmeta x -> y\n").find("bad.rules: line 2: 'meta' is not a rule target"),
            std::string::npos);
  EXPECT_NE(error_of("file x -> y\x01z\n").find("control character"), std::string::npos);
  EXPECT_NE(error_of(std::string("file x -> y\nfile \0 -> z\n", 25)).find("line 2: holds a NUL byte"),
            std::string::npos);
  EXPECT_NE(error_of("file x -> " + std::string(65, 'n') + "\n").find("longer than 64 bytes"),
            std::string::npos);
  std::string many;
  for (int i = 0; i < 65; ++i) many += "file a" + std::to_string(i) + " -> x\n";
  EXPECT_NE(error_of(many).find("line 65: more than 64 rules"), std::string::npos);
  EXPECT_EQ(error_of("frame x -> y\n"), "(no error)");
}

TEST(CategoryRulesFile, MissingFileAndFolderAreErrorsNamingThem) {
  const std::string dir = ::testing::TempDir();
  try {
    (void)CategoryRules::read(dir + "/no-such.rules");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_EQ(e.file(), dir + "/no-such.rules");
  }
  try {
    (void)CategoryRules::read(dir);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotAFile);
  }
  const std::string path = dir + "/ok.rules";
  std::ofstream(path) << "file /home/u/ -> mine\n";
  EXPECT_EQ(CategoryRules::read(path).rules().size(), 1u);
  std::filesystem::remove(path);
}

TEST(CategoryRulesApplied, FirstMatchingUserRuleWinsAndSaysWhy) {
  Hand h;
  h.snap.annotations = {{"ProfilerStep#3", "START", 0, 100}};  // never closed: open to the end
  h.alloc(64 * MiB, 1, 50);                                    // communication by the built-in rules
  h.alloc(32 * MiB, 2, 150);                                   // KV cache by the built-in rules
  h.alloc(16 * MiB, 3, 160);                                   // other
  const CategoryRules rules = CategoryRules::parse(
      "function ^c10d::Reducer -> ddp buckets\n"
      "annotation ^ProfilerStep#3$ -> step three\n"
      "site train\\.py -> never reached\n",
      "team.rules");
  const SnapshotReport r = analyse_snapshot(h.snap, 25, &rules);
  const auto& top = r.devices.at(0).at_peak;
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].category.label(), "ddp buckets");
  EXPECT_EQ(top[0].category.rule,
            "user rule at team.rules:1 (function ~ /^c10d::Reducer/ -> ddp buckets) matched the frame "
            "??:0 in c10d::Reducer::initialize_buckets(std::vector<c10d::Reducer::BucketIndices>)");
  EXPECT_EQ(top[1].category.label(), "step three");  // the annotation rule comes before the site rule
  EXPECT_EQ(top[2].category.label(), "step three");
  // Own names are categories of their own in the totals.
  const auto& cats = r.devices.at(0).categories_at_peak;
  ASSERT_EQ(cats.size(), 2u);
  EXPECT_EQ(cats[0].label(), "ddp buckets");
  EXPECT_EQ(cats[1].label(), "step three");
  EXPECT_EQ(cats[1].bytes, 48 * MiB);
}

std::shared_ptr<const Snapshot> real(const char* name) {
  return read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + name);
}

// DeComFL's OPT run under transformers: every allocation made through cache_utils.py's update is KV cache.
// The count is checked against the raw frames of the trace's allocs.
TEST(RealSnapshotCategories, DecomflKvCacheAllocationsAreKvCache) {
  const auto s = real("torch_snapshot_decomfl_windows_with_trace.pickle");
  const Categoriser cat(*s);
  const Timeline t = active_memory_timeline(*s, default_device(*s));
  std::size_t kv = 0, raw = 0;
  for (const TimelineElement& e : t.elements) {
    if (e.start < 0) continue;
    kv += cat.of(e, t.device).category == Category::KvCache;
    bool via_cache = false;
    for (std::uint32_t id : s->frames_of(e.frames))
      via_cache |= s->frames[id].filename.ends_with("cache_utils.py");
    raw += via_cache;
  }
  EXPECT_GT(raw, 0u);
  EXPECT_EQ(kv, raw);
}

// A site rule on the bf16 cs336 run: the three SwiGLU lines live at the peak hold 3 x 54 MiB there
// (56623104 bytes each: tests/data/tools/snapshot_peak_sites.py on the file), now one category.
TEST(RealSnapshotCategories, Cs336SiteRuleGathersSwigluLines) {
  const auto s = real("torch_snapshot_cs336_bf16_ctx128.pickle");
  const CategoryRules rules =
      CategoryRules::parse("site swiglu\\.py:3[234] in forward -> swiglu\n", "s.rules");
  const SnapshotReport r = analyse_snapshot(*s, 25, &rules);
  const DeviceAnalysis* d = main_device(*s, r);
  ASSERT_NE(d, nullptr);
  std::int64_t swiglu = -1;
  for (const CategoryTotal& c : d->categories_at_peak)
    if (c.label() == "swiglu") swiglu = c.bytes;
  EXPECT_EQ(swiglu, 3 * 56623104);
  std::int64_t from_sites = 0, all = 0;
  for (const PeakSite& p : categorised_sites_at_peak(*s, d, &rules)) {
    all += p.bytes;
    if (p.category == "swiglu") from_sites += p.bytes;
  }
  EXPECT_EQ(from_sites, swiglu);
  EXPECT_EQ(all, d->timeline.peak_bytes);
}

}  // namespace
}  // namespace oomscope::snapshot
