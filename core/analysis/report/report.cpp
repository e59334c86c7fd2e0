#include "core/analysis/report/report.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <utility>

#include "core/analysis/diagnosis/diagnosis_rules.h"
#include "core/analysis/report/capture_runs.h"
#include "core/analysis/report/consistency_checks.h"
#include "core/analysis/report/detail/report_detail.h"
#include "core/analysis/runtime/runtime_analysis.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::analysis {

namespace {

void check_stop(const std::stop_token& stop, const std::string& path) {
  if (stop.stop_requested()) throw Cancelled(path);
}

// The modules the user may mean: the exact metadata name or program id (one), else every module of that
// name (the runtime analysis then takes the most executed one). Throws when nothing matches.
std::vector<std::size_t> resolve_module(const capture::Capture& c, const std::string& want) {
  const auto& mods = c.modules();
  for (std::size_t i = 0; i < mods.size(); ++i)
    if (mods[i].metadata_name == want) return {i};
  std::uint64_t id = 0;
  const char* end = want.data() + want.size();
  auto [ptr, ec] = std::from_chars(want.data(), end, id);
  if (ec == std::errc() && ptr == end)
    for (std::size_t i = 0; i < mods.size(); ++i)
      if (mods[i].program_id == id) return {i};
  std::vector<std::size_t> same;
  for (std::size_t i = 0; i < mods.size(); ++i)
    if (mods[i].name == want) same.push_back(i);
  if (same.empty()) {
    std::string names;
    for (std::size_t i = 0; i < mods.size() && i < 12; ++i) names += (i ? ", " : "") + mods[i].metadata_name;
    if (mods.size() > 12) names += ", ...";
    throw Error(ErrorKind::InvalidArgument, c.path(),
                "no module named '" + want + "'" +
                    (mods.empty() ? " (the capture has no modules)" : "; modules: " + names));
  }
  return same;
}

// The module with this program id (the GUI selects by id, so two modules of one name stay apart).
std::size_t module_with_program_id(const capture::Capture& c, std::uint64_t id) {
  const auto& mods = c.modules();
  for (std::size_t i = 0; i < mods.size(); ++i)
    if (mods[i].program_id == id) return i;
  throw Error(ErrorKind::InvalidArgument, c.path(),
              "no module has program id " + std::to_string(id) +
                  (mods.empty() ? " (the capture has no modules)" : ""));
}

const capture::Stat* plane_stat(const capture::Capture& c, std::string_view prefix, std::string_view stat) {
  for (const capture::Plane& p : c.planes())
    if (p.name.starts_with(prefix))
      if (const capture::Stat* s = p.find_stat(stat)) return s;
  return nullptr;
}

std::string platform_of(const capture::Capture& c) {
  for (const capture::Plane& p : c.planes())
    if (p.name.starts_with("/device:TPU")) return "TPU";
  if (const capture::Stat* v = plane_stat(c, "/device:GPU", "device_vendor")) {
    const std::string_view vendor = v->value.as_string();
    if (!vendor.empty()) return "GPU (" + std::string(vendor) + ")";
  }
  for (const capture::Plane& p : c.planes())
    if (p.name.starts_with("/device:GPU")) return "GPU";
  return "unknown";
}

DiagnosisInput diagnosis_input(const HostReport& r, std::size_t top) {
  DiagnosisInput in;
  in.capacity_bytes = r.capacity_bytes;
  in.capacity_from_user = r.capacity_source == CapacitySource::Given;
  in.device_memory_bytes = r.device_memory_bytes;
  if (r.plan) {
    const PlanAnalysis& p = *r.plan;
    in.module = p.module_name;
    if (p.peak_range && p.peak_range->first == p.peak_range->second)
      in.peak_scope = "program position " + std::to_string(p.peak_range->first);
    else if (p.peak_range)
      in.peak_scope = "the highest point in program positions " + std::to_string(p.peak_range->first) +
                      " .. " + std::to_string(p.peak_range->second);
    in.has_plan = p.status != PlanStatus::NoBufferAssignment;
    in.has_heap_peak = p.status == PlanStatus::Ok;
    in.plan_peak_bytes = in.has_heap_peak ? p.peak_bytes : p.total_allocation_bytes;
    in.parameters_bytes = p.parameters_bytes;
    in.donated_bytes = p.donation.donated_bytes;
    in.donatable_bytes = p.donation.donatable_bytes;
    in.outputs_bytes = p.outputs_bytes;
    in.temp_bytes = p.temp_bytes;
    in.forward_kept_bytes = p.role_bytes(BufferRole::ForwardKept);
    in.forward_transient_bytes = p.role_bytes(BufferRole::ForwardTransient);
    in.parameter_role_bytes = p.role_bytes(BufferRole::Parameter);
    in.output_role_bytes = p.role_bytes(BufferRole::Output);
    in.gradient_matched_bytes = p.donation.gradient_matched_bytes;
    if (in.has_heap_peak && p.peak_event_index >= 0) {
      in.peak_phase = to_string(p.peak_phase);
      in.peak_instruction = p.peak_instruction;
      if (auto other = p.other_phase_peak()) {
        in.other_phase = to_string(other->phase);
        in.other_phase_instruction = other->instruction;
        in.other_phase_peak_bytes = other->bytes;
      }
    }
    in.other_phase_split_k_bytes = r.other_phase_split_k_bytes;
    in.other_phase_split_k_instruction = r.other_phase_split_k_instruction;
    in.gemm_workspace_bytes = r.gemm_workspace_bytes;
    for (const PlanPattern& pat : p.patterns)
      in.patterns.push_back({to_string(pat.kind), pat.instruction, pat.shape, pat.bytes,
                             pat.other_instruction, pat.other_shape, pat.other_bytes, pat.factor, pat.count,
                             pat.source.to_string()});
    for (const MemorySpaceTotals& t : p.other_memory_spaces) {
      if (t.color != 5) continue;
      in.host_parameters_bytes = t.parameters_bytes;
      in.host_parameters_aliased_bytes = t.parameters_aliased_bytes;
      in.host_parameter_count = t.parameter_allocations;
      in.host_outputs_bytes = t.outputs_bytes;
      in.host_temp_bytes = t.temp_bytes;
    }
    in.backward_bytes = p.role_bytes(BufferRole::Backward);
    in.workspace_bytes = p.role_bytes(BufferRole::Workspace);
    in.other_bytes = p.role_bytes(BufferRole::Other);
    in.remat_instructions = p.remat_instructions;
    std::vector<PlanBuffer> live(p.live_at_peak.begin(), p.live_at_peak.end());
    std::stable_sort(live.begin(), live.end(),
                     [](const PlanBuffer& a, const PlanBuffer& b) { return a.size_bytes > b.size_bytes; });
    for (const PlanBuffer& b : live)
      in.peak_buffers.push_back(
          {b.size_bytes, b.shape, to_string(b.role), b.source.to_string(), b.element_type});
  }
  in.platform = r.platform;
  in.eager = r.eager;
  in.donation_fate = enum_name(kArgumentFateNames, r.donation_liveness.fate);
  in.donation_calls = r.donation_liveness.calls;
  in.donation_dead_calls = r.donation_liveness.dead_calls;
  in.donation_reused_calls = r.donation_liveness.reused_calls;
  in.donation_total_calls = r.donation_liveness.total_calls;
  in.donation_reused_by = r.donation_liveness.reused_by;
  in.program_modules_executed = r.program.modules_executed;
  in.program_executions = r.program.executions;
  in.program_most_executions = r.program.most_executions;
  if (r.runtime_peak) {
    in.runtime_peak_bytes = r.runtime_peak->peak_bytes;
    in.runtime_peak_time_ps = r.runtime_peak->time_ps;
    if (const auto& x = r.runtime_peak->execution) {
      in.runtime_peak_execution = x->label + " execution " + std::to_string(x->number);
      in.runtime_peak_at_start = r.runtime_peak->in_use_at_start;
      in.runtime_peak_own_bytes = r.runtime_peak->own_chunk_bytes;
    }
    for (std::size_t i = 0; i < r.runtime_peak->modules.size() && i < 3; ++i)
      in.peak_shares += (i ? ", " : "") + r.runtime_peak->modules[i].module + " " +
                        format_bytes(r.runtime_peak->modules[i].bytes);
  }
  in.temp_block_seen = r.temp_block_seen;
  in.largest_allocation_bytes = r.largest_allocation_bytes;
  if (const auto& m = r.runtime.module; m && m->allocator && *m->allocator < r.runtime.allocators.size()) {
    const AllocatorRuntime& a = r.runtime.allocators[*m->allocator];
    if (a.reserved_events > 0 && a.peak_bytes_reserved > 0) {
      in.reserved_allocator = a.name;
      in.reserved_peak_bytes = a.peak_bytes_reserved;
      in.reserved_peak_time_ps = a.peak_reserved_time_ps;
    }
  }
  if (const auto& m = r.runtime.module) {
    in.growth_steps = m->growth_steps;
    in.executions = static_cast<int>(m->executions.size());
    in.growth_per_execution = m->growth_per_execution;
    in.growth_consistent = m->growth_consistent;
    if (!m->executions.empty() && m->allocator) {
      in.in_use_at_last_start = m->live_at_last_start_bytes;
      // The start with the most in use decides: every execution has to fit, each beside what was live then.
      for (std::size_t i = 0; i < m->executions.size(); ++i) {
        const std::int64_t other = m->executions[i].bytes_in_use_at_start - in.parameters_bytes;
        if (other > in.other_live_at_start) {
          in.other_live_at_start = other;
          in.other_live_execution = static_cast<int>(i) + 1;
        }
      }
    }
    in.never_launched = m->never_launched;
    in.last_never_launched = m->last_never_launched;
    for (const NameCount& n : m->host_events_between)
      if (in.host_events_between.size() < top) in.host_events_between.push_back(n.name);
    for (const LiveGroup& g : m->live_at_last_start)
      in.live_at_last_start.push_back(
          {g.label, g.bytes, g.before_capture, g.label.starts_with("outputs of " + m->module)});
  }
  in.retry_count = r.runtime.retries.count;
  in.retry_longest_ps = r.runtime.retries.longest_ps;
  return in;
}

// --at POSITION names a point of the analysed module's heap-simulator trace (0 .. events - 1).
void check_position(const PlanAnalysis& p, const std::string& path) {
  const std::int64_t at = p.peak_range ? p.peak_range->first : -1;
  if (p.status != PlanStatus::Ok || p.trace_event_count == 0)
    throw Error(ErrorKind::InvalidArgument, path,
                "--at " + std::to_string(at) + ": the module " + p.module_name +
                    " has no heap-simulator trace, so it has no program positions");
  if (at < 0 || at >= p.trace_event_count)
    throw Error(ErrorKind::InvalidArgument, path,
                "--at " + std::to_string(at) + " is past the end of the heap-simulator trace of " +
                    p.module_name + ": its positions are 0 .. " + std::to_string(p.trace_event_count - 1));
}

// A capture cut short (capture/cut_short.h): what the report is missing, named by the plane that was cut.
std::string cut_short_limit(const capture::CutShort& cut) {
  const bool plan_whole =
      std::find(cut.planes_read.begin(), cut.planes_read.end(), "/host:metadata") != cut.planes_read.end();
  std::string out = "cut short: the file ends inside " + cut.field_text() +
                    ", which is not read, and whatever followed it is missing; ";
  if (cut.plane == "/host:CPU")
    out +=
        "the host plane holds the host executions, the allocator events and the host spans, so none of "
        "them is in this report: every runtime figure of it (executions, allocators, the runtime peak, "
        "what was live, the pool) counts only the planes read whole, so \"0 executions\", \"none executed\" "
        "and \"no allocator events\" say nothing of what the cut part held";
  else
    out += "the report counts only the " + std::to_string(cut.planes_read.size()) +
           " planes read whole before the cut";
  return out + (plan_whole ? "; the plan (/host:metadata) was read whole"
                           : "; the capture holds no plan before the cut");
}

void add_limits(HostReport& r, const capture::Capture& c) {
  r.limits.push_back(
      "HBM only: the plan's device figures cover memory space 0; host offload (memory space 5) is "
      "listed separately and not counted in them");
  if (r.capacity_bytes && r.plan && r.platform != "TPU")
    r.limits.push_back(
        "contiguity: \"fits\" compares bytes; the BFC allocator also needs a contiguous block, so a "
        "tight fit can still fail through fragmentation");
  if (r.capacity_bytes && r.plan && r.platform == "TPU")
    r.limits.push_back(
        "fits: compares bytes only; the capture does not show how the TPU runtime places buffers (it has "
        "no BFC allocator), so a tight fit can still fail");
  if (r.platform == "TPU")
    r.limits.push_back(
        "TPU: host executions are matched to the device's module runs by count, not time, and "
        "the allocators are keyed by chip (index_on_host); eager programs appear as many small "
        "modules, so read the runtime section there");
  if (r.platform.find("Nvidia") != std::string::npos)
    r.limits.push_back(
        "CUDA: event names were confirmed on ROCm captures; on CUDA they are expected to be the same "
        "but are unconfirmed");
  if (c.modules().empty())
    r.limits.push_back(
        "no plan: the capture has no HloProto in /host:metadata (TensorFlow capture, or "
        "enable_hlo_proto was off)");
  if (c.hostnames().size() > 1)
    r.limits.push_back("this file names several hosts; each file of a multi-host run is one host");
  // First: it bounds every other line.
  if (const auto& cut = c.cut_short()) r.limits.insert(r.limits.begin(), cut_short_limit(*cut));
}

// One line of the module list: a module without a replayable plan shows its allocation total as its peak.
ModuleRow module_row(const capture::Module& m, const PlanAnalysis& p) {
  ModuleRow row;
  row.name = m.name;
  row.program_id = m.program_id;
  row.status = p.status;
  row.peak_bytes = p.status == PlanStatus::Ok ? p.peak_bytes : p.total_allocation_bytes;
  row.temp_bytes = p.temp_bytes;
  row.parameters_bytes = p.parameters_bytes;
  row.donated_bytes = p.donation.donated_bytes;
  row.outputs_bytes = p.outputs_bytes;
  row.has_backward = p.backward_start_event >= 0;
  return row;
}

}  // namespace

