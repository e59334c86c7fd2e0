// Phases of a module from its JAX name stacks (docs/report-rules.md, "Phases"): the backward runs from the
// first to the last heap-trace event of a "transpose(" instruction; a forward ("jvp(") buffer live at
// the peak is kept for the backward only when it is still live when the backward starts, otherwise it
// is a forward transient. Also the highest point of each phase, so that a fix of one phase is never
// said to bring the need below the peak of another.

#include "core/analysis/plan/detail/plan_phases.h"

#include <algorithm>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_shape.h"

namespace oomscope::analysis {

const char* to_string(Phase phase) noexcept { return enum_name(kPhaseNames, phase, "?"); }

std::optional<PhasePeak> PlanAnalysis::other_phase_peak() const {
  for (const PhasePeak& p : phase_peaks)
    if (p.phase != peak_phase) return p;  // highest first
  return std::nullopt;
}

namespace detail {

void analyze_phases(const PlanIndex& index, std::span<const xla::HeapSimulatorTrace::Event* const> events,
                    PlanAnalysis& out) {
  // The backward's extent, by instruction name (events of one instruction share its name stack).
  std::string_view last_name;
  bool last_is_backward = false;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::string& name = events[i]->instruction_name();
    if (name != last_name) {
      last_name = name;
      const xla::HloInstructionProto* instruction = index.instruction_by_name(name);
      last_is_backward =
          instruction != nullptr && instruction->metadata().op_name().find("transpose(") != std::string::npos;
    }
    if (!last_is_backward) continue;
    if (out.backward_start_event < 0) out.backward_start_event = static_cast<std::int64_t>(i);
    out.backward_end_event = static_cast<std::int64_t>(i);
  }
  const std::int64_t start = out.backward_start_event, end = out.backward_end_event;
  auto phase_at = [&](std::int64_t i) {
    if (start < 0) return Phase::NoBackward;
    if (i < start) return Phase::Forward;
    return i <= end ? Phase::Backward : Phase::Update;
  };

  // Highest point per phase (first index wins a tie, as the replay's peak does).
  std::vector<PhasePeak> peaks;
  for (std::size_t i = 0; i < out.curve.size(); ++i) {
    const Phase phase = phase_at(static_cast<std::int64_t>(i));
    auto it = std::find_if(peaks.begin(), peaks.end(), [&](const PhasePeak& p) { return p.phase == phase; });
    if (it == peaks.end()) {
      peaks.push_back(PhasePeak{phase, -1, -1, -1, {}});
      it = std::prev(peaks.end());
    }
    const std::int64_t heap = out.curve.heap_bytes[i];
    if (heap > it->heap_bytes) {
      it->heap_bytes = heap;
      it->bytes = out.curve.total_at(i);
      it->event_index = static_cast<std::int64_t>(i);
      it->instruction = std::string(out.curve.instruction_at(i));
    }
  }
  std::stable_sort(peaks.begin(), peaks.end(),
                   [](const PhasePeak& a, const PhasePeak& b) { return a.bytes > b.bytes; });
  out.phase_peaks = std::move(peaks);
  out.peak_phase = out.peak_event_index >= 0 ? phase_at(out.peak_event_index) : Phase::NoBackward;

  // Roles by lifetime: a forward buffer freed before the backward starts (or in a program without one)
  // is a transient of the forward, not an activation kept for the backward.
  for (PlanBuffer& b : out.live_at_peak) {
    if (b.indefinite || b.role != BufferRole::ForwardKept) continue;
    const bool freed_before_backward = b.freed_at_event >= 0 && (start < 0 || b.freed_at_event < start);
    if (start < 0 || freed_before_backward) b.role = BufferRole::ForwardTransient;
  }
}

namespace {

// Shape of an entry parameter allocation, from the entry computation's parameter instruction.
std::string parameter_shape(const PlanIndex& index, const xla::BufferAllocationProto& a) {
  const xla::HloComputationProto* entry = index.entry_computation();
  if (entry == nullptr) return {};
  for (const auto& instruction : entry->instructions()) {
    if (instruction.opcode() != "parameter" || instruction.parameter_number() != a.parameter_number())
      continue;
    const std::vector<std::int64_t> shape_index(a.parameter_shape_index().begin(),
                                                a.parameter_shape_index().end());
    const xla::ShapeProto* element = shape_at_index(instruction.shape(), shape_index);
    return element ? format_shape(*element) : format_shape(instruction.shape());
  }
  return {};
}

}  // namespace

void add_other_memory_spaces(const PlanIndex& index, std::int64_t color, PlanAnalysis& out) {
  for (const auto& a : index.assignment().buffer_allocations()) {
    if (a.color() == color) continue;
    auto it = std::find_if(out.other_memory_spaces.begin(), out.other_memory_spaces.end(),
                           [&](const MemorySpaceTotals& t) { return t.color == a.color(); });
    if (it == out.other_memory_spaces.end()) {
      out.other_memory_spaces.push_back(MemorySpaceTotals{});
      it = std::prev(out.other_memory_spaces.end());
      it->color = a.color();
    }
    MemorySpaceTotals& t = *it;
    if (a.is_entry_computation_parameter()) {
      add_bytes(t.parameters_bytes, a.size());
      ++t.parameter_allocations;
      if (a.maybe_live_out() || a.is_parameter_aliased_with_output())
        add_bytes(t.parameters_aliased_bytes, a.size());
      if (a.size() > t.largest_parameter_bytes) {
        t.largest_parameter_bytes = a.size();
        t.largest_parameter_count = 0;
        t.largest_parameter_shape = parameter_shape(index, a);
      }
      if (a.size() == t.largest_parameter_bytes) ++t.largest_parameter_count;
    } else if (a.maybe_live_out()) {
      add_bytes(t.outputs_bytes, a.size());
    } else if (a.is_thread_local() || a.is_constant()) {
      add_bytes(t.other_bytes, a.size());
    } else {
      add_bytes(t.temp_bytes, a.size());
    }
  }
  std::sort(out.other_memory_spaces.begin(), out.other_memory_spaces.end(),
            [](const MemorySpaceTotals& a, const MemorySpaceTotals& b) { return a.color < b.color; });
}

}  // namespace detail
}  // namespace oomscope::analysis
