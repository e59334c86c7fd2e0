#pragma once
// Executions of modules as the host saw them, whether each one launched a kernel, and which module the
// report analyses by default. Works on plain vectors (the capture's typed tables) so tests build inputs by
// hand.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

// A module of the plan, as far as execution matching and the default choice need it.
struct ModuleRef {
  std::string name;
  std::uint64_t program_id = 0;
  std::int64_t size_bytes = 0;  // what "largest" compares (the plan's peak)
};

struct ExecutionInput {
  std::span<const capture::ExecutionSpan> spans;
  std::span<const capture::DeviceProgramEvent> device_events;  // sorted by time
  std::span<const capture::LaunchEvent> launches;              // host launches, sorted by time
  std::span<const std::string> strings;                        // Capture::strings()
  std::span<const capture::MemoryEvent> memory;                // sorted by time
  std::span<const capture::RetryEvent> retries;                // sorted by time
  std::uint32_t host_plane =
      0;  // plane index of /host:CPU (MemoryEvent::line and RetryEvent::line refer to it)
  std::span<const ModuleRef> modules;
  // Optional, for telling devices apart: names by plane index (Capture::planes()) and by allocator index
  // (Capture::allocators()). Empty: launches are not filtered by device.
  std::span<const std::string> plane_names;
  std::span<const std::string> allocator_names;
};

// The device plane (index) an allocator serves: GPU_<n>_bfc, TPU_<n> or device_<n> -> the plane
// "/device:<kind>:<n>". nullopt when the name has no ordinal or no such plane exists.
std::optional<std::uint32_t> device_plane_of_allocator(std::string_view allocator,
                                                       std::span<const std::string> plane_names);

// One execution per ExecuteHelper span (named by the XLA GPU module span inside it, else guessed from the
// enclosing PjitFunction), plus XLA GPU module spans outside any ExecuteHelper (older clients). Without any
// host execution span, the TPU "XLA Modules" events of the first device plane that has them. Sorted by start.
std::vector<RuntimeExecution> build_executions(const ExecutionInput& in);

// True when execution e belongs to module m (name, and program id when both are known).
bool execution_of(const RuntimeExecution& e, const ModuleRef& m);

struct ModuleSelection {
  std::optional<std::size_t> module;  // index into modules
  ModuleChoice choice = ModuleChoice::None;
};

// The spec's default: the module whose last execution never started (latest such failure first); else the
// largest executed module; else the largest module. "Never started" needs launched == false and evidence
// that it is not a trivial kernel-less module: an AllocatorRetry wait inside it, an earlier execution of
// the same module that did launch, or a missing XLA GPU module span where earlier executions had one.
ModuleSelection choose_default_module(std::span<const ModuleRef> modules,
                                      std::span<const RuntimeExecution> executions);

// The allocators of the device planes that ran the module's program ("XLA Modules" events, TPU).
std::vector<std::uint32_t> module_device_allocators(const ExecutionInput& in, const ModuleRef& module);

// Executions of one module on its main allocator, bytes in use at each start, growth, never-launched. The
// module ran on the devices of device_allocators and on those its executions allocate from (host-memory
// allocators only when there is no other); with several, the main one is the device with the most in use
// at the start of its last execution, and ModuleRuntime::devices lists each. When the executions allocate
// from several devices (one thread per device), only the main device's executions are kept (executions
// with no allocation of their own on its lines); else every execution ran on all of them and all are kept.
ModuleRuntime analyze_module_executions(const ModuleRef& module, std::span<const RuntimeExecution> executions,
                                        std::span<const capture::MemoryEvent> memory,
                                        std::span<const std::uint32_t> device_allocators = {},
                                        std::span<const std::string> allocator_names = {});

}  // namespace oomscope::analysis
