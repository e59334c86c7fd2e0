// Donation evidence, strongest first: the allocation is both parameter and live-out (or, in newer XLA,
// is_parameter_aliased_with_output). input_output_alias and buffer_donor describe intent before buffer
// assignment, so they only cross-check, or decide when there is no buffer assignment at all.

#include "core/analysis/plan/detail/plan_donation.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/analysis/plan/plan_shape.h"

namespace oomscope::analysis::detail {
namespace {

using Index = std::vector<std::int64_t>;

struct OutputLeaf {
  Index index;
  const xla::ShapeProto* shape = nullptr;
  bool taken = false;
  bool gradient = false;  // made by a "transpose(" (backward) instruction: a gradient, not a new state
};

bool is_tuple_shape(const xla::ShapeProto& shape) {
  return shape.element_type() == 13 || (shape.element_type() == 0 && shape.tuple_shapes_size() > 0);
}

void collect_leaves(const xla::ShapeProto& shape, Index& prefix, std::vector<OutputLeaf>& out) {
  if (!is_tuple_shape(shape)) {
    out.push_back(OutputLeaf{prefix, &shape, false, false});
    return;
  }
  for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
    prefix.push_back(i);
    collect_leaves(shape.tuple_shapes(i), prefix, out);
    prefix.pop_back();
  }
}

bool same_array(const xla::ShapeProto& a, const xla::ShapeProto& b) {
  return a.element_type() == b.element_type() && std::equal(a.dimensions().begin(), a.dimensions().end(),
                                                            b.dimensions().begin(), b.dimensions().end());
}

std::string describe(const ParameterAllocation& p) {
  std::string s = "parameter ";
  s += std::to_string(p.parameter_number);
  if (!p.parameter_shape_index.empty()) {
    s += " {";
    for (std::size_t i = 0; i < p.parameter_shape_index.size(); ++i) {
      if (i > 0) s += ',';
      s += std::to_string(p.parameter_shape_index[i]);
    }
    s += '}';
  }
  return s;
}

std::unordered_map<std::int64_t, const xla::HloInstructionProto*> entry_parameters(const PlanIndex& index) {
  std::unordered_map<std::int64_t, const xla::HloInstructionProto*> out;
  if (const auto* entry = index.entry_computation())
    for (const auto& instruction : entry->instructions())
      if (instruction.opcode() == "parameter") out.try_emplace(instruction.parameter_number(), &instruction);
  return out;
}

const xla::ShapeProto* result_shape(const PlanIndex& index) {
  if (const auto* entry = index.entry_computation()) {
    if (const InstructionRef* root = index.instruction(entry->root_id())) return &root->instruction->shape();
    if (entry->has_program_shape()) return &entry->program_shape().result();
  }
  const auto& module = index.hlo().hlo_module();
  return module.has_host_program_shape() ? &module.host_program_shape().result() : nullptr;
}

// Marks the output leaves that a backward ("transpose(") instruction made: the ROOT tuple's operand at
// the leaf's index, looked through copies, bitcasts and converts without a name stack of their own.
void mark_gradients(const PlanIndex& index, std::vector<OutputLeaf>& leaves) {
  const auto* entry = index.entry_computation();
  const InstructionRef* root = entry ? index.instruction(entry->root_id()) : nullptr;
  if (root == nullptr) return;
  for (OutputLeaf& leaf : leaves) {
    const xla::HloInstructionProto* at = root->instruction;
    for (std::size_t depth = 0; depth < leaf.index.size() && at != nullptr && at->opcode() == "tuple";
         ++depth) {
      const std::int64_t k = leaf.index[depth];
      if (k < 0 || k >= at->operand_ids_size()) {
        at = nullptr;
        break;
      }
      const InstructionRef* operand = index.instruction(at->operand_ids(static_cast<int>(k)));
      at = operand ? operand->instruction : nullptr;
    }
    for (int hops = 0; at != nullptr && hops < 4; ++hops) {
      const std::string& stack = at->metadata().op_name();
      if (!stack.empty()) {
        leaf.gradient = stack.find("transpose(") != std::string::npos;
        break;
      }
      if (at->operand_ids_size() != 1) break;
      const InstructionRef* operand = index.instruction(at->operand_ids(0));
      at = operand ? operand->instruction : nullptr;
    }
  }
}

}  // namespace

