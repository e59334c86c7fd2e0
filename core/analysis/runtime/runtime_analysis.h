#pragma once
// The runtime section of the report: allocators, executions of the analysed module, AllocatorRetry waits,
// host events between the last two executions, and what was live when the last execution started.
// analyze_runtime(RuntimeInput) works on plain vectors (tests build them by hand); the Capture overload
// builds that input over the capture's tables without copying events.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/runtime/runtime_attribution.h"
#include "core/analysis/runtime/runtime_executions.h"
#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

struct RuntimeInput {
  std::vector<std::string> allocator_names;
  std::vector<std::string> plane_names;  // by plane index; ExecutionInput::plane_names may view it
  ExecutionInput executions;  // spans, device events, strings, memory, retries, host plane, modules
  HostTimeline host;
  // With RuntimeOptions::time_window: the allocator events and AllocatorRetry waits inside it (allocator
  // figures and retry totals describe the window). `executions` then holds the whole capture's spans,
  // device events and launches, and its memory up to the window's end, so that whether an execution
  // launched, its number and what was live at its start are judged as in the whole capture.
  std::span<const capture::MemoryEvent> window_memory;
  std::span<const capture::RetryEvent> window_retries;
  // With a time window: the whole capture's allocator events, from which executions are built (an
  // execution's allocator is that of its first allocation, also when that falls after the window's end), so
  // that they are the same executions as without a window. Empty: executions.memory.
  std::span<const capture::MemoryEvent> whole_memory;
};

struct RuntimeOptions {
  std::optional<std::size_t> module;  // index into the modules; nullopt = the spec's default choice
  // Several modules answer the user's name: the one with the most executions (then the largest) is analysed.
  std::vector<std::size_t> module_candidates;
  std::size_t series_points = 1000;  // per allocator chart series
  std::size_t top = 25;              // host-event names and live groups listed
  // Only events, executions and waits that start in [first, last] (ps) are counted: allocators, executions
  // and retries then describe that stretch of time; what was live at an execution's start is still read
  // from the events before it (RuntimeInput::window_memory). nullopt = the whole capture.
  std::optional<std::pair<std::int64_t, std::int64_t>> time_window;
  // Every module's executions in the whole capture, as an earlier analysis of the same capture built them
  // (RuntimeAnalysis::executions): used instead of building them again, which is most of a re-scope's work on
  // a big capture. Null: built from the input.
  std::shared_ptr<const std::vector<RuntimeExecution>> executions;
};

RuntimeAnalysis analyze_runtime(const RuntimeInput& in, const RuntimeOptions& options = {});

// modules: one ModuleRef per Capture::modules() entry, in the same order.
RuntimeAnalysis analyze_runtime(const capture::Capture& capture, std::span<const ModuleRef> modules,
                                const RuntimeOptions& options = {});

}  // namespace oomscope::analysis
