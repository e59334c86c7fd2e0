// What the plan says about each buffer: shape (tuple elements, every dtype), role rules, source line,
// the merged small view.

#include <gtest/gtest.h>

#include <map>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_curve.h"
#include "core/analysis/plan/plan_shape.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using namespace testing;

// One temp buffer per call, all allocated by one trace, so every one of them is live at the peak.
class LiveBuffers {
 public:
  LiveBuffers() { allocation_ = &p_.allocation(0, 1 << 30, {}); }
  PlanBuilder& builder() { return p_; }
  void add(std::int64_t buffer_id, std::int64_t instruction_id,
           std::initializer_list<std::int64_t> index = {}, std::int64_t size = 1 << 20) {
    p_.buffer(buffer_id, size, instruction_id, index);
    allocation_->add_assigned()->set_logical_buffer_id(buffer_id);
    ids_.push_back(buffer_id);
  }
  const PlanBuffer& get(std::int64_t buffer_id) {
    if (!done_) {
      // Events name their buffer's defining instruction, as XLA's traces do: a "transpose(" one starts
      // the backward, so forward buffers allocated before it and never freed are kept for it.
      std::map<std::int64_t, std::string> names;
      for (const auto& c : p_.proto().hlo_module().computations())
        for (const auto& i : c.instructions()) names[i.id()] = i.name();
      std::map<std::int64_t, std::int64_t> defined_by;
      for (const auto& lb : p_.proto().buffer_assignment().logical_buffers())
        defined_by[lb.id()] = lb.defined_at().instruction_id();
      auto& t = p_.trace();
      for (auto id : ids_) PlanBuilder::alloc(t, id, names[defined_by[id]]);
      analysis_ = analyze_plan(p_.proto());
      done_ = true;
    }
    for (const auto& b : analysis_.live_at_peak)
      if (b.logical_buffer_id == buffer_id) return b;
    ADD_FAILURE() << "buffer " << buffer_id << " not live at the peak";
    static PlanBuffer none;
    return none;
  }
  const PlanAnalysis& analysis() {
    get(ids_.front());
    return analysis_;
  }

 private:
  PlanBuilder p_;
  xla::BufferAllocationProto* allocation_ = nullptr;
  std::vector<std::int64_t> ids_;
  PlanAnalysis analysis_;
  bool done_ = false;
};

