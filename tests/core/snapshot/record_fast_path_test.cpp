// The pickle reader's fast path for trace entries (record_dict_decoder.h) against its general path: the same
// model, or the same error with the same words and offset, on hand-made traces of every shape the fast path
// reads or gives up on, on every cut and on byte changes of an entry, and on every real snapshot.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/capture/mapped_file.h"
#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/snapshot_builder.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

struct Outcome {
  std::string text;  // the model as text, or the error with its offset
  std::uint64_t fast_taken = 0;
};

std::string describe(const Snapshot& s) {
  std::ostringstream o;
  o << "format " << static_cast<int>(s.format) << " compile_context " << s.compile_context_entries
    << " segments " << s.segments.size() << " blocks " << s.blocks.size() << "\nstreams";
  for (auto st : s.streams) o << ' ' << st;
  o << '\n';
  for (const auto& n : s.notes) o << "note " << n << '\n';
  for (std::size_t d = 0; d < s.device_traces.size(); ++d)
    for (const TraceEntry& te : s.device_traces[d]) {
      o << d << ": " << static_cast<int>(te.action) << ' ' << te.addr << ' ' << te.size << ' ' << te.time_us
        << ' ' << te.stream << " [";
      for (std::uint32_t f : s.frame_lists.at(te.frames))
        o << s.frames.at(f).filename << ':' << s.frames.at(f).name << ':' << s.frames.at(f).line << ' ';
      o << "]\n";
    }
  for (const EntryExtra& x : s.entry_extras)
    o << "extra " << x.device << ' ' << x.index << ' ' << s.texts.at(x.compile_context) << ' '
      << s.texts.at(x.user_metadata) << ' ' << x.forward_frames << '\n';
  return o.str();
}

// What snapshot_reader.cpp does with a pickle, with the fast path on or off.
Outcome read(const std::string& bytes, bool fast) {
  Outcome out;
  try {
    Snapshot snap;
    snap.path = "<test>";
    NullProgress none;
    TraceEntrySink sink(snap);
    sink.records.reserve(bytes.size() / 40 + 16);
    auto file = capture::MappedFile::from_bytes(bytes);
    PickleSource src{file->data(), file->size(), file, {}};
    src.fast_records = fast;
    src.fast_records_taken = &out.fast_taken;
    const auto tree = parse_pickle(std::move(src), "<test>", none, {}, &sink);
    build_snapshot(*tree, snap, none, {}, &sink);
    out.text = describe(snap);
  } catch (const Error& e) {
    out.text = std::string("error ") + to_string(e.kind()) + ": " + e.message() + " @" +
               (e.offset() ? std::to_string(*e.offset()) : "-");
  }
  return out;
}

// Compares both paths and gives the fast path's count of records it read.
std::uint64_t same_both_ways(const std::string& bytes, const std::string& what) {
  const Outcome general = read(bytes, false), fast = read(bytes, true);
  EXPECT_EQ(general.fast_taken, 0u) << what;
  EXPECT_EQ(fast.text, general.text) << what;
  return fast.fast_taken;
}

std::string le32(std::uint32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

// Writes opcodes the way CPython's pickler does (protocol 4: MEMOIZE after every str and container, memo
// references for repeated strs), or the C++ pickler's protocol 2 (BINUNICODE, BINPUT with explicit indexes).
class Writer {
 public:
  explicit Writer(int protocol) : protocol_(protocol) {
    out = std::string("\x80") + static_cast<char>(protocol);
  }
  std::string out;

  int memoize() {
    if (protocol_ >= 4) {
      out += '\x94';
    } else if (memo_ < 256) {
      out += 'q';
      out += static_cast<char>(memo_);
    } else {
      out += 'r' + le32(static_cast<std::uint32_t>(memo_));
    }
    return memo_++;
  }
  void get(int i) {
    if (i < 256) {
      out += 'h';
      out += static_cast<char>(i);
    } else {
      out += 'j' + le32(static_cast<std::uint32_t>(i));
    }
  }
  void str(const std::string& s) {
    if (auto it = strs_.find(s); it != strs_.end()) return get(it->second);
    if (protocol_ >= 4)
      out += "\x8c" + std::string(1, static_cast<char>(s.size())) + s;
    else
      out += "X" + le32(static_cast<std::uint32_t>(s.size())) + s;
    strs_[s] = memoize();
  }
  void fresh_str(const std::string& s) {  // a new str object of the same text (no memo reference)
    strs_.erase(s);
    str(s);
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256) {
      out += 'K';
      out += static_cast<char>(v);
    } else if (v >= 0 && v < 65536) {
      out += 'M';
      out += static_cast<char>(v & 0xff);
      out += static_cast<char>(v >> 8);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out += 'J' + le32(static_cast<std::uint32_t>(v));
    } else {
      std::string b(8, '\0');
      std::memcpy(b.data(), &v, 8);
      while (b.size() > 1 && ((b.back() == '\0' && !(b[b.size() - 2] & 0x80)) ||
                              (b.back() == '\xff' && (b[b.size() - 2] & 0x80))))
        b.pop_back();
      out += "\x8a" + std::string(1, static_cast<char>(b.size())) + b;
    }
  }
  // A frame dict written in full; returns its memo index.
  int frame(const std::string& file, const std::string& name, int line) {
    out += '}';
    const int m = memoize();
    out += '(';
    str("filename");
    str(file);
    str("line");
    integer(line);
    str("name");
    str(name);
    out += 'u';
    return m;
  }

 private:
  int protocol_;
  int memo_ = 0;
  std::map<std::string, int> strs_;
};

