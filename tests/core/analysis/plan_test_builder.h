#pragma once
// Builds small xla::HloProtos by hand for the plan tests: an entry computation, logical buffers,
// allocations and heap-simulator traces, with ids chosen by the test.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "hlo.pb.h"

namespace oomscope::analysis::testing {

inline constexpr std::int32_t kPred = 1, kS8 = 2, kS32 = 4, kU8 = 6, kF16 = 10, kF32 = 11, kTuple = 13,
                              kBF16 = 16, kS4 = 21, kU4 = 22, kS2 = 26, kS1 = 30, kF4E2M1FN = 32;

inline xla::ShapeProto array_shape(std::int32_t type, std::initializer_list<std::int64_t> dims) {
  xla::ShapeProto shape;
  shape.set_element_type(type);
  for (auto d : dims) shape.add_dimensions(d);
  return shape;
}

inline xla::ShapeProto tuple_shape(std::initializer_list<xla::ShapeProto> elements) {
  xla::ShapeProto shape;
  shape.set_element_type(kTuple);
  for (const auto& e : elements) *shape.add_tuple_shapes() = e;
  return shape;
}

class PlanBuilder {
 public:
  PlanBuilder() {
    auto* module = proto_.mutable_hlo_module();
    module->set_name("jit_step");
    module->set_id(42);
    module->set_entry_computation_name("main");
    module->set_entry_computation_id(1);
    entry_ = module->add_computations();
    entry_->set_name("main");
    entry_->set_id(1);
    proto_.mutable_buffer_assignment();
  }

  xla::HloProto& proto() { return proto_; }
  xla::HloComputationProto& entry() { return *entry_; }

  xla::HloInstructionProto& instruction(std::int64_t id, const std::string& name, const std::string& opcode,
                                        const xla::ShapeProto& shape, const std::string& op_name = "") {
    auto* i = entry_->add_instructions();
    i->set_id(id);
    i->set_name(name);
    i->set_opcode(opcode);
    *i->mutable_shape() = shape;
    if (!op_name.empty()) i->mutable_metadata()->set_op_name(op_name);
    entry_->set_root_id(id);  // the last instruction added is the root
    return *i;
  }

  xla::LogicalBufferProto& buffer(std::int64_t id, std::int64_t size, std::int64_t instruction_id,
                                  std::initializer_list<std::int64_t> shape_index = {},
                                  std::int64_t color = 0) {
    auto* b = proto_.mutable_buffer_assignment()->add_logical_buffers();
    b->set_id(id);
    b->set_size(size);
    b->set_color(color);
    b->mutable_defined_at()->set_instruction_id(instruction_id);
    for (auto i : shape_index) b->mutable_defined_at()->add_shape_index(i);
    return *b;
  }

  xla::BufferAllocationProto& allocation(std::int64_t index, std::int64_t size,
                                         std::initializer_list<std::int64_t> buffers,
                                         std::int64_t color = 0) {
    auto* a = proto_.mutable_buffer_assignment()->add_buffer_allocations();
    a->set_index(index);
    a->set_size(size);
    a->set_color(color);
    for (auto id : buffers) a->add_assigned()->set_logical_buffer_id(id);
    return *a;
  }

  xla::HeapSimulatorTrace& trace() {
    return *proto_.mutable_buffer_assignment()->add_heap_simulator_traces();
  }

  static void alloc(xla::HeapSimulatorTrace& t, std::int64_t id, const std::string& instruction = "") {
    add(t, 0, id, instruction, 0);
  }
  static void free(xla::HeapSimulatorTrace& t, std::int64_t id, const std::string& instruction = "") {
    add(t, 1, id, instruction, 0);
  }
  static void share(xla::HeapSimulatorTrace& t, std::int64_t id, std::int64_t canonical,
                    const std::string& instruction = "") {
    add(t, 2, id, instruction, canonical);
  }

 private:
  static void add(xla::HeapSimulatorTrace& t, int kind, std::int64_t id, const std::string& instruction,
                  std::int64_t canonical) {
    auto* e = t.add_events();
    e->set_kind(kind);
    e->set_buffer_id(id);
    e->set_instruction_name(instruction);
    e->set_computation_name("main");
    e->set_share_with_canonical_id(canonical);
  }

  xla::HloProto proto_;
  xla::HloComputationProto* entry_ = nullptr;
};

// Buffers 1..n of the given sizes, each defined by its own instruction, all in temp allocation 0.
inline PlanBuilder temps(std::initializer_list<std::int64_t> sizes) {
  PlanBuilder p;
  std::int64_t id = 1;
  std::vector<std::int64_t> ids;
  for (auto size : sizes) {
    p.instruction(100 + id, "op." + std::to_string(id), "fusion", array_shape(kF32, {size / 4}));
    p.buffer(id, size, 100 + id);
    ids.push_back(id++);
  }
  auto& a = p.allocation(0, 1 << 20, {});
  for (auto i : ids) a.add_assigned()->set_logical_buffer_id(i);
  return p;
}

}  // namespace oomscope::analysis::testing
