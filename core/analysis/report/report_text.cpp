#include "core/analysis/report/report_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/analysis/diagnosis/diagnosis_rules.h"
#include "core/analysis/report/detail/report_text_detail.h"
#include "core/analysis/report/fix_outcome.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::analysis {

namespace {

using detail::allocations;
using detail::b;
using detail::secs;

// The buffers of one other memory space (host offload), largest first, as XProf's memory viewer lists a
// memory space's buffers on their own.
void write_memory_space_buffers(std::ostream& o, const MemorySpaceTotals& t, std::size_t top) {
  if (t.buffers.empty()) return;
  o << "    its " << t.buffers.size() << " logical buffer" << (t.buffers.size() == 1 ? "" : "s")
    << ", largest first: size, shape, the allocation that holds it, the instruction that defines it "
       "[read]:\n";
  for (std::size_t i = 0; i < t.buffers.size() && i < top; ++i) {
    const PlanBuffer& buf = t.buffers[i];
    std::string holder = std::string(to_string(buf.role)) + " allocation";
    if (buf.role == BufferRole::Parameter && buf.parameter_number >= 0)
      holder = "parameter " + std::to_string(buf.parameter_number) + "'s allocation";
    if (!buf.indefinite) holder = "temp allocation";
    // The instruction by its name; its opcode only where the name does not already say it ("param", a
    // parameter; "copy-start.1" needs no "copy-start" before it).
    std::string defined_by = buf.instruction;
    if (!buf.opcode.empty() && !buf.instruction.starts_with(buf.opcode))
      defined_by += defined_by.empty() ? buf.opcode : " (" + buf.opcode + ")";
    o << "      " << pad_right(b(buf.size_bytes), 10) << pad_right(buf.shape, 28) << " "
      << pad_right(holder, 24) << " " << defined_by;
    if (buf.unpadded_bytes >= 0 && buf.unpadded_bytes != buf.size_bytes)
      o << " (unpadded " << b(buf.unpadded_bytes) << ")";
    o << "\n";
  }
  if (t.buffers.size() > top) o << "      ... " << t.buffers.size() - top << " more\n";
}

void write_plan(std::ostream& o, const HostReport& r, std::size_t top) {
  const PlanAnalysis& p = *r.plan;
  o << "\nPLAN  " << p.module_name << "(" << p.program_id << ")  [" << to_string(p.status) << "]\n";
  if (p.status == PlanStatus::NoBufferAssignment) {
    o << "  no buffer assignment in the HloProto: nothing to replay\n";
    return;
  }
  o << "  parameters          " << pad_right(b(p.parameters_bytes), 11) << "[read]  donated "
    << b(p.donation.donated_bytes) << " (" << p.donation.donated_count << " of "
    << p.donation.parameters.size() << " allocations)\n";
  o << "  non-aliased outputs " << pad_right(b(p.outputs_bytes), 11) << "[read]\n";
  o << "  temp block          " << pad_right(b(p.temp_bytes), 11) << "[read]  ("
    << format_bytes_exact(p.temp_bytes) << " bytes)\n";
  if (p.constants_bytes) o << "  constants           " << pad_right(b(p.constants_bytes), 11) << "[read]\n";
  if (p.status == PlanStatus::Ok) {
    // --at POSITION: the plan at one program position instead of its peak.
    const bool at = p.peak_range && p.peak_range->first == p.peak_range->second;
    const std::string where = at ? "at position " + std::to_string(p.peak_range->first) : "at the peak";
    if (at)
      o << "  at position " << pad_right(std::to_string(p.peak_range->first), 8)
        << pad_right(b(p.peak_bytes), 11) << "[derived]  = temp heap " << b(p.heap_peak_bytes)
        << " + parameters/outputs/constants " << b(p.indefinite_bytes)
        << (p.peak_instruction.empty() ? std::string() : "; after " + p.peak_instruction) << " (position "
        << p.peak_range->first << " of 0 .. " << p.trace_event_count - 1 << ")";
    else
      o << "  whole peak          " << pad_right(b(p.peak_bytes), 11) << "[derived]  = temp-heap peak "
        << b(p.heap_peak_bytes) << " + parameters/outputs/constants " << b(p.indefinite_bytes)
        << (p.peak_instruction.empty() ? std::string() : "; at " + p.peak_instruction);
    if (p.peak_event_index >= 0)
      o << (p.peak_phase == Phase::NoBackward ? std::string(", in a program without a backward pass")
                                              : ", in the " + std::string(to_string(p.peak_phase)));
    o << "\n";
    // XProf's padded vs unpadded: shown where the layouts pad (TPU tiles); GPU layouts add none.
    if (const std::int64_t unpadded = detail::unpadded_live_bytes(p);
        p.unpadded_peak_bytes >= 0 && unpadded >= 0 && unpadded != p.peak_bytes)
      o << "  " << pad_right(at ? "unpadded there" : "unpadded peak", 20)
        << pad_right(b(p.unpadded_peak_bytes), 11) << "[derived]  = the temp heap's buffers unpadded "
        << b(p.unpadded_heap_peak_bytes) << " + parameters/outputs/constants as allocated "
        << b(p.indefinite_bytes)
        << (at ? " (XProf's unpadded heap there); all " : " (XProf's peak unpadded heap); all ")
        << p.live_at_peak.size() << " buffers live there take " << b(unpadded) << " unpadded, "
        << b(p.peak_bytes - unpadded) << " less than as allocated (layout tiles, padding and alignment)\n";
    if (p.phase_peaks.size() > 1) {
      o << "  peak of each phase [derived]:";
      for (std::size_t i = 0; i < p.phase_peaks.size(); ++i) {
        const PhasePeak& ph = p.phase_peaks[i];
        o << (i ? ";" : "") << " " << to_string(ph.phase) << " " << b(ph.bytes) << " at " << ph.instruction
          << " (temp heap " << b(ph.heap_bytes) << ")";
      }
      o << "\n";
    }
    o << "  role split " << where << " [derived]:";
    for (const RoleTotal& t : p.role_totals) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f %%", t.percent_of_peak);
      o << "  " << to_string(t.role) << " " << buf << " (" << b(t.bytes);
      // The reference's "heap peak 81.6 % forward-kept" counts against the temp heap alone.
      if (t.percent_of_heap_peak > 0.0) {
        std::snprintf(buf, sizeof buf, "%.1f %%", t.percent_of_heap_peak);
        o << ", " << buf << " of the temp heap";
      }
      o << ")";
    }
    o << "\n";
    // Identical buffers (same size, shape, role, line) are counted together, as "x5".
    // "Other" buffers name the op that made them: the name stack is there even outside jvp/transpose.
    std::map<std::tuple<std::int64_t, std::string, std::string, std::string>, int> same;
    for (const PlanBuffer& buf : p.live_at_peak) {
      std::string source = buf.source.to_string();
      if (buf.role == BufferRole::Other && !buf.indefinite) {
        const std::string& stack = buf.op_name.empty() ? buf.role_via_op_name : buf.op_name;
        const std::string made =
            stack.empty() ? (buf.opcode.empty() ? std::string() : "XLA " + buf.opcode + " " + buf.instruction)
                          : stack;
        if (!made.empty()) {
          if (!source.empty()) source += ' ';
          source.append("[").append(made).append("]");
        }
      }
      // XProf's unpadded size where the layout pads the buffer (TPU tiles; an indefinite allocation's
      // representative's shape).
      if (buf.unpadded_bytes >= 0 && buf.unpadded_bytes != buf.size_bytes)
        source += (source.empty() ? "" : " ") + std::string("(unpadded ") + b(buf.unpadded_bytes) + ")";
      ++same[{buf.size_bytes, buf.shape, to_string(buf.role), source}];
    }
    std::vector<std::pair<std::tuple<std::int64_t, std::string, std::string, std::string>, int>> rows(
        same.begin(), same.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
      return std::get<0>(x.first) * x.second > std::get<0>(y.first) * y.second;
    });
    o << "  live " << where << ", largest first (" << p.live_at_peak.size()
      << " buffers; a size is each buffer's, xN = N such buffers) [derived]:\n";
    for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
      const auto& [key, n] = rows[i];
      const auto& [size, shape, role, source] = key;
      o << "    " << pad_right(b(size), 10) << pad_right(n > 1 ? "x" + std::to_string(n) : "", 5)
        << pad_right(shape, 28) << " " << pad_right(role, 17) << " "
        << (source.empty() ? "(no source line)" : source) << "\n";
    }
    if (rows.size() > top) o << "    ... " << rows.size() - top << " more rows\n";
  } else {
    o << "  no usable heap-simulator trace: allocation total " << b(p.total_allocation_bytes) << " [read]\n";
  }
  for (const MemorySpaceTotals& t : p.other_memory_spaces) {
    if (t.parameters_bytes + t.outputs_bytes + t.temp_bytes + t.other_bytes <= 0) continue;
    o << "  memory space " << t.color << (t.color == 5 ? " (host offload)" : "") << ": parameters "
      << b(t.parameters_bytes);
    if (t.parameter_allocations > 0) {
      o << " (" << t.parameter_allocations << " allocation" << (t.parameter_allocations == 1 ? "" : "s");
      if (t.largest_parameter_count == t.parameter_allocations && !t.largest_parameter_shape.empty())
        o << " of " << t.largest_parameter_shape;
      if (t.parameters_aliased_bytes > 0)
        o << (t.parameters_aliased_bytes == t.parameters_bytes ? ", all"
                                                               : ", " + b(t.parameters_aliased_bytes))
          << " aliased with outputs";
      o << ")";
    }
    o << ", outputs " << b(t.outputs_bytes) << ", temp " << b(t.temp_bytes)
      << " [read]; not in the device figures\n";
    write_memory_space_buffers(o, t, top);
  }
  if (p.donation.donatable_bytes > 0)
    o << "  donatable, not donated " << b(p.donation.donatable_bytes) << " [derived]\n";
  if (p.donation.gradient_matched_bytes > 0)
    o << "  not donatable: " << b(p.donation.gradient_matched_bytes)
      << " of parameters whose same-shaped outputs are gradients [derived]\n";
  if (p.status == PlanStatus::Ok && p.backward_start_event >= 0) {
    // Role sums are taken at the peak: at a forward peak no backward buffer exists yet, so "0 B of
    // gradients" would read as a fact about the program; say where the peak is instead.
    o << "  anatomy of the peak (in the " << to_string(p.peak_phase)
      << "): weights, optimizer state and inputs = parameters " << b(p.parameters_bytes)
      << "; activations = forward-kept " << b(p.role_bytes(BufferRole::ForwardKept))
      << " (forward transients " << b(p.role_bytes(BufferRole::ForwardTransient))
      << " are not activations); ";
    if (p.peak_phase == Phase::Forward)
      o << "gradients: none live yet, the backward has not started\n";
    else
      o << "gradients = backward " << b(p.role_bytes(BufferRole::Backward))
        << " (+ outputs if the step returns them)\n";
  }
  o << "  XLA rematerialized " << p.remat_instructions << " instructions [read]\n";
  for (const std::string& n : p.notes) o << "  note: " << n << "\n";
}

