#pragma once
// Whether donating a module's donatable parameters would be safe, as far as the runtime shows
// (docs/report-rules.md, "Donation"): a parameter may be donated only when its buffer is dead after the
// call. The capture does not say which buffer was passed as which argument, so the candidates for the
// arguments are the allocations live at a call's start whose request has a parameter's size, and the bytes
// live since before the capture started (no event names them); what happens to them decides:
//   freed after every call, before any other execution starts   -> dead after the call (donation is safe);
//   the next call's candidates are exactly this call's, and at both calls they leave no room for another
//   array of a parameter's size (so they are the arguments)      -> the inputs are passed again (reused);
//   anything else (no such allocation, freed later)             -> the capture cannot tell.
// The last call is never judged reused: what follows it is not in the capture.

#include <cstdint>
#include <span>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"
#include "core/util/enum_names.h"

namespace oomscope::analysis {

enum class ArgumentFate : std::uint8_t {
  NoRuntime,         // no executions of the module on an allocator with events
  Unknown,           // the capture cannot tell
  DeadAfterCall,     // freed after every call before any other execution started
  LiveAtLaterCalls,  // still live at the module's next call: the arrays are used again
};
inline constexpr EnumName<ArgumentFate> kArgumentFateNames[] = {
    {ArgumentFate::NoRuntime, "no runtime"},
    {ArgumentFate::Unknown, "unknown"},
    {ArgumentFate::DeadAfterCall, "dead after the call"},
    {ArgumentFate::LiveAtLaterCalls, "live at later calls"}};
static_assert(names_every_value(kArgumentFateNames, ArgumentFate::LiveAtLaterCalls));

struct DonationLiveness {
  ArgumentFate fate = ArgumentFate::NoRuntime;
  std::int64_t calls = 0;       // executions of the module checked (measured): the last 8 at most
  std::int64_t dead_calls = 0;  // after which every argument size had a buffer freed before anything else ran
  std::int64_t reused_calls = 0;        // whose argument buffers were passed again to the module's next call
  std::int64_t total_calls = 0;         // executions of the module in the capture (measured)
  std::vector<std::int64_t> reused_by;  // the calls (1-based, of all total_calls) that took the same inputs
  std::vector<std::int64_t> sizes;      // the parameter sizes looked for (read from the plan)
  std::vector<std::int64_t> parameter_sizes;  // every parameter's (how many arrays of a size a call takes)
};

// module_runs: the analysed module's executions (by time) on `allocator`; all: every execution of the capture
// (by time); sizes: the donatable parameters' allocation sizes; parameter_sizes: every parameter's.
DonationLiveness check_donation_liveness(std::span<const capture::MemoryEvent> memory,
                                         std::uint32_t allocator,
                                         std::span<const RuntimeExecution> module_runs,
                                         std::span<const RuntimeExecution> all,
                                         std::span<const std::int64_t> sizes,
                                         std::span<const std::int64_t> parameter_sizes);

}  // namespace oomscope::analysis