std::string capacity_source_text(const HostReport& report) {
  if (report.capacity_source == CapacitySource::Allocator) return report.capacity_allocator;
  return enum_name(kCapacitySourceNames, report.capacity_source);
}

HostReport build_host_report(const capture::Capture& c, const ReportOptions& options,
                             const std::stop_token& stop) {
  HostReport r;
  r.path = c.path();
  r.file_size = c.file_size();
  r.hostnames = c.hostnames();
  r.profile_start_ns = c.profile_start_time_ns();
  r.platform = platform_of(c);
  if (const capture::Stat* s = plane_stat(c, "/device:", "memory_size"))
    if (auto v = s->value.as_int(); v && *v > 0) r.device_memory_bytes = *v;
  for (const std::string& e : c.errors()) r.problems.push_back("capture error: " + e);
  for (const std::string& p : c.module_problems()) r.problems.push_back(p);
  for (const std::string& n : c.reader_notes()) r.problems.push_back(n);

  std::vector<PlanAnalysis> plans;
  std::vector<ModuleRef> refs;
  for (const capture::Module& m : c.modules()) {
    check_stop(stop, c.path());
    PlanAnalysis p = analyze_plan(m);
    ModuleRow row = module_row(m, p);
    refs.push_back({m.name, m.program_id, row.peak_bytes});
    r.modules.push_back(std::move(row));
    plans.push_back(std::move(p));
  }
  RuntimeOptions ro;
  ro.series_points = options.series_points;
  ro.top = options.top;
  ro.time_window = options.time_window;
  if (const HostReport* whole = options.whole_capture;
      whole && !whole->plan_only && !whole->runtime.time_window && whole->path == c.path() &&
      whole->file_size == c.file_size() && whole->modules.size() == c.modules().size())
    ro.executions = whole->runtime.executions;
  check_stop(stop, c.path());
  std::vector<std::size_t> wanted;
  if (options.program_id)
    wanted = {module_with_program_id(c, *options.program_id)};
  else if (options.module)
    wanted = resolve_module(c, *options.module);
  if (wanted.size() == 1)
    ro.module = wanted.front();
  else
    ro.module_candidates = wanted;
  r.runtime = analyze_runtime(c, refs, ro);
  for (std::size_t i = 0; i < refs.size() && i < r.runtime.executions_per_module.size(); ++i)
    r.modules[i].executions = r.runtime.executions_per_module[i];
  for (std::size_t i = 0; i < refs.size() && i < r.runtime.executions_by_program_id.size(); ++i)
    r.modules[i].executions_by_program_id = r.runtime.executions_by_program_id[i];
  for (std::size_t i = 0; i < refs.size() && i < r.runtime.executions_ambiguous.size(); ++i)
    r.modules[i].executions_ambiguous = r.runtime.executions_ambiguous[i];
  if (wanted.size() > 1 && r.runtime.module)
    r.module_note =
        (std::to_string(wanted.size()) + " modules are named " + *options.module + "; analysing " +
         r.runtime.module->module + "(" + std::to_string(r.runtime.module->program_id.value_or(0)) +
         "), the most executed (then the largest); pass a program id to pick another");
  if (r.runtime.module) {
    for (std::size_t i = 0; i < refs.size(); ++i)
      if (refs[i].name == r.runtime.module->module && r.runtime.module->program_id == refs[i].program_id)
        r.module_index = i;
  }
  if (r.module_index) {
    if (options.plan_range) {
      PlanOptions po;
      po.peak_range = options.plan_range;
      r.plan = analyze_plan(c.modules()[*r.module_index], po);
      if (options.plan_range->first == options.plan_range->second) check_position(*r.plan, c.path());
    } else {
      r.plan = std::move(plans[*r.module_index]);
    }
  }

  if (r.module_index) detail::add_module_wide_facts(c.modules()[*r.module_index], r);
  if (options.capacity) {
    r.capacity_bytes = *options.capacity;
    r.capacity_source = CapacitySource::Given;
  } else {
    std::optional<std::uint32_t> alloc;
    if (r.runtime.module) alloc = r.runtime.module->allocator;
    if (!alloc)
      for (const AllocatorRuntime& a : r.runtime.allocators)
        if (a.name.find("host") == std::string::npos &&
            (!alloc || std::pair(a.capacity_bytes, a.peak_bytes_in_use) >
                           std::pair(r.runtime.allocators[*alloc].capacity_bytes,
                                     r.runtime.allocators[*alloc].peak_bytes_in_use)))
          alloc = a.index;
    if (alloc && *alloc < r.runtime.allocators.size() && r.runtime.allocators[*alloc].capacity_bytes > 0) {
      r.capacity_bytes = r.runtime.allocators[*alloc].capacity_bytes;
      r.capacity_source = CapacitySource::Allocator;
      r.capacity_allocator = r.runtime.allocators[*alloc].name;
    }
  }
  r.program = decide_program_kind(r.modules);
  r.eager = r.program.eager;
  if (r.plan && r.runtime.module && !r.runtime.module->executions.empty() && r.plan->temp_bytes > 0) {
    const std::int64_t temp = r.plan->temp_bytes;
    r.temp_block_seen = false;
    for (const capture::MemoryEvent& m : c.memory_events()) {
      if (m.kind != capture::MemoryEventKind::Allocation) continue;
      if (m.requested_bytes == temp || m.allocation_bytes == temp) r.temp_block_seen = true;
      r.largest_allocation_bytes =
          std::max({r.largest_allocation_bytes, m.requested_bytes, m.allocation_bytes});
    }
  }
  detail::add_runtime_facts(c, refs, options.top, r);
  {
    const DiagnosisInput in = diagnosis_input(r, options.top);
    r.diagnosis_pool_note = pool_fraction_note(in);
    r.diagnosis = diagnose(in);
  }
  add_limits(r, c);
  r.cut_short = c.cut_short().has_value();
  for (std::string& p : consistency_problems(c, r.runtime)) r.problems.push_back(std::move(p));
  return r;
}