void write_runtime(std::ostream& o, const HostReport& r, std::size_t top) {
  const RuntimeAnalysis& rt = r.runtime;
  o << "\nRUNTIME\n";
  // With a selection, counts and figures are of the selected time range only.
  const char* scope = rt.time_window ? "the selection" : "the capture";
  if (rt.time_window)
    o << "  selection: " << secs(rt.time_window->first) << " .. " << secs(rt.time_window->second)
      << " of the capture; allocators, waits and executions below are counted inside it\n";
  // A file cut short: each runtime figure says it counts only the planes read whole (LIMITS says why).
  const std::string counted = r.cut_short ? "the planes read whole" : scope;
  if (rt.allocators.empty()) o << "  no allocator events in " << counted << "\n";
  for (const AllocatorRuntime& a : rt.allocators) {
    o << "  " << pad_right(a.name, 18) << "capacity " << pad_right(b(a.capacity_bytes), 10)
      << "[read]  peak in use " << b(a.peak_bytes_in_use) << " at " << secs(a.peak_time_ps)
      << " [read]  lifetime peak " << b(a.lifetime_peak_bytes) << " [read]\n";
    o << "  " << pad_right("", 18) << a.allocations << " allocations, " << a.deallocations
      << " frees: " << a.live_at_end << " never freed (" << b(a.live_at_end_bytes) << "), "
      << a.unmatched_frees << " freed chunks allocated before " << scope << " (" << b(a.unmatched_free_bytes)
      << ") [measured]\n";
  }
  o << "  AllocatorRetry: ";
  if (rt.retries.count == 0)
    o << (r.cut_short ? "none in the planes read whole [measured]\n" : "none [measured]\n");
  else
    o << rt.retries.count << " waits, longest " << secs(rt.retries.longest_ps) << " at "
      << secs(rt.retries.longest_time_ps) << ", total " << secs(rt.retries.total_ps) << " [measured]\n";
  o << "  host executions in " << counted << ": " << rt.executions_total << " [measured]\n";
  if (!rt.module) {
    o << "  no module analysed\n";
  } else {
    const ModuleRuntime& m = *rt.module;
    o << "  executions of " << m.module;
    if (m.program_id) o << "(" << *m.program_id << ")";
    o << ": " << m.executions.size() << (r.cut_short ? " in the planes read whole" : "");
    if (m.allocator && *m.allocator < rt.allocators.size()) o << " on " << rt.allocators[*m.allocator].name;
    const auto by_id = std::count_if(m.executions.begin(), m.executions.end(),
                                     [](const RuntimeExecution& e) { return e.matched_by_program_id; });
    const auto ambiguous =
        std::count_if(m.executions.begin(), m.executions.end(),
                      [](const RuntimeExecution& e) { return !e.ambiguous_programs.empty(); });
    o << " [measured]";
    if (!m.executions.empty())
      o << (by_id == static_cast<std::ptrdiff_t>(m.executions.size())
                ? "; matched by program id (the kernels each one launched)"
            : by_id == 0 && ambiguous == 0
                ? "; matched by name and order: no launch in the capture names its program"
                : "; " + std::to_string(by_id) + " matched by program id, the rest by name" +
                      (ambiguous ? " (" + std::to_string(ambiguous) + " with launches of several programs)"
                                 : std::string()));
    o << "\n";
    if (!m.devices.empty() && m.allocator && *m.allocator < rt.allocators.size()) {
      o << "  " << m.module << " ran on " << m.devices.size()
        << " devices; in use at the start of its first / last execution on each [read]:";
      std::int64_t most = 0;
      for (const ModuleRuntime::Device& d : m.devices) most = std::max(most, d.bytes_in_use_at_last_start);
      std::size_t with_most = 0;
      for (std::size_t i = 0; i < m.devices.size(); ++i) {
        const ModuleRuntime::Device& d = m.devices[i];
        if (d.allocator < rt.allocators.size())
          o << (i ? "," : "") << " " << rt.allocators[d.allocator].name << " "
            << b(d.bytes_in_use_at_first_start) << " / " << b(d.bytes_in_use_at_last_start);
        if (d.bytes_in_use_at_last_start == most) ++with_most;
      }
      o << "\n  the figures below are for " << rt.allocators[*m.allocator].name
        << (with_most == m.devices.size()
                ? " (every device has the same in use at its last start; the first is shown)"
            : with_most > 1 ? ", the first of the " + std::to_string(with_most) +
                                  " devices with the most in use at their last start"
                            : std::string(", the device with the most in use at its last start"))
        << "\n";
    }
    const std::size_t n = m.executions.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (n > top && i == top / 2) o << "    ... " << n - top << " executions\n";
      if (n > top && i >= top / 2 && i < n - (top - top / 2)) continue;
      const RuntimeExecution& e = m.executions[i];
      std::string launched = !e.launched ? "unknown" : (*e.launched ? "yes" : "NO");
      o << "    #" << pad_right(std::to_string(e.number), 4) << " at " << pad_right(secs(e.start_ps), 18)
        << " in use at start " << pad_right(b(e.bytes_in_use_at_start), 10)
        << " kernel launched: " << launched;
      if (!e.has_module_span && e.launched != true) o << " (no XLA module span)";
      if (e.retry_wait_ps > 0) o << " AllocatorRetry " << secs(e.retry_wait_ps);
      o << "\n";
    }
    if (m.growth_per_execution) {
      // Steps are measured; an average over them is derived, and only meaningful when they agree.
      o << "  growth of in use at start: " << b(m.executions.front().bytes_in_use_at_start) << " -> "
        << b(m.executions.back().bytes_in_use_at_start) << " [measured], " << growth_wording(m.growth_steps);
      if (m.growth_consistent && r.plan && r.plan->outputs_bytes > 0) {
        char buf[32];
        std::snprintf(
            buf, sizeof buf, "%.2fx",
            static_cast<double>(*m.growth_per_execution) / static_cast<double>(r.plan->outputs_bytes));
        o << "; average " << b(*m.growth_per_execution) << " = " << buf
          << " the non-aliased outputs [derived]";
      }
      o << (m.growth_consistent ? "; every step grew\n" : "\n");
    }
    // On a cut file without executions, a count of launches missed would say nothing.
    if (!r.cut_short || !m.executions.empty()) {
      o << "  executions that never launched a kernel: " << m.never_launched;
      if (!rt.has_device_program_events)
        o << " (no device events: unknown)\n";
      else if (m.launch_unknown > 0)
        o << " [measured], " << m.launch_unknown << " unknown\n";
      else
        o << " [measured]\n";
    }
    if (n >= 2) {
      o << "  host events between the last two executions (" << secs(m.between_start_ps) << " .. "
        << secs(m.between_end_ps) << ", " << m.host_events_between_total << " events) [measured]:\n";
      for (const NameCount& nc : m.host_events_between)
        o << "    " << pad_right(std::to_string(nc.count), 6) << nc.name << "\n";
      if (m.host_event_names_between > static_cast<std::int64_t>(m.host_events_between.size()))
        o << "    ... "
          << m.host_event_names_between - static_cast<std::int64_t>(m.host_events_between.size())
          << " more names\n";
    }
    if (!m.live_at_last_start.empty() || m.live_at_last_start_bytes) {
      o << "  live at the start of the last execution: " << b(m.live_at_last_start_bytes)
        << " in use [read], by the host event that allocated it [measured]:\n";
      for (const LiveGroup& g : m.live_at_last_start)
        o << "    " << pad_right(b(g.bytes), 10) << pad_right(g.count ? allocations(g.count) : "", 16)
          << g.label << "\n";
      if (m.live_at_last_start_groups > static_cast<std::int64_t>(m.live_at_last_start.size()))
        o << "    ... "
          << m.live_at_last_start_groups - static_cast<std::int64_t>(m.live_at_last_start.size())
          << " more\n";
    }
  }
  detail::write_runtime_peak(o, r, top);
  for (const std::string& note : rt.notes) o << "  note: " << note << "\n";
}

