// Hostile and damaged input at the reader: a file that shrinks while it is read or while it is open, files
// that would make the reader allocate far more than their size, a capture joined to itself, repeated
// errors and hostnames, zeros, damage after a valid start, and .xplane.pb.gz. Inputs are made here, small.

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/capture/reader.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "tests/core/capture/truncate_on_progress.h"
#include "tests/core/scratch_dir_test.h"

namespace {

namespace fs = std::filesystem;
using oomscope::ErrorKind;
using oomscope::capture::EventRecord;
using oomscope::capture::read_capture;

const std::string kData = OOMSCOPE_TEST_DATA;
const std::string kGemm = kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb";

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string len_field(int number, const std::string& payload) {
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string varint_field(int number, std::uint64_t value) {
  return varint(static_cast<std::uint64_t>(number) << 3) + varint(value);
}
std::string plane(const std::string& name, const std::string& body) {
  return len_field(1, varint_field(1, 1) + len_field(2, name) + body);
}

class ReaderHostile : public oomscope::testing::ScratchDirTest {
 protected:
  static oomscope::Error error_of(const std::string& path) {
    try {
      read_capture(path);
    } catch (const oomscope::Error& e) {
      return e;
    }
    ADD_FAILURE() << path << " was read without an error";
    return oomscope::Error(ErrorKind::Cancelled, "", "");
  }
};

TEST_F(ReaderHostile, FileThatShrinksWhileReadIsAClearErrorNotSigbus) {
  // Big enough that the planes span many pages; cut to one page once reading has begun.
  std::string big;
  const std::string whole = slurp(kGemm);
  for (int i = 0; i < 8; ++i) big += whole;
  const std::string path = write("shrinking.xplane.pb", big);
  oomscope::capture::testing::TruncateOnProgress cut(path, 4096);
  try {
    read_capture(path, cut);
    FAIL() << "read without an error";
  } catch (const oomscope::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Changed);
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.message().find("the file shrank while it was being read"), std::string::npos) << e.message();
  }
}

TEST_F(ReaderHostile, FileThatShrinksWhileOpenReadsAsZerosAndSaysSo) {
  const std::string path = write("open.xplane.pb", slurp(kGemm));
  const auto cap = read_capture(path);
  EXPECT_FALSE(cap->file_shrank());
  // Past the first page (which the kernel keeps, zero-filled after the new end), an event's bytes are gone.
  const auto past_first_page = [](const EventRecord& ev) { return ev.offset() >= 4096; };
  std::size_t stats_before = 0, events_past = 0;
  for (const auto& p : cap->planes())
    for (const auto& l : p.lines)
      for (const auto& ev : l.events)
        if (past_first_page(ev)) {
          ++events_past;
          stats_before += cap->event_stats(p, ev).size();
        }
  ASSERT_GT(events_past, 0u);
  ASSERT_GT(stats_before, 0u);  // so that "no stats" below says something
  fs::resize_file(path, 100);
  EXPECT_TRUE(cap->file_shrank());
  std::size_t stats_after = 0;
  for (const auto& p : cap->planes())  // every event's stats read from the (now gone) bytes: no SIGBUS
    for (const auto& l : p.lines)
      for (const auto& ev : l.events)
        if (past_first_page(ev)) stats_after += cap->event_stats(p, ev).size();
  // The gone bytes read as zeros: a zero length before each event, so no stat is decoded from them.
  EXPECT_EQ(stats_after, 0u);
  EXPECT_TRUE(cap->file_shrank());
}

TEST_F(ReaderHostile, TwoGiBOfZerosIsRefusedAtTheStart) {
  const std::string path = (dir_ / "zeros.xplane.pb").string();
  { std::ofstream(path) << std::string(1, '\0'); }
  fs::resize_file(path, (2ull << 30) - 1);  // sparse: no disk space, reads as zeros
  const oomscope::Error e = error_of(path);
  EXPECT_EQ(e.kind(), ErrorKind::NotACapture);
  EXPECT_NE(e.message().find("zero bytes"), std::string::npos) << e.message();
}

TEST_F(ReaderHostile, NoXSpaceFieldAtAllVersusDamageAfterAValidStart) {
  const oomscope::Error none = error_of(write("text.xplane.pb", "hello, this is text and not a capture"));
  EXPECT_EQ(none.kind(), ErrorKind::NotACapture);
  EXPECT_NE(none.message().find("not an XSpace capture"), std::string::npos) << none.message();

  std::string damaged = slurp(kGemm);
  // A field number 0 where the second top-level field begins, after the first plane.
  std::size_t i = 1;
  std::uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<unsigned char>(damaged[i++]);
    length |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  const std::size_t at = i + length - 1;  // so that the error is at byte at + 1
  damaged[at + 1] = 0;
  const oomscope::Error after = error_of(write("damaged.xplane.pb", damaged));
  EXPECT_EQ(after.kind(), ErrorKind::Damaged);
  EXPECT_NE(after.message().find("damaged at byte " +
                                 oomscope::format_bytes_exact(static_cast<std::int64_t>(at + 1)) +
                                 ", after bytes that read as an XSpace capture"),
            std::string::npos)
      << after.message();
}