struct Entry {
  std::string action = "alloc";
  std::int64_t addr = 0, size = 0, stream = 0, time_us = 0;
  std::vector<int> frames;  // memo indexes of frame dicts (a new list)
  int frames_list = -1;     // or the memo index of an earlier list
  bool memo_after_setitems = false;
  std::string extra_key;  // another key with an int value
  bool no_action = false;
};

// Writes one trace entry; returns the memo index of its frames list when it made one, else -1.
int entry(Writer& w, const Entry& e) {
  w.out += '}';
  if (!e.memo_after_setitems) w.memoize();
  w.out += '(';
  if (!e.no_action) {
    w.str("action");
    w.str(e.action);
  }
  w.str("addr");
  w.integer(e.addr);
  w.str("size");
  w.integer(e.size);
  w.str("stream");
  w.integer(e.stream);
  w.str("time_us");
  w.integer(e.time_us);
  w.str("compile_context");
  w.fresh_str("N/A");
  if (!e.extra_key.empty()) {
    w.str(e.extra_key);
    w.integer(7);
  }
  w.str("frames");
  int made = -1;
  if (e.frames_list >= 0) {
    w.get(e.frames_list);
  } else {
    w.out += ']';
    made = w.memoize();
    if (e.frames.size() == 1) {
      w.get(e.frames[0]);
      w.out += 'a';
    } else if (!e.frames.empty()) {
      w.out += '(';
      for (int f : e.frames) w.get(f);
      w.out += 'e';
    }
  }
  w.out += 'u';
  if (e.memo_after_setitems) w.memoize();
  return made;
}

// {'segments': [], 'device_traces': [[first entry, then `entries`]]}. The first entry defines two frames
// (the fast path leaves it to the general path: its list holds dicts written in full).
std::string trace(int protocol, const std::vector<Entry>& entries, int* f0 = nullptr, int* f1 = nullptr) {
  Writer w(protocol);
  w.out += '}';
  w.memoize();
  w.out += '(';
  w.str("segments");
  w.out += ']';
  w.memoize();
  w.str("device_traces");
  w.out += ']';
  w.memoize();
  w.out += ']';
  w.memoize();
  w.out += '(';
  // First entry: frames written in full inside it.
  w.out += '}';
  w.memoize();
  w.out += '(';
  w.str("action");
  w.str("segment_alloc");
  w.str("addr");
  w.integer(1 << 20);
  w.str("size");
  w.integer(2 << 20);
  w.str("frames");
  w.out += ']';
  w.memoize();
  w.out += '(';
  const int a = w.frame("train.py", "step", 10);
  const int b = w.frame("model.py", "forward", 20);
  w.out += "eu";
  if (f0) *f0 = a;
  if (f1) *f1 = b;
  for (const Entry& e : entries) {
    Entry x = e;
    for (int& f : x.frames) f = f == 0 ? a : b;
    entry(w, x);
  }
  w.out += "eau.";
  return w.out;
}

std::vector<Entry> usual_entries() {
  std::vector<Entry> v;
  Entry e;
  e.addr = 1 << 20;
  e.size = 4096;
  e.time_us = 1763324225770003;
  e.frames = {0, 1};
  v.push_back(e);
  e.action = "free_requested";
  e.time_us += 10;
  e.frames = {1};  // one frame: memo reference and APPEND
  v.push_back(e);
  e.action = "free_completed";
  e.stream = 140230422350848;  // a LONG1 stream
  e.frames = {};               // an empty list
  v.push_back(e);
  e.action = "alloc";
  e.addr = -5;  // a negative value: LONG1 sign extension or BININT
  e.size = 70000;
  e.frames = {0, 1, 0};
  v.push_back(e);
  return v;
}

TEST(RecordFastPath, Protocol4TraceIsReadByTheFastPath) {
  const auto p = trace(4, usual_entries());
  EXPECT_EQ(same_both_ways(p, "protocol 4"), 4u);
  EXPECT_EQ(read(p, true).text.find("error"), std::string::npos) << read(p, true).text;
  // The entries are in the model: four after the segment_alloc, the last with three frames.
  EXPECT_NE(read(p, true).text.find("[train.py:step:10 model.py:forward:20 train.py:step:10 ]"),
            std::string::npos);
}