TEST(PlanShapes, PrintsEveryPrimitiveTypeAndSubByteSizes) {
  EXPECT_EQ(format_shape(array_shape(kF32, {8, 8, 1024, 1024})), "f32[8,8,1024,1024]");
  EXPECT_EQ(format_shape(array_shape(kBF16, {})), "bf16[]");
  EXPECT_EQ(format_shape(tuple_shape({array_shape(kF32, {2}), array_shape(kS8, {1024})})),
            "(f32[2], s8[1024])");
  const char* names[] = {
      "invalid", "pred",   "s8",       "s16", "s32",   "s64",           "u8",         "u16",        "u32",
      "u64",     "f16",    "f32",      "f64", "tuple", "opaque",        "c64",        "bf16",       "token",
      "c128",    "f8e5m2", "f8e4m3fn", "s4",  "u4",    "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "s2",
      "u2",      "f8e4m3", "f8e3m4",   "s1",  "u1",    "f4e2m1fn",      "f8e8m0fnu",  "buffer"};
  for (int t = 0; t <= 34; ++t) EXPECT_EQ(primitive_type_name(t), names[t]) << t;
  EXPECT_EQ(primitive_type_name(35), "type<35>");
  EXPECT_EQ(primitive_type_name(-1), "type<-1>");
  EXPECT_EQ(primitive_bit_width(kS4), 4);
  EXPECT_EQ(primitive_bit_width(kS2), 2);
  EXPECT_EQ(primitive_bit_width(kS1), 1);
  EXPECT_EQ(primitive_bit_width(kF4E2M1FN), 4);
  EXPECT_EQ(primitive_bit_width(18), 128);
  EXPECT_EQ(primitive_bit_width(kTuple), 0);

  EXPECT_EQ(shape_byte_size(array_shape(kF32, {8, 8})), 256);
  EXPECT_EQ(shape_byte_size(array_shape(kS4, {5})), 5);  // one byte per element when not packed
  auto packed = array_shape(kS4, {5});
  packed.mutable_layout()->set_element_size_in_bits(4);
  EXPECT_EQ(shape_byte_size(packed), 3);  // ceil(5 * 4 / 8)
  EXPECT_EQ(shape_byte_size(tuple_shape({array_shape(kF32, {2}), array_shape(kU8, {3})})), 11);
  EXPECT_EQ(shape_byte_size(array_shape(kF32, {1LL << 40, 1LL << 40})), INT64_MAX);  // saturates

  auto with_layout = array_shape(kF32, {2, 3});
  with_layout.mutable_layout()->add_minor_to_major(1);
  with_layout.mutable_layout()->add_minor_to_major(0);
  EXPECT_EQ(format_shape(with_layout, true), "f32[2,3]{1,0}");
  EXPECT_EQ(format_shape(with_layout), "f32[2,3]");
  auto dynamic = array_shape(kF32, {4, 16});
  dynamic.add_is_dynamic_dimension(false);
  dynamic.add_is_dynamic_dimension(true);
  EXPECT_EQ(format_shape(dynamic), "f32[4,<=16]");

  const auto nested =
      tuple_shape({array_shape(kF32, {1}), tuple_shape({array_shape(kS32, {2}), array_shape(kPred, {3})})});
  const std::int64_t index[] = {1, 1};
  ASSERT_NE(shape_at_index(nested, index), nullptr);
  EXPECT_EQ(format_shape(*shape_at_index(nested, index)), "pred[3]");
  const std::int64_t bad[] = {2};
  EXPECT_EQ(shape_at_index(nested, bad), nullptr);
}