TEST_F(ReaderHostile, EmptyEventsAndLinesAreCountedNotStored) {
  std::string events;
  for (int i = 0; i < 100000; ++i) events += len_field(4, "");
  std::string lines;
  for (int i = 1; i <= 1000; ++i) lines += len_field(3, varint_field(1, static_cast<std::uint64_t>(i)));
  const std::string body = len_field(3, varint_field(1, 5000) + events) + lines;
  const auto cap = read_capture(write("empty.xplane.pb", plane("/host:CPU", body)));
  EXPECT_EQ(cap->event_count(), 0u);
  ASSERT_EQ(cap->reader_notes().size(), 2u);
  EXPECT_EQ(cap->reader_notes()[0], "100,000 empty events (no metadata, no time, no stats) were skipped");
  EXPECT_EQ(cap->reader_notes()[1], "1,001 empty lines (no name, no events) were skipped");
}

TEST_F(ReaderHostile, TinyEventsBeyondTheMemoryBudgetAreRefusedNamingTheFile) {
  // 4-byte allocator events take a 32-byte event record and a decoded allocator event each once read: over
  // 30 times the file, over the 8x budget (+64 MiB). (Plain 4-byte events, at 8x, just fit.)
  std::string events;
  const std::string one = len_field(4, varint_field(1, 1));
  const std::size_t n = (16u << 20) / one.size();
  events.reserve(n * one.size());
  for (std::size_t i = 0; i < n; ++i) events += one;
  const std::string metadata =
      len_field(4, varint_field(1, 1) + len_field(2, varint_field(1, 1) + len_field(2, "MemoryAllocation")));
  const std::string path =
      write("tiny.xplane.pb", plane("/host:CPU", metadata + len_field(3, varint_field(1, 1) + events)));
  const oomscope::Error e = error_of(path);
  EXPECT_EQ(e.kind(), ErrorKind::TooLarge);
  EXPECT_EQ(e.file(), path);
  EXPECT_NE(e.message().find("the limit was passed at its allocator events"), std::string::npos)
      << e.message();
}

TEST_F(ReaderHostile, RepeatedErrorsAndHostnamesAreKeptOnceWithACount) {
  std::string bytes = slurp(kGemm);
  for (int i = 0; i < 5000; ++i) bytes += len_field(2, "buffer overflow");
  for (int i = 0; i < 300; ++i) bytes += len_field(2, "error " + std::to_string(i));
  const auto cap = read_capture(write("errors.xplane.pb", bytes));
  EXPECT_EQ(cap->errors().size(), 100u);
  EXPECT_EQ(cap->errors().front(), "buffer overflow");
  ASSERT_EQ(cap->reader_notes().size(), 2u);
  EXPECT_EQ(cap->reader_notes()[0],
            "the capture error \"buffer overflow\" is listed 5,000 times; it is kept once");
  EXPECT_EQ(
      cap->reader_notes()[1],
      "the capture lists 5,300 capture errors; the first 100 different ones are kept and 201 further ones "
      "were skipped");
}

TEST_F(ReaderHostile, CaptureJoinedToItselfCountsOnceAndSaysSo) {
  const auto once = read_capture(kGemm);
  const std::string whole = slurp(kGemm);
  const auto thrice = read_capture(write("joined.xplane.pb", whole + whole + whole));
  EXPECT_EQ(thrice->event_count(), once->event_count());
  EXPECT_EQ(thrice->memory_events().size(), once->memory_events().size());
  EXPECT_EQ(thrice->executions().size(), once->executions().size());
  EXPECT_EQ(thrice->hostnames(), once->hostnames());
  bool said_planes = false, said_host = false;
  for (const std::string& n : thrice->reader_notes()) {
    said_planes = said_planes || n.find("appears 3 times with identical bytes") != std::string::npos;
    said_host = said_host || n.find("is listed 3 times") != std::string::npos;
  }
  EXPECT_TRUE(said_planes);
  EXPECT_TRUE(said_host);
}

TEST_F(ReaderHostile, GzipCaptureIsDecompressed) {
  const std::string raw = slurp(kGemm);
  const std::string path = (dir_ / "gemm.xplane.pb.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, raw.data(), static_cast<unsigned>(raw.size())), static_cast<int>(raw.size()));
  gzclose(gz);
  const auto plain = read_capture(kGemm);
  const auto unzipped = read_capture(path);
  EXPECT_EQ(unzipped->event_count(), plain->event_count());
  EXPECT_EQ(unzipped->modules().size(), plain->modules().size());
  EXPECT_EQ(unzipped->memory_events().size(), plain->memory_events().size());

  // Cut short: a clear error, not a partial capture.
  const std::string gz_bytes = slurp(path);
  const oomscope::Error cut = error_of(write("cut.xplane.pb.gz", gz_bytes.substr(0, gz_bytes.size() / 2)));
  EXPECT_EQ(cut.kind(), ErrorKind::Truncated);

  // A gzip file of something else.
  const std::string json = (dir_ / "trace.json.gz").string();
  gz = gzopen(json.c_str(), "wb");
  const std::string text = "{\"traceEvents\": []}";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  const oomscope::Error other = error_of(json);
  EXPECT_EQ(other.kind(), ErrorKind::Gzip);
  EXPECT_NE(other.message().find("gzip file that is not a compressed XSpace capture"), std::string::npos);
}

}  // namespace
