#include "core/snapshot/pickle_tree.h"

#include <bit>
#include <cstring>

namespace oomscope::snapshot {

std::optional<std::int64_t> PickleTree::as_int_slow(Ref r) const {
  switch (r.tag()) {
    case Tag::Int:
      return static_cast<std::int64_t>(r.bits) >> 3;
    case Tag::Bool:
      return static_cast<std::int64_t>(r.bits >> 3);
    case Tag::Other: {
      const Node& n = nodes_[index(r)];
      if (n.c == static_cast<std::uint32_t>(OtherKind::Int64)) return static_cast<std::int64_t>(n.a);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> PickleTree::as_uint(Ref r) const {
  if (auto i = as_int(r))
    return *i >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*i)) : std::nullopt;
  if (r.tag() != Tag::Other) return std::nullopt;
  const Node& n = nodes_[index(r)];
  if (n.c == static_cast<std::uint32_t>(OtherKind::UInt64)) return n.a;
  return std::nullopt;
}

std::optional<double> PickleTree::as_number(Ref r) const {
  if (auto i = as_int(r)) return static_cast<double>(*i);
  if (r.tag() != Tag::Other) return std::nullopt;
  const Node& n = nodes_[index(r)];
  if (n.c == static_cast<std::uint32_t>(OtherKind::Float)) return std::bit_cast<double>(n.a);
  if (n.c == static_cast<std::uint32_t>(OtherKind::UInt64)) return static_cast<double>(n.a);
  return std::nullopt;
}

std::optional<bool> PickleTree::as_bool(Ref r) const {
  if (r.tag() == Tag::Bool) return (r.bits >> 3) != 0;
  return std::nullopt;
}

std::optional<std::string_view> PickleTree::as_str(Ref r) const {
  if (r.tag() != Tag::Str) return std::nullopt;
  const Node& n = nodes_[index(r)];
  return std::string_view(data_ + n.a, n.b);
}

std::size_t PickleTree::size(Ref r) const {
  switch (r.tag()) {
    case Tag::List:
    case Tag::Tuple:
      return nodes_[index(r)].b;
    case Tag::Dict:
      return nodes_[index(r)].b / 2;
    default:
      return 0;
  }
}

std::optional<Ref> PickleTree::get(Ref dict, std::string_view key) const {
  std::optional<Ref> found;
  for_each_pair(dict, [&](Ref k, Ref v) {
    if (auto s = as_str(k); s && *s == key) found = v;
  });
  return found;
}

}  // namespace oomscope::snapshot
