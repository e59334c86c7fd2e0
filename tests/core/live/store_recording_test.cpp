// The store (gaps, downsampling) and recordings (round trip, a crash cut, not-a-recording errors).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/live/client/recorder.h"
#include "core/live/client/replay.h"
#include "core/live/client/store.h"
#include "core/util/error.h"

namespace oomscope::live {
namespace {

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string("oomscope-live-") + std::to_string(::getpid()) + name))
      .string();
}

Sample sample(std::int64_t t, std::int64_t step, std::int64_t alloc) {
  Sample s;
  s.t = t;
  s.set(Field::Step, step);
  s.set(Field::Allocated, alloc);
  s.set(Field::Driver, alloc * 3 + step);
  return s;
}

TEST(LiveStore, MarksTheGapOfALostConnection) {
  Store st;
  st.on_endpoint(0, "127.0.0.1:1");
  st.on_connected(0, 1);
  st.on_sample(0, sample(100, 1, 10));
  st.on_disconnected(0, 150, "agent closed the connection");
  st.on_disconnected(0, 400, "cannot connect: refused");  // retries extend the same gap
  st.on_connected(0, 500);
  st.on_sample(0, sample(600, 2, 11));
  ASSERT_EQ(st.ranks()[0].gaps.size(), 1u);
  EXPECT_EQ(st.ranks()[0].gaps[0].from, 100);
  EXPECT_EQ(st.ranks()[0].gaps[0].to, 600);
  EXPECT_EQ(st.ranks()[0].gaps[0].reason, "agent closed the connection");
}

TEST(LiveStore, DownsampleKeepsSpikes) {
  Store st;
  for (int i = 0; i < 1000; ++i) st.on_sample(0, sample(i * 100, i, i == 537 ? 99999 : 5));
  const auto b = st.downsample(0, Field::Allocated, 0, 100000, 10);
  ASSERT_EQ(b.size(), 10u);
  EXPECT_EQ(b[5].max, 99999);
  EXPECT_EQ(b[5].min, 5);
  EXPECT_EQ(b[4].max, 5);
}

TEST(LiveRecording, RoundTripsEverything) {
  const std::string path = temp_path("-roundtrip.oomlive");
  {
    Recorder rec(path);
    rec.on_endpoint(0, "127.0.0.1:7070");
    rec.on_endpoint(1, "unix:/tmp/r1");
    rec.on_connected(0, 5);
    Hello h;
    h.rank = 1;
    h.backend = "mps";
    rec.on_hello(1, h);
    for (int i = 0; i < 500; ++i) {
      rec.on_sample(0, sample(1'000'000'000LL + i * 100'000'000LL, i, 1000 + i * 7));
      rec.on_sample(1, sample(1'000'000'000LL + i * 100'000'000LL + 3, i, -5 + i));
    }
    rec.on_event(1, Event{2, "oom", "out of memory", "/tmp/s.pickle", 499});
    rec.on_shapes(0, Shapes{3, 9072, {16, 384}, {{16, 384}, {16, 512}}});
    rec.on_disconnected(0, 9, "agent closed the connection");
    rec.on_bad_line(1, 10, "line is not valid JSON");
  }
  Store st;
  const ReplayInfo info = replay_recording(path, st);
  EXPECT_FALSE(info.truncated) << info.note;
  EXPECT_EQ(info.samples, 1000u);
  ASSERT_EQ(st.ranks().size(), 2u);
  EXPECT_EQ(st.ranks()[0].endpoint, "127.0.0.1:7070");
  EXPECT_EQ(st.ranks()[1].hello->backend, "mps");
  EXPECT_EQ(st.ranks()[0].samples[499].get(Field::Allocated), 1000 + 499 * 7);
  EXPECT_EQ(st.ranks()[1].samples[0].get(Field::Allocated), -5);
  EXPECT_EQ(st.ranks()[1].samples[10].t, 1'000'000'000LL + 10 * 100'000'000LL + 3);
  EXPECT_EQ(st.ranks()[1].events.at(0).path, "/tmp/s.pickle");
  EXPECT_EQ(st.ranks()[0].shapes.at(0).distinct, 9072);
  EXPECT_EQ(st.ranks()[0].shapes.at(0).fresh.size(), 2u);
  EXPECT_EQ(st.ranks()[0].shapes.at(0).fresh[1][1], 512);
  EXPECT_EQ(st.ranks()[0].gaps.size(), 1u);
  EXPECT_EQ(st.ranks()[1].bad_lines, 1);
  std::filesystem::remove(path);
}

TEST(LiveRecording, ACutFileOpensUpToTheCut) {
  const std::string path = temp_path("-cut.oomlive");
  {
    Recorder rec(path, 50);
    rec.on_endpoint(0, "127.0.0.1:7070");
    for (int i = 0; i < 200; ++i) rec.on_sample(0, sample(i, i, i));
    usleep(200'000);  // the flusher writes it out
    const auto flushed = std::filesystem::file_size(path);
    for (int i = 200; i < 400; ++i) rec.on_sample(0, sample(i, i, i));
    rec.close();
    std::filesystem::resize_file(path, flushed);  // as if the process died before the next flush
  }
  Store st;
  const ReplayInfo info = replay_recording(path, st);
  EXPECT_TRUE(info.truncated);
  EXPECT_NE(info.note.find("not closed"), std::string::npos) << info.note;
  EXPECT_EQ(st.ranks()[0].samples.size(), 200u);
  std::filesystem::remove(path);
}

TEST(LiveRecording, OtherFilesAreNotRecordings) {
  const std::string path = temp_path("-text.txt");
  std::ofstream(path) << "hello world\n";
  Store st;
  try {
    replay_recording(path, st);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an oomscope live recording"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  EXPECT_FALSE(looks_like_recording(path));
  EXPECT_THROW(replay_recording(path + ".missing", st), Error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace oomscope::live
