#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

PlanIndex::PlanIndex(const xla::HloProto& hlo) : hlo_(hlo) {
  const auto& buffers = assignment().logical_buffers();
  // Ids are usually 0..n-1; a dense table makes the per-event lookup a single load. Ids far above the
  // buffer count (or negative) go to the hash map so a hostile id cannot blow up memory.
  const std::size_t dense_limit = static_cast<std::size_t>(buffers.size()) * 2 + 1024;
  for (int slot = 0; slot < buffers.size(); ++slot) {
    const std::int64_t id = buffers[slot].id();
    if (id >= 0 && static_cast<std::uint64_t>(id) < dense_limit) {
      const auto pos = static_cast<std::size_t>(id);
      if (pos >= dense_.size()) dense_.resize(pos + 1, -1);
      if (dense_[pos] < 0) dense_[pos] = slot;
    } else {
      sparse_.try_emplace(id, slot);
    }
  }

  allocation_of_slot_.assign(static_cast<std::size_t>(buffers.size()), -1);
  const auto& allocations = assignment().buffer_allocations();
  for (int position = 0; position < allocations.size(); ++position) {
    for (const auto& assigned : allocations[position].assigned()) {
      const std::int32_t slot = slot_of(assigned.logical_buffer_id());
      if (slot >= 0 && allocation_of_slot_[static_cast<std::size_t>(slot)] < 0)
        allocation_of_slot_[static_cast<std::size_t>(slot)] = position;
    }
  }

  const auto& module = hlo.hlo_module();
  std::size_t instruction_total = 0;
  for (const auto& computation : module.computations()) instruction_total += computation.instructions_size();
  instructions_.reserve(instruction_total);
  by_name_.reserve(instruction_total);
  for (const auto& computation : module.computations()) {
    if ((module.entry_computation_id() != 0 && computation.id() == module.entry_computation_id()) ||
        (!module.entry_computation_name().empty() && computation.name() == module.entry_computation_name()))
      entry_ = &computation;
    for (const auto& instruction : computation.instructions()) {
      instructions_.try_emplace(instruction.id(), InstructionRef{&instruction, &computation});
      by_name_.try_emplace(instruction.name(), &instruction);
    }
  }
  // Computations are stored callees first, so the entry is the last one when the module does not say.
  if (entry_ == nullptr && module.computations_size() > 0)
    entry_ = &module.computations(module.computations_size() - 1);

  for (const auto& alias : assignment().buffer_aliases())
    aliases_[alias.source_buffer_id()].push_back(alias.location().instruction_id());
}

const xla::HloInstructionProto* PlanIndex::defining_instruction(std::int32_t slot) const {
  const auto& defined_at = buffer(slot).defined_at();
  const InstructionRef* ref = instruction(defined_at.instruction_id());
  // Old protos name the instruction but leave instruction_id 0; trust the name when the two disagree.
  if (ref != nullptr &&
      (defined_at.instruction_name().empty() || ref->instruction->name() == defined_at.instruction_name()))
    return ref->instruction;
  if (!defined_at.instruction_name().empty()) {
    auto it = by_name_.find(defined_at.instruction_name());
    if (it != by_name_.end()) return it->second;
  }
  return ref != nullptr ? ref->instruction : nullptr;
}

}  // namespace oomscope::analysis::detail