void write_diagnosis(std::ostream& o, const HostReport& r) {
  o << "\nDIAGNOSIS\n";
  if (r.capacity_bytes)
    o << "  pool: " << b(*r.capacity_bytes) << " (" << format_bytes_exact(*r.capacity_bytes) << " bytes, "
      << (r.capacity_source == CapacitySource::Given ? "given with --capacity"
                                                     : "capacity of " + r.capacity_allocator + " [read]")
      << ")\n";
  else
    o << "  pool: unknown (no allocator events" << (r.cut_short ? " in the planes read whole" : "")
      << "; pass --capacity BYTES to check the plan against a pool)\n";
  if (r.capacity_bytes && r.capacity_source == CapacitySource::Given && r.device_memory_bytes &&
      *r.capacity_bytes > *r.device_memory_bytes)
    o << "  warning: the given pool is larger than the device's " << b(*r.device_memory_bytes)
      << " of memory\n";
  if (!r.diagnosis_pool_note.empty()) o << "  " << r.diagnosis_pool_note << "\n";
  if (r.diagnosis.empty()) o << "  nothing to report\n";
  for (const DiagnosisLine& l : r.diagnosis) {
    const std::string ind(2 + 4 * static_cast<std::size_t>(l.depth), ' ');
    o << ind << "[" << to_string(l.provenance) << "] " << (l.depth ? "-> " : "") << l.finding << "\n";
    o << ind << "    cause: " << l.cause << "\n";
    for (const Fix& f : l.fixes) {
      o << ind << "    fix: " << f.action << "\n" << ind << "         saving ";
      o << (f.saving_bytes ? "~" + b(*f.saving_bytes) + " [derived]" : std::string("-"));
      if (!f.saving_note.empty()) o << " (" << f.saving_note << ")";
      o << "; cost: " << f.cost;
      if (const std::optional<FixOutcome> after = fix_outcome(f, r)) o << "; " << after->text();
      o << "\n";
    }
    if (!l.confirm.empty()) o << ind << "    confirm: " << l.confirm << "\n";
  }
}

}  // namespace