DonationSummary analyze_donation(const PlanIndex& index, std::int64_t color) {
  DonationSummary summary;
  const auto& module = index.hlo().hlo_module();
  const bool have_assignment = index.hlo().has_buffer_assignment();
  const auto params = entry_parameters(index);
  auto entry_parameter = [&](std::int64_t number) -> const xla::HloInstructionProto* {
    auto it = params.find(number);
    return it == params.end() ? nullptr : it->second;
  };

  if (have_assignment) {
    for (const auto& allocation : index.assignment().buffer_allocations()) {
      if (allocation.color() != color || !allocation.is_entry_computation_parameter()) continue;
      ParameterAllocation p;
      p.allocation_index = allocation.index();
      p.parameter_number = allocation.parameter_number();
      p.parameter_shape_index.assign(allocation.parameter_shape_index().begin(),
                                     allocation.parameter_shape_index().end());
      p.bytes = allocation.size();
      p.flag_live_out = allocation.maybe_live_out();
      p.flag_aliased = allocation.is_parameter_aliased_with_output();
      p.donated = p.flag_live_out || p.flag_aliased;
      summary.parameters.push_back(std::move(p));
    }
  } else if (const auto* entry = index.entry_computation()) {
    // No buffer assignment: one entry per parameter instruction, sized from its shape (display accuracy).
    for (const auto& instruction : entry->instructions()) {
      if (instruction.opcode() != "parameter") continue;
      ParameterAllocation p;
      p.parameter_number = instruction.parameter_number();
      p.bytes = shape_byte_size(instruction.shape());
      summary.parameters.push_back(std::move(p));
    }
  }
  std::sort(summary.parameters.begin(), summary.parameters.end(), [](const auto& a, const auto& b) {
    return a.parameter_number != b.parameter_number ? a.parameter_number < b.parameter_number
                                                    : a.parameter_shape_index < b.parameter_shape_index;
  });

  std::vector<OutputLeaf> outputs;
  if (const xla::ShapeProto* result = result_shape(index)) {
    Index prefix;
    collect_leaves(*result, prefix, outputs);
  }
  mark_gradients(index, outputs);
  auto take_output = [&](const Index& output_index) {
    for (auto& leaf : outputs)
      if (leaf.index == output_index) leaf.taken = true;
  };

  for (auto& p : summary.parameters) {
    if (const auto* instruction = entry_parameter(p.parameter_number)) {
      p.name = instruction->name();
      if (const auto* element = shape_at_index(instruction->shape(), p.parameter_shape_index))
        p.shape = format_shape(*element);
    }
    for (const auto& entry : module.input_output_alias().entries()) {
      if (entry.parameter_number() != p.parameter_number) continue;
      if (!std::equal(entry.parameter_shape_index().begin(), entry.parameter_shape_index().end(),
                      p.parameter_shape_index.begin(), p.parameter_shape_index.end()))
        continue;
      p.in_input_output_alias = true;
      take_output(Index(entry.output_shape_index().begin(), entry.output_shape_index().end()));
    }
    for (const auto& entry : module.buffer_donor().entries()) {
      if (entry.parameter_number() == p.parameter_number &&
          std::equal(entry.parameter_shape_index().begin(), entry.parameter_shape_index().end(),
                     p.parameter_shape_index.begin(), p.parameter_shape_index.end()))
        p.in_buffer_donor = true;
    }
    if (!have_assignment)
      p.donated = p.in_input_output_alias;
    else if (p.donated && !p.in_input_output_alias && module.input_output_alias().entries_size() > 0)
      summary.inconsistencies.push_back(
          describe(p) + " shares its allocation with an output but is not in input_output_alias");
    else if (!p.donated && p.in_input_output_alias)
      summary.inconsistencies.push_back(describe(p) +
                                        " is in input_output_alias but its allocation is not live-out");
    if (have_assignment && p.flag_aliased && !p.flag_live_out)
      summary.inconsistencies.push_back(
          describe(p) + " is flagged aliased with an output but its allocation is not live-out");
    if (p.in_buffer_donor && !p.donated)
      summary.inconsistencies.push_back(
          describe(p) + " is declared a buffer donor but XLA did not alias it with an output");
  }

  // A donated parameter without an input_output_alias entry still uses up one output of its shape.
  auto take_matching = [&](const std::string& shape, const xla::ShapeProto* param_shape) -> OutputLeaf* {
    for (auto& leaf : outputs) {
      if (leaf.taken) continue;
      if (param_shape != nullptr ? same_array(*leaf.shape, *param_shape)
                                 : format_shape(*leaf.shape) == shape) {
        leaf.taken = true;
        return &leaf;
      }
    }
    return nullptr;
  };
  auto param_shape_of = [&](const ParameterAllocation& p) -> const xla::ShapeProto* {
    const auto* instruction = entry_parameter(p.parameter_number);
    return instruction ? shape_at_index(instruction->shape(), p.parameter_shape_index) : nullptr;
  };
  for (auto& p : summary.parameters)
    if (p.donated && !p.in_input_output_alias) take_matching(p.shape, param_shape_of(p));

  for (auto& p : summary.parameters) {
    add_bytes(summary.parameter_bytes, p.bytes);
    if (p.donated) {
      add_bytes(summary.donated_bytes, p.bytes);
      ++summary.donated_count;
      continue;
    }
    const xla::ShapeProto* shape = param_shape_of(p);
    if (shape == nullptr || is_tuple_shape(*shape)) continue;
    if (OutputLeaf* leaf = take_matching(p.shape, shape)) {
      if (leaf->gradient) {
        // The same shape, but a gradient: the update still needs the parameter, so donating it frees nothing.
        p.matching_gradient = true;
        add_bytes(summary.gradient_matched_bytes, p.bytes);
        continue;
      }
      p.donatable = true;
      p.matching_output_index = leaf->index;
      add_bytes(summary.donatable_bytes, p.bytes);
      ++summary.donatable_count;
    }
  }
  return summary;
}

}  // namespace oomscope::analysis::detail