TEST(PlanBuffers, TupleElementsUseTheShapeIndex) {
  LiveBuffers live;
  live.builder().instruction(1, "custom-call.3", "custom-call",
                             tuple_shape({array_shape(kBF16, {32, 4, 4096}), array_shape(kS8, {67108864})}),
                             "jit(step)/jvp(model)/dot_general");
  live.builder().instruction(
      2, "while.50", "while",
      tuple_shape({array_shape(kS32, {}), tuple_shape({array_shape(kF16, {2}), array_shape(kF32, {7})})}),
      "jit(step)/jvp(model)/while");
  live.add(1, 1, {0});
  live.add(2, 1, {1});
  live.add(3, 2, {1, 1});
  live.add(4, 2, {});
  EXPECT_EQ(live.get(1).shape, "bf16[32,4,4096]");
  EXPECT_EQ(live.get(1).element_type, kBF16);
  EXPECT_EQ(live.get(2).shape, "s8[67108864]");
  EXPECT_EQ(live.get(3).shape, "f32[7]");
  EXPECT_EQ(live.get(3).shape_index, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(live.get(4).shape, "(s32[], (f16[2], f32[7]))");
  EXPECT_EQ(live.get(4).element_type, 0);
  EXPECT_EQ(live.get(1).instruction, "custom-call.3");
  EXPECT_EQ(live.get(1).opcode, "custom-call");
}

TEST(PlanBuffers, RolesFollowTheNameStackAndTheWorkspaceRule) {
  LiveBuffers live;
  auto& b = live.builder();
  b.instruction(1, "fusion.1", "fusion", array_shape(kF32, {8}), "jit(step)/jvp(block)/softmax");
  b.instruction(2, "fusion.2", "fusion", array_shape(kF32, {8}),
                "jit(step)/transpose(jvp(block))/dot_general");
  b.instruction(3, "gemm", "custom-call", tuple_shape({array_shape(kF32, {8}), array_shape(kS8, {4096})}),
                "jit(step)/transpose(jvp(block))/dot_general")
      .set_custom_call_target("__cublas$gemm");
  b.instruction(4, "fusion.4", "fusion", array_shape(kF32, {8}), "jit(step)/reduce_sum");
  b.instruction(5, "copy.5", "copy", array_shape(kF32, {8}));  // XLA-generated, no alias
  b.instruction(6, "fusion.6", "fusion", array_shape(kS8, {8}), "jit(step)/jvp(block)/convert");
  b.instruction(7, "cc.u8", "custom-call", array_shape(kU8, {8}), "jit(step)/jvp(x)/cc");
  b.instruction(8, "copy.8", "copy", array_shape(kF32, {8}));  // XLA-generated, aliased below
  b.instruction(9, "gte.9", "get-tuple-element", array_shape(kF32, {8}));
  b.instruction(10, "tuple.10", "tuple", array_shape(kF32, {8}), "jit(step)/transpose(jvp(block))/tuple");
  for (int i = 1; i <= 7; ++i) {
    if (i == 3)
      live.add(3, 3, {1});
    else
      live.add(i, i);
  }
  live.add(30, 3, {0});
  live.add(8, 8);
  auto* assignment = b.proto().mutable_buffer_assignment();
  for (std::int64_t at : {9, 10}) {  // first alias has no name stack, the second one does
    auto* alias = assignment->add_buffer_aliases();
    alias->set_source_buffer_id(8);
    alias->mutable_location()->set_instruction_id(at);
  }
  EXPECT_EQ(live.get(1).role, BufferRole::ForwardKept);
  EXPECT_EQ(live.get(2).role, BufferRole::Backward);   // "transpose(jvp(" is backward, not forward
  EXPECT_EQ(live.get(3).role, BufferRole::Workspace);  // the s8 element of a custom-call
  EXPECT_EQ(live.get(3).custom_call_target, "__cublas$gemm");
  EXPECT_EQ(live.get(30).role, BufferRole::Backward);  // its f32 element follows the name stack
  EXPECT_EQ(live.get(4).role, BufferRole::Other);
  EXPECT_EQ(live.get(5).role, BufferRole::Other);
  EXPECT_TRUE(live.get(5).role_via_instruction.empty());
  EXPECT_EQ(live.get(6).role, BufferRole::ForwardKept);  // s8, but not a custom-call
  EXPECT_EQ(live.get(7).role, BufferRole::ForwardKept);  // custom-call, but u8
  EXPECT_EQ(live.get(8).role, BufferRole::Backward);     // inherited through the alias tuple.10
  EXPECT_EQ(live.get(8).role_via_instruction, "tuple.10");
  EXPECT_EQ(live.get(8).role_via_op_name, "jit(step)/transpose(jvp(block))/tuple");
  EXPECT_TRUE(live.get(1).role_via_instruction.empty());

  const PlanAnalysis& a = live.analysis();
  EXPECT_EQ(a.role_bytes(BufferRole::Workspace), 1 << 20);
  EXPECT_EQ(a.role_bytes(BufferRole::Backward), 3 << 20);
  EXPECT_EQ(a.role_bytes(BufferRole::ForwardKept), 3 << 20);
  EXPECT_EQ(a.role_bytes(BufferRole::Other), 2 << 20);
  EXPECT_DOUBLE_EQ(a.role_totals.front().percent_of_peak, 100.0 * 3 / 9);
  EXPECT_STREQ(to_string(BufferRole::ForwardKept), "forward-kept");
}

TEST(PlanBuffers, SourceLineFromMetadataOrStackFrames) {
  LiveBuffers live;
  auto& b = live.builder();
  auto* frames = b.proto().mutable_hlo_module()->mutable_stack_frame_index();
  frames->add_file_names("/src/train.py");
  frames->add_file_names("/src/model.py");
  frames->add_function_names("main");
  frames->add_function_names("attention");
  auto* outer = frames->add_file_locations();  // location 1: train.py:10 in main
  outer->set_file_name_id(1);
  outer->set_function_name_id(1);
  outer->set_line(10);
  auto* inner = frames->add_file_locations();  // location 2: model.py:77 in attention
  inner->set_file_name_id(2);
  inner->set_function_name_id(2);
  inner->set_line(77);
  frames->add_stack_frames()->set_file_location_id(1);  // frame 1 (outer)
  auto* leaf = frames->add_stack_frames();              // frame 2 (innermost), parent 1
  leaf->set_file_location_id(2);
  leaf->set_parent_frame_id(1);

  auto& direct = b.instruction(1, "a", "fusion", array_shape(kF32, {1}), "jit(f)/jvp(g)/exp");
  direct.mutable_metadata()->set_source_file("/src/direct.py");
  direct.mutable_metadata()->set_source_line(5);
  direct.mutable_metadata()->set_stack_frame_id(2);  // ignored: source_file wins
  b.instruction(2, "b", "fusion", array_shape(kF32, {1}), "jit(f)/jvp(g)/mul")
      .mutable_metadata()
      ->set_stack_frame_id(2);
  b.instruction(3, "c", "fusion", array_shape(kF32, {1}), "x")
      .mutable_metadata()
      ->set_stack_frame_id(9);  // out of range
  b.instruction(4, "d", "fusion", array_shape(kF32, {1}));
  for (int i = 1; i <= 4; ++i) live.add(i, i);

  EXPECT_EQ(live.get(1).source.to_string(), "/src/direct.py:5");
  EXPECT_FALSE(live.get(1).source.from_stack_frames);
  EXPECT_EQ(live.get(2).source.to_string(), "/src/model.py:77");
  EXPECT_EQ(live.get(2).source.function, "attention");
  EXPECT_TRUE(live.get(2).source.from_stack_frames);
  EXPECT_FALSE(live.get(3).source.known());
  EXPECT_EQ(live.get(4).source.to_string(), "");
}

TEST(PlanBuffers, OldProtosFindTheInstructionByName) {
  LiveBuffers live;
  live.builder().instruction(0, "first", "fusion", array_shape(kF32, {1}), "jit(f)/jvp(g)/a");
  live.builder().instruction(7, "second", "fusion", array_shape(kF32, {2}), "jit(f)/transpose(g)/b");
  live.add(1, 0);
  live.builder()
      .proto()
      .mutable_buffer_assignment()
      ->mutable_logical_buffers(0)
      ->mutable_defined_at()
      ->set_instruction_name("second");
  EXPECT_EQ(live.get(1).instruction, "second");
  EXPECT_EQ(live.get(1).role, BufferRole::Backward);
}

TEST(PlanBuffers, SmallBuffersMergeIntoOneEntry) {
  std::vector<PlanBuffer> buffers(4);
  buffers[0].logical_buffer_id = 1;
  buffers[0].size_bytes = 1 << 20;
  buffers[1].logical_buffer_id = 2;
  buffers[1].size_bytes = 100;
  buffers[2].logical_buffer_id = 3;
  buffers[2].size_bytes = kSmallBufferBytes - 1;
  buffers[3].logical_buffer_id = 4;
  buffers[3].size_bytes = 8;
  buffers[3].indefinite = true;  // indefinite buffers stay individual
  const auto merged = merge_small_buffers(buffers);
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].logical_buffer_id, 1);
  EXPECT_EQ(merged[1].logical_buffer_id, 4);
  EXPECT_EQ(merged[2].logical_buffer_id, -1);
  EXPECT_EQ(merged[2].instruction, "small (<16384 bytes)");
  EXPECT_EQ(merged[2].size_bytes, 100 + kSmallBufferBytes - 1);
  buffers.resize(1);
  EXPECT_EQ(merge_small_buffers(buffers).size(), 1u);
}

}  // namespace
}  // namespace oomscope::analysis
