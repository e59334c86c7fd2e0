// Two Kineto traces and two JAX memory profiles compared (core/snapshot/profile_diff.h) and two Kineto
// timelines on one axis (kineto_overlay.h), on the traces tests/data/tools/make_kineto_ranks.py cut from a
// real DDP trace (expected figures: its own reading, tests/data/kineto_ranks/expected.json) and on the real
// JAX profile with one sample taken out.

#include "core/snapshot/profile_diff.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/snapshot/kineto_overlay.h"

namespace oomscope::snapshot {
namespace {

const std::string kData = OOMSCOPE_TEST_DATA;

nlohmann::json expected() {
  std::ifstream in(kData + "/kineto_ranks/expected.json");
  return nlohmann::json::parse(in);
}

std::shared_ptr<const KinetoTrace> trace(const std::string& name) {
  NullProgress none;
  return read_kineto_trace(kData + "/kineto_ranks/" + name, none);
}

const ProfileRow& row(const ProfileDiff& d, const std::string& name) {
  for (const ProfileRow& r : d.totals)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(ProfileDiff, TwoKinetoTracesByTheirPeaks) {
  const nlohmann::json x = expected()["no_oom"]["ranks"];
  const ProfileDiff d =
      diff_kineto(*trace("no_oom/rank0.pt.trace.json.gz"), *trace("no_oom/rank1.pt.trace.json.gz"));
  EXPECT_EQ(d.format, "kineto");
  EXPECT_EQ(d.device_a, "CUDA 1");
  EXPECT_EQ(row(d, "peak allocated [read]").a, x[0]["peak_allocated_bytes"].get<std::int64_t>());
  EXPECT_EQ(row(d, "peak allocated [read]").b, x[1]["peak_allocated_bytes"].get<std::int64_t>());
  EXPECT_EQ(row(d, "peak reserved [read]").b, x[1]["peak_reserved_bytes"].get<std::int64_t>());
  EXPECT_EQ(row(d, "capacity (totalGlobalMem)").a, x[0]["capacity_bytes"].get<std::int64_t>());
  EXPECT_EQ(row(d, "[memory] events").b, x[1]["memory_events"].get<std::int64_t>());
  EXPECT_TRUE(d.sites.empty());
  ASSERT_FALSE(d.cannot_tell.empty());
  EXPECT_NE(d.cannot_tell[0].find("no stack and no category"), std::string::npos);
  const nlohmann::json j = profile_diff_json(d);
  EXPECT_TRUE(j["sites"].is_null());
}

TEST(ProfileDiff, TwoJaxProfilesByPythonLine) {
  const auto real = read_pprof(kData + "/jax_device_memory_profile_cuda_microjax.prof");
  ASSERT_GT(real->samples.size(), 1u);
  ASSERT_GE(real->space_index, 0);
  PprofProfile fewer = *real;  // B: the same moment with its largest sample gone
  std::size_t largest = 0;
  for (std::size_t i = 0; i < fewer.samples.size(); ++i)
    if (fewer.samples[i].values[std::size_t(real->space_index)] >
        fewer.samples[largest].values[std::size_t(real->space_index)])
      largest = i;
  const std::int64_t gone = fewer.samples[largest].values[std::size_t(real->space_index)];
  ASSERT_GT(gone, 0);
  fewer.samples.erase(fewer.samples.begin() + static_cast<std::ptrdiff_t>(largest));
  const ProfileDiff d = diff_pprof(*real, fewer);
  EXPECT_EQ(*row(d, "live bytes [read]").b - *row(d, "live bytes [read]").a, -gone);
  std::int64_t sum = 0;
  for (const ProfileSiteRow& r : d.sites) sum += r.delta();
  EXPECT_EQ(sum, -gone);
  EXPECT_EQ(d.sites_total, 1u);
  ASSERT_EQ(d.sites.size(), 1u);
  EXPECT_EQ(d.sites[0].a_count, d.sites[0].b_count + 1);
  std::ostringstream text;
  write_profile_diff_text(text, d);
  EXPECT_NE(text.str().find("there is no time axis"), std::string::npos) << text.str();
  // The same profile twice: nothing changed.
  EXPECT_TRUE(diff_pprof(*real, *real).sites.empty());
}

TEST(KinetoOverlay, AlignedByTheFirstStepBothCarry) {
  const nlohmann::json x = expected()["oom_job"]["ranks"];
  const auto a = trace("oom_job/node0_783658.pt.trace.json.gz");  // rank 0
  const auto b = trace("oom_job/node1_783660.pt.trace.json.gz");  // rank 2: +1 GiB from 1 us before its first
  const RunOverlay o = overlay_kineto(*a, *b);
  EXPECT_EQ(o.axis, OverlayAxis::Step);
  EXPECT_EQ(o.aligned_step, 2);
  // Both traces' clocks moved alike (137 us a rank), but B's first event is its added one, 1 us earlier.
  EXPECT_DOUBLE_EQ(o.b_offset, -1.0);
  EXPECT_EQ(o.a.peak_bytes, x[0]["peak_allocated_bytes"].get<std::int64_t>());
  EXPECT_EQ(o.b.peak_bytes, x[2]["peak_allocated_bytes"].get<std::int64_t>());
  EXPECT_LE(o.a.series.size(), 2001u);
  std::int64_t top = 0;
  for (const OverlayPoint& p : o.b.series) top = std::max(top, p.bytes);
  EXPECT_EQ(top, o.b.peak_bytes);  // the peak survives the downsampling
  EXPECT_NE(o.why.find("ProfilerStep#2"), std::string::npos);
}

TEST(KinetoOverlay, ByTimeWithoutStepsInCommon) {
  const auto a = read_kineto_trace_from_text(
      R"({"traceEvents":[{"name":"ProfilerStep#1","ts":0},{"name":"[memory]","ts":10,)"
      R"("args":{"Device Type":1,"Device Id":0,"Bytes":100}}]})",
      "a.json");
  const auto b = read_kineto_trace_from_text(
      R"({"traceEvents":[{"name":"[memory]","ts":50,"args":{"Device Type":1,"Device Id":0,"Bytes":300}}]})",
      "b.json");
  const RunOverlay o = overlay_kineto(*a, *b);
  EXPECT_EQ(o.axis, OverlayAxis::Time);
  EXPECT_EQ(o.b_offset, 0.0);
  EXPECT_EQ(o.b.peak_bytes, 300);
  EXPECT_NE(o.why.find("no ProfilerStep#N marker in common"), std::string::npos) << o.why;
}

}  // namespace
}  // namespace oomscope::snapshot
