// The safe pickle reader on hand-made streams: every accepted flavour, sharing, and refusals with offsets.

#include "core/snapshot/pickle_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/capture/mapped_file.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

std::shared_ptr<const PickleTree> parse(const std::string& bytes) {
  NullProgress none;
  return parse_pickle(capture::MappedFile::from_bytes(bytes), "<test>", none);
}

std::string error_of(const std::string& bytes) {
  try {
    parse(bytes);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

std::string s8(const std::string& s) { return "\x8c" + std::string(1, static_cast<char>(s.size())) + s; }
std::string binunicode(const std::string& s) {
  std::string len(4, '\0');
  len[0] = static_cast<char>(s.size());
  return "X" + len + s;
}

TEST(PickleReader, Protocol4DictWithSharedList) {
  // {'a': [1, 2], 'b': <the same list>}
  const std::string p = std::string("\x80\x04}\x94(") + s8("a") +
                        "\x94]\x94(K\x01K\x02"
                        "e" +
                        s8("b") + "\x94h\x02u.";
  const auto t = parse(p);
  ASSERT_TRUE(t->is_dict(t->root()));
  const auto a = t->get(t->root(), "a");
  const auto b = t->get(t->root(), "b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(PickleTree::index(*a), PickleTree::index(*b));  // shared, not copied
  EXPECT_EQ(t->size(*a), 2u);
  std::vector<std::int64_t> items;
  t->for_each(*a, [&](Ref r) { items.push_back(*t->as_int(r)); });
  EXPECT_EQ(items, (std::vector<std::int64_t>{1, 2}));
}

TEST(PickleReader, CppPicklerFlavourProtocol2) {
  // PROTO 2, BINUNICODE strings deduplicated with BINPUT/BINGET, MARK/SETITEMS on an empty dict,
  // BINPUT after the container is complete, LONG1 of 8 bytes, NEWTRUE, BINFLOAT.
  const std::string q0("q\x00", 2), q1("q\x01", 2), q2("q\x02", 2), get0("h\x00", 2);
  const std::string long8 = std::string("\x8a\x08", 2) + std::string("\x00\x00\x00\x00\x00\x80\x00\x00", 8);
  const std::string p = std::string("\x80\x02}(") + binunicode("x") + q0 + long8 + binunicode("e") + q1 +
                        "}(u" + q2 + get0 + "\x88" + binunicode("f") + "G" +
                        std::string("\x3f\xf8\x00\x00\x00\x00\x00\x00", 8) + "u.";
  // 'x' is then set twice (the last wins): x -> True
  const auto t = parse(p);
  const auto x = t->get(t->root(), "x");
  ASSERT_TRUE(x);
  EXPECT_EQ(t->as_bool(*x), true);
  const auto e = t->get(t->root(), "e");
  ASSERT_TRUE(e);
  EXPECT_TRUE(t->is_dict(*e));
  EXPECT_EQ(t->size(*e), 0u);
  EXPECT_DOUBLE_EQ(*t->as_number(*t->get(t->root(), "f")), 1.5);
}

TEST(PickleReader, Protocol5AndTrailingNulPadding) {
  const std::string p = std::string("\x80\x05]\x94(K\x01\x88N\x8a\x09", 11) +
                        std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x00", 9) + "e." +
                        std::string("\0\0", 2);
  const auto t = parse(p);
  ASSERT_EQ(t->size(t->root()), 4u);
  std::vector<Ref> v;
  t->for_each(t->root(), [&](Ref r) { v.push_back(r); });
  EXPECT_EQ(t->tag(v[2]), Tag::None);
  EXPECT_FALSE(t->as_int(v[3]));  // 2^64-1 does not fit int64
  EXPECT_DOUBLE_EQ(*t->as_number(v[3]), 18446744073709551615.0);
}

TEST(PickleReader, NegativeLong1AndBinint) {
  const std::string p = std::string("\x80\x04](J\xff\xff\xff\xff\x8a\x01\xff\x8a\x06", 14) +
                        std::string("\x00\x00\x00\x00\x00\x80", 6) + "e.";
  const auto t = parse(p);
  std::vector<std::int64_t> v;
  t->for_each(t->root(), [&](Ref r) { v.push_back(*t->as_int(r)); });
  EXPECT_EQ(v, (std::vector<std::int64_t>{-1, -1, -(1ll << 47)}));
}

TEST(PickleReader, RefusesCallablesWithNameAndOffset) {
  EXPECT_NE(error_of(std::string("\x80\x04K\x01") + "cos\nsystem\n."), "");
  EXPECT_NE(error_of(std::string("\x80\x04K\x01") + "cos\nsystem\n.")
                .find("at byte 4: refused opcode GLOBAL (0x63)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04") + s8("os") + s8("system") + "\x93.")
                .find("refused opcode STACK_GLOBAL (0x93)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04]R.")).find("refused opcode REDUCE"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04}}b.")).find("refused opcode BUILD"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x02]", 3) + ")\x81.").find("refused opcode NEWOBJ"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04K\x01Q.")).find("refused opcode BINPERSID"), std::string::npos);
}

TEST(PickleReader, RefusesOutOfBandBuffersForWhatTheyAre) {
  // NEXT_BUFFER / READONLY_BUFFER name data outside the stream, not code.
  const std::string next = error_of(std::string("\x80\x05\x97."));
  EXPECT_NE(next.find("refused opcode NEXT_BUFFER (0x97)"), std::string::npos) << next;
  EXPECT_NE(next.find("out-of-band buffer"), std::string::npos) << next;
  EXPECT_EQ(next.find("Python code"), std::string::npos) << next;
  EXPECT_NE(error_of(std::string("\x80\x05\x98.")).find("out-of-band buffer"), std::string::npos);
}

TEST(PickleReader, BoundsAndTruncation) {
  EXPECT_NE(error_of(std::string("\x80\x04") + std::string(200, '(') + ".").find("nested MARKs"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04h\x03.")).find("refers to nothing"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04X\xff\xff\xff\x7f"
                                 "ab",
                                 9))
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04}")).find("no STOP opcode"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04\x8c\x02\xc3\x28.")).find("not valid UTF-8"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x04}(K\x01u.")).find("odd number"), std::string::npos);
}

TEST(PickleReader, EveryPrefixOfARealSnapshotFailsCleanly) {
  std::ifstream in(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_cs336_small_peak.pickle",
                   std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  NullProgress none;
  for (std::size_t cut = 1; cut < bytes.size(); cut += 997) {
    try {
      read_snapshot_from_memory(bytes.substr(0, cut), "<cut>", none);
      ADD_FAILURE() << "a cut at " << cut << " was accepted";
    } catch (const Error& e) {
      EXPECT_FALSE(e.message().empty());
    }
  }
  EXPECT_NO_THROW(read_snapshot_from_memory(bytes, "<whole>", none));
}

TEST(PickleReader, CancelsThroughStopToken) {
  std::ifstream in(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_decomfl_windows_with_trace.pickle",
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Repeat the file's content inside a list so that it runs past the first progress step (4 MiB).
  std::stop_source stop;
  stop.request_stop();
  NullProgress none;
  std::string big = "\x80\x04]";
  const std::string body = bytes.substr(2, bytes.size() - 3);  // without PROTO and STOP
  while (big.size() < (9u << 20)) big += body + "a";
  big += ".";
  EXPECT_THROW(parse_pickle(capture::MappedFile::from_bytes(big), "<big>", none, stop.get_token()),
               Cancelled);
}

}  // namespace
}  // namespace oomscope::snapshot
