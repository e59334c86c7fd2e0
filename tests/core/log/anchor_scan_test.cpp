// The one-pass anchor search (core/log/detail/anchor_scan.h) against the search it replaced, the smallest
// std::string_view::find over the anchors: on random text made of anchor pieces, near-misses and bytes of
// every value, from every start, with matches cut by the end of the text; and the SSE2 newline count
// against std::count.

#include "core/log/detail/anchor_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace oomscope::log::detail {
namespace {

constexpr std::string_view kAnchors[] = {
    "emory",
    "uffer",
    "hunks",
    "equirement",
    "usage >=",
    "allocations in",
    "HBM capacity",
    "to reserve",
    "BFCAllocator",
    "Limit:",
    "OOM when",
    "OUT_OF_MEMORY",
    "allocate request",
    "weights took",
    "GPU blocks",
    "max seq len",
    "CUDA calloc",
};

std::size_t reference(std::string_view text, std::size_t from) {
  std::size_t best = std::string_view::npos;
  for (std::string_view a : kAnchors) best = std::min(best, text.find(a, from));
  return best;
}

std::string random_text(std::mt19937& rng, std::size_t size) {
  std::string out;
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<std::size_t> which(0, std::size(kAnchors) - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  while (out.size() < size) {
    const int k = pick(rng);
    const std::string_view a = kAnchors[which(rng)];
    if (k == 0) {
      out += a;  // a whole anchor
    } else if (k == 1) {
      out += a.substr(0, std::max<std::size_t>(1, a.size() - 1));  // cut one byte short
    } else if (k == 2) {
      std::string near(a);
      near[near.size() / 2] ^= 0x20;  // one byte changed (case, or a space)
      out += near;
    } else if (k < 5) {
      out += static_cast<char>(byte(rng));
    } else {
      out += "step 12 loss 2.0311 tokens/s mem 71.2GiB\n";
    }
  }
  out.resize(size);
  return out;
}

TEST(AnchorScan, FindsWhatTheSearchPerAnchorFinds) {
  const AnchorScan scan(kAnchors);
  std::mt19937 rng(29);
  for (int round = 0; round < 300; ++round) {
    const std::string text = random_text(rng, static_cast<std::size_t>(round) * 3 % 400 + 1);
    for (std::size_t from = 0; from <= text.size() + 1; ++from) {
      const std::size_t want = reference(text, from);
      ASSERT_EQ(scan.find(text, from), want) << "round " << round << " from " << from;
      ASSERT_EQ(scan.find_scalar(text, from), want) << "round " << round << " from " << from;
    }
  }
}

TEST(AnchorScan, MatchesCutByTheEndAreNotFound) {
  const AnchorScan scan(kAnchors);
  for (std::string_view a : kAnchors) {
    // The anchor at every distance from the end of a block-sized text, whole and cut short.
    for (std::size_t pad = 0; pad < 40; ++pad) {
      const std::string whole = std::string(pad, 'x') + std::string(a);
      EXPECT_EQ(scan.find(whole, 0), pad) << a;
      const std::string cut = whole.substr(0, whole.size() - 1);
      EXPECT_EQ(scan.find(cut, 0), std::string_view::npos) << a;
      EXPECT_EQ(scan.find(whole, pad + 1), std::string_view::npos) << a;
    }
  }
  EXPECT_EQ(scan.find("", 0), std::string_view::npos);
  EXPECT_EQ(scan.find("emory", 5), std::string_view::npos);
}

TEST(AnchorScan, EveryByteValueIsSafe) {
  const AnchorScan scan(kAnchors);
  std::string text;
  for (int i = 0; i < 256 * 3; ++i) text += static_cast<char>(i * 7);
  text += "OOM when";
  for (int i = 0; i < 256; ++i) text += static_cast<char>(255 - i);
  EXPECT_EQ(scan.find(text, 0), reference(text, 0));
  EXPECT_EQ(scan.find(text, 0), 256u * 3);
}

TEST(ScanLineBytes, CountsNewlinesLikeStdCount) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 15);
  std::string text;
  for (int i = 0; i < 20000; ++i) text += byte(rng) == 0 ? '\n' : static_cast<char>('a' + byte(rng));
  for (std::size_t begin : {0u, 1u, 5u, 17u})
    for (std::size_t end : {text.size(), text.size() - 3, std::size_t{4096 * 2 + 7}, begin, begin + 15})
      EXPECT_EQ(scan_line_bytes(text.data() + begin, text.data() + end).newlines,
                static_cast<std::size_t>(std::count(text.data() + begin, text.data() + end, '\n')));
  const std::string all(16 * 300, '\n');  // more than 255 blocks of 16 with every lane counting
  EXPECT_EQ(scan_line_bytes(all.data(), all.data() + all.size()).newlines, all.size());
}

TEST(ScanLineBytes, FindsANulInEveryLaneAndTheTail) {
  std::string text(5000, 'x');
  for (std::size_t i = 0; i < text.size(); i += 37) text[i] = '\n';
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_EQ(scan_line_bytes(text.data(), text.data() + text.size()).newlines, newlines);
  EXPECT_FALSE(scan_line_bytes(text.data(), text.data() + text.size()).nul);
  // Every position of the first 64 bytes (each lane of a 32- and a 16-byte block), the middle and the tail.
  std::vector<std::size_t> where(64);
  std::iota(where.begin(), where.end(), std::size_t{0});
  for (std::size_t at : {std::size_t{2500}, text.size() - 17, text.size() - 2, text.size() - 1})
    where.push_back(at);
  for (const std::size_t at : where) {
    std::string t = text;
    const bool was_newline = t[at] == '\n';
    t[at] = '\0';
    const LineBytes b = scan_line_bytes(t.data(), t.data() + t.size());
    EXPECT_TRUE(b.nul) << "a NUL at byte " << at;
    EXPECT_EQ(b.newlines, newlines - (was_newline ? 1 : 0)) << "a NUL at byte " << at;
    EXPECT_FALSE(scan_line_bytes(t.data() + at + 1, t.data() + t.size()).nul) << "after byte " << at;
  }
}

}  // namespace
}  // namespace oomscope::log::detail