TEST(RecordFastPath, MemoReferenceToAnEarlierFramesList) {
  // The C++ and Python picklers write a shared frames list once and refer to it with BINGET later. The
  // memo of trace(): root 0, 'segments' 1, [] 2, 'device_traces' 3, [] 4, [] 5, the segment_alloc {} 6,
  // 'action' 7, 'segment_alloc' 8, 'addr' 9, 'size' 10, 'frames' 11, its frames list 12.
  auto entries = usual_entries();
  Entry e;
  e.frames_list = 9;
  entries.push_back(e);
  std::string p = trace(4, entries);
  // memo 9 is the str 'addr', not a list: the sink refuses a frames value that is not a list, so both
  // paths read it the general way and agree.
  same_both_ways(p, "frames referring to a str");
  // memo 12 is the segment_alloc's frames list ('size' 10, 'frames' 11, the list 12).
  entries.back().frames_list = 12;
  p = trace(4, entries);
  EXPECT_EQ(same_both_ways(p, "frames list by memo reference"), 5u);
  EXPECT_NE(read(p, true).text.rfind("[train.py:step:10 model.py:forward:20 ]\n"), std::string::npos);
}

TEST(RecordFastPath, Protocol2WithBinput) {
  const auto p = trace(2, usual_entries());
  ASSERT_EQ(p.substr(0, 2), std::string("\x80\x02", 2));
  EXPECT_EQ(same_both_ways(p, "protocol 2"), 4u);
  // BINPUT after the entry's SETITEMS (the C++ pickler's flavour): the dict is stored after it is read.
  auto entries = usual_entries();
  for (Entry& e : entries) e.memo_after_setitems = true;
  EXPECT_EQ(same_both_ways(trace(2, entries), "protocol 2, BINPUT after SETITEMS"), 4u);
  EXPECT_EQ(same_both_ways(trace(4, entries), "protocol 4, MEMOIZE after SETITEMS"), 4u);
}

TEST(RecordFastPath, Protocol5AndItsNineByteIntegers) {
  auto p = trace(4, usual_entries());
  p[1] = '\x05';
  EXPECT_EQ(same_both_ways(p, "protocol 5"), 4u);
  // A 9-byte LONG1 is left to the general path (which refuses it here: negative or at least 2^64).
  const std::string nine =
      std::string("\x8a\x09", 2) + std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x00", 9);
  const std::string stream_key = std::string("\x8c\x06stream", 8);
  auto q = p;
  const auto at = q.rfind("J" + le32(70000));
  ASSERT_NE(at, std::string::npos);
  q.replace(at, 5, nine);
  EXPECT_EQ(same_both_ways(q, "9-byte size"), 3u);
  EXPECT_NE(read(q, true).text.find("2^63 or more"), std::string::npos) << read(q, true).text;
}

TEST(RecordFastPath, ExtraAndMissingKeys) {
  auto entries = usual_entries();
  entries[1].extra_key = "pool_id";     // a key the sink ignores: still a record
  entries[2].extra_key = "unheard_of";  // a key the sink does not know: the general path
  EXPECT_EQ(same_both_ways(trace(4, entries), "extra keys"), 3u);
  entries = usual_entries();
  entries[3].no_action = true;
  const auto missing = read(trace(4, entries), true).text;
  EXPECT_EQ(same_both_ways(trace(4, entries), "no action"), 3u);
  EXPECT_NE(missing.find("trace entry 4 of device 0 has no 'action'"), std::string::npos) << missing;
}

TEST(RecordFastPath, EveryCutOfTheTraceGivesTheSameError) {
  const auto p = trace(4, usual_entries());
  const auto from = p.find(
                        "\x8c\x0e"
                        "free_requested") -
                    40;
  for (std::size_t cut = from; cut < p.size(); ++cut) {
    const auto cut_bytes = p.substr(0, cut);
    same_both_ways(cut_bytes, "cut at " + std::to_string(cut));
    EXPECT_NE(read(cut_bytes, true).text.find("error"), std::string::npos) << cut;
  }
}

TEST(RecordFastPath, EveryChangedByteOfTheTraceGivesTheSameOutcome) {
  const auto p = trace(4, usual_entries());
  const auto from = p.find(
                        "\x8c\x0e"
                        "free_requested") -
                    40;
  const char values[] = {'\x00', '\xff', '\x94', '\x28', '\x75', '\x68', '\x4b', '\x95', '\x5d', '\x80'};
  for (std::size_t i = from; i < p.size(); ++i)
    for (char v : values) {
      if (p[i] == v) continue;
      auto q = p;
      q[i] = v;
      same_both_ways(q, "byte " + std::to_string(i) + " = " + std::to_string(static_cast<unsigned char>(v)));
    }
}

TEST(RecordFastPath, EveryRealSnapshotReadsTheSame) {
  std::size_t files = 0;
  std::uint64_t taken = 0;
  for (const auto& f : std::filesystem::directory_iterator(OOMSCOPE_TEST_DATA)) {
    if (f.path().extension() != ".pickle") continue;
    std::ifstream in(f.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    taken += same_both_ways(bytes, f.path().filename().string());
    ++files;
  }
  EXPECT_GE(files, 7u);
  EXPECT_GT(taken, 10000u);  // the real traces' entries go the fast way
}

}  // namespace
}  // namespace oomscope::snapshot
