// Text and JSON reports for the runtime-timeline formats: Kineto [memory] traces, the torch.profiler raw
// memory timeline and JAX device memory profiles (pprof).

#include "core/snapshot/timeline_reports.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/snapshot/snapshot_text.h"
#include "core/util/bytes.h"

namespace oomscope::snapshot {

namespace {

std::string b(std::int64_t v) { return format_bytes(v); }
std::string n(std::size_t v) { return format_bytes_exact(static_cast<std::int64_t>(v)); }
std::string secs(double us) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6f s", us / 1e6);
  return buf;
}
std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

std::vector<analysis::DiagnosisLine> kineto_diagnosis(const KinetoTrace& t) {
  std::vector<analysis::DiagnosisLine> out;
  for (const KinetoDevice& d : t.devices) {
    for (const KinetoOom& o : d.ooms) {
      analysis::DiagnosisLine l;
      l.rule = "oom-event";
      l.provenance = analysis::Provenance::Read;
      l.finding = d.label + ": [OutOfMemory] at " + secs(o.ts_us - d.first_ts_us) +
                  " into the trace: " + b(o.requested) + " requested with " +
                  (o.total_allocated >= 0 ? b(o.total_allocated) : std::string("?")) + " allocated and " +
                  (o.total_reserved >= 0 ? b(o.total_reserved) : std::string("?")) + " reserved";
      l.cause =
          "the profiler records the failed request; a memory snapshot taken at the OOM shows what held the "
          "memory";
      l.confirm =
          "torch.cuda.memory._record_memory_history() and an OOM observer that calls _dump_snapshot()";
      out.push_back(std::move(l));
    }
    if (d.device_type != 0 && d.max_total_reserved > 0 && d.max_total_allocated > 0 &&
        d.max_total_reserved - d.max_total_allocated >= (1ll << 30)) {
      analysis::DiagnosisLine l;
      l.rule = "reserved-over-peak";
      l.provenance = analysis::Provenance::Measured;
      l.finding = d.label + ": reserved reached " + b(d.max_total_reserved) + " while allocated peaked at " +
                  b(d.max_total_allocated) + " (" + b(d.max_total_reserved - d.max_total_allocated) +
                  " cached but never in use at once)";
      l.cause =
          "the caching allocator keeps freed blocks; fragmentation or an earlier larger phase reserved more "
          "than the peak needs";
      analysis::Fix f;
      f.action = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
      f.saving_bytes = d.max_total_reserved - d.max_total_allocated;
      f.saving_note = "at most the reserved bytes above the allocated peak";
      f.cost = "none known for most workloads";
      l.fixes.push_back(std::move(f));
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace

void write_kineto_text(std::ostream& o, const KinetoTrace& t) {
  o << "== " << t.path << "\n";
  o << "Kineto / torch.profiler Chrome trace" << (t.gzip ? " (gzip)" : "") << ", file "
    << b(static_cast<std::int64_t>(t.file_size)) << "\n";
  o << "events " << n(t.events) << ", [memory] " << n(t.memory_events) << ", [OutOfMemory] "
    << n(t.oom_events) << " [read]\n";
  if (!t.gpus.empty()) {
    o << "devices (deviceProperties):";
    for (std::size_t i = 0; i < t.gpus.size(); ++i) o << (i ? ", " : " ") << t.gpus[i];
    o << "\n";
  }
  if (t.old_schema)
    o << "old [memory] schema (no Addr / Total Allocated): live bytes are relative to the unknown level at "
         "the start\n";
  if (t.devices.empty()) o << "no [memory] events: the trace was not recorded with profile_memory=True\n";
  for (const KinetoDevice& d : t.devices) {
    o << "\n" << d.label << "\n";
    o << "  " << n(d.allocs) << " allocs, " << n(d.frees) << " frees over "
      << secs(d.last_ts_us - d.first_ts_us) << ", net " << b(d.net) << " [measured]\n";
    o << "  running peak of the [memory] Bytes " << b(d.running_peak) << " ("
      << format_bytes_exact(d.running_peak) << ") at " << secs(d.peak_ts_us - d.first_ts_us)
      << " [measured]\n";
    if (d.baseline)
      o << "  allocated before profiling " << b(*d.baseline) << "; peak allocated " << b(d.peak_live) << " ("
        << format_bytes_exact(d.peak_live) << ") [derived]\n";
    if (d.max_total_allocated >= 0) o << "  max Total Allocated " << b(d.max_total_allocated) << " [read]\n";
    if (d.max_total_reserved >= 0)
      o << "  Total Reserved "
        << (d.min_total_reserved == d.max_total_reserved
                ? "constant " + b(d.max_total_reserved)
                : b(d.min_total_reserved) + " .. " + b(d.max_total_reserved))
        << " [read]\n";
    o << "  largest allocation " << b(d.largest_alloc) << " [read]\n";
    if (d.has_addr)
      o << "  paired by Addr: " << n(d.unmatched_frees) << " frees without an alloc, " << n(d.never_freed)
        << " allocations never freed [measured]\n";
    if (d.totals_mismatches)
      o << "  note: " << n(d.totals_mismatches)
        << " consecutive events where Total Allocated does not move by Bytes\n";
    o << "  [OutOfMemory] markers: " << n(d.ooms.size()) << "\n";
  }
  write_diagnosis_text(o, kineto_diagnosis(t));
}

nlohmann::json kineto_json(const KinetoTrace& t) {
  nlohmann::json devs = nlohmann::json::array();
  for (const KinetoDevice& d : t.devices) {
    nlohmann::json ooms = nlohmann::json::array();
    for (const KinetoOom& o : d.ooms)
      ooms.push_back({{"ts_us", o.ts_us},
                      {"requested_bytes", o.requested},
                      {"total_allocated", o.total_allocated},
                      {"total_reserved", o.total_reserved}});
    devs.push_back({{"device_type", d.device_type},
                    {"device_id", d.device_id},
                    {"label", d.label},
                    {"allocs", d.allocs},
                    {"frees", d.frees},
                    {"net_bytes", d.net},
                    {"running_peak_bytes", d.running_peak},
                    {"baseline_bytes", d.baseline ? nlohmann::json(*d.baseline) : nlohmann::json(nullptr)},
                    {"peak_allocated_bytes", d.peak_live},
                    {"max_total_allocated", d.max_total_allocated},
                    {"max_total_reserved", d.max_total_reserved},
                    {"largest_alloc_bytes", d.largest_alloc},
                    {"first_ts_us", d.first_ts_us},
                    {"last_ts_us", d.last_ts_us},
                    {"unmatched_frees", d.unmatched_frees},
                    {"never_freed", d.never_freed},
                    {"out_of_memory", ooms}});
  }
  return {{"file", t.path},
          {"kind", "chrome-trace"},
          {"file_bytes", t.file_size},
          {"kineto",
           {{"events", t.events},
            {"memory_events", t.memory_events},
            {"oom_events", t.oom_events},
            {"old_schema", t.old_schema},
            {"gpus", t.gpus},
            {"devices", devs}}},
          {"diagnosis", diagnosis_lines_json(kineto_diagnosis(t))}};
}

void write_hta_text(std::ostream& o, const HtaTimeline& t) {
  o << "== " << t.path << "\n";
  o << "torch.profiler raw memory timeline (export_memory_timeline), file "
    << b(static_cast<std::int64_t>(t.file_size)) << "\n";
  o << "rows " << n(t.rows) << " (preexisting " << n(t.action_rows[1]) << ", create " << n(t.action_rows[2])
    << ", increment version " << n(t.action_rows[3]) << ", destroy " << n(t.action_rows[4]) << "), "
    << n(t.steps.size()) << " time steps over "
    << secs(static_cast<double>(t.last_t_ns - t.first_t_ns) / 1000.0) << " [read]\n";
  o << "existed before profiling " << b(t.preexisting_bytes) << "; peak " << b(t.peak_bytes) << " ("
    << format_bytes_exact(t.peak_bytes) << ") at "
    << secs(static_cast<double>(t.peak_t_ns - t.first_t_ns) / 1000.0) << "; end " << b(t.final_bytes)
    << " [measured]\n";
  o << "by category: at the peak / own peak / end [measured]\n";
  for (int c = 0; c < kHtaCategories; ++c) {
    const auto i = static_cast<std::size_t>(c);
    o << "  " << pad(hta_category_name(c), 17) << pad(b(t.category_at_peak[i]), 11)
      << pad(b(t.category_peak[i]), 11) << b(t.category_final[i]) << "\n";
  }
}

nlohmann::json hta_json(const HtaTimeline& t) {
  nlohmann::json cats = nlohmann::json::array();
  for (int c = 0; c < kHtaCategories; ++c) {
    const auto i = static_cast<std::size_t>(c);
    cats.push_back({{"category", hta_category_name(c)},
                    {"at_peak_bytes", t.category_at_peak[i]},
                    {"peak_bytes", t.category_peak[i]},
                    {"final_bytes", t.category_final[i]}});
  }
  return {{"file", t.path},
          {"kind", "memory-timeline-raw"},
          {"file_bytes", t.file_size},
          {"memory_timeline",
           {{"rows", t.rows},
            {"steps", t.steps.size()},
            {"preexisting_bytes", t.preexisting_bytes},
            {"peak_bytes", t.peak_bytes},
            {"peak_t_ns", t.peak_t_ns},
            {"final_bytes", t.final_bytes},
            {"first_t_ns", t.first_t_ns},
            {"last_t_ns", t.last_t_ns},
            {"categories", cats}}}};
}

void write_pprof_text(std::ostream& o, const PprofProfile& p, std::size_t top) {
  o << "== " << p.path << "\n";
  o << "pprof profile (JAX device memory profile)" << (p.gzip ? " (gzip)" : "") << ", file "
    << b(static_cast<std::int64_t>(p.file_size)) << "\n";
  o << "sample types:";
  for (const auto& [type, unit] : p.sample_types) o << " " << type << "/" << unit;
  o << "; samples " << n(p.samples.size()) << ", live " << b(p.total_bytes()) << " ("
    << format_bytes_exact(p.total_bytes()) << " bytes) [read]\n";
  o << "by kind and device [read]:\n";
  for (const PprofGroup& g : p.by_kind())
    o << "  " << pad(g.kind.empty() ? "(no kind)" : g.kind, 12)
      << pad(g.where.empty() ? "(no device)" : g.where, 12) << pad(b(g.bytes), 11) << n(g.samples)
      << " samples\n";
  o << "live now, by Python line (innermost frame outside JAX) [derived]:\n";
  const auto lines = p.by_line();
  for (std::size_t i = 0; i < lines.size() && i < top; ++i)
    o << "  " << pad(b(lines[i].bytes), 11) << pad(lines[i].kind, 12) << pad("x" + n(lines[i].samples), 7)
      << lines[i].where << "\n";
  if (lines.size() > top) o << "  ... " << n(lines.size() - top) << " more lines\n";
}

nlohmann::json pprof_json(const PprofProfile& p, std::size_t top) {
  nlohmann::json kinds = nlohmann::json::array(), lines = nlohmann::json::array(),
                 types = nlohmann::json::array();
  for (const auto& [type, unit] : p.sample_types) types.push_back({{"type", type}, {"unit", unit}});
  for (const PprofGroup& g : p.by_kind())
    kinds.push_back({{"kind", g.kind}, {"device", g.where}, {"bytes", g.bytes}, {"samples", g.samples}});
  const auto by_line = p.by_line();
  for (std::size_t i = 0; i < by_line.size() && i < top; ++i)
    lines.push_back({{"where", by_line[i].where},
                     {"kind", by_line[i].kind},
                     {"bytes", by_line[i].bytes},
                     {"samples", by_line[i].samples}});
  return {{"file", p.path},
          {"kind", "pprof"},
          {"file_bytes", p.file_size},
          {"pprof",
           {{"sample_types", types},
            {"samples", p.samples.size()},
            {"total_bytes", p.total_bytes()},
            {"by_kind", kinds},
            {"by_line", lines}}}};
}

}  // namespace oomscope::snapshot
