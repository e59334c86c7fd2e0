// Shape printing and sizes for the plan (docs/capture-format.md section 7). The type table is indexed by the
// PrimitiveType number so new numbers from a newer XLA only fall back to "type<N>".

#include "core/analysis/plan/plan_shape.h"

#include <array>
#include <cstdint>
#include <string>

#include "hlo.pb.h"

namespace oomscope::analysis {
namespace {

struct TypeInfo {
  const char* name;
  int bits;  // storage width of one element; 0 = not an array element type
};

constexpr std::array<TypeInfo, 35> kTypes = {{
    {"invalid", 0},        // 0
    {"pred", 8},           // 1
    {"s8", 8},             // 2
    {"s16", 16},           // 3
    {"s32", 32},           // 4
    {"s64", 64},           // 5
    {"u8", 8},             // 6
    {"u16", 16},           // 7
    {"u32", 32},           // 8
    {"u64", 64},           // 9
    {"f16", 16},           // 10
    {"f32", 32},           // 11
    {"f64", 64},           // 12
    {"tuple", 0},          // 13
    {"opaque", 0},         // 14
    {"c64", 64},           // 15
    {"bf16", 16},          // 16
    {"token", 0},          // 17
    {"c128", 128},         // 18
    {"f8e5m2", 8},         // 19
    {"f8e4m3fn", 8},       // 20
    {"s4", 4},             // 21
    {"u4", 4},             // 22
    {"f8e4m3b11fnuz", 8},  // 23
    {"f8e5m2fnuz", 8},     // 24
    {"f8e4m3fnuz", 8},     // 25
    {"s2", 2},             // 26
    {"u2", 2},             // 27
    {"f8e4m3", 8},         // 28
    {"f8e3m4", 8},         // 29
    {"s1", 1},             // 30
    {"u1", 1},             // 31
    {"f4e2m1fn", 4},       // 32
    {"f8e8m0fnu", 8},      // 33
    {"buffer", 0},         // 34
}};

constexpr int kTupleType = 13;

const TypeInfo* find_type(std::int32_t type) {
  if (type < 0 || static_cast<std::size_t>(type) >= kTypes.size()) return nullptr;
  return &kTypes[static_cast<std::size_t>(type)];
}

bool is_tuple(const xla::ShapeProto& shape) {
  return shape.element_type() == kTupleType || (shape.element_type() == 0 && shape.tuple_shapes_size() > 0);
}

void append_shape(const xla::ShapeProto& shape, bool with_layout, std::string& out) {
  if (is_tuple(shape)) {
    out += '(';
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) out += ", ";
      append_shape(shape.tuple_shapes(i), with_layout, out);
    }
    out += ')';
    return;
  }
  out += primitive_type_name(shape.element_type());
  if (shape.element_type() == 17 || shape.element_type() == 14) return;  // token, opaque: no dimensions
  out += '[';
  for (int i = 0; i < shape.dimensions_size(); ++i) {
    if (i > 0) out += ',';
    // A dynamic dimension prints as "<=N" like XLA's HumanString.
    if (i < shape.is_dynamic_dimension_size() && shape.is_dynamic_dimension(i)) out += "<=";
    out += std::to_string(shape.dimensions(i));
  }
  out += ']';
  if (with_layout && shape.has_layout() && shape.layout().minor_to_major_size() > 0) {
    out += '{';
    for (int i = 0; i < shape.layout().minor_to_major_size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string(shape.layout().minor_to_major(i));
    }
    out += '}';
  }
}

}  // namespace

std::string primitive_type_name(std::int32_t type) {
  if (const TypeInfo* info = find_type(type)) return info->name;
  return "type<" + std::to_string(type) + ">";
}

int primitive_bit_width(std::int32_t type) {
  const TypeInfo* info = find_type(type);
  return info ? info->bits : 0;
}

std::string format_shape(const xla::ShapeProto& shape, bool with_layout) {
  std::string out;
  append_shape(shape, with_layout, out);
  return out;
}

const xla::ShapeProto* shape_at_index(const xla::ShapeProto& shape, std::span<const std::int64_t> index) {
  const xla::ShapeProto* current = &shape;
  for (std::int64_t i : index) {
    if (i < 0 || i >= current->tuple_shapes_size()) return nullptr;
    current = &current->tuple_shapes(static_cast<int>(i));
  }
  return current;
}

std::int64_t shape_byte_size(const xla::ShapeProto& shape) {
  if (is_tuple(shape)) {
    std::int64_t sum = 0;
    for (const auto& element : shape.tuple_shapes())
      if (__builtin_add_overflow(sum, shape_byte_size(element), &sum)) return INT64_MAX;
    return sum;
  }
  const int bits = primitive_bit_width(shape.element_type());
  if (bits == 0) return 0;
  // Saturates at INT64_MAX: dimensions come from the file and may be absurd.
  std::int64_t elements = 1;
  for (std::int64_t d : shape.dimensions())
    if (__builtin_mul_overflow(elements, d < 0 ? 0 : d, &elements)) return INT64_MAX;
  const std::int64_t packed_bits = shape.has_layout() ? shape.layout().element_size_in_bits() : 0;
  std::int64_t total_bits = 0;
  if (packed_bits > 0) {
    if (__builtin_mul_overflow(elements, packed_bits, &total_bits)) return INT64_MAX;
    return total_bits / 8 + (total_bits % 8 != 0);
  }
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<std::int64_t>((bits + 7) / 8), &bytes)) return INT64_MAX;
  return bytes;
}

}  // namespace oomscope::analysis
