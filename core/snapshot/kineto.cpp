#include "core/snapshot/kineto.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/capture/companion.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::snapshot {

namespace {

using nlohmann::json;

struct RawEvent {
  double ts = 0;
  std::int64_t bytes = 0, total_allocated = -1, total_reserved = -1;
  std::int64_t addr = 0;
  bool has_addr = false, oom = false;
  std::size_t order = 0;
};

std::int64_t int_arg(const json& args, const char* key, std::int64_t fallback) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return fallback;
  return it->is_number_float() ? static_cast<std::int64_t>(it->get<double>()) : it->get<std::int64_t>();
}

const char* device_type_name(int t) {
  static const char* kNames[] = {"CPU",  "CUDA", "MKLDNN", "OPENGL", "OPENCL", "IDEEP", "HIP",
                                 "FPGA", "MAIA", "XLA",    "Vulkan", "Metal",  "XPU",   "MPS",
                                 "Meta", "HPU",  "VE",     "Lazy",   "IPU",    "MTIA",  "PrivateUse1"};
  return t >= 0 && t < 21 ? kNames[t] : "device type";
}

KinetoDevice build_device(int type, std::int64_t id, std::vector<RawEvent>& ev, double base_us) {
  KinetoDevice d;
  d.device_type = type;
  d.device_id = id;
  d.label = type == 0 ? std::string("CPU") : std::string(device_type_name(type)) + " " + std::to_string(id);
  std::stable_sort(ev.begin(), ev.end(), [](const RawEvent& a, const RawEvent& b) { return a.ts < b.ts; });
  std::int64_t running = 0;
  bool first = true;
  std::int64_t prev_ta = -1;
  std::unordered_map<std::int64_t, std::int64_t> live;
  for (const RawEvent& e : ev) {
    const double ts = e.ts + base_us;
    if (e.oom) {
      d.ooms.push_back(KinetoOom{ts, e.bytes, e.total_allocated, e.total_reserved});
      continue;
    }
    if (first) {
      d.first_ts_us = ts;
      if (e.total_allocated >= 0) d.baseline = e.total_allocated - e.bytes;
      first = false;
    } else if (e.total_allocated >= 0 && prev_ta >= 0 && e.total_allocated - prev_ta != e.bytes) {
      ++d.totals_mismatches;
    }
    if (e.total_allocated >= 0) prev_ta = e.total_allocated;
    d.last_ts_us = ts;
    running += e.bytes;
    if (e.bytes >= 0)
      ++d.allocs, d.largest_alloc = std::max(d.largest_alloc, e.bytes);
    else
      ++d.frees;
    if (running > d.running_peak) d.running_peak = running, d.peak_ts_us = ts;
    d.max_total_allocated = std::max(d.max_total_allocated, e.total_allocated);
    if (e.total_reserved >= 0) {
      d.max_total_reserved = std::max(d.max_total_reserved, e.total_reserved);
      d.min_total_reserved =
          d.min_total_reserved < 0 ? e.total_reserved : std::min(d.min_total_reserved, e.total_reserved);
    }
    if (e.has_addr) {
      d.has_addr = true;
      if (e.bytes >= 0)
        live[e.addr] = e.bytes;
      else if (!live.erase(e.addr))
        ++d.unmatched_frees;
    }
    d.series.push_back(KinetoPoint{ts, d.baseline.value_or(0) + running, e.bytes, e.total_reserved});
  }
  d.net = running;
  d.never_freed = live.size();
  d.peak_live = d.baseline.value_or(0) + d.running_peak;
  return d;
}

KinetoGpu gpu_of(const json& p) {
  KinetoGpu g;
  if (auto id = p.find("id"); id != p.end() && id->is_number_integer()) g.id = id->get<std::int64_t>();
  if (auto nm = p.find("name"); nm != p.end() && nm->is_string()) g.name = nm->get<std::string>();
  if (auto m = p.find("totalGlobalMem"); m != p.end() && m->is_number() && m->get<double>() > 0)
    g.total_global_mem =
        m->is_number_integer() ? m->get<std::int64_t>() : static_cast<std::int64_t>(m->get<double>());
  g.amd = p.contains("gcnArchName") || g.name.find("AMD") != std::string::npos ||
          g.name.find("Instinct") != std::string::npos || g.name.find("Radeon") != std::string::npos;
  return g;
}

}  // namespace

