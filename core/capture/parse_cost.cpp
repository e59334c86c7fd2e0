#include "core/capture/parse_cost.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/message.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace oomscope::capture {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

constexpr std::uint64_t kBlock = 16;  // per heap block: the allocator's header and rounding
constexpr std::uint64_t kString = sizeof(std::string) + kBlock;
constexpr std::uint64_t kSlot = 2 * sizeof(void*);  // a repeated element's pointer, array doubling
constexpr std::uint64_t kMapNode = 64;
constexpr std::uint64_t kMapEntry =
    64;  // a map entry's key and value pointer                // a map node's links and its bucket slot
constexpr std::uint64_t kUnknownField = 2 * 16;       // one UnknownField in its vector, doubling
constexpr std::uint64_t kUnknownSet = 64;             // the container of a message's unknown fields
constexpr std::uint64_t kUnknownGroup = 24 + kBlock;  // an UnknownFieldSet of a group
constexpr int kMaxDepth = 1000;                       // the parse's recursion limit (hlo_modules.cpp)
constexpr std::uint64_t kMaxDense = 4096;             // field numbers looked up in a vector up to here

std::uint64_t chars(std::uint64_t len) { return len > 15 ? len + 1 + kBlock : 0; }  // beyond the SSO buffer

struct Type;

struct Field {
  enum class Kind : std::uint8_t { None, Message, Map, String, Scalar };
  Kind kind = Kind::None;
  bool repeated = false;
  std::uint8_t wire = 0;  // a scalar's own wire type: 0 varint, 1 fixed64, 5 fixed32
  std::uint8_t size = 0;  // a scalar's size in memory
  int seen_bit = -1;      // for a singular message or string: its bit in the per-message seen mask
  const Descriptor* sub_type = nullptr;
  const Type* sub = nullptr;  // resolved when the type is built
};

struct Type {
  std::uint64_t object = 0;  // the generated class's size
  std::vector<Field> dense;  // by field number
  const Descriptor* descriptor = nullptr;
};

Field describe(const FieldDescriptor& f) {
  Field out;
  out.repeated = f.is_repeated();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      out.kind = f.is_map() ? Field::Kind::Map : Field::Kind::Message;
      out.sub_type = f.message_type();
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      out.kind = Field::Kind::String;
      break;
    default:
      out.kind = Field::Kind::Scalar;
      switch (f.type()) {
        case FieldDescriptor::TYPE_FIXED64:
        case FieldDescriptor::TYPE_SFIXED64:
        case FieldDescriptor::TYPE_DOUBLE:
          out.wire = 1;
          break;
        case FieldDescriptor::TYPE_FIXED32:
        case FieldDescriptor::TYPE_SFIXED32:
        case FieldDescriptor::TYPE_FLOAT:
          out.wire = 5;
          break;
        default:
          out.wire = 0;
      }
      switch (f.cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT64:
        case FieldDescriptor::CPPTYPE_UINT64:
        case FieldDescriptor::CPPTYPE_DOUBLE:
          out.size = 8;
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          out.size = 1;
          break;
        default:
          out.size = 4;
      }
  }
  if (f.type() == FieldDescriptor::TYPE_GROUP)
    out.kind = Field::Kind::None;  // read as an unknown group: the same cost, near enough
  return out;
}

class Walker {
 public:
  explicit Walker(std::uint64_t limit) : limit_(limit) {}

  const Type& type(const Descriptor& d) {
    auto& slot = types_[&d];
    if (slot) return *slot;
    slot = std::make_unique<Type>();
    Type& t = *slot;
    t.descriptor = &d;
    // A default instance's SpaceUsedLong() is its class's size; a map entry's has no value to measure (and
    // lives in a map node, costed with kMapNode), so it gets a fixed size.
    const auto* prototype = d.options().map_entry()
                                ? nullptr
                                : google::protobuf::MessageFactory::generated_factory()->GetPrototype(&d);
    t.object = (prototype ? static_cast<std::uint64_t>(prototype->SpaceUsedLong()) : kMapEntry) + kBlock;
    int bits = 0;
    for (int i = 0; i < d.field_count(); ++i) {
      const FieldDescriptor& f = *d.field(i);
      const auto number = static_cast<std::uint64_t>(f.number());
      if (number >= kMaxDense) continue;  // such a field is costed as unknown (protobuf stores it otherwise)
      if (t.dense.size() <= number) t.dense.resize(number + 1);
      Field info = describe(f);
      if (!info.repeated && (info.kind == Field::Kind::Message || info.kind == Field::Kind::String) &&
          bits < 64)
        info.seen_bit = bits++;
      t.dense[number] = info;
    }
    for (Field& f : t.dense)
      if (f.sub_type) f.sub = &type(*f.sub_type);
    return t;
  }

  bool message(const Type& t, const std::uint8_t* p, const std::uint8_t* end, int depth) {
    if (depth > kMaxDepth) return fail();
    std::uint64_t seen = 0;
    bool unknown = false;
    while (p < end) {
      std::uint64_t key = 0;
      if (!varint(p, end, key) || key > 0xffffffffu || (key >> 3) == 0) return fail();
      const auto number = static_cast<std::uint32_t>(key >> 3);
      const auto wire = static_cast<std::uint8_t>(key & 7);
      const Field* f = number < t.dense.size() ? &t.dense[number] : nullptr;
      if (f && f->kind != Field::Kind::None && accepts(*f, wire)) {
        if (!known(*f, wire, p, end, depth, seen)) return false;
        continue;
      }
      if (!unknown) {
        unknown = true;
        if (!add(kUnknownSet)) return false;
      }
      if (!unknown_field(number, wire, p, end, depth)) return false;
    }
    return true;
  }

