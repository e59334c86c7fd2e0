#include "core/snapshot/kineto.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "core/capture/companion.h"
#include "core/snapshot/detail/kineto_events.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/gzip.h"
#include "core/util/gzip_stream.h"

namespace oomscope::snapshot {

namespace {

using detail::RawEvent;

// Plain text is read 256 KiB at a time into a block that is not zeroed: it stays in the core's cache
// between the copy out of the page cache and the parse (a zeroed 4 MiB block took 5 % of the CPU on the
// 51 MB ddp trace by perf, zeroing and first touch of its pages).
constexpr std::size_t kBlock = 256u << 10;

struct FileCloser {
  int fd;
  ~FileCloser() { ::close(fd); }
};

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
  const auto by_ts = [](const RawEvent& a, const RawEvent& b) { return a.ts < b.ts; };
  if (!std::is_sorted(ev.begin(), ev.end(), by_ts))  // traces are mostly in order: no sort buffer then
    std::stable_sort(ev.begin(), ev.end(), by_ts);
  d.series.reserve(ev.size());
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

// The trace from what read_kineto_json kept; throws JsonPull's failures as the reader's "not valid JSON".
std::shared_ptr<KinetoTrace> trace_from_json(detail::JsonPull& j, const std::string& name) {
  detail::KinetoJson k;
  try {
    k = detail::read_kineto_json(j);
  } catch (const detail::JsonPull::Failure& f) {  // a syntax error, or a number too large for a double
    throw Error(ErrorKind::Damaged, name,
                std::string("the trace is not valid JSON: ") + f.what() + " at byte " +
                    format_bytes_exact(static_cast<std::int64_t>(f.offset)))
        .at(f.offset);
  }
  if (!k.array_form && (!k.root_object || !k.has_trace_events))
    throw Error(ErrorKind::NotACapture, name, "is JSON but has no 'traceEvents': not a Chrome trace");
  auto trace = std::make_shared<KinetoTrace>();
  trace->path = name;
  trace->events = k.events;
  trace->memory_events = k.memory_events;
  trace->oom_events = k.oom_events;
  trace->gpus = std::move(k.gpus);
  trace->gpu_props = std::move(k.gpu_props);
  trace->base_time_ns = k.base_time_ns;
  trace->distributed = std::move(k.distributed);
  for (const auto& [n, ts] : k.steps) trace->steps.push_back(KinetoStep{n, ts + k.base_time_ns / 1000.0});
  std::stable_sort(trace->steps.begin(), trace->steps.end(),
                   [](const KinetoStep& a, const KinetoStep& b) { return a.ts_us < b.ts_us; });
  bool any_totals = false;
  for (auto& [key, ev] : k.groups)
    for (const RawEvent& e : ev) any_totals |= e.total_allocated >= 0 || e.has_addr;
  trace->old_schema = !k.groups.empty() && !any_totals;
  for (auto& [key, ev] : k.groups)
    trace->devices.push_back(build_device(key.first, key.second, ev, trace->base_time_ns / 1000.0));
  std::stable_sort(trace->devices.begin(), trace->devices.end(),
                   [](const KinetoDevice& a, const KinetoDevice& b) {
                     return (a.device_type == 0) < (b.device_type == 0);
                   });
  return trace;
}

}  // namespace

std::shared_ptr<const KinetoTrace> read_kineto_trace_from_text(const std::string& text,
                                                               const std::string& name) {
  bool given = false;
  detail::JsonPull j([&]() -> std::string_view {
    if (given) return {};
    given = true;
    return text;
  });
  return trace_from_json(j, name);
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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorKind::Io, path, "cannot open the file");
  const FileCloser closer{fd};
  struct stat st {};
  const std::uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  // Plain text is read a block at a time and parsed as it comes: memory holds one block, not the file.
  const std::unique_ptr<char[]> block(new char[kBlock]);  // not zeroed: read() fills it
  std::uint64_t read_so_far = 0;
  const auto read_block = [&]() -> std::string_view {
    while (true) {
      const ssize_t n = ::read(fd, block.get(), kBlock);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        throw Error(ErrorKind::Io, path, std::string("cannot read the file: ") + std::strerror(errno));
      read_so_far += static_cast<std::uint64_t>(n);
      return {block.get(), static_cast<std::size_t>(n)};
    }
  };
  const auto tick = [&](std::uint64_t done) {
    if (stop.stop_requested()) throw Cancelled(path);
    progress.report(size ? 0.05 + 0.9 * static_cast<double>(done) / static_cast<double>(size) : 0.5,
                    "reading trace");
  };
  std::string_view first = read_block();
  const bool gz = is_gzip(first);
  std::shared_ptr<KinetoTrace> trace;
  if (!gz) {
    bool first_given = false;
    detail::JsonPull j([&]() -> std::string_view {
      if (!first_given) {
        first_given = true;
        return first;
      }
      tick(read_so_far);
      return read_block();
    });
    trace = trace_from_json(j, path);
  } else {
    // gzip: the compressed file in memory (a twentieth of the text for real traces), its output parsed a
    // chunk at a time as it is decompressed (core/util/gzip_stream.h).
    std::string compressed;
    compressed.reserve(static_cast<std::size_t>(size));
    compressed.append(first);
    for (std::string_view more = read_block(); !more.empty(); more = read_block()) compressed += more;
    constexpr std::uint64_t kMaxText = 16ull << 30;  // as gunzip()
    GzipStream gzs(compressed, kMaxText + 1);
    detail::JsonPull j([&]() -> std::string_view {
      tick(gzs.consumed());
      return gzs.next();
    });
    try {
      trace = trace_from_json(j, path);
    } catch (const Cancelled&) {
      throw;
    } catch (const Error&) {
      // A damaged or cut gzip stream is named as such, as when it was decompressed before parsing.
      while (!gzs.next().empty()) tick(gzs.consumed());
      check_gunzip_end(gzs.end(), gzs.produced(), path, kMaxText);
      throw;
    }
    while (!gzs.next().empty()) tick(gzs.consumed());  // text after a NUL byte is ignored, not its gzip
    check_gunzip_end(gzs.end(), gzs.produced(), path, kMaxText);
  }
  trace->file_size = size;
  trace->gzip = gz;
  progress.report(1.0, "reading trace");
  return trace;
}

}  // namespace oomscope::snapshot
