#pragma once
// What parsing a protobuf message would allocate, found before parsing it: a walk over the wire bytes that
// follows the message's schema (its generated descriptors) and adds up, for every field it meets, the heap
// memory that protobuf's C++ runtime (3.21) gives it: the object of each sub-message (the size of its
// generated class, from the default instance), a pointer slot per repeated element (twice, for the array's
// doubling), each string's object and characters, each repeated scalar (twice its size), map nodes, and
// unknown fields (an UnknownField entry, twice, plus a string for a length-delimited one). The figure is an
// upper bound for the message's SpaceUsedLong() after parsing and for what the parse holds at its peak.
//
// It exists because a small crafted HloProto (millions of empty instructions, 2 bytes each on the wire)
// would otherwise allocate gigabytes before any check could see it. The walk allocates nothing per field,
// reads every byte once and stops as soon as the figure passes the limit.

#include <cstdint>
#include <string_view>

namespace google::protobuf {
class Descriptor;
}

namespace oomscope::capture {

struct ParseCost {
  std::uint64_t bytes = 0;  // the estimate (when over_limit: the figure when the walk stopped, > limit)
  bool over_limit = false;  // the walk stopped because bytes passed the limit
  bool malformed = false;   // the bytes are not a valid message of this type on the wire (the parse fails)
};

ParseCost estimate_parse_cost(const google::protobuf::Descriptor& type, std::string_view wire,
                              std::uint64_t limit);

}  // namespace oomscope::capture
