#pragma once
// The pickle reader's fast path for the millions of small flat dicts of a snapshot's trace (its entries):
//   EMPTY_DICT [memo] MARK (key value)* SETITEMS
// with str keys (literal or memo reference) and values that are ints, strs, None, bools, memo references
// or a list of memo references (a frames list). It decodes such a dict without the VM's stack and opcode
// dispatch, makes exactly the nodes, memo entries and pool items that the general path makes, in the same
// order, and offers the pairs to the DictRecordSink as the general path's SETITEMS does. On anything else
// (another opcode, a cut file, a memo store that is not an append, a value the sink does not take) it
// puts every table back as it was and the general path reads the dict from its start, so errors keep their
// words and offsets and the tree is the same either way.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/pickle_tree.h"

namespace oomscope::snapshot {

class RecordDictDecoder {
 public:
  RecordDictDecoder(PickleTree& tree, std::vector<Ref>& memo, const std::uint8_t* data, std::uint64_t size,
                    DictRecordSink& sink)
      : tree_(tree), memo_(memo), data_(data), size_(size), sink_(sink) {}

  // `pos`: the byte after an EMPTY_DICT; `open_marks`: the MARKs open there. On success returns the
  // position after the dict's SETITEMS and sets `dict` (a record of the sink); otherwise returns 0 with
  // every table as it was.
  std::uint64_t decode(std::uint64_t pos, std::size_t open_marks, Ref& dict);
  // False after 64 dicts in a row that were not records (a snapshot's segments and blocks come before its
  // trace): then only every 256th dict is tried, so the trace that follows turns the fast path back on
  // within 256 entries. Only saves time: the tree is the same either way.
  bool worth_trying() { return failed_in_a_row_ < 64 || ++skipped_ % 256 == 0; }
  std::uint64_t taken() const { return taken_; }

 private:
  // Each returns false (nothing consumed that matters: decode rolls back) when the bytes at pos_ are not
  // what it reads.
  bool memo_store_optional(Ref value);
  bool str_at(Ref& out);
  bool memo_ref(Ref& out);
  bool value(Ref& out, std::size_t open_marks);
  bool list_items(Ref list, std::size_t open_marks);
  bool node(Tag tag, Node n, Ref& out);

  PickleTree& tree_;
  std::vector<Ref>& memo_;
  const std::uint8_t* data_;
  std::uint64_t size_;
  DictRecordSink& sink_;
  std::uint64_t pos_ = 0;
  std::vector<Ref> items_;  // a frames list's items while they are read
  std::uint64_t taken_ = 0, failed_in_a_row_ = 0, skipped_ = 0;
};

}  // namespace oomscope::snapshot
