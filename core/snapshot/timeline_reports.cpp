// Text and JSON reports for the runtime-timeline formats: Kineto [memory] traces, the torch.profiler raw
// memory timeline and JAX device memory profiles (pprof).

#include "core/snapshot/timeline_reports.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/snapshot/snapshot_text.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"
#include "core/util/safe_text.h"

namespace oomscope::snapshot {

namespace {

std::string b(std::int64_t v) { return format_bytes(v); }
std::string n(std::size_t v) { return format_bytes_exact(static_cast<std::int64_t>(v)); }
std::string secs(double us) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6f s", us / 1e6);
  return buf;
}
std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
  return buf;
}
double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Below this share of the reserved bytes, reserved-but-unused memory is ordinary caching, not a finding.
constexpr double kUnusedShare = 0.10;
// At or above this share of the device's memory, the device is reported as nearly full.
constexpr double kNearlyFullShare = 0.90;

const KinetoGpu* gpu_for(const KinetoTrace& t, const KinetoDevice& d) {
  if (d.device_type == 0) return nullptr;
  for (const KinetoGpu& g : t.gpu_props)
    if (g.id == d.device_id) return &g;
  return nullptr;
}

std::string alloc_conf(const KinetoTrace& t, const KinetoDevice& d) {
  const KinetoGpu* g = gpu_for(t, d);
  return g && g->amd ? "PYTORCH_HIP_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
}

// The allocated peak the trace shows: the baseline plus the running peak when the totals are known.
std::int64_t allocated_peak(const KinetoDevice& d) {
  return d.max_total_allocated >= 0 ? std::max(d.max_total_allocated, d.peak_live) : d.peak_live;
}

