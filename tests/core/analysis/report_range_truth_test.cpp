// A time selection must not change what is true of an execution: its number, whether it launched and what
// was live at its start are judged on the whole capture; only what is counted (allocator events, waits,
// executions) is limited to the selection, and the report says so. Hand-built OOM capture
// (tests/data/hand/hand_oom_retry: executions at 0.100, 0.110 and 0.120 s; the third never launches, two
// AllocatorRetry waits from 0.121 s).

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "core/analysis/report/report.h"
#include "core/analysis/report/report_text.h"
#include "core/capture/reader.h"

namespace oomscope::analysis {
namespace {

const std::string kOom = std::string(OOMSCOPE_TEST_DATA) + "/hand/hand_oom_retry.xplane.pb";

HostReport ranged(const capture::Capture& c, double from_s, double to_s) {
  ReportOptions o;
  o.time_window = std::pair(std::int64_t(from_s * 1e12), std::int64_t(to_s * 1e12));
  return build_host_report(c, o);
}

bool hasRule(const HostReport& r, const std::string& rule) {
  return std::any_of(r.diagnosis.begin(), r.diagnosis.end(),
                     [&](const DiagnosisLine& l) { return l.rule == rule; });
}

TEST(ReportRangeTruth, AnExecutionCutByTheSelectionKeepsItsNumberAndLaunch) {
  const auto c = capture::read_capture(kOom);
  // Ends 1 ns after the second execution starts, before its kernels run.
  const HostReport r = ranged(*c, 0.1055, 0.110001);
  ASSERT_TRUE(r.runtime.module);
  ASSERT_EQ(r.runtime.module->executions.size(), 1u);
  const RuntimeExecution& e = r.runtime.module->executions.front();
  EXPECT_EQ(e.number, 2);
  EXPECT_EQ(e.launched, std::optional<bool>(true));
  EXPECT_TRUE(e.matched_by_program_id);
  EXPECT_TRUE(r.runtime.has_device_program_events);
  for (const std::string& note : r.runtime.notes) EXPECT_EQ(note.find("no device event"), std::string::npos);
  EXPECT_FALSE(hasRule(r, "never-launched"));
  EXPECT_FALSE(hasRule(r, "allocator-retry"));
}

TEST(ReportRangeTruth, LiveGroupsNameWhatAllocatedThemBeforeTheSelection) {
  const auto c = capture::read_capture(kOom);
  const HostReport whole = build_host_report(*c, {});
  const HostReport r = ranged(*c, 0.1055, 0.1201);
  ASSERT_TRUE(r.runtime.module && whole.runtime.module);
  // The same last execution as the whole capture's, so the same groups.
  EXPECT_EQ(r.runtime.module->executions.back().number, whole.runtime.module->executions.back().number);
  EXPECT_EQ(r.runtime.module->live_at_last_start_bytes, whole.runtime.module->live_at_last_start_bytes);
  std::int64_t sum = 0;
  for (const LiveGroup& g : r.runtime.module->live_at_last_start) {
    EXPECT_FALSE(g.before_capture) << g.label;
    sum += g.bytes;
  }
  EXPECT_EQ(sum, r.runtime.module->live_at_last_start_bytes);
  ASSERT_EQ(r.runtime.module->live_at_last_start.size(), whole.runtime.module->live_at_last_start.size());
  for (std::size_t i = 0; i < r.runtime.module->live_at_last_start.size(); ++i)
    EXPECT_EQ(r.runtime.module->live_at_last_start[i].label,
              whole.runtime.module->live_at_last_start[i].label);
  // In use at the start of execution 2 is read from the event before it, outside the selection.
  EXPECT_EQ(r.runtime.module->executions.front().bytes_in_use_at_start,
            whole.runtime.module->executions[1].bytes_in_use_at_start);
  EXPECT_TRUE(hasRule(r, "never-launched"));
}

TEST(ReportRangeTruth, NoOomIsClaimedOutsideTheSelection) {
  const auto c = capture::read_capture(kOom);
  const HostReport whole = build_host_report(*c, {});
  ASSERT_TRUE(hasRule(whole, "allocator-retry") || hasRule(whole, "never-launched"));
  ASSERT_GT(whole.runtime.retries.count, 0);
  const HostReport r = ranged(*c, 0.0, 0.115);
  EXPECT_EQ(r.runtime.retries.count, 0);
  EXPECT_EQ(r.runtime.module->never_launched, 0);
  EXPECT_FALSE(hasRule(r, "allocator-retry"));
  EXPECT_FALSE(hasRule(r, "never-launched"));
  for (const DiagnosisLine& l : r.diagnosis) {
    EXPECT_EQ(l.finding.find("OOM"), std::string::npos) << l.finding;
    EXPECT_EQ(l.cause.find("OOM happened"), std::string::npos) << l.cause;
  }
  // The pool's highest point inside the selection, not the capture's.
  ASSERT_FALSE(r.runtime.allocators.empty());
  std::int64_t peak = 0;
  for (const capture::MemoryEvent& m : c->memory_events())
    if (m.time_ps <= std::int64_t(0.115e12)) peak = std::max(peak, m.bytes_in_use);
  EXPECT_EQ(r.runtime.allocators.front().peak_bytes_in_use, peak);
}

TEST(ReportRangeTruth, TheTextSaysItDescribesTheSelection) {
  const auto c = capture::read_capture(kOom);
  std::ostringstream out;
  write_report_text(out, ranged(*c, 0.1055, 0.1201), 25);
  const std::string text = out.str();
  EXPECT_NE(text.find("selection: 0.105500 s .. 0.120100 s of the capture"), std::string::npos) << text;
  EXPECT_NE(text.find("host executions in the selection: 2"), std::string::npos) << text;
  EXPECT_NE(text.find("freed chunks allocated before the selection"), std::string::npos) << text;
  EXPECT_EQ(text.find("in the capture:"), std::string::npos) << text;
  std::ostringstream plain;
  write_report_text(plain, build_host_report(*c, {}), 25);
  EXPECT_EQ(plain.str().find("selection"), std::string::npos);
}

}  // namespace
}  // namespace oomscope::analysis
