#pragma once
// Shapes of the plan (docs/capture-format.md section 7): PrimitiveType names and element widths, an
// xla::ShapeProto printed as "f32[8,8,1024,1024]", the tuple element at a shape index and dense byte sizes.
// Implemented in plan_shape.cpp; no Qt.

#include <cstdint>
#include <span>
#include <string>

namespace xla {
class ShapeProto;
}

namespace oomscope::analysis {

// Lower-case PrimitiveType name ("f32", "bf16", "s4", "f8e4m3fn", "pred", "token", "opaque"); unknown
// numbers print as "type<N>".
std::string primitive_type_name(std::int32_t type);
// Storage bits of one element (4 for s4/u4/f4e2m1fn, 2 for s2/u2, 1 for s1/u1; 0 for
// tuple/token/opaque/unknown).
int primitive_bit_width(std::int32_t type);
// "f32[8,8,1024,1024]", "f32[]", "(f32[2], s8[1024])"; with_layout appends "{3,2,1,0}" to arrays with a
// layout.
std::string format_shape(const xla::ShapeProto& shape, bool with_layout = false);
// The element of `shape` at `index` (each entry indexes tuple_shapes); nullptr when the index does not exist.
const xla::ShapeProto* shape_at_index(const xla::ShapeProto& shape, std::span<const std::int64_t> index);
// Dense array bytes: product of dimensions x element width, packed when the layout sets element_size_in_bits
// (ceil(n*bits/8)), else one byte minimum per element. Tuples: sum of the elements. Display only; accounting
// uses the proto's sizes.
std::int64_t shape_byte_size(const xla::ShapeProto& shape);

}  // namespace oomscope::analysis