std::vector<analysis::DiagnosisLine> kineto_diagnosis(const KinetoTrace& t) {
  std::vector<analysis::DiagnosisLine> out;
  for (const KinetoDevice& d : t.devices) {
    const std::size_t before = out.size();
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
    if (d.device_type == 0) continue;
    const KinetoGpu* gpu = gpu_for(t, d);
    const std::int64_t reserved = d.max_total_reserved, peak = allocated_peak(d);
    const bool constant = reserved >= 0 && d.min_total_reserved == reserved;
    const std::string window = secs(d.last_ts_us - d.first_ts_us);
    if (gpu && gpu->total_global_mem > 0 && reserved > 0 &&
        share(reserved, gpu->total_global_mem) >= kNearlyFullShare) {
      analysis::DiagnosisLine l;
      l.rule = "device-nearly-full";
      l.provenance = analysis::Provenance::Measured;
      l.finding = d.label + ": reserved reached " + b(reserved) + ", " +
                  pct(share(reserved, gpu->total_global_mem)) + " of the device's " +
                  b(gpu->total_global_mem) + " (deviceProperties.totalGlobalMem)";
      l.cause =
          "little headroom is left for a larger request, another process or the CUDA context" +
          std::string(constant ? "; reserved did not change during the trace, so it was reserved before the "
                                 "profile began (a deliberate preallocation such as vLLM's "
                                 "gpu_memory_utilization reserves most of the device up front)"
                               : "");
      out.push_back(std::move(l));
    }
    if (reserved > 0 && peak > 0 && reserved > peak && share(reserved - peak, reserved) >= kUnusedShare) {
      const std::int64_t unused = reserved - peak;
      analysis::DiagnosisLine l;
      l.rule = "reserved-over-peak";
      l.provenance = analysis::Provenance::Measured;
      if (constant) {
        l.finding = d.label + ": reserved stayed at " + b(reserved) + " for the whole " + window +
                    " trace while allocated peaked at " + b(peak) + ": " + b(unused) + " (" +
                    pct(share(unused, reserved)) + " of reserved) was cached but not in use at the peak";
        l.cause =
            "all of it was reserved before the profile began (no [memory] event changed Total Reserved), so "
            "this trace cannot tell whether an earlier phase needed it, fragmentation kept it, or it was "
            "preallocated on purpose";
        analysis::Fix f;
        f.action =
            "profile from before the model is built, or record a memory snapshot "
            "(torch.cuda.memory._record_memory_history, then _dump_snapshot) to see what reserved it";
        f.saving_note = "no saving can be derived from this trace";
        f.cost = "a longer profile or a snapshot";
        l.fixes.push_back(std::move(f));
      } else {
        l.finding = d.label + ": reserved rose to " + b(reserved) + " (from " + b(d.min_total_reserved) +
                    ") during the trace while allocated peaked at " + b(peak) + ": " + b(unused) + " (" +
                    pct(share(unused, reserved)) + " of reserved) cached but never in use at once";
        l.cause =
            "the caching allocator keeps freed blocks; fragmentation or an earlier larger phase reserved "
            "more "
            "than the peak needs";
        analysis::Fix f;
        f.action = alloc_conf(t, d) + "=expandable_segments:True";
        f.saving_bytes = unused;
        f.saving_note =
            "at most the reserved bytes above the allocated peak; a snapshot replay (oomscope-cli whatif) "
            "gives "
            "the figure";
        f.cost = "none known for most workloads";
        l.fixes.push_back(std::move(f));
      }
      out.push_back(std::move(l));
    }
    if (out.size() == before && (d.allocs || d.frees)) {
      analysis::DiagnosisLine l;
      l.rule = "memory-summary";
      l.provenance = analysis::Provenance::Measured;
      l.finding = d.label +
                  (d.baseline ? ": allocated peaked at " + b(peak)
                              : ": the running sum of [memory] Bytes peaked " + b(peak) +
                                    " above the unknown level at the start") +
                  (reserved >= 0 ? " of " + b(reserved) + " reserved (" + pct(share(peak, reserved)) + ")"
                                 : std::string(" (the trace has no Total Reserved)")) +
                  (gpu && gpu->total_global_mem > 0
                       ? "; the device has " + b(gpu->total_global_mem) + " (deviceProperties.totalGlobalMem)"
                       : std::string());
      l.cause = d.baseline ? "reserved memory above the peak is under " + pct(kUnusedShare) +
                                 " of reserved: ordinary caching"
                           : "the old [memory] schema has no totals: the level before profiling is unknown";
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
  if (!t.gpu_props.empty()) {
    o << "devices (deviceProperties):";
    std::size_t unnamed = 0;
    for (std::size_t i = 0; i < t.gpu_props.size(); ++i) {
      const KinetoGpu& g = t.gpu_props[i];
      unnamed += g.name.empty();
      o << (i ? ", " : " ") << (g.name.empty() ? std::string("(no name)") : terminal_safe(g.name));
      if (g.total_global_mem > 0) o << " " << b(g.total_global_mem);
    }
    o << " [read]\n";
    if (unnamed)
      o << "note: " << n(unnamed) << " of " << n(t.gpu_props.size())
        << " deviceProperties entries have an empty name, so those devices cannot be identified\n";
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
    if (const KinetoGpu* g = gpu_for(t, d); g && g->total_global_mem > 0 && d.max_total_reserved >= 0)
      o << "  device memory " << b(g->total_global_mem)
        << " (deviceProperties.totalGlobalMem); reserved at most "
        << pct(share(d.max_total_reserved, g->total_global_mem)) << " of it, headroom "
        << b(g->total_global_mem - d.max_total_reserved) << " [derived]\n";
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

namespace {
nlohmann::json gpu_props_json(const KinetoTrace& t) {
  nlohmann::json out = nlohmann::json::array();
  for (const KinetoGpu& g : t.gpu_props)
    out.push_back({{"id", g.id >= 0 ? nlohmann::json(g.id) : nlohmann::json(nullptr)},
                   {"name", g.name},
                   {"total_global_mem_bytes",
                    g.total_global_mem > 0 ? nlohmann::json(g.total_global_mem) : nlohmann::json(nullptr)},
                   {"rocm", g.amd}});
  return out;
}
}  // namespace

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
            {"device_properties", gpu_props_json(t)},
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
    o << "  " << pad_right(hta_category_name(c), 17) << pad_right(b(t.category_at_peak[i]), 11)
      << pad_right(b(t.category_peak[i]), 11) << b(t.category_final[i]) << "\n";
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
    o << "  " << pad_right(g.kind.empty() ? "(no kind)" : g.kind, 12)
      << pad_right(g.where.empty() ? "(no device)" : g.where, 12) << pad_right(b(g.bytes), 11) << n(g.samples)
      << " samples\n";
  o << "live now, by Python line (innermost frame outside JAX) [derived]:\n";
  const auto lines = p.by_line();
  for (std::size_t i = 0; i < lines.size() && i < top; ++i)
    o << "  " << pad_right(b(lines[i].bytes), 11) << pad_right(lines[i].kind, 12)
      << pad_right("x" + n(lines[i].samples), 7) << lines[i].where << "\n";
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
