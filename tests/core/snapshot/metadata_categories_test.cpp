// Categories from what a trace entry carries beyond its stack, on hand-built snapshots read through the
// reader (no shared real snapshot carries user_metadata or a compile_context other than 'N/A'): `metadata`
// and `compile_context` rules, the interned strings they read, and the stage between external_annotations
// markers (forward / backward / optimizer step) for what no frame decides (docs/categories.md).
#include <gtest/gtest.h>

#include <string>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/snapshot_analysis.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

std::shared_ptr<const Snapshot> read_json(const std::string& json) {
  NullProgress none;
  return read_snapshot_from_memory(json, "hand.json", none);
}

std::string alloc(std::int64_t addr, std::int64_t size, std::int64_t t, const std::string& more = "") {
  return "{\"action\": \"alloc\", \"addr\": " + std::to_string(addr) + ", \"size\": " + std::to_string(size) +
         ", \"stream\": 0, \"time_us\": " + std::to_string(t) + more + "}";
}

const std::string kUserLine = R"(, "frames": [{"filename": "/home/u/train.py", "line": 40, "name": "main"}])";

// Four allocations with a stack no built-in rule names: two tagged 'buffer=replay' (one string, interned
// once), one 'buffer=kv', one without metadata.
std::shared_ptr<const Snapshot> tagged() {
  return read_json("{\"segments\": [], \"device_traces\": [[" +
                   alloc(1 << 30, 256 * MiB, 1, kUserLine + ", \"user_metadata\": \"buffer=replay\"") + ", " +
                   alloc(2ll << 30, 128 * MiB, 2, kUserLine + ", \"user_metadata\": \"buffer=replay\"") +
                   ", " + alloc(3ll << 30, 64 * MiB, 3, kUserLine + ", \"user_metadata\": \"buffer=kv\"") +
                   ", " + alloc(4ll << 30, 32 * MiB, 4, kUserLine) + "]]}");
}

const std::vector<PeakAllocation>& at_peak(const SnapshotReport& r) { return r.devices.at(0).at_peak; }

TEST(MetadataCategories, ReaderInternsTheMetadataOfEachEntry) {
  const auto s = tagged();
  ASSERT_EQ(s->entry_extras.size(), 3u);
  EXPECT_EQ(s->texts.size(), 3u);  // "", 'buffer=replay', 'buffer=kv'
  EXPECT_EQ(s->entry_extras[0].user_metadata, s->entry_extras[1].user_metadata);
  EXPECT_EQ(s->text(s->entry_extras[0].user_metadata), "buffer=replay");
  EXPECT_EQ(s->text(s->entry_extras[2].user_metadata), "buffer=kv");
  ASSERT_NE(s->extra_of(0, 2), nullptr);
  EXPECT_EQ(s->text(s->extra_of(0, 2)->user_metadata), "buffer=kv");
  EXPECT_EQ(s->extra_of(0, 3), nullptr);  // the entry without metadata keeps nothing
  EXPECT_EQ(s->extra_of(1, 0), nullptr);
}

TEST(MetadataCategories, MetadataRuleNamesTheTaggedBlocksAndSaysWhy) {
  const auto s = tagged();
  const CategoryRules rules = CategoryRules::parse(
      "metadata ^buffer=replay$ -> replay buffer\n"
      "# an expression that matches the empty text still needs metadata to look at\n"
      "metadata .* -> tagged\n",
      "team.rules");
  const SnapshotReport r = analyse_snapshot(*s, 25, &rules);
  const auto& top = at_peak(r);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].category.label(), "replay buffer");
  EXPECT_EQ(top[0].category.rule,
            "user rule at team.rules:1 (metadata ~ /^buffer=replay$/ -> replay buffer) matched its "
            "user_metadata 'buffer=replay'");
  EXPECT_EQ(top[1].category.label(), "replay buffer");
  EXPECT_EQ(top[2].category.label(), "tagged");
  EXPECT_NE(top[2].category.rule.find("team.rules:3"), std::string::npos);
  EXPECT_EQ(top[3].category.category, Category::Other);  // no metadata: the built-in rules decide
  EXPECT_EQ(top[3].category.rule, "stack matches no rule");
  const auto& cats = r.devices.at(0).categories_at_peak;
  ASSERT_EQ(cats.size(), 3u);
  EXPECT_EQ(cats[0].label(), "replay buffer");
  EXPECT_EQ(cats[0].bytes, 384 * MiB);
  // Without rules the metadata changes nothing: the same stack, the same category.
  const SnapshotReport plain = analyse_snapshot(*s, 25, nullptr);
  for (const PeakAllocation& p : at_peak(plain)) EXPECT_EQ(p.category.category, Category::Other);
}

