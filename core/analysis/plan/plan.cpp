// analyze_plan: allocation totals, trace selection and replay, the buffers live at the peak, role split,
// program-order curve, donation and remat count of one module (docs/capture-format.md section 6).

#include "core/analysis/plan/plan.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/plan/detail/plan_donation.h"
#include "core/analysis/plan/detail/plan_patterns.h"
#include "core/analysis/plan/detail/plan_phases.h"
#include "core/analysis/plan/detail/plan_replay.h"
#include "core/analysis/plan/detail/plan_roles.h"
#include "core/analysis/plan/detail/plan_unpadded.h"
#include "core/analysis/plan/plan_index.h"
#include "core/capture/capture.h"
#include "hlo.pb.h"

namespace oomscope::analysis {
namespace {

using detail::PlanIndex;
using detail::ReplayResult;

bool is_indefinite(const xla::BufferAllocationProto& a) {
  return a.is_thread_local() || a.is_entry_computation_parameter() || a.is_constant() || a.maybe_live_out();
}

// XProf's category order: parameter, output, thread-local, constant.
BufferRole indefinite_role(const xla::BufferAllocationProto& a) {
  if (a.is_entry_computation_parameter()) return BufferRole::Parameter;
  if (a.maybe_live_out()) return BufferRole::Output;
  if (a.is_thread_local()) return BufferRole::ThreadLocal;
  return BufferRole::Constant;
}

bool is_indefinite_role(BufferRole role) {
  return role == BufferRole::Parameter || role == BufferRole::Output || role == BufferRole::Constant ||
         role == BufferRole::ThreadLocal;
}

void count_instructions(const xla::HloModuleProto& module, PlanAnalysis& out) {
  // Fusion bodies are not scheduled on their own; XLA's remat clones the fusion instruction, so counting
  // inside the bodies too would count each rematerialized fusion several times.
  std::unordered_set<std::int64_t> fused;
  for (const auto& computation : module.computations())
    for (const auto& instruction : computation.instructions())
      if (instruction.opcode() == "fusion")
        fused.insert(instruction.called_computation_ids().begin(),
                     instruction.called_computation_ids().end());
  for (const auto& computation : module.computations()) {
    if (computation.is_fusion_computation() || fused.count(computation.id())) continue;
    for (const auto& instruction : computation.instructions()) {
      ++out.instruction_count;
      if (instruction.name().find(".remat") != std::string::npos) ++out.remat_instructions;
    }
  }
}

void add_allocation_totals(const xla::BufferAssignmentProto& assignment, std::int64_t color,
                           PlanAnalysis& out) {
  for (const auto& a : assignment.buffer_allocations()) {
    if (a.color() != color) continue;
    ++out.allocation_count;
    detail::add_bytes(out.total_allocation_bytes, a.size());
    if (a.is_entry_computation_parameter())
      detail::add_bytes(out.parameters_bytes, a.size());
    else if (a.maybe_live_out())
      detail::add_bytes(out.outputs_bytes, a.size());
    else if (a.is_thread_local())
      detail::add_bytes(out.thread_local_bytes, a.size());
    else if (a.is_constant())
      detail::add_bytes(out.constants_bytes, a.size());
    else
      detail::add_bytes(out.temp_bytes, a.size());
    if (is_indefinite(a)) detail::add_bytes(out.indefinite_bytes, a.size());
  }
}

// Returns how many events of all traces name a buffer of another color.
std::int64_t describe_traces(const PlanIndex& index, std::int64_t color, PlanAnalysis& out) {
  std::int64_t other_color = 0;
  const auto& traces = index.assignment().heap_simulator_traces();
  for (int i = 0; i < traces.size(); ++i) {
    TraceInfo info;
    info.index = i;
    info.events = traces[i].events_size();
    info.declared_allocation = traces[i].buffer_allocation_index();
    info.whole_module = traces[i].whole_module_simulation();
    for (const auto& event : traces[i].events()) {
      const std::int32_t slot = index.slot_of(event.buffer_id());
      if (slot < 0) continue;
      if (index.buffer(slot).color() == color)
        ++info.color_events;
      else
        ++other_color;
    }
    if (!traces[i].events().empty()) {
      const std::int32_t slot = index.slot_of(traces[i].events(0).buffer_id());
      const std::int32_t position = slot >= 0 ? index.allocation_of(slot) : -1;
      if (position >= 0) info.owner_allocation = index.assignment().buffer_allocations(position).index();
    }
    out.traces.push_back(info);
  }
  return other_color;
}

// XProf's rule: a non-indefinite allocation of the color that owns a trace (the last trace whose first
// event lands in it, as XProf overwrites); else the trace with the most events of the color.
int pick_trace(const PlanIndex& index, std::int64_t color, PlanAnalysis& out) {
  for (const auto& a : index.assignment().buffer_allocations()) {
    if (a.color() != color || is_indefinite(a)) continue;
    int owned = -1;
    for (const TraceInfo& t : out.traces)
      if (t.owner_allocation == a.index()) owned = t.index;
    if (owned >= 0) {
      out.selection = TraceSelection::OwnedByTemp;
      return owned;
    }
  }
  int best = -1;
  std::int64_t best_events = 0;
  for (const TraceInfo& t : out.traces) {
    if (t.color_events > best_events) {
      best = t.index;
      best_events = t.color_events;
    }
  }
  if (best >= 0) out.selection = TraceSelection::MostColorEvents;
  return best;
}

void add_replay_notes(const ReplayResult& r, PlanAnalysis& out) {
  auto note = [&](std::int64_t count, const char* what) {
    if (count > 0) out.notes.push_back(std::to_string(count) + " trace event(s) " + what);
  };
  note(r.unknown_buffers,
       "name a logical buffer that the buffer assignment does not have; they were skipped");
  note(r.extra_frees, "free a buffer that was not live; they were ignored");
  note(r.realloc_live, "allocate a buffer that was still live; it was counted twice, as XProf does");
  note(r.negative_heap, "drove the heap below zero (inconsistent buffer sizes)");
  note(r.unknown_kinds, "have an unknown kind; they were skipped");
  if (r.allocations_seen.size() > 1)
    out.notes.push_back("the replayed events touch " + std::to_string(r.allocations_seen.size()) +
                        " buffer allocations; XProf expects one per trace");
}

// Representatives of the indefinite allocations: the largest assigned logical buffer, carrying the
// allocation's size so that the role split adds up to the peak.
void add_indefinite_buffers(const PlanIndex& index, std::int64_t color, PlanAnalysis& out) {
  std::vector<const xla::BufferAllocationProto*> allocations;
  for (const auto& a : index.assignment().buffer_allocations())
    if (a.color() == color && is_indefinite(a)) allocations.push_back(&a);
  std::sort(allocations.begin(), allocations.end(), [](auto* x, auto* y) { return x->index() < y->index(); });
  for (const auto* a : allocations) {
    std::int32_t best = -1;
    std::int64_t best_size = 0;
    for (const auto& assigned : a->assigned()) {
      const std::int32_t slot = index.slot_of(assigned.logical_buffer_id());
      if (slot >= 0 && index.buffer(slot).size() > best_size) {
        best = slot;
        best_size = index.buffer(slot).size();
      }
    }
    if (best < 0 && a->size() == 0) continue;  // an empty allocation (e.g. a constant folded away)
    PlanBuffer buffer;
    if (best >= 0) detail::describe_buffer(index, best, buffer);
    buffer.allocation_index = a->index();
    buffer.size_bytes = a->size();
    buffer.indefinite = true;
    buffer.role = indefinite_role(*a);
    if (a->is_entry_computation_parameter()) {
      buffer.parameter_number = a->parameter_number();
      buffer.parameter_shape_index.assign(a->parameter_shape_index().begin(),
                                          a->parameter_shape_index().end());
    }
    out.live_at_peak.push_back(std::move(buffer));
    detail::add_bytes(out.xla_compute_peak_bytes, a->is_thread_local() ? 0 : best_size);
  }
}

void build_curve(ReplayResult& r, PlanAnalysis& out) {
  out.curve.heap_bytes = std::move(r.heap_after);
  out.curve.indefinite_bytes = out.indefinite_bytes;
  out.curve.instruction.reserve(r.events.size());
  std::unordered_map<std::string_view, std::uint32_t> interned;
  for (const auto* event : r.events) {
    auto [it, inserted] = interned.try_emplace(
        event->instruction_name(), static_cast<std::uint32_t>(out.curve.instruction_names.size()));
    if (inserted) out.curve.instruction_names.push_back(event->instruction_name());
    out.curve.instruction.push_back(it->second);
  }
}

void add_role_totals(PlanAnalysis& out) {
  std::array<RoleTotal, kBufferRoleCount> totals{};
  for (int i = 0; i < kBufferRoleCount; ++i)
    totals[static_cast<std::size_t>(i)].role = static_cast<BufferRole>(i);
  for (const PlanBuffer& b : out.live_at_peak) {
    auto& t = totals[static_cast<std::size_t>(b.role)];
    detail::add_bytes(t.bytes, b.size_bytes);
    ++t.buffers;
  }
  auto percent = [](std::int64_t part, std::int64_t whole) {
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  for (auto& t : totals) {
    if (t.buffers == 0) continue;
    t.percent_of_peak = percent(t.bytes, out.peak_bytes);
    if (!is_indefinite_role(t.role)) t.percent_of_heap_peak = percent(t.bytes, out.heap_peak_bytes);
    out.role_totals.push_back(t);
  }
  std::stable_sort(out.role_totals.begin(), out.role_totals.end(),
                   [](const RoleTotal& a, const RoleTotal& b) { return a.bytes > b.bytes; });
}

void analyze_assignment(const PlanIndex& index, const PlanOptions& options, PlanAnalysis& out) {
  add_allocation_totals(index.assignment(), options.color, out);
  detail::add_other_memory_spaces(index, options.color, out);
  detail::add_memory_space_buffers(index, out);
  const std::int64_t other_color_events = describe_traces(index, options.color, out);

  std::vector<const xla::HeapSimulatorTrace*> chosen;
  const auto& traces = index.assignment().heap_simulator_traces();
  std::vector<const xla::HeapSimulatorTrace*> all;
  for (const auto& t : traces) all.push_back(&t);
  switch (options.trace) {
    case TraceChoice::Auto: {
      const int picked = pick_trace(index, options.color, out);
      if (picked >= 0) chosen.push_back(&traces[picked]), out.selected_trace = picked;
      break;
    }
    case TraceChoice::AllTraces:
      chosen = all;
      if (!chosen.empty()) out.selection = TraceSelection::AllTraces;
      break;
    case TraceChoice::Index:
      if (options.trace_index >= 0 && options.trace_index < traces.size()) {
        chosen.push_back(&traces[options.trace_index]);
        out.selected_trace = options.trace_index;
        out.selection = TraceSelection::Requested;
      } else {
        out.notes.push_back("trace " + std::to_string(options.trace_index) +
                            " does not exist (the module has " + std::to_string(traces.size()) + ")");
      }
      break;
  }

  // Several traces walked together are filtered to the color; one trace is replayed whole, as XProf does.
  const bool filter = options.trace == TraceChoice::AllTraces;
  ReplayResult replay = detail::replay_traces(index, chosen, filter, options.color, options.peak_range);
  out.peak_range = options.peak_range;
  add_replay_notes(replay, out);
  if (all.size() == 1 && chosen.size() == 1 && !options.peak_range) {
    out.traces[0].heap_peak_bytes = replay.peak_bytes;
  } else {
    const std::vector<std::int64_t> peaks = detail::trace_peaks(index, all);
    for (TraceInfo& info : out.traces) info.heap_peak_bytes = peaks[static_cast<std::size_t>(info.index)];
  }

  add_indefinite_buffers(index, options.color, out);
  // XLA's variant walks all traces filtered to the color; the replay above already did that when it
  // covered every trace and no event of another color was in them.
  const bool replay_is_xla_walk = filter || (chosen.size() == all.size() && other_color_events == 0);
  detail::add_bytes(out.xla_compute_peak_bytes,
                    replay_is_xla_walk ? replay.peak_bytes
                                       : detail::replay_traces(index, all, true, options.color).peak_bytes);

  if (out.selection == TraceSelection::None) {
    out.peak_bytes = out.indefinite_bytes;
    add_role_totals(out);
    // Without temp memory there is nothing to simulate: parameters, outputs and constants are the peak.
    if (out.temp_bytes == 0 && options.trace == TraceChoice::Auto) {
      out.status = PlanStatus::Ok;
      detail::add_unpadded_sizes(index, out);
      return;
    }
    out.status = PlanStatus::NoHeapTrace;
    out.notes.push_back(traces.empty()
                            ? "the buffer assignment has no heap-simulator trace; only totals are known"
                            : "no heap-simulator trace holds events of memory space " +
                                  std::to_string(options.color) + "; only totals are known");
    return;
  }
  out.status = PlanStatus::Ok;
  out.trace_event_count = static_cast<std::int64_t>(replay.events.size());
  out.heap_peak_bytes = replay.peak_bytes;
  out.peak_bytes = replay.peak_bytes;
  detail::add_bytes(out.peak_bytes, out.indefinite_bytes);
  out.peak_event_index = replay.peak_event;
  if (replay.peak_event >= 0) {
    const auto* event = replay.events[static_cast<std::size_t>(replay.peak_event)];
    out.peak_instruction = event->instruction_name();
    out.peak_computation = event->computation_name();
  }
  for (const detail::LiveSpan& span : replay.live_at_peak) {
    PlanBuffer buffer;
    detail::describe_buffer(index, span.display_slot, buffer);
    buffer.size_bytes = index.buffer(span.root_slot).size();
    buffer.live_since_event = span.start;
    buffer.freed_at_event = span.end;
    if (span.display_slot != span.root_slot) {
      buffer.canonical_buffer_id = index.buffer(span.root_slot).id();
      // The sharer and its canonical are the same memory, so the canonical is an alias too.
      if (buffer.role == BufferRole::Other && buffer.op_name.empty() && buffer.role_via_instruction.empty()) {
        PlanBuffer canonical;
        detail::describe_buffer(index, span.root_slot, canonical);
        const std::string& stack =
            canonical.role_via_op_name.empty() ? canonical.op_name : canonical.role_via_op_name;
        if (!stack.empty() && canonical.role != BufferRole::Workspace) {
          buffer.role = detail::role_from_op_name(stack);
          buffer.role_via_instruction =
              canonical.role_via_instruction.empty() ? canonical.instruction : canonical.role_via_instruction;
          buffer.role_via_op_name = stack;
        }
      }
    }
    out.live_at_peak.push_back(std::move(buffer));
  }
  detail::add_unpadded_sizes(index, out);
  build_curve(replay, out);
  detail::analyze_phases(index, replay.events, out);
  add_role_totals(out);
  detail::find_patterns(index, out);
}

}  // namespace

PlanAnalysis analyze_plan(const xla::HloProto& hlo, const PlanOptions& options) {
  PlanAnalysis out;
  const auto& module = hlo.hlo_module();
  out.module_name = module.name();
  out.program_id = static_cast<std::uint64_t>(module.id());
  out.color = options.color;
  count_instructions(module, out);
  const PlanIndex index(hlo);
  if (!hlo.has_buffer_assignment()) {
    out.status = PlanStatus::NoBufferAssignment;
    out.notes.push_back("the module has no buffer assignment; no plan figures are available");
  } else {
    analyze_assignment(index, options, out);
  }
  out.donation = detail::analyze_donation(index, options.color);
  return out;
}

PlanAnalysis analyze_plan(const capture::Module& module, const PlanOptions& options) {
  PlanAnalysis out;
  if (module.hlo) {
    out = analyze_plan(*module.hlo, options);
  } else {
    out.color = options.color;
    out.status = PlanStatus::NoBufferAssignment;
    out.notes.push_back("the module's HloProto could not be read; no plan figures are available");
  }
  out.module_name = module.name.empty() ? out.module_name : module.name;
  out.program_id = module.program_id;
  return out;
}

}  // namespace oomscope::analysis