std::shared_ptr<const KinetoTrace> read_kineto_trace_from_text(const std::string& text,
                                                               const std::string& name) {
  auto trace = std::make_shared<KinetoTrace>();
  trace->path = name;
  std::size_t p = text.find_first_not_of(" \t\r\n");
  const bool array_form = p != std::string::npos && text[p] == '[';
  const int event_depth = array_form ? 1 : 2;
  std::string top_key;
  std::map<std::pair<int, std::int64_t>, std::vector<RawEvent>> groups;
  std::size_t order = 0;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) -> bool {
    if (ev == json::parse_event_t::key && depth == 1 && !array_form) {
      top_key = parsed.get<std::string>();
      return true;
    }
    if (ev != json::parse_event_t::object_end || depth != event_depth) return true;
    if (!array_form && top_key != "traceEvents") {
      if (top_key == "deviceProperties" && parsed.contains("name") && parsed["name"].is_string())
        trace->gpus.push_back(parsed["name"].get<std::string>());
      if (top_key == "deviceProperties") trace->gpu_props.push_back(gpu_of(parsed));
      return true;
    }
    ++trace->events;
    auto n = parsed.find("name");
    if (n == parsed.end() || !n->is_string()) return false;
    const std::string& nm = n->get_ref<const std::string&>();
    const bool mem = nm == "[memory]", oom = nm == "[OutOfMemory]";
    if (!mem && !oom) return false;
    auto a = parsed.find("args");
    if (a == parsed.end() || !a->is_object()) return false;
    RawEvent e;
    auto ts = parsed.find("ts");
    e.ts = ts != parsed.end() && ts->is_number() ? ts->get<double>() : 0.0;
    e.bytes = int_arg(*a, "Bytes", 0);
    e.total_allocated = int_arg(*a, "Total Allocated", -1);
    e.total_reserved = int_arg(*a, "Total Reserved", -1);
    if (a->contains("Addr")) e.has_addr = true, e.addr = int_arg(*a, "Addr", 0);
    e.oom = oom;
    e.order = order++;
    (mem ? trace->memory_events : trace->oom_events)++;
    groups[{static_cast<int>(int_arg(*a, "Device Type", 0)), int_arg(*a, "Device Id", -1)}].push_back(e);
    return false;
  };
  json root;
  try {
    root = json::parse(text, cb);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for a double (1e999)
    throw Error(ErrorKind::Damaged, name, std::string("the trace is not valid JSON: ") + e.what());
  }
  if (!array_form && (!root.is_object() || !root.contains("traceEvents")))
    throw Error(ErrorKind::NotACapture, name, "is JSON but has no 'traceEvents': not a Chrome trace");
  if (root.is_object()) {
    auto base = root.find("baseTimeNanoseconds");
    if (base != root.end() && base->is_number()) trace->base_time_ns = base->get<double>();
  }
  bool any_totals = false;
  for (auto& [key, ev] : groups)
    for (const RawEvent& e : ev) any_totals |= e.total_allocated >= 0 || e.has_addr;
  trace->old_schema = !groups.empty() && !any_totals;
  for (auto& [key, ev] : groups)
    trace->devices.push_back(build_device(key.first, key.second, ev, trace->base_time_ns / 1000.0));
  std::stable_sort(trace->devices.begin(), trace->devices.end(),
                   [](const KinetoDevice& a, const KinetoDevice& b) {
                     return (a.device_type == 0) < (b.device_type == 0);
                   });
  return trace;
}

void require_memory_events(const KinetoTrace& t) {
  if (t.memory_events > 0 || t.oom_events > 0) return;
  // A JAX or TensorFlow <host>.trace.json.gz beside its <host>.xplane.pb: name the capture to open.
  if (auto capture = capture::capture_beside(t.path)) throw capture::companion_error(t.path, *capture);
  throw Error(
      ErrorKind::NotACapture, t.path,
      std::string("is a Chrome trace") + (t.gzip ? " (gzip-compressed)" : "") + " with " +
          std::to_string(t.events) +
          " events but no [memory] events: record it with torch.profiler.profile(profile_memory=True); a JAX "
          "or "
          "TensorFlow .trace.json.gz holds no allocator events, open the .xplane.pb beside it instead");
}

std::shared_ptr<const KinetoTrace> read_kineto_trace(const std::string& path, ProgressSink& progress,
                                                     std::stop_token stop) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::uint64_t size = bytes.size();
  progress.report(0.1, "reading trace");
  const bool gz = is_gzip(bytes);
  if (gz) bytes = gunzip(bytes, path);
  if (stop.stop_requested()) throw Cancelled(path);
  progress.report(0.4, "parsing trace");
  auto t = read_kineto_trace_from_text(bytes, path);
  auto out = std::const_pointer_cast<KinetoTrace>(t);
  out->file_size = size;
  out->gzip = gz;
  progress.report(1.0, "parsing trace");
  return out;
}

}  // namespace oomscope::snapshot