void write_report_text(std::ostream& o, const HostReport& r, std::size_t top) {
  o << "== " << r.path << "\n";
  o << "host " << (r.hostnames.empty() ? std::string("(not named)") : r.hostnames.front()) << ", "
    << r.platform;
  if (r.device_memory_bytes) o << ", device memory " << b(*r.device_memory_bytes) << " [read]";
  o << ", file " << b(static_cast<std::int64_t>(r.file_size)) << "\n";
  o << "modules: " << r.modules.size() << "\n";
  std::vector<const ModuleRow*> rows;
  for (const ModuleRow& m : r.modules) rows.push_back(&m);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ModuleRow* x, const ModuleRow* y) { return x->peak_bytes > y->peak_bytes; });
  for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
    const ModuleRow& m = *rows[i];
    o << "  " << pad_right(m.name + "(" + std::to_string(m.program_id) + ")", 40) << " peak "
      << pad_right(b(m.peak_bytes), 10) << " temp " << pad_right(b(m.temp_bytes), 10) << " params "
      << pad_right(b(m.parameters_bytes), 10) << " outputs " << pad_right(b(m.outputs_bytes), 10)
      << " executions " << m.executions << (r.cut_short ? " in the planes read whole" : "");
    if (m.executions > 0)
      o << (m.executions_by_program_id == m.executions ? " (by program id)"
            : m.executions_by_program_id == 0
                ? " (by name)"
                : " (" + std::to_string(m.executions_by_program_id) + " by program id, " +
                      std::to_string(m.executions - m.executions_by_program_id) + " by name)");
    if (m.executions_ambiguous > 0)
      o << "; " << m.executions_ambiguous << " with launches of several programs (see the runtime notes)";
    o << "\n";
  }
  if (rows.size() > top) o << "  ... " << rows.size() - top << " more modules\n";
  if (r.runtime.module) {
    o << "analysed module: " << r.runtime.module->module;
    if (r.runtime.module->program_id) o << "(" << *r.runtime.module->program_id << ")";
    o << ", "
      << (r.cut_short && r.runtime.choice == ModuleChoice::LargestModule
              ? std::string("largest module (none executed in the planes read whole)")
              : std::string(to_string(r.runtime.choice)))
      << "\n";
    if (!r.module_note.empty()) o << "  note: " << r.module_note << "\n";
  }
  if (r.plan) write_plan(o, r, top);
  if (!r.plan_only) write_runtime(o, r, top);
  write_diagnosis(o, r);
  o << "\nLIMITS\n";
  for (const std::string& l : r.limits) o << "  - " << l << "\n";
  if (!r.problems.empty()) {
    o << "\nPROBLEMS\n";
    for (const std::string& p : r.problems) o << "  - " << p << "\n";
  }
}

void write_report_text(std::ostream& o, std::span<const HostReport> reports, std::size_t top) {
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i) o << "\n";
    write_report_text(o, reports[i], top);
  }
}

}  // namespace oomscope::analysis
