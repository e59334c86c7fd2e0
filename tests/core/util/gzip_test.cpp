// gzip decompression (core/util/gzip.h): ISA-L inflates, and wherever it stops on damaged or cut data the
// result must be exactly zlib's (kind, offset, words, output), which the readers' errors are built from.

#include "core/util/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/util/detail/inflate_pass.h"
#include "core/util/error.h"
#include "core/util/gzip_stream.h"

namespace oomscope {
namespace {

std::string gzip_of(const std::string& text, int level = 6) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Text that compresses like a trace: repeated structure with varying numbers.
std::string trace_like(std::size_t bytes, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes)
    s += "{\"name\": \"[memory]\", \"ts\": " + std::to_string(rng() % 100000) +
         ", \"Bytes\": " + std::to_string(rng() % 4096) + "},\n";
  s.resize(bytes);
  return s;
}

struct Outcome {
  GzipEnd end;
  std::string out;
  std::uint64_t produced = 0;  // streamed: what the stream says it decompressed
};

Outcome fast(std::string_view gz, std::uint64_t limit = 1ull << 40) {
  Outcome o;
  o.end = inflate_gzip(gz, o.out, limit);
  return o;
}
// zlib alone: the reference every verdict must match.
Outcome reference(std::string_view gz, std::uint64_t limit = 1ull << 40) {
  Outcome o;
  detail::InflatePass pass(gz, limit, detail::InflatePass::Engine::Zlib);
  std::string chunk(detail::kInflateChunk, '\0');
  while (!pass.done())
    o.out.append(chunk.data(), pass.next(chunk.data(), std::max<std::size_t>(pass.room(), 1)));
  o.end = pass.end();
  return o;
}
// A chunk at a time, as the Kineto reader takes it.
Outcome streamed(std::string_view gz, std::uint64_t limit = 1ull << 40) {
  Outcome o;
  GzipStream s(gz, limit);
  for (std::string_view c = s.next(); !c.empty(); c = s.next()) o.out += c;
  o.end = s.end();
  o.produced = s.produced();
  return o;
}

void expect_same(const Outcome& a, const Outcome& b, const std::string& what) {
  EXPECT_EQ(a.end.kind, b.end.kind) << what;
  EXPECT_EQ(a.end.at, b.end.at) << what;
  EXPECT_EQ(a.end.zlib_message, b.end.zlib_message) << what;
  EXPECT_TRUE(a.out == b.out) << what << ": outputs differ (" << a.out.size() << " vs " << b.out.size()
                              << " bytes)";
}

TEST(Gzip, LargeSingleMemberInChunksWithProgress) {
  const std::string text = trace_like(5'500'000);
  const std::string gz = gzip_of(text);
  std::string out;
  std::vector<std::uint64_t> seen;
  const GzipEnd end = inflate_gzip(gz, out, 1ull << 40, [&](std::uint64_t at) { seen.push_back(at); });
  EXPECT_EQ(end.kind, GzipEnd::Complete);
  EXPECT_EQ(end.at, gz.size());
  EXPECT_TRUE(out == text);
  EXPECT_GE(seen.size(), 6u);  // at most 1 MiB of output a chunk
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_TRUE(gunzip(gz, "big.json.gz") == text);
  const Outcome s = streamed(gz);
  EXPECT_EQ(s.end.kind, GzipEnd::Complete);
  EXPECT_TRUE(s.out == text);
}

TEST(Gzip, MultiMemberFileIsTheConcatenation) {
  const std::string a = trace_like(300'000, 2), b = trace_like(2'100'000, 3), c = "tail\n";
  const std::string gz = gzip_of(a) + gzip_of("") + gzip_of(b, 1) + gzip_of(c, 9);
  const Outcome o = fast(gz);
  EXPECT_EQ(o.end.kind, GzipEnd::Complete);
  EXPECT_EQ(o.end.at, gz.size());
  EXPECT_TRUE(o.out == a + b + c);
  expect_same(o, reference(gz), "four members");
  expect_same(streamed(gz), o, "four members, streamed");
  EXPECT_TRUE(gunzip(gz, "multi.json.gz") == a + b + c);
}

TEST(Gzip, TrailingBytesThatAreNotAMemberAreIgnored) {
  const std::string text = trace_like(70'000);
  const std::string gz = gzip_of(text);
  for (const std::string& tail : {std::string("\0\0\0\0", 4), std::string("x"), std::string("\x1f", 1)}) {
    const Outcome o = fast(gz + tail);
    EXPECT_EQ(o.end.kind, GzipEnd::Complete);
    EXPECT_EQ(o.end.at, gz.size());
    EXPECT_TRUE(o.out == text);
    expect_same(o, reference(gz + tail), "trailing bytes");
  }
  // Magic bytes then garbage: another member that is damaged, as zlib says.
  expect_same(fast(gz + "\x1f\x8bgarbage"), reference(gz + "\x1f\x8bgarbage"), "a damaged second member");
}

TEST(Gzip, EveryCutIsZlibsVerdict) {
  const std::string text = trace_like(40'000, 4);
  const std::string first = gzip_of(text);
  const std::string gz = first + gzip_of("second member\n");
  // Every cut within 512 bytes of a header or a trailer (the first member's start and end, the second's
  // whole), and every 61st cut through the deflate data between: every cut was quadratic (a minute in the ci
  // build, several under ASan) and the middle cuts all end the same way, inside a block.
  const auto near_an_edge = [&](std::size_t cut) {
    return cut < 512 || (cut + 512 > first.size() && cut < first.size() + 512) || cut >= first.size();
  };
  for (std::size_t cut = 0; cut < gz.size(); ++cut) {
    if (!near_an_edge(cut) && cut % 61 != 0) continue;
    const std::string_view part(gz.data(), cut);
    const Outcome o = fast(part);
    expect_same(o, reference(part), "cut at " + std::to_string(cut));
    const Outcome st = streamed(part);
    expect_same(st, o, "streamed, cut at " + std::to_string(cut));
    EXPECT_EQ(st.produced, o.out.size()) << cut;
    if (cut > 2 && o.end.kind == GzipEnd::Truncated) {
      try {
        (void)gunzip(part, "cut.json.gz");
        ADD_FAILURE() << "no error at cut " << cut;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Truncated);
        EXPECT_EQ(e.file(), "cut.json.gz");
      }
    }
  }
}

TEST(Gzip, EveryDamagedByteIsZlibsVerdict) {
  const std::string text = trace_like(8000, 5);
  const std::string gz = gzip_of(text);
  for (std::size_t i = 0; i < gz.size(); ++i)
    for (const unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = gz;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ flip);
      const Outcome ref = reference(bad);
      expect_same(fast(bad), ref, "byte " + std::to_string(i) + " ^ " + std::to_string(flip));
      // Streamed, the verdict and the size are zlib's; the output too unless the data is damaged (ISA-L
      // may have handed out a few bytes of garbage before zlib's verdict).
      const Outcome st = streamed(bad);
      const std::string what = "streamed, byte " + std::to_string(i) + " ^ " + std::to_string(flip);
      EXPECT_EQ(st.end.kind, ref.end.kind) << what;
      EXPECT_EQ(st.end.at, ref.end.at) << what;
      EXPECT_EQ(st.end.zlib_message, ref.end.zlib_message) << what;
      EXPECT_EQ(st.produced, ref.out.size()) << what;
      if (ref.end.kind != GzipEnd::Damaged) {
        EXPECT_TRUE(st.out == ref.out) << what;
      }
    }
}

TEST(Gzip, LimitStopsAtTheLimitAndSaysSo) {
  const std::string text = trace_like(3'000'000, 6);
  const std::string gz = gzip_of(text);
  const Outcome o = fast(gz, 1'234'567);
  EXPECT_EQ(o.end.kind, GzipEnd::Limit);
  EXPECT_EQ(o.out.size(), 1'234'567u);
  EXPECT_TRUE(o.out == text.substr(0, 1'234'567));
  expect_same(streamed(gz, 1'234'567), o, "streamed to the limit");
  EXPECT_EQ(fast(gz, text.size()).end.kind, GzipEnd::Complete);  // exactly the size: all of it
  EXPECT_TRUE(gunzip_prefix(gz, 100) == text.substr(0, 100));
  try {
    (void)gunzip(gz, "big.raw.gz", 1'000'000);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TooLarge);
  }
}

}  // namespace
}  // namespace oomscope
