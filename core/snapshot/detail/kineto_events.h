#pragma once
// The JSON side of the Kineto trace reader (kineto.cpp): what read_kineto_trace keeps of a Chrome trace,
// read with JsonPull so that only the [memory] and [OutOfMemory] events are held, never the document. It
// keeps what the reader's earlier nlohmann DOM callback kept, with the same rules: events are the objects
// directly inside the value of a top-level "traceEvents" (or directly inside a top-level array, when the
// text starts with '['); a key given twice in an object counts by its last value.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot/detail/json_pull.h"
#include "core/snapshot/kineto.h"

namespace oomscope::snapshot::detail {

struct RawEvent {
  double ts = 0;
  std::int64_t bytes = 0, total_allocated = -1, total_reserved = -1;
  std::int64_t addr = 0;
  bool has_addr = false, oom = false;
};

struct KinetoJson {
  bool array_form = false;        // the text starts with '['
  bool root_object = false;       // the top value is an object
  bool has_trace_events = false;  // ... with a "traceEvents" member
  std::size_t events = 0, memory_events = 0, oom_events = 0;
  double base_time_ns = 0;
  std::optional<KinetoDistributed> distributed;        // the last top-level distributedInfo object
  std::vector<std::pair<std::int64_t, double>> steps;  // ProfilerStep#N: (N, ts) in file order
  std::vector<std::string> gpus;                       // deviceProperties names
  std::vector<KinetoGpu> gpu_props;                    // every deviceProperties entry, in file order
  std::map<std::pair<int, std::int64_t>, std::vector<RawEvent>> groups;  // by (Device Type, Device Id)
};

// Reads the whole text (through expect_end); throws JsonPull::Failure on anything nlohmann would refuse.
KinetoJson read_kineto_json(JsonPull& json);

}  // namespace oomscope::snapshot::detail