  bool add(std::uint64_t n) {
    cost += n;
    if (cost <= limit_) return true;
    over = true;
    return false;
  }

  std::uint64_t cost = 0;
  bool over = false, malformed = false;

 private:
  static bool accepts(const Field& f, std::uint8_t wire) {
    if (f.kind != Field::Kind::Scalar) return wire == 2;
    return wire == f.wire || (f.repeated && wire == 2);  // repeated scalars may come packed or not
  }

  bool fail() {
    malformed = true;
    return false;
  }

  static bool varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p >= end) return false;
      const std::uint8_t b = *p++;
      if (shift == 63 && b > 1) return false;
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;
  }

  // The payload of a length-delimited field: [q, q + len) after the length, p moved past it.
  bool payload(const std::uint8_t*& p, const std::uint8_t* end, const std::uint8_t*& q, std::uint64_t& len) {
    if (!varint(p, end, len) || len > 0x7fffffffu || len > static_cast<std::uint64_t>(end - p)) return fail();
    q = p;
    p += len;
    return true;
  }

  bool known(const Field& f, std::uint8_t wire, const std::uint8_t*& p, const std::uint8_t* end, int depth,
             std::uint64_t& seen) {
    const auto first = [&] {
      if (f.seen_bit < 0) return true;
      const std::uint64_t bit = std::uint64_t{1} << f.seen_bit;
      const bool was = (seen & bit) != 0;
      seen |= bit;
      return !was;
    };
    if (f.kind == Field::Kind::Scalar && wire != 2) {
      std::uint64_t ignored = 0;
      if (wire == 0 ? !varint(p, end, ignored) : !skip_fixed(p, end, wire == 1 ? 8 : 4)) return fail();
      return !f.repeated || add(2 * f.size);
    }
    const std::uint8_t* q = nullptr;
    std::uint64_t len = 0;
    if (!payload(p, end, q, len)) return false;
    switch (f.kind) {
      case Field::Kind::Scalar:  // packed
        return packed(f, q, len);
      case Field::Kind::String:
        return add((f.repeated ? kSlot + kString : first() ? kString : 0) + chars(len));
      case Field::Kind::Map:
        if (!add(f.sub->object + kMapNode)) return false;
        return message(*f.sub, q, q + len, depth + 1);
      case Field::Kind::Message:
        if (!add(f.repeated ? f.sub->object + kSlot : first() ? f.sub->object : 0)) return false;
        return message(*f.sub, q, q + len, depth + 1);
      case Field::Kind::None:
        break;
    }
    return true;
  }

  bool packed(const Field& f, const std::uint8_t* q, std::uint64_t len) {
    std::uint64_t count = 0;
    if (f.wire == 0) {
      for (std::uint64_t i = 0; i < len; ++i) count += q[i] < 0x80;
      if (len > 0 && q[len - 1] >= 0x80) return fail();
    } else {
      const std::uint64_t width = f.wire == 1 ? 8 : 4;
      if (len % width != 0) return fail();
      count = len / width;
    }
    return add(2 * f.size * count);
  }

  static bool skip_fixed(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t n) {
    if (static_cast<std::uint64_t>(end - p) < n) return false;
    p += n;
    return true;
  }

  bool unknown_field(std::uint32_t number, std::uint8_t wire, const std::uint8_t*& p, const std::uint8_t* end,
                     int depth) {
    if (!add(kUnknownField)) return false;
    std::uint64_t ignored = 0;
    switch (wire) {
      case 0:
        return varint(p, end, ignored) || fail();
      case 1:
        return skip_fixed(p, end, 8) || fail();
      case 5:
        return skip_fixed(p, end, 4) || fail();
      case 2: {
        const std::uint8_t* q = nullptr;
        std::uint64_t len = 0;
        return payload(p, end, q, len) && add(kString + chars(len));
      }
      case 3:
        return add(kUnknownGroup) && group(number, p, end, depth + 1);
      default:  // an end-group tag outside its group, or wire types 6 and 7
        return fail();
    }
  }

  // The fields of an unknown group up to its end-group tag, every one of them unknown.
  bool group(std::uint32_t number, const std::uint8_t*& p, const std::uint8_t* end, int depth) {
    if (depth > kMaxDepth) return fail();
    while (p < end) {
      std::uint64_t key = 0;
      if (!varint(p, end, key) || key > 0xffffffffu || (key >> 3) == 0) return fail();
      const auto inner = static_cast<std::uint32_t>(key >> 3);
      const auto wire = static_cast<std::uint8_t>(key & 7);
      if (wire == 4) return inner == number || fail();
      if (!unknown_field(inner, wire, p, end, depth)) return false;
    }
    return fail();  // the group never ended
  }

  std::uint64_t limit_;
  std::unordered_map<const Descriptor*, std::unique_ptr<Type>> types_;
};

}  // namespace

ParseCost estimate_parse_cost(const Descriptor& type, std::string_view wire, std::uint64_t limit) {
  Walker w(limit);
  const auto* p = reinterpret_cast<const std::uint8_t*>(wire.data());
  const Type& t = w.type(type);
  if (w.add(t.object + kBlock)) w.message(t, p, p + wire.size(), 0);  // the object and its shared_ptr block
  return ParseCost{w.cost, w.over, w.malformed};
}

}  // namespace oomscope::capture
