// map_plan_to_time over a capture and its report: the input spans point into the capture's tables.

#include <algorithm>
#include <string>
#include <utility>

#include "core/analysis/report/report.h"
#include "core/analysis/runtime/runtime_executions.h"
#include "core/analysis/timeline/plan_timeline.h"

namespace oomscope::analysis {

std::optional<std::uint32_t> device_plane_of(const capture::Capture& capture, std::string_view name) {
  std::string kind = "GPU";
  std::string_view rest = name;
  if (rest.starts_with("GPU_")) {
    rest.remove_prefix(4);
  } else if (rest.starts_with("TPU_")) {
    kind = "TPU";
    rest.remove_prefix(4);
  } else if (rest.starts_with("device_")) {
    rest.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0 || (digits < rest.size() && rest[digits] != '_')) return std::nullopt;
  const std::string ordinal(rest.substr(0, digits));
  const auto& planes = capture.planes();
  for (const std::string& k : {kind, std::string(kind == "GPU" ? "TPU" : "GPU")}) {
    std::string want = "/device:";
    want += k;
    want += ':';
    want += ordinal;
    for (std::size_t i = 0; i < planes.size(); ++i)
      if (planes[i].name == want) return std::uint32_t(i);
  }
  return std::nullopt;
}

PlanTimeline map_plan_to_time(const capture::Capture& capture, const HostReport& report,
                              ProgressSink& progress, std::stop_token stop) {
  PlanTimelineInput in;
  in.plan = report.plan ? &*report.plan : nullptr;
  ExecutionInput ex;
  ex.spans = capture.executions();
  ex.device_events = capture.device_program_events();
  ex.launches = capture.launch_events();
  ex.strings = capture.strings();
  ex.memory = capture.memory_events();
  ex.retries = capture.allocator_retries();
  std::vector<ModuleRef> refs;
  for (const ModuleRow& m : report.modules) refs.push_back({m.name, m.program_id, m.peak_bytes});
  ex.modules = refs;
  HostTimeline host;
  const auto& planes = capture.planes();
  for (std::size_t i = 0; i < planes.size(); ++i)
    if (planes[i].name == "/host:CPU") {
      ex.host_plane = std::uint32_t(i);
      const capture::Plane* p = &planes[i];
      for (const capture::Line& line : p->lines) host.lines.emplace_back(line.events);
      host.name = [p](std::int64_t id) { return p->event_name(id); };
      in.host = &host;
      break;
    }
  // Live memory is named by every execution of the capture, also those before a time window (the report's
  // executions are the whole capture's, window or not).
  in.all_executions = report.runtime.all_executions();
  if (report.runtime.module) {
    in.executions = report.runtime.module->executions;
    in.allocator = report.runtime.module->allocator;
    if (in.allocator && *in.allocator < capture.allocators().size())
      in.device_plane = device_plane_of(capture, capture.allocators()[*in.allocator].name);
  }
  in.device_events = ex.device_events;
  in.launches = ex.launches;
  in.strings = ex.strings;
  in.memory = ex.memory;
  in.host_plane = ex.host_plane;
  return map_plan_to_time(in, progress, std::move(stop));
}

}  // namespace oomscope::analysis