HostReport build_plan_report(const capture::Module& module, const std::string& path, std::uint64_t file_size,
                             const ReportOptions& options) {
  HostReport r;
  r.path = path;
  r.file_size = file_size;
  r.platform = "unknown (bare HloProto)";
  r.plan_only = true;
  PlanAnalysis p = analyze_plan(module);
  r.modules.push_back(module_row(module, p));
  r.module_index = 0;
  r.plan = std::move(p);
  if (options.capacity) {
    r.capacity_bytes = *options.capacity;
    r.capacity_source = CapacitySource::Given;
  }
  r.diagnosis = diagnose(diagnosis_input(r, options.top));
  r.limits.push_back(
      "HBM only: the plan covers memory space 0; host offload (memory space 5) is not counted");
  r.limits.push_back("plan only: a bare HloProto has no allocator events, so there is no runtime section");
  if (r.capacity_bytes)
    r.limits.push_back(
        "contiguity: \"fits\" compares bytes; the BFC allocator also needs a contiguous block, so a "
        "tight fit can still fail through fragmentation");
  return r;
}

void add_multi_host_limits(std::vector<HostReport>& hosts) {
  if (hosts.size() < 2) return;
  // Files that name the same host are several captures of one host, not a multi-host run.
  std::map<std::string, int> per_host;
  for (const HostReport& h : hosts) ++per_host[h.hostnames.empty() ? std::string() : h.hostnames.front()];
  if (per_host.size() == 1 && !per_host.begin()->first.empty()) {
    for (HostReport& h : hosts)
      h.limits.push_back("one host: the " + std::to_string(hosts.size()) +
                         " files read together all name host " + per_host.begin()->first +
                         ", so they are separate captures of one host, not a multi-host "
                         "run; each is reported on its own");
    return;
  }
  // Profiles started far apart are not the hosts of one run (capture_runs.h).
  if (const CaptureRuns runs = judge_capture_runs(std::span<const HostReport>(hosts));
      runs.verdict == CaptureRunsVerdict::Apart || runs.verdict == CaptureRunsVerdict::DifferentPrograms) {
    for (HostReport& h : hosts)
      h.limits.push_back(
          "not one run: " + runs.sentence +
          "; each is reported on its own, and device ordinals and allocator names are local to "
          "each capture");
    return;
  }
  for (HostReport& h : hosts)
    h.limits.push_back("multi-host: this is one of " + std::to_string(hosts.size()) +
                       " files read together, "
                       "reported per host; device ordinals and allocator names are local to each host");
}

}  // namespace oomscope::analysis
