// Device sources: present with a driver, cleanly absent (one sentence, no exception) without one; RSS.

#include "core/live/agent/device_stats.h"

#include <gtest/gtest.h>

namespace oomscope::live {
namespace {

TEST(LiveDeviceStats, PresentOrSaidOnce) {
  DeviceInfo info;
  std::string note;
  const auto sources = make_device_sources(0, 0, info, note);
  ASSERT_FALSE(note.empty());
  if (sources.empty()) {
    EXPECT_TRUE(note.starts_with("no device figures: ")) << note;
    GTEST_SKIP() << "no GPU here: " << note;
  }
  EXPECT_TRUE(note.starts_with("device figures from ")) << note;
  EXPECT_GT(info.total_bytes, 0);
  Sample s;
  for (const auto& src : sources) src->fill(s);  // must not throw
}

TEST(LiveDeviceStats, ProcessRss) {
  Sample s;
  ProcessRssSource self;
  self.fill(s);
  ASSERT_TRUE(s.has(Field::Rss));
  EXPECT_GT(s.get(Field::Rss), 1 << 20);
  Sample none;
  ProcessRssSource gone(999999999);
  gone.fill(none);
  EXPECT_FALSE(none.has(Field::Rss));
}

}  // namespace
}  // namespace oomscope::live
