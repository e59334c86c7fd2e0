// A JAX memory profile's live bytes by the user's category rules (core/snapshot/profile_categories.h), on
// a hand-built profile whose figures are written out below, and the Kineto diff's one line for rules it
// cannot apply (profile_diff.h).

#include "core/snapshot/profile_categories.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/snapshot/profile_diff.h"

namespace oomscope::snapshot {
namespace {

// Frames: 0 JAX's compile, 1 the model's attention, 2 the model's embedding, 3 JAX internal.
PprofProfile hand_profile(std::int64_t attention_bytes) {
  PprofProfile p;
  p.path = "hand.prof";
  p.sample_types = {{"allocations", "count"}, {"space", "bytes"}};
  p.count_index = 0;
  p.space_index = 1;
  p.frames = {{"_cached_compilation", "/site-packages/jax/_src/interpreters/pxla.py", 10},
              {"attention", "/work/model/attention.py", 42},
              {"embed", "/work/model/embedding.py", 7},
              {"_pjit_call_impl", "/site-packages/jax/_src/pjit.py", 99}};
  p.samples = {{{1, attention_bytes}, {3, 1}, "buffer", "cuda:0"},
               {{1, 1000}, {3, 2}, "buffer", "cuda:0"},
               {{1, 500}, {0}, "executable", "cuda:0"},
               {{1, 64}, {}, "buffer", "cuda:0"}};  // no stack
  return p;
}

const ProfileCategoryRow& row(const ProfileCategories& c, const std::string& name) {
  for (const ProfileCategoryRow& r : c.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no category " + name);
}

TEST(ProfileCategories, TheFirstRuleInFileOrderDecidesAndTheRestIsUnknown) {
  // Line 2 would match the attention sample's frame too (any frame ~ /model/): line 1 comes first.
  const CategoryRules rules = CategoryRules::parse(
      "file /model/attention\\.py$ -> activations\n"
      "file /work/model/ -> parameters\n"
      "function ^_cached_compilation$ -> compiled code\n"
      "metadata . -> KV cache\n",
      "team.rules");
  const ProfileCategories c = pprof_categories(hand_profile(4096), hand_profile(8192), rules);
  EXPECT_EQ(c.rules_path, "team.rules");
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].name, "activations");  // the largest change first
  EXPECT_EQ(row(c, "activations").a, 4096);
  EXPECT_EQ(row(c, "activations").b, 8192);
  EXPECT_EQ(row(c, "parameters").a, 1000);
  EXPECT_EQ(row(c, "parameters").delta(), 0);
  EXPECT_EQ(row(c, "compiled code").b, 500);
  EXPECT_EQ(row(c, "unknown").a, 64);
  EXPECT_EQ(row(c, "unknown").a_samples, 1u);
  ASSERT_EQ(row(c, "activations").reasons.size(), 1u);
  EXPECT_EQ(row(c, "activations").reasons[0].why,
            "user rule at team.rules:1 (file ~ //model/attention\\.py$/ -> activations)");
  EXPECT_EQ(row(c, "unknown").reasons[0].why.rfind("no user rule matched", 0), 0u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("metadata match nothing here"), std::string::npos) << c.notes[0];
}

TEST(ProfileCategories, SiteAndFrameTargets) {
  const CategoryRules rules = CategoryRules::parse(
      "site ^/work/model/embedding\\.py:7 \\(embed\\)$ -> embedding table\n"
      "frame attention\\.py:42 in attention$ -> activations\n",
      "site.rules");
  const PprofProfile p = hand_profile(10);
  std::string why;
  EXPECT_EQ(categorise_pprof_sample(p, p.samples[1], rules, &why).label(), "embedding table");
  EXPECT_EQ(
      why,
      "user rule at site.rules:1 (site ~ /^/work/model/embedding\\.py:7 \\(embed\\)$/ -> embedding table)");
  EXPECT_EQ(categorise_pprof_sample(p, p.samples[0], rules, &why).label(), "activations");
  EXPECT_EQ(categorise_pprof_sample(p, p.samples[2], rules, &why).category, Category::Unknown);
}

TEST(ProfileCategories, TheDiffWritesTheCategoriesOnlyWithRules) {
  const PprofProfile a = hand_profile(4096), b = hand_profile(8192);
  const CategoryRules rules = CategoryRules::parse("file /model/ -> parameters\n", "m.rules");
  std::ostringstream without, with;
  write_profile_diff_text(without, diff_pprof(a, b));
  write_profile_diff_text(with, diff_pprof(a, b, 25, &rules));
  EXPECT_EQ(without.str().find("by category"), std::string::npos);
  EXPECT_NE(with.str().find("live bytes by category (rules of m.rules"), std::string::npos) << with.str();
  // parameters = attention 4096 + embedding 1000 B in A (5,096 B = 4.98 KiB), 8192 + 1000 in B.
  EXPECT_NE(with.str().find("+4.00 KiB   4.98 KiB    8.98 KiB    parameters"), std::string::npos)
      << with.str();
  EXPECT_FALSE(profile_diff_json(diff_pprof(a, b)).contains("categories"));
  EXPECT_EQ(profile_diff_json(diff_pprof(a, b, 25, &rules))["categories"]["rows"][0]["delta"], 4096);
}

TEST(ProfileCategories, AKinetoDiffSaysInOneLineThatTheRulesAreNotApplied) {
  KinetoTrace a, b;
  a.path = "a.json", b.path = "b.json";
  const CategoryRules rules = CategoryRules::parse("file /model/ -> parameters\n", "m.rules");
  const ProfileDiff d = diff_kineto(a, b, &rules);
  std::ostringstream text;
  write_profile_diff_text(text, d);
  EXPECT_NE(text.str().find("\n--categories m.rules: not applied, a Kineto [memory] event carries no stack"),
            std::string::npos)
      << text.str();
  EXPECT_TRUE(profile_diff_json(d)["categories"].is_null());
  EXPECT_FALSE(profile_diff_json(diff_kineto(a, b)).contains("category_rules"));
}

}  // namespace
}  // namespace oomscope::snapshot