TEST(MetadataCategories, CompileContextRuleReadsTheCompiledRegion) {
  const auto s =
      read_json("{\"segments\": [], \"device_traces\": [[" +
                alloc(1 << 30, 64 * MiB, 1,
                      kUserLine + ", \"compile_context\": \"[0/1] torch-compiled region: model.forward\"") +
                ", " + alloc(2ll << 30, 32 * MiB, 2, kUserLine + ", \"compile_context\": \"N/A\"") + "]]}");
  const CategoryRules rules =
      CategoryRules::parse("compile_context torch-compiled region -> compiled\n", "c.rules");
  const SnapshotReport r = analyse_snapshot(*s, 25, &rules);
  const auto& top = at_peak(r);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].category.label(), "compiled");
  EXPECT_NE(top[0].category.rule.find("matched its compile_context '[0/1] torch-compiled region"),
            std::string::npos)
      << top[0].category.rule;
  EXPECT_EQ(top[1].category.category, Category::Other);  // 'N/A' is outside any compiled region
}

std::string marker(const char* name, const char* stage, std::int64_t t) {
  return "{\"name\": \"" + std::string(name) + "\", \"stage\": \"" + stage +
         "\", \"device\": 0, \"time_us\": " + std::to_string(t) + "}";
}

// No stacks (or a stack no rule names): the stage says what they are; a deciding frame is kept.
TEST(StageCategories, ForwardBackwardAndOptimizerWindowsNameWhatNoFrameDecides) {
  const std::string fwd = R"(, "frames": [{"filename": "/home/u/model.py", "line": 12, "name": "forward"}])";
  const auto s =
      read_json("{\"segments\": [], \"external_annotations\": [" + marker("ProfilerStep#1", "START", 0) +
                ", " + marker("## forward ##", "START", 10) + ", " + marker("## forward ##", "END", 20) +
                ", " + marker("## backward ##", "START", 30) + ", " + marker("## backward ##", "END", 40) +
                ", " + marker("Optimizer.step#AdamW.step", "START", 50) + ", " +
                marker("Optimizer.step#AdamW.step", "END", 60) + ", " + marker("ProfilerStep#1", "END", 100) +
                "], \"device_traces\": [[" + alloc(1 << 30, 512 * MiB, 15) + ", " +
                alloc(2ll << 30, 256 * MiB, 35, kUserLine) + ", " + alloc(3ll << 30, 128 * MiB, 55) + ", " +
                alloc(4ll << 30, 64 * MiB, 70) + ", " + alloc(5ll << 30, 32 * MiB, 36, fwd) + "]]}");
  const SnapshotReport r = analyse_snapshot(*s);
  const auto& top = at_peak(r);
  ASSERT_EQ(top.size(), 5u);
  EXPECT_EQ(top[0].category.category, Category::Activations);
  EXPECT_EQ(top[0].category.rule,
            "no stack; allocated in the forward pass, between the START and END markers of ## forward ## "
            "(external_annotations)");
  EXPECT_EQ(top[1].category.category, Category::Gradients);
  EXPECT_NE(top[1].category.rule.find("no frame says what it is; allocated in the backward pass"),
            std::string::npos)
      << top[1].category.rule;
  EXPECT_EQ(top[2].category.category, Category::OptimizerState);
  EXPECT_NE(top[2].category.rule.find("Optimizer.step#AdamW.step"), std::string::npos);
  // Inside ProfilerStep#1 only, which names no stage: unknown stays unknown.
  EXPECT_EQ(top[3].category.category, Category::Unknown);
  EXPECT_EQ(top[3].category.rule, "no stack recorded");
  // In the backward window, but its forward() frame decides (kept, so an activation).
  EXPECT_EQ(top[4].category.category, Category::Activations);
  EXPECT_EQ(top[4].category.rule, "allocated in a module's forward() and kept");
}

}  // namespace
}  // namespace oomscope::snapshot
