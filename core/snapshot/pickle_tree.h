#pragma once
// The values a pickle stream builds, kept compactly and immutably once parsed: an arena of nodes that
// memo references share (a frames list referenced 20,000 times is stored once). Only primitive values
// exist here (None, bool, int, float, str, bytes, list, tuple, dict): the reader refuses anything that
// would build an object. Strings are views into the file's bytes, which the tree keeps alive.
//
// A Ref is 8 bytes: the low 3 bits are the tag, the rest an inline integer (|v| < 2^60) or a node index.

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace oomscope::snapshot {

enum class Tag : std::uint8_t {
  None = 0,
  Bool = 1,
  Int = 2,
  Str = 3,
  List = 4,
  Dict = 5,
  Tuple = 6,
  Other = 7
};

struct Ref {
  std::uint64_t bits = 0;
  Tag tag() const { return static_cast<Tag>(bits & 7u); }
  bool operator==(const Ref&) const = default;
};

// Node payloads. Str: a = offset in the data, b = length. Container: b = item count (a dict counts keys and
// values), c = first segment, a = last segment. Other: c = kind (OtherKind), a = the value or offset, b =
// length.
struct Node {
  std::uint64_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
};
enum class OtherKind : std::uint32_t { Int64 = 0, UInt64 = 1, Float = 2, Bytes = 3 };

// A run of a container's items in the pool (containers filled by several APPENDS batches have several).
struct ItemRun {
  std::uint64_t start = 0;
  std::uint32_t count = 0;
  std::uint32_t next = 0;  // kNoRun at the end
};
inline constexpr std::uint32_t kNoRun = 0xffffffffu;

class PickleTree {
 public:
  Ref root() const { return root_; }
  Tag tag(Ref r) const { return r.tag(); }
  bool is_dict(Ref r) const { return r.tag() == Tag::Dict; }
  bool is_list(Ref r) const { return r.tag() == Tag::List || r.tag() == Tag::Tuple; }

  // Integers (bools count as 0/1). nullopt for anything else, or an unsigned value above INT64_MAX.
  std::optional<std::int64_t> as_int(Ref r) const {
    if (r.tag() == Tag::Int) return static_cast<std::int64_t>(r.bits) >> 3;
    return as_int_slow(r);
  }
  // Integers from 0 to 2^64 - 1 exactly (a 9-byte pickle integer above INT64_MAX too); nullopt otherwise.
  std::optional<std::uint64_t> as_uint(Ref r) const;
  std::optional<double> as_number(Ref r) const;  // int or float
  std::optional<bool> as_bool(Ref r) const;
  // nullopt unless a str.
  std::optional<std::string_view> as_str(Ref r) const;
  // Number of items (list/tuple) or key-value pairs (dict); 0 for scalars.
  std::size_t size(Ref r) const;

  // Calls fn(item) for each item of a list/tuple in order; fn(key, value) for each pair of a dict.
  template <class Fn>
  void for_each(Ref r, Fn&& fn) const {
    if (r.tag() != Tag::List && r.tag() != Tag::Tuple) return;
    for (std::uint32_t s = nodes_[index(r)].c; s != kNoRun; s = segments_[s].next)
      for (std::uint64_t i = 0; i < segments_[s].count; ++i) fn(pool_[segments_[s].start + i]);
  }
  template <class Fn>
  void for_each_pair(Ref r, Fn&& fn) const {
    if (r.tag() != Tag::Dict) return;
    bool have_key = false;
    Ref key;
    for (std::uint32_t s = nodes_[index(r)].c; s != kNoRun; s = segments_[s].next)
      for (std::uint64_t i = 0; i < segments_[s].count; ++i) {
        if (!have_key) {
          key = pool_[segments_[s].start + i];
          have_key = true;
        } else {
          fn(key, pool_[segments_[s].start + i]);
          have_key = false;
        }
      }
  }
  // A dict that a DictRecordSink took as a record (pickle_reader.h): the sink's record index.
  std::optional<std::uint32_t> record_of(Ref r) const {
    if (r.tag() != Tag::Dict) return std::nullopt;
    const Node& n = nodes_[index(r)];
    if (!(n.a & kRecordBit)) return std::nullopt;
    return static_cast<std::uint32_t>(n.a);
  }
  static constexpr std::uint64_t kRecordBit = 1ull << 63;

  // The value of a str key in a dict (the last one when repeated); nullopt when absent or not a dict.
  std::optional<Ref> get(Ref dict, std::string_view key) const;

  // Node index of a container or str: equal indexes are the same (shared) object.
  static std::uint64_t index(Ref r) { return r.bits >> 3; }

 private:
  friend class PickleParser;
  friend class RecordDictDecoder;
  std::optional<std::int64_t> as_int_slow(Ref r) const;
  std::shared_ptr<const void> keep_;  // owns the bytes strings point into
  const char* data_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<ItemRun> segments_;
  std::vector<Ref> pool_;
  Ref root_;
};

}  // namespace oomscope::snapshot
