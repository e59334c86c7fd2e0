#include <algorithm>

#include "core/analysis/report/detail/report_text_detail.h"
#include "core/util/columns.h"

namespace oomscope::analysis::detail {

namespace {

void write_reconciliation(std::ostream& o, const HostReport& r) {
  const RuntimePeak& p = *r.runtime_peak;
  const RuntimeExecution& x = *p.execution;
  o << "    = in use at its start " << b(p.in_use_at_start) << " [read] + its own allocations still live "
    << b(p.own_chunk_bytes) << " in " << allocations(p.own_allocations) << " as served (requested "
    << b(p.own_requested_bytes) << ")";
  if (p.other_allocations > 0)
    o << " + other threads' allocations since its start " << b(p.other_chunk_bytes) << " in "
      << allocations(p.other_allocations);
  if (p.freed_count > 0)
    o << " - chunks allocated before its start and freed in it " << b(p.freed_bytes) << " ("
      << allocations(p.freed_count) << ")";
  o << " [measured]\n";
  if (p.unexplained_bytes != 0)
    o << "    the allocator's in-use figure differs from these events by " << b(p.unexplained_bytes)
      << " (events missing from the capture) [derived]\n";
  if (r.peak_module_index && *r.peak_module_index < r.modules.size()) {
    const ModuleRow& m = r.modules[*r.peak_module_index];
    const std::int64_t planned = m.temp_bytes + m.outputs_bytes;
    o << "    its plan (" << x.label << "): temp block " << b(m.temp_bytes) << " + non-aliased outputs "
      << b(m.outputs_bytes) << " = " << b(planned) << " [read]; ";
    if (p.own_requested_bytes == planned)
      o << "its allocations asked for exactly that";
    else if (p.own_requested_bytes < planned)
      o << "its allocations live at the peak asked for " << b(planned - p.own_requested_bytes)
        << " less (freed before the peak, or not yet allocated)";
    else
      o << "its allocations live at the peak asked for " << b(p.own_requested_bytes - planned) << " more";
    o << "; the chunks that served them hold " << b(p.own_chunk_bytes - p.own_requested_bytes)
      << " more than requested [derived]\n";
  }
}

// Bytes reserved over time (XProf's reserved series): the peak and where, or that the capture has none.
void write_reserved(std::ostream& o, const AllocatorRuntime& a, const RuntimePeak& p) {
  o << "  bytes reserved on " << a.name << " (the allocator's bytes_reserved stat): ";
  if (a.reserved_events == 0) {
    o << "the capture carries no reserved figure (none of its " << a.allocations + a.deallocations
      << " events has the stat)\n";
    return;
  }
  const std::int64_t events = a.allocations + a.deallocations;
  const std::string on = a.reserved_events == events
                             ? "on every event"
                             : "on " + std::to_string(a.reserved_events) + " of its " +
                                   std::to_string(events) + " events (the others carry none)";
  if (a.peak_bytes_reserved == 0) {
    o << "0 B " << on << " [read]\n";
    return;
  }
  o << "peak " << b(a.peak_bytes_reserved) << " at " << secs(a.peak_reserved_time_ps) << ", "
    << (p.bytes_reserved_at_peak >= 0 ? b(p.bytes_reserved_at_peak) : std::string("no figure"))
    << " at the runtime peak; read " << on << " [read]\n";
}

}  // namespace

void write_runtime_peak(std::ostream& o, const HostReport& r, std::size_t top) {
  if (!r.runtime_peak) return;
  const RuntimePeak& p = *r.runtime_peak;
  const std::string allocator =
      p.allocator < r.runtime.allocators.size() ? r.runtime.allocators[p.allocator].name : std::string("?");
  o << "  the runtime peak: " << b(p.peak_bytes) << " on " << allocator << " at " << secs(p.time_ps)
    << " [read], ";
  if (p.execution) {
    const RuntimeExecution& x = *p.execution;
    o << "inside " << x.label << " execution " << x.number << " (" << secs(x.start_ps) << " .. "
      << secs(x.end_ps) << ") [measured]\n";
    write_reconciliation(o, r);
  } else {
    o << "outside the host span of every execution [measured]\n";
  }
  o << "  live at the runtime peak: " << allocations(p.live_allocations)
    << ", by the execution or host event that produced them [measured]:\n";
  for (const LiveGroup& g : p.live_by_producer)
    o << "    " << pad_right(b(g.bytes), 10) << pad_right(g.count ? allocations(g.count) : "", 16) << g.label
      << "\n";
  if (p.live_groups_total > static_cast<std::int64_t>(p.live_by_producer.size()))
    o << "    ... " << p.live_groups_total - static_cast<std::int64_t>(p.live_by_producer.size())
      << " more\n";
  if (!p.modules.empty()) {
    o << "  modules by their share of the runtime peak [measured]:";
    const std::size_t n = std::min(p.modules.size(), top);
    for (std::size_t i = 0; i < n; ++i) {
      const PeakModuleShare& m = p.modules[i];
      o << (i ? "," : "") << " " << m.module << " " << b(m.bytes) << " (" << m.executions
        << (m.executions == 1 ? " execution" : " executions") << ")";
    }
    if (p.modules.size() > n) o << ", ... " << p.modules.size() - n << " more";
    o << "\n";
  }
  if (!p.largest_chunks.empty()) {
    o << "  largest allocations live at the runtime peak: requested -> allocator chunk [read], slack "
         "[derived]:\n";
    for (const PeakChunk& c : p.largest_chunks)
      o << "    " << pad_right(b(c.requested_bytes), 11) << "-> " << pad_right(b(c.chunk_bytes), 11)
        << "slack " << b(c.chunk_bytes - c.requested_bytes) << "  (allocated at " << secs(c.time_ps)
        << (c.producer.empty() ? std::string() : "; " + c.producer) << ")\n";
    if (p.live_allocations > static_cast<std::int64_t>(p.largest_chunks.size()))
      o << "    ... " << p.live_allocations - static_cast<std::int64_t>(p.largest_chunks.size()) << " more\n";
  }
  if (p.largest_fragmentation > 0.0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3f at the peak, largest %.3f at ", p.fragmentation_at_peak,
                  p.largest_fragmentation);
    o << "  fragmentation (the allocator's own stat): " << buf << secs(p.largest_fragmentation_time_ps)
      << " [read]\n";
  }
  if (p.allocator < r.runtime.allocators.size()) write_reserved(o, r.runtime.allocators[p.allocator], p);
  o << "  allocations rounded up by 1 MiB or more on " << allocator << ": " << p.rounded_up_1mib << " of "
    << p.allocations_seen;
  if (p.rounded_up_1mib > 0) o << ", " << b(p.rounded_up_1mib_bytes) << " more than requested in all";
  o << " [measured]\n";
}

}  // namespace oomscope::analysis::detail
