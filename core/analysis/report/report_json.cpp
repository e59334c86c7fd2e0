#include "core/analysis/report/report_json.h"

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/analysis/report/detail/report_text_detail.h"

namespace oomscope::analysis {

using nlohmann::json;

namespace {

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json id(std::uint64_t v) { return std::to_string(v); }
json id(const std::optional<std::uint64_t>& v) { return v ? json(std::to_string(*v)) : json(nullptr); }

json plan_json(const PlanAnalysis& p, std::size_t top) {
  json j{
      {"module", p.module_name},
      {"program_id", id(p.program_id)},
      {"status", to_string(p.status)},
      {"parameters_bytes", p.parameters_bytes},
      {"donated_bytes", p.donation.donated_bytes},
      {"donatable_bytes", p.donation.donatable_bytes},
      {"outputs_bytes", p.outputs_bytes},
      {"temp_bytes", p.temp_bytes},
      {"constants_bytes", p.constants_bytes},
      {"total_allocation_bytes", p.total_allocation_bytes},
      {"temp_heap_peak_bytes", p.heap_peak_bytes},
      {"whole_peak_bytes", p.peak_bytes},
      {"peak_instruction", p.peak_instruction},
      {"peak_phase", p.peak_event_index >= 0 ? json(to_string(p.peak_phase)) : json(nullptr)},
      {"backward_start_event", p.backward_start_event},
      {"gradient_matched_bytes", p.donation.gradient_matched_bytes},
      {"remat_instructions", p.remat_instructions},
      {"unpadded_heap_peak_bytes",
       p.unpadded_heap_peak_bytes >= 0 ? json(p.unpadded_heap_peak_bytes) : json(nullptr)},
      {"unpadded_peak_bytes", p.unpadded_peak_bytes >= 0 ? json(p.unpadded_peak_bytes) : json(nullptr)},
      {"unpadded_live_bytes", p.status == PlanStatus::Ok && detail::unpadded_live_bytes(p) >= 0
                                  ? json(detail::unpadded_live_bytes(p))
                                  : json(nullptr)},
      {"at_position", p.peak_range && p.peak_range->first == p.peak_range->second ? json(p.peak_range->first)
                                                                                  : json(nullptr)},
      {"trace_events", p.trace_event_count},
      {"notes", p.notes}};
  // Where each figure comes from, as the diagnosis lines say it.
  j["provenance"] = {{"parameters_bytes", "read"},
                     {"donated_bytes", "read"},
                     {"donatable_bytes", "derived"},
                     {"outputs_bytes", "read"},
                     {"temp_bytes", "read"},
                     {"constants_bytes", "read"},
                     {"total_allocation_bytes", "read"},
                     {"temp_heap_peak_bytes", "derived"},
                     {"whole_peak_bytes", "derived"},
                     {"unpadded_heap_peak_bytes", "derived"},
                     {"unpadded_peak_bytes", "derived"},
                     {"unpadded_live_bytes", "derived"},
                     {"peak_phase", "derived"},
                     {"phase_peaks", "derived"},
                     {"role_totals", "derived"},
                     {"live_at_peak", "derived"},
                     {"patterns", "derived"},
                     {"gradient_matched_bytes", "derived"},
                     {"other_memory_spaces", "read"},
                     {"remat_instructions", "read"}};
  json phases = json::array();
  for (const PhasePeak& ph : p.phase_peaks)
    phases.push_back({{"phase", to_string(ph.phase)},
                      {"whole_bytes", ph.bytes},
                      {"temp_heap_bytes", ph.heap_bytes},
                      {"event_index", ph.event_index},
                      {"instruction", ph.instruction}});
  j["phase_peaks"] = phases;
  json patterns = json::array();
  for (const PlanPattern& pat : p.patterns)
    patterns.push_back({{"kind", to_string(pat.kind)},
                        {"instruction", pat.instruction},
                        {"shape", pat.shape},
                        {"bytes", pat.bytes},
                        {"other_instruction", pat.other_instruction},
                        {"other_shape", pat.other_shape},
                        {"other_bytes", pat.other_bytes},
                        {"factor", pat.factor},
                        {"count", pat.count},
                        {"source", pat.source.to_string()}});
  j["patterns"] = patterns;
  json spaces = json::array();
  for (const MemorySpaceTotals& t : p.other_memory_spaces) {
    json list = json::array();
    for (std::size_t i = 0; i < t.buffers.size() && i < top; ++i) {
      const PlanBuffer& b = t.buffers[i];
      list.push_back(
          {{"bytes", b.size_bytes},
           {"unpadded_bytes", b.unpadded_bytes >= 0 ? json(b.unpadded_bytes) : json(nullptr)},
           {"shape", b.shape},
           {"kind", b.indefinite ? json(to_string(b.role)) : json("temp")},
           {"parameter_number", b.parameter_number >= 0 ? json(b.parameter_number) : json(nullptr)},
           {"instruction", b.instruction},
           {"opcode", b.opcode},
           {"logical_buffer_id", b.logical_buffer_id},
           {"allocation_index", b.allocation_index}});
    }
    spaces.push_back({{"memory_space", t.color},
                      {"buffers", list},
                      {"buffer_count", t.buffers.size()},
                      {"parameters_bytes", t.parameters_bytes},
                      {"parameter_allocations", t.parameter_allocations},
                      {"parameters_aliased_bytes", t.parameters_aliased_bytes},
                      {"outputs_bytes", t.outputs_bytes},
                      {"temp_bytes", t.temp_bytes},
                      {"other_bytes", t.other_bytes}});
  }
  j["other_memory_spaces"] = spaces;
  json roles = json::array();
  for (const RoleTotal& t : p.role_totals)
    roles.push_back({{"role", to_string(t.role)},
                     {"bytes", t.bytes},
                     {"buffers", t.buffers},
                     {"percent_of_peak", t.percent_of_peak},
                     {"percent_of_heap_peak", t.percent_of_heap_peak}});
  j["role_totals"] = roles;
  std::vector<const PlanBuffer*> live;
  for (const PlanBuffer& b : p.live_at_peak) live.push_back(&b);
  std::stable_sort(live.begin(), live.end(),
                   [](const PlanBuffer* a, const PlanBuffer* b) { return a->size_bytes > b->size_bytes; });
  json buffers = json::array();
  for (std::size_t i = 0; i < live.size() && i < top; ++i) {
    const PlanBuffer& b = *live[i];
    buffers.push_back({{"bytes", b.size_bytes},
                       {"shape", b.shape},
                       {"role", to_string(b.role)},
                       {"instruction", b.instruction},
                       {"opcode", b.opcode},
                       {"op_name", b.op_name},
                       {"source", b.source.to_string()},
                       {"indefinite", b.indefinite},
                       {"unpadded_bytes", b.unpadded_bytes >= 0 ? json(b.unpadded_bytes) : json(nullptr)},
                       {"logical_buffer_id", b.logical_buffer_id},
                       {"freed_at_event", b.freed_at_event}});
  }
  j["live_at_peak"] = buffers;
  j["live_at_peak_count"] = p.live_at_peak.size();
  return j;
}

json runtime_json(const RuntimeAnalysis& rt) {
  json allocators = json::array();
  for (const AllocatorRuntime& a : rt.allocators) {
    json series = json::array();
    for (const RuntimeSeriesPoint& s : a.series) series.push_back({s.time_ps, s.bytes_in_use});
    json reserved = json::array();
    for (const ReservedSeriesPoint& s : a.reserved_series) reserved.push_back({s.time_ps, s.bytes_reserved});
    allocators.push_back(
        {{"name", a.name},
         {"capacity_bytes", a.capacity_bytes},
         {"peak_bytes_in_use", a.peak_bytes_in_use},
         {"peak_time_ps", a.peak_time_ps},
         {"lifetime_peak_bytes", a.lifetime_peak_bytes},
         {"bytes_in_use_at_start", a.bytes_in_use_at_start},
         {"bytes_in_use_at_end", a.bytes_in_use_at_end},
         {"allocations", a.allocations},
         {"deallocations", a.deallocations},
         {"paired", a.paired},
         {"unmatched_frees", a.unmatched_frees},
         {"unmatched_free_bytes", a.unmatched_free_bytes},
         {"live_at_end", a.live_at_end},
         {"live_at_end_bytes", a.live_at_end_bytes},
         {"reused_without_free", a.reused_without_free},
         {"first_time_ps", a.first_time_ps},
         {"last_time_ps", a.last_time_ps},
         {"series", series},
         {"reserved_events", a.reserved_events},
         {"peak_bytes_reserved", a.reserved_events ? json(a.peak_bytes_reserved) : json()},
         {"peak_reserved_time_ps", a.reserved_events ? json(a.peak_reserved_time_ps) : json()},
         {"reserved_series", reserved}});
  }
  json j{{"allocators", allocators},
         {"allocator_retry",
          {{"count", rt.retries.count},
           {"longest_ps", rt.retries.longest_ps},
           {"longest_at_ps", rt.retries.longest_time_ps},
           {"total_ps", rt.retries.total_ps}}},
         {"executions_total", rt.executions_total},
         {"has_device_program_events", rt.has_device_program_events},
         {"module_choice", to_string(rt.choice)},
         {"notes", rt.notes},
         {"provenance",
          {{"allocators.capacity_bytes", "read"},
           {"allocators.peak_bytes_in_use", "read"},
           {"allocators.lifetime_peak_bytes", "read"},
           {"allocators.allocations", "measured"},
           {"allocator_retry", "measured"},
           {"executions_total", "measured"},
           {"module.executions", "measured"},
           {"module.growth_steps_bytes", "measured"},
           {"module.growth_per_execution_bytes", "derived"},
           {"module.live_at_last_start", "measured"}}}};
  // Only a selection (the GUI's range) has one: the figures above are of [from_ps, to_ps] only.
  if (rt.time_window)
    j["selection"] = {{"from_ps", rt.time_window->first}, {"to_ps", rt.time_window->second}};
  if (!rt.module) {
    j["module"] = nullptr;
    return j;
  }
  const ModuleRuntime& m = *rt.module;
  json runs = json::array();
  for (const RuntimeExecution& e : m.executions)
    runs.push_back({{"number", e.number},
                    {"start_ps", e.start_ps},
                    {"end_ps", e.end_ps},
                    {"bytes_in_use_at_start", e.bytes_in_use_at_start},
                    {"launched", opt(e.launched)},
                    {"has_module_span", e.has_module_span},
                    {"module_from_pjit", e.module_from_pjit},
                    {"retry_wait_ps", e.retry_wait_ps},
                    {"line", e.line},
                    {"matched_by", e.matched_by_program_id ? "program_id" : "name"}});
  json between = json::array();
  for (const NameCount& n : m.host_events_between) between.push_back({{"name", n.name}, {"count", n.count}});
  json live = json::array();
  for (const LiveGroup& g : m.live_at_last_start)
    live.push_back({{"label", g.label},
                    {"bytes", g.bytes},
                    {"count", g.count},
                    {"largest_bytes", g.largest},
                    {"before_capture", g.before_capture}});
  json devices = json::array();
  for (const ModuleRuntime::Device& d : m.devices)
    if (d.allocator < rt.allocators.size())
      devices.push_back({{"allocator", rt.allocators[d.allocator].name},
                         {"bytes_in_use_at_first_start", d.bytes_in_use_at_first_start},
                         {"bytes_in_use_at_last_start", d.bytes_in_use_at_last_start}});
  j["module"] = {{"name", m.module},
                 {"program_id", id(m.program_id)},
                 {"allocator", m.allocator && *m.allocator < rt.allocators.size()
                                   ? json(rt.allocators[*m.allocator].name)
                                   : json(nullptr)},
                 {"devices", devices},
                 {"executions", runs},
                 {"growth_per_execution_bytes", opt(m.growth_per_execution)},
                 {"growth_steps_bytes", m.growth_steps},
                 {"growth_consistent", m.growth_consistent},
                 {"never_launched", m.never_launched},
                 {"launch_unknown", m.launch_unknown},
                 {"last_never_launched", m.last_never_launched},
                 {"host_events_between",
                  {{"start_ps", m.between_start_ps},
                   {"end_ps", m.between_end_ps},
                   {"total", m.host_events_between_total},
                   {"names", between}}},
                 {"live_at_last_start", {{"bytes_in_use", m.live_at_last_start_bytes}, {"groups", live}}}};
  return j;
}

json diagnosis_json(const std::vector<DiagnosisLine>& lines) {
  json out = json::array();
  for (const DiagnosisLine& l : lines) {
    json fixes = json::array();
    for (const Fix& f : l.fixes)
      fixes.push_back({{"action", f.action},
                       {"saving_bytes", opt(f.saving_bytes)},
                       {"saving_note", f.saving_note},
                       {"cost", f.cost},
                       {"fits_after", opt(f.fits_after)},
                       {"needed_after_bytes", opt(f.needed_after_bytes)},
                       {"checked_against_device_bytes", opt(f.checked_against_device_bytes)},
                       {"floor_bytes", opt(f.floor_bytes)},
                       {"other_live_bytes", f.other_live_bytes},
                       {"other_live_where", f.other_live_where}});
    out.push_back({{"rule", l.rule},
                   {"provenance", to_string(l.provenance)},
                   {"depth", l.depth},
                   {"finding", l.finding},
                   {"cause", l.cause},
                   {"fixes", fixes},
                   {"confirm", l.confirm}});
  }
  return out;
}

// The runtime peak explained (docs/report-json.md, "runtime_peak").
json runtime_peak_json(const HostReport& r) {
  if (!r.runtime_peak) return nullptr;
  const RuntimePeak& p = *r.runtime_peak;
  json chunks = json::array();
  for (const PeakChunk& c : p.largest_chunks)
    chunks.push_back({{"requested_bytes", c.requested_bytes},
                      {"chunk_bytes", c.chunk_bytes},
                      {"slack_bytes", c.chunk_bytes - c.requested_bytes},
                      {"time_ps", c.time_ps},
                      {"producer", c.producer}});
  json groups = json::array();
  for (const LiveGroup& g : p.live_by_producer)
    groups.push_back({{"label", g.label},
                      {"bytes", g.bytes},
                      {"requested_bytes", g.requested_bytes},
                      {"count", g.count},
                      {"module", g.module.empty() ? json(nullptr) : json(g.module)},
                      {"before_capture", g.before_capture}});
  json modules = json::array();
  for (const PeakModuleShare& m : p.modules)
    modules.push_back({{"module", m.module},
                       {"bytes", m.bytes},
                       {"requested_bytes", m.requested_bytes},
                       {"allocations", m.allocations},
                       {"executions", m.executions}});
  json j{
      {"allocator", p.allocator < r.runtime.allocators.size() ? json(r.runtime.allocators[p.allocator].name)
                                                              : json(nullptr)},
      {"bytes", p.peak_bytes},
      {"time_ps", p.time_ps},
      {"execution", nullptr},
      {"live_groups", groups},
      {"live_groups_total", p.live_groups_total},
      {"live_allocations", p.live_allocations},
      {"modules", modules},
      {"largest_chunks", chunks},
      {"allocations", p.allocations_seen},
      {"rounded_up_1mib", p.rounded_up_1mib},
      {"rounded_up_1mib_bytes", p.rounded_up_1mib_bytes},
      {"fragmentation_at_peak", p.fragmentation_at_peak},
      {"largest_fragmentation", p.largest_fragmentation},
      {"largest_fragmentation_time_ps", p.largest_fragmentation_time_ps},
      {"bytes_reserved_at_peak", p.bytes_reserved_at_peak >= 0 ? json(p.bytes_reserved_at_peak) : json()},
      {"provenance",
       {{"bytes", "read"},
        {"in_use_at_start_bytes", "read"},
        {"own_chunk_bytes", "measured"},
        {"live_groups", "measured"},
        {"largest_chunks", "read"},
        {"rounded_up_1mib", "measured"}}}};
  if (p.execution) {
    const RuntimeExecution& x = *p.execution;
    json plan = nullptr;
    if (r.peak_module_index && *r.peak_module_index < r.modules.size()) {
      const ModuleRow& m = r.modules[*r.peak_module_index];
      plan = {{"temp_bytes", m.temp_bytes}, {"outputs_bytes", m.outputs_bytes}};
    }
    j["execution"] = {{"module", x.label},
                      {"program_id", id(x.program_id)},
                      {"number", x.number},
                      {"start_ps", x.start_ps},
                      {"end_ps", x.end_ps},
                      {"in_use_at_start_bytes", p.in_use_at_start},
                      {"own_chunk_bytes", p.own_chunk_bytes},
                      {"own_requested_bytes", p.own_requested_bytes},
                      {"own_allocations", p.own_allocations},
                      {"other_chunk_bytes", p.other_chunk_bytes},
                      {"other_allocations", p.other_allocations},
                      {"freed_bytes", p.freed_bytes},
                      {"freed_count", p.freed_count},
                      {"unexplained_bytes", p.unexplained_bytes},
                      {"plan", plan}};
  }
  return j;
}

}  // namespace

json report_to_json(std::span<const HostReport> reports, const ReportOptions& options) {
  json hosts = json::array();
  for (const HostReport& r : reports) {
    json modules = json::array();
    for (const ModuleRow& m : r.modules)
      modules.push_back({{"name", m.name},
                         {"program_id", id(m.program_id)},
                         {"status", to_string(m.status)},
                         {"peak_bytes", m.peak_bytes},
                         {"temp_bytes", m.temp_bytes},
                         {"parameters_bytes", m.parameters_bytes},
                         {"donated_bytes", m.donated_bytes},
                         {"outputs_bytes", m.outputs_bytes},
                         {"executions", m.executions},
                         {"executions_by_program_id", m.executions_by_program_id},
                         {"executions_ambiguous", m.executions_ambiguous},
                         {"has_backward", m.has_backward}});
    json h{{"file", r.path},
           {"file_size", r.file_size},
           {"hostnames", r.hostnames},
           {"platform", r.platform},
           {"device_memory_bytes", opt(r.device_memory_bytes)},
           {"modules", modules},
           {"capacity",
            {{"bytes", opt(r.capacity_bytes)},
             {"source", capacity_source_text(r)},
             {"provenance", !r.capacity_bytes                            ? json(nullptr)
                            : r.capacity_source == CapacitySource::Given ? json("given")
                                                                         : json("read")}}},
           {"eager", r.eager},
           {"program",
            {{"modules_executed", r.program.modules_executed},
             {"executions", r.program.executions},
             {"most_executions", r.program.most_executions},
             {"most_executed", r.program.most_executed},
             {"steps_executed", r.program.steps_executed}}},
           {"temp_block_seen", opt(r.temp_block_seen)},
           {"runtime_peak", runtime_peak_json(r)},
           {"donation_liveness",
            {{"fate", enum_name(kArgumentFateNames, r.donation_liveness.fate)},
             {"calls", r.donation_liveness.calls},
             {"dead_calls", r.donation_liveness.dead_calls},
             {"reused_calls", r.donation_liveness.reused_calls},
             {"reused_by", r.donation_liveness.reused_by},
             {"total_calls", r.donation_liveness.total_calls},
             {"sizes", r.donation_liveness.sizes},
             {"parameter_sizes", r.donation_liveness.parameter_sizes}}},
           {"plan", r.plan ? plan_json(*r.plan, options.top) : json(nullptr)},
           {"runtime", r.plan_only ? json(nullptr) : runtime_json(r.runtime)},
           {"diagnosis", diagnosis_json(r.diagnosis)},
           {"limits", r.limits},
           {"module_note", r.module_note},
           {"problems", r.problems}};
    hosts.push_back(std::move(h));
  }
  return {
      {"format", "oomscope-report"},
      {"version", kReportJsonVersion},
      {"options",
       {{"module", opt(options.module)}, {"top", options.top}, {"capacity_bytes", opt(options.capacity)}}},
      {"hosts", hosts}};
}

std::string report_json_text(std::span<const HostReport> reports, const ReportOptions& options,
                             std::span<const ReportFailure> failures) {
  json j = report_to_json(reports, options);
  j["failed"] = json::array();
  for (const ReportFailure& f : failures) j["failed"].push_back({{"file", f.file}, {"error", f.message}});
  // Names in a capture are bytes, not always UTF-8: invalid bytes become U+FFFD instead of failing.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace oomscope::analysis
