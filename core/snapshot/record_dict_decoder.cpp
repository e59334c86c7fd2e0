// The fast path for flat record dicts: see detail/record_dict_decoder.h. Every rule here mirrors the
// general path's opcode in pickle_reader.cpp (the same nodes in the same order); where the general path
// would do anything else, or report an error, this path gives up and lets it.

#include "core/snapshot/detail/record_dict_decoder.h"

#include <cstring>

#include "core/snapshot/detail/pickle_utf8.h"

namespace oomscope::snapshot {

namespace {

constexpr std::uint64_t kUnsetMemo = ~0ull;  // the general path's mark for a memo slot never stored
constexpr std::int64_t kInlineMax = (1ll << 59) - 1;
constexpr std::size_t kMaxPairRefs = 32;     // TraceEntrySink takes at most 16 pairs
constexpr std::size_t kMaxListItems = 4096;  // a frames list is a few dozen frames

}  // namespace

bool RecordDictDecoder::node(Tag tag, Node n, Ref& out) {
  auto& nodes = tree_.nodes_;
  if (nodes.size() >= (1ull << 60)) return false;
  nodes.push_back(n);
  out = Ref{((nodes.size() - 1) << 3) | static_cast<std::uint64_t>(tag)};
  return true;
}

// MEMOIZE, BINPUT or LONG_BINPUT storing `value` at the memo's end (the only store this path makes), or no
// memo opcode at all.
bool RecordDictDecoder::memo_store_optional(Ref value) {
  if (pos_ >= size_) return false;
  const std::uint8_t op = data_[pos_];
  std::uint64_t idx = 0;
  if (op == 0x94) {
    idx = memo_.size();
    pos_ += 1;
  } else if (op == 0x71) {
    if (size_ - pos_ < 2) return false;
    idx = data_[pos_ + 1];
    pos_ += 2;
  } else if (op == 0x72) {
    if (size_ - pos_ < 5) return false;
    std::uint32_t v;
    std::memcpy(&v, data_ + pos_ + 1, 4);
    idx = v;
    pos_ += 5;
  } else {
    return true;  // nothing stored
  }
  if (idx != memo_.size()) return false;
  memo_.push_back(value);
  return true;
}

// SHORT_BINUNICODE or BINUNICODE, valid UTF-8, then its optional memo store.
bool RecordDictDecoder::str_at(Ref& out) {
  const std::uint8_t op = data_[pos_];
  std::uint64_t len = 0, off = 0;
  if (op == 0x8c) {
    if (size_ - pos_ < 2) return false;
    len = data_[pos_ + 1];
    off = pos_ + 2;
  } else {
    if (size_ - pos_ < 5) return false;
    std::uint32_t v;
    std::memcpy(&v, data_ + pos_ + 1, 4);
    len = v;
    off = pos_ + 5;
  }
  if (len > size_ - off || !detail::valid_utf8(data_ + off, static_cast<std::size_t>(len))) return false;
  pos_ = off + len;
  return node(Tag::Str, Node{off, static_cast<std::uint32_t>(len), 0}, out) && memo_store_optional(out);
}

// BINGET or LONG_BINGET of a slot that holds a value.
bool RecordDictDecoder::memo_ref(Ref& out) {
  std::uint64_t idx = 0;
  if (data_[pos_] == 0x68) {
    if (size_ - pos_ < 2) return false;
    idx = data_[pos_ + 1];
    pos_ += 2;
  } else {
    if (size_ - pos_ < 5) return false;
    std::uint32_t v;
    std::memcpy(&v, data_ + pos_ + 1, 4);
    idx = v;
    pos_ += 5;
  }
  if (idx >= memo_.size() || memo_[idx].bits == kUnsetMemo) return false;
  out = memo_[idx];
  return true;
}

// After EMPTY_LIST and its memo store: MARK, memo references, APPENDS; or one memo reference and APPEND;
// or nothing (an empty list, or one the general path fills).
bool RecordDictDecoder::list_items(Ref list, std::size_t open_marks) {
  if (pos_ >= size_) return false;
  items_.clear();
  if (data_[pos_] == 0x28) {  // MARK
    if (open_marks + 1 >= kMaxPickleNesting) return false;
    ++pos_;
    while (pos_ < size_ && (data_[pos_] == 0x68 || data_[pos_] == 0x6a) && items_.size() < kMaxListItems) {
      Ref r;
      if (!memo_ref(r)) return false;
      items_.push_back(r);
    }
    if (pos_ >= size_ || data_[pos_] != 0x65) return false;  // APPENDS
    ++pos_;
  } else if (data_[pos_] == 0x68 || data_[pos_] == 0x6a) {
    Ref r;
    if (!memo_ref(r)) return false;
    if (pos_ >= size_ || data_[pos_] != 0x61) return false;  // APPEND
    ++pos_;
    items_.push_back(r);
  }
  if (items_.empty()) return true;
  auto& pool = tree_.pool_;
  auto& segs = tree_.segments_;
  if (segs.size() >= kNoRun) return false;
  const std::uint64_t start = pool.size();
  pool.insert(pool.end(), items_.begin(), items_.end());
  segs.push_back(ItemRun{start, static_cast<std::uint32_t>(items_.size()), kNoRun});
  Node& n = tree_.nodes_[PickleTree::index(list)];
  n.c = n.a = static_cast<std::uint32_t>(segs.size() - 1);
  n.b = static_cast<std::uint32_t>(items_.size());
  return true;
}

bool RecordDictDecoder::value(Ref& out, std::size_t open_marks) {
  const std::uint8_t op = data_[pos_];
  const std::uint64_t left = size_ - pos_;
  std::int64_t v = 0;
  switch (op) {
    case 0x4b:  // BININT1
      if (left < 2) return false;
      v = data_[pos_ + 1];
      pos_ += 2;
      break;
    case 0x4d: {  // BININT2
      if (left < 3) return false;
      std::uint16_t x;
      std::memcpy(&x, data_ + pos_ + 1, 2);
      v = x;
      pos_ += 3;
      break;
    }
    case 0x4a: {  // BININT
      if (left < 5) return false;
      std::int32_t x;
      std::memcpy(&x, data_ + pos_ + 1, 4);
      v = x;
      pos_ += 5;
      break;
    }
    case 0x8a: {  // LONG1 of up to 8 bytes (9 bytes: the general path)
      if (left < 2) return false;
      const std::uint64_t n = data_[pos_ + 1];
      if (n > 8 || left - 2 < n) return false;
      const std::uint8_t* p = data_ + pos_ + 2;
      std::uint64_t u = 0;
      for (std::uint64_t i = 0; i < n; ++i) u |= static_cast<std::uint64_t>(p[i]) << (8 * i);
      if (n > 0 && n < 8 && (p[n - 1] & 0x80)) u |= ~0ull << (8 * n);  // sign-extend
      v = static_cast<std::int64_t>(u);
      pos_ += 2 + n;
      break;
    }
    case 0x4e:  // NONE
      ++pos_;
      out = Ref{static_cast<std::uint64_t>(Tag::None)};
      return true;
    case 0x88:  // NEWTRUE
    case 0x89:  // NEWFALSE
      ++pos_;
      out = Ref{(op == 0x88 ? (1u << 3) : 0u) | static_cast<std::uint64_t>(Tag::Bool)};
      return true;
    case 0x8c:
    case 0x58:
      return str_at(out);
    case 0x68:
    case 0x6a:
      return memo_ref(out);
    case 0x5d:  // EMPTY_LIST
      ++pos_;
      return node(Tag::List, Node{kNoRun, 0, kNoRun}, out) && memo_store_optional(out) &&
             list_items(out, open_marks);
    default:
      return false;
  }
  if (v >= -kInlineMax && v <= kInlineMax) {
    out = Ref{(static_cast<std::uint64_t>(v) << 3) | static_cast<std::uint64_t>(Tag::Int)};
    return true;
  }
  return node(Tag::Other,
              Node{static_cast<std::uint64_t>(v), 0, static_cast<std::uint32_t>(OtherKind::Int64)}, out);
}

std::uint64_t RecordDictDecoder::decode(std::uint64_t pos, std::size_t open_marks, Ref& dict) {
  const std::size_t nodes0 = tree_.nodes_.size(), memo0 = memo_.size(), pool0 = tree_.pool_.size(),
                    segs0 = tree_.segments_.size();
  pos_ = pos;
  Ref pairs[kMaxPairRefs];
  std::size_t count = 0;
  bool ok = node(Tag::Dict, Node{kNoRun, 0, kNoRun}, dict) && memo_store_optional(dict) && pos_ < size_ &&
            data_[pos_] == 0x28 && open_marks < kMaxPickleNesting;
  if (ok) {
    ++pos_;  // MARK
    while (true) {
      if (pos_ >= size_) {
        ok = false;
        break;
      }
      const std::uint8_t op = data_[pos_];
      if (op == 0x75) {  // SETITEMS
        ++pos_;
        break;
      }
      if (count + 2 > kMaxPairRefs) {
        ok = false;
        break;
      }
      Ref& key = pairs[count];
      if (op == 0x8c || op == 0x58)
        ok = str_at(key);
      else if (op == 0x68 || op == 0x6a)
        ok = memo_ref(key);
      else
        ok = false;
      ok = ok && pos_ < size_ && value(pairs[count + 1], open_marks + 1);
      if (!ok) break;
      count += 2;
    }
  }
  std::uint32_t record = 0;
  if (ok && count > 0 && sink_.take(tree_, pairs, count, record)) {
    tree_.nodes_[PickleTree::index(dict)].a = PickleTree::kRecordBit | record;
    ++taken_;
    failed_in_a_row_ = 0;
    return pos_;
  }
  tree_.nodes_.resize(nodes0);
  memo_.resize(memo0);
  tree_.pool_.resize(pool0);
  tree_.segments_.resize(segs0);
  ++failed_in_a_row_;
  return 0;
}

}  // namespace oomscope::snapshot
