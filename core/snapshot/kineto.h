#pragma once
// Kineto / torch.profiler Chrome traces with profile_memory=True: the `[memory]` instant events as a
// runtime timeline per device, and `[OutOfMemory]` markers (docs/snapshot-format.md section 4).
// Events are grouped by (Device Type, Device Id) and stably sorted by time; live bytes are the baseline
// (first Total Allocated − first Bytes, when the trace has totals) plus the running sum of Bytes.

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/util/progress.h"

namespace oomscope::snapshot {

struct KinetoPoint {
  double ts_us = 0;             // absolute µs (baseTimeNanoseconds applied)
  std::int64_t live_bytes = 0;  // baseline + running Σ Bytes after the event
  std::int64_t bytes = 0;       // +alloc / −free
  std::int64_t total_reserved = -1;
};

struct KinetoOom {
  double ts_us = 0;
  std::int64_t requested = 0;
  std::int64_t total_allocated = -1, total_reserved = -1;
};

struct KinetoDevice {
  int device_type = 0;  // c10::DeviceType: 0 CPU, 1 CUDA, ...
  std::int64_t device_id = -1;
  std::string label;  // "CUDA 1", "CPU"
  std::size_t allocs = 0, frees = 0;
  std::int64_t running_peak = 0;  // max of the running Σ Bytes from 0
  std::int64_t net = 0;
  std::optional<std::int64_t> baseline;  // memory that existed before profiling
  std::int64_t peak_live = 0;            // baseline (or 0) + running peak
  double peak_ts_us = 0;
  std::int64_t max_total_allocated = -1, max_total_reserved = -1, min_total_reserved = -1;
  std::int64_t largest_alloc = 0;
  double first_ts_us = 0, last_ts_us = 0;
  std::size_t totals_mismatches = 0;  // consecutive pairs where ΔTotal Allocated != Bytes
  bool has_addr = false;
  std::size_t unmatched_frees = 0, never_freed = 0;
  std::vector<KinetoPoint> series;  // time order
  std::vector<KinetoOom> ooms;
};

struct KinetoGpu {  // one deviceProperties entry
  std::int64_t id = -1;
  std::string name;                    // may be empty in the file
  std::int64_t total_global_mem = -1;  // totalGlobalMem bytes; -1: absent
  bool amd = false;  // a ROCm device: the name says AMD / Instinct / Radeon, or the entry has gcnArchName
};

struct KinetoDistributed {                  // the trace's distributedInfo (torch.distributed jobs)
  std::int64_t rank = -1, world_size = -1;  // -1: absent or not a whole number
  std::string backend;
};

struct KinetoStep {  // a ProfilerStep#N annotation
  std::int64_t step = 0;
  double ts_us = 0;  // its start, absolute µs (baseTimeNanoseconds applied)
};

struct KinetoTrace {
  std::string path;
  std::uint64_t file_size = 0;
  bool gzip = false;
  std::size_t events = 0, memory_events = 0, oom_events = 0;
  double base_time_ns = 0;
  bool old_schema = false;            // no Addr / Total Allocated (PyTorch 1.9-era)
  std::vector<std::string> gpus;      // deviceProperties names
  std::vector<KinetoGpu> gpu_props;   // deviceProperties, in file order
  std::vector<KinetoDevice> devices;  // accelerators first, then CPU
  std::optional<KinetoDistributed> distributed;
  std::vector<KinetoStep> steps;  // ProfilerStep#N starts, in time order
};

// Throws oomscope::Error naming the file (Damaged JSON, Truncated gzip, NotACapture without traceEvents).
std::shared_ptr<const KinetoTrace> read_kineto_trace(const std::string& path, ProgressSink& progress,
                                                     std::stop_token stop = {});
// Throws oomscope::Error (NotACapture) when the trace has no [memory] or [OutOfMemory] event, saying how to
// record one (and, for a JAX/TensorFlow trace-viewer export, to open the .xplane.pb beside it).
void require_memory_events(const KinetoTrace& t);
std::shared_ptr<const KinetoTrace> read_kineto_trace_from_text(const std::string& text,
                                                               const std::string& name);

}  // namespace oomscope::snapshot
