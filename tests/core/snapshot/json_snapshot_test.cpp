// JSON snapshots re-encoded as pickles: values survive exactly (big and negative integers, floats,
// unicode), errors name the file and the byte, nesting is bounded, and a JSON snapshot builds the model.
#include "core/snapshot/json_snapshot.h"

#include <gtest/gtest.h>

#include <string>

#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

std::shared_ptr<const PickleTree> tree_of(const std::string& json) {
  std::string pickle = json_to_pickle(json, "t.json");
  auto file = capture::MappedFile::from_bytes(std::move(pickle));
  NullProgress none;
  return parse_pickle(PickleSource{file->data(), file->size(), file, {}}, "t.json", none);
}

TEST(JsonSnapshot, ValuesSurviveTheReencoding) {
  const auto t = tree_of(
      R"({"i": [0, -1, 2147483647, -2147483648, 2147483648, -9223372036854775808, 9223372036854775807],)"
      R"( "u": 18446744073709551615, "f": 1.5, "s": "caf\u00e9 \ud83d\ude00", "b": [true, false, null]})");
  const Ref root = t->root();
  ASSERT_TRUE(t->is_dict(root));
  std::vector<std::int64_t> ints;
  t->for_each(*t->get(root, "i"), [&](Ref r) { ints.push_back(t->as_int(r).value()); });
  EXPECT_EQ(ints, (std::vector<std::int64_t>{0, -1, 2147483647, -2147483648LL, 2147483648LL, INT64_MIN,
                                             INT64_MAX}));
  EXPECT_FALSE(t->as_int(*t->get(root, "u")).has_value());  // above INT64_MAX: not an int64
  EXPECT_EQ(t->as_number(*t->get(root, "u")).value(), 18446744073709551615.0);
  EXPECT_EQ(t->as_number(*t->get(root, "f")).value(), 1.5);
  EXPECT_EQ(t->as_str(*t->get(root, "s")).value(), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  std::vector<Ref> items;
  t->for_each(*t->get(root, "b"), [&](Ref r) { items.push_back(r); });
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(t->as_bool(items[0]), std::optional<bool>(true));
  EXPECT_EQ(t->as_bool(items[1]), std::optional<bool>(false));
  EXPECT_EQ(items[2].tag(), Tag::None);
}

TEST(JsonSnapshot, InvalidJsonNamesFileAndByte) {
  try {
    json_to_pickle(R"({"segments": [1, 2,, 3]})", "bad.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Damaged);
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_NE(e.message().find("not valid JSON at byte 19"), std::string::npos) << e.message();
  }
}

TEST(JsonSnapshot, NestingIsBounded) {
  const std::string deep = std::string(kMaxPickleNesting + 1, '[') + std::string(kMaxPickleNesting + 1, ']');
  EXPECT_THROW(json_to_pickle(deep, "deep.json"), Error);
  const std::string ok = std::string(kMaxPickleNesting, '[') + std::string(kMaxPickleNesting, ']');
  EXPECT_NO_THROW(json_to_pickle(ok, "ok.json"));
}

TEST(JsonSnapshot, CancelledWhenAsked) {
  std::string big = "[";
  for (int i = 0; i < 200000; ++i) big += "1,";
  big += "1]";
  std::stop_source stop;
  stop.request_stop();
  EXPECT_THROW(json_to_pickle(big, "big.json", stop.get_token()), Cancelled);
}

TEST(JsonSnapshot, BuildsTheModelWithSharedFrames) {
  // Two trace entries with equal (not shared) frame lists: one frame list, two frames in the model.
  const std::string frames = R"([{"filename": "m.py", "line": 3, "name": "forward"},)"
                             R"( {"filename": "t.py", "line": 9, "name": "main"}])";
  const std::string json =
      "\xef\xbb\xbf"
      R"({"segments": [], "device_traces": [[)"
      R"({"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "frames": )" +
      frames +
      R"(}, {"action": "free_completed", "addr": 4096, "size": 512, "stream": 0, )"
      R"("frames": )" +
      frames + "}]]}";
  NullProgress none;
  const auto snap = read_snapshot_from_memory(json, "s.json", none);
  ASSERT_EQ(snap->device_traces.size(), 1u);
  ASSERT_EQ(snap->device_traces[0].size(), 2u);
  EXPECT_EQ(snap->protocol, 0);
  EXPECT_EQ(snap->frames.size(), 2u);
  EXPECT_EQ(snap->device_traces[0][0].frames, snap->device_traces[0][1].frames);
  EXPECT_EQ(snap->device_traces[0][0].size, 512);
  EXPECT_TRUE(looks_like_json(json));
  EXPECT_FALSE(looks_like_json("\x80\x04}"));
}

}  // namespace
}  // namespace oomscope::snapshot
