#pragma once
// Lookup tables over one xla::HloProto, built once per analysis: the plan analysis's, and the plan
// timeline's buffer table uses them too (timeline/plan_timeline_buffers.cpp), so this header sits beside
// plan.h rather than under detail/. Not part of what the reports and the GUI use.
// Logical buffers get dense slots (their position in BufferAssignmentProto.logical_buffers) so that the
// trace replay works on plain arrays instead of hash maps.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hlo.pb.h"

namespace oomscope::analysis::detail {

// Byte sums saturate instead of overflowing: a damaged proto can carry absurd sizes, and the analysis
// must stay defined behaviour (it reports nonsense figures rather than crashing).
inline void add_bytes(std::int64_t& total, std::int64_t value) {
  if (__builtin_add_overflow(total, value, &total)) total = value > 0 ? INT64_MAX : INT64_MIN;
}
inline void sub_bytes(std::int64_t& total, std::int64_t value) {
  if (__builtin_sub_overflow(total, value, &total)) total = value < 0 ? INT64_MAX : INT64_MIN;
}

struct InstructionRef {
  const xla::HloInstructionProto* instruction = nullptr;
  const xla::HloComputationProto* computation = nullptr;
};

class PlanIndex {
 public:
  explicit PlanIndex(const xla::HloProto& hlo);

  const xla::HloProto& hlo() const { return hlo_; }
  const xla::BufferAssignmentProto& assignment() const { return hlo_.buffer_assignment(); }

  // Dense slot of a logical buffer id, or -1.
  std::int32_t slot_of(std::int64_t logical_buffer_id) const {
    if (logical_buffer_id >= 0 && static_cast<std::uint64_t>(logical_buffer_id) < dense_.size())
      return dense_[static_cast<std::size_t>(logical_buffer_id)];
    auto it = sparse_.find(logical_buffer_id);
    return it == sparse_.end() ? -1 : it->second;
  }
  const xla::LogicalBufferProto& buffer(std::int32_t slot) const {
    return assignment().logical_buffers(slot);
  }
  std::size_t buffer_count() const { return static_cast<std::size_t>(assignment().logical_buffers_size()); }
  // Position in buffer_allocations of the allocation holding the slot, or -1.
  std::int32_t allocation_of(std::int32_t slot) const {
    return allocation_of_slot_[static_cast<std::size_t>(slot)];
  }

  const InstructionRef* instruction(std::int64_t id) const {
    auto it = instructions_.find(id);
    return it == instructions_.end() ? nullptr : &it->second;
  }
  const xla::HloInstructionProto* defining_instruction(std::int32_t slot) const;
  // An instruction by name (any computation), or null.
  const xla::HloInstructionProto* instruction_by_name(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }
  // Instructions where this buffer also appears (BufferAssignmentProto.buffer_aliases), in proto order.
  const std::vector<std::int64_t>* alias_instruction_ids(std::int64_t logical_buffer_id) const {
    auto it = aliases_.find(logical_buffer_id);
    return it == aliases_.end() ? nullptr : &it->second;
  }
  const xla::HloComputationProto* entry_computation() const { return entry_; }

 private:
  const xla::HloProto& hlo_;
  std::vector<std::int32_t> dense_;  // id -> slot for small non-negative ids
  std::unordered_map<std::int64_t, std::int32_t> sparse_;
  std::vector<std::int32_t> allocation_of_slot_;
  std::unordered_map<std::int64_t, InstructionRef> instructions_;
  std::unordered_map<std::string_view, const xla::HloInstructionProto*> by_name_;
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> aliases_;
  const xla::HloComputationProto* entry_ = nullptr;
};

}  // namespace oomscope::analysis::detail
