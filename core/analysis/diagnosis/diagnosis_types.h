#pragma once
// The diagnosis lines of the report (docs/report-rules.md, its table): each finding labelled measured,
// read or derived, with its cause and the fixes to propose, each fix with an estimated saving and cost and
// checked against the pool's capacity. Inputs are plain numbers so that each rule can be tested alone.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::analysis {

enum class Provenance : std::uint8_t {
  Measured,  // counted or timed from runtime events
  Read,      // copied from the capture (a stat, a proto field)
  Derived,   // computed from read/measured figures (plan replay, ratios, estimates)
};
inline constexpr EnumName<Provenance> kProvenanceNames[] = {
    {Provenance::Measured, "measured"}, {Provenance::Read, "read"}, {Provenance::Derived, "derived"}};
static_assert(names_every_value(kProvenanceNames, Provenance::Derived));
const char* to_string(Provenance p) noexcept;  // "measured", "read", "derived"

struct Fix {
  std::string action;  // what to do
  std::optional<std::int64_t>
      saving_bytes;         // estimated saving (derived); nullopt when it cannot be put in bytes
  std::string saving_note;  // how the saving was estimated
  std::string cost;         // what it costs
  // Plan peak after the fix <= capacity (bytes only); nullopt when there is no capacity or no saving.
  std::optional<bool> fits_after;
  std::optional<std::int64_t> needed_after_bytes;
  // What fits_after was checked against when it is not the pool's capacity: a larger pool is checked
  // against the device's memory. nullopt = the pool.
  std::optional<std::int64_t> checked_against_device_bytes = {};
  // The highest peak this fix does not lower (another phase's), when it bounds needed_after_bytes.
  std::optional<std::int64_t> floor_bytes = {};
  // What the fix also removes from the other phase's peak (checked() records it for fix sets).
  std::int64_t other_phase_saving_bytes = 0;
  // Arrays outside the plan live at the start of an execution (the most over them: other_live_where says
  // which), added to the need when checking the fit.
  std::int64_t other_live_bytes = 0;
  std::string other_live_where = {};  // "at its start", "at the start of execution 2 (the most of its 3)"
};

struct DiagnosisLine {
  std::string rule;  // stable id: "plan-exceeds-pool", "mostly-forward", "growth", ...
  Provenance provenance = Provenance::Derived;
  int depth = 0;        // 1 for the role lines under "the step itself does not fit"
  std::string finding;  // one sentence with the figures
  std::string cause;
  std::vector<Fix> fixes;
  std::string confirm;  // how the user can confirm it ("" when nothing to add)
};

// A big buffer at the plan's peak, for the naive-attention and f32-gradient checks.
struct PeakBuffer {
  std::int64_t bytes = 0;
  std::string shape;   // "f32[8,8,1024,1024]"
  std::string role;    // to_string(BufferRole)
  std::string source;  // "file.py:123"
  std::int32_t element_type = 0;
};

// A memory pattern of the plan (plan.h PlanPattern), as the rules need it.
struct PatternInput {
  std::string kind;  // "split-k-partials", "conv-output-twice", "host-prefetch"
  std::string instruction, shape;
  std::int64_t bytes = 0;
  std::string other_instruction, other_shape;
  std::int64_t other_bytes = 0;
  int factor = 0;
  int count = 1;
  std::string source;  // "file.py:92" or ""
};

struct LiveHolder {
  std::string label;
  std::int64_t bytes = 0;
  bool before_capture = false;
  bool outputs_of_module = false;  // outputs of an earlier execution of the analysed module
};

struct DiagnosisInput {
  std::string module;
  // "" for the whole plan; with a program-order selection, what "the peak" below is: "the highest point in
  // program positions A .. B" (the plan's own peak may lie outside it).
  std::string peak_scope;
  // Plan (derived/read). has_plan false when the module has no buffer assignment.
  bool has_plan = false;
  bool has_heap_peak = false;
  std::int64_t plan_peak_bytes = 0;
  std::int64_t parameters_bytes = 0;
  std::int64_t donated_bytes = 0;
  std::int64_t donatable_bytes = 0;
  std::int64_t outputs_bytes = 0;  // non-aliased outputs
  std::int64_t temp_bytes = 0;
  std::int64_t forward_kept_bytes = 0;
  std::int64_t forward_transient_bytes = 0;
  std::int64_t parameter_role_bytes = 0;  // parameters / outputs at the peak (indefinite roles)
  std::int64_t output_role_bytes = 0;
  std::int64_t gradient_matched_bytes = 0;  // parameters whose same-shaped output is their gradient
  // What the runtime shows of the donatable parameters' buffers after the calls (measured): "no runtime",
  // "unknown", "dead after the call", "live at later calls" (donation_liveness.h), and over how many calls.
  std::string donation_fate = "no runtime";
  std::int64_t donation_calls = 0;
  std::int64_t donation_dead_calls = 0;
  std::int64_t donation_reused_calls = 0;
  std::int64_t donation_total_calls = 0;         // the module's executions in the capture
  std::vector<std::int64_t> donation_reused_by;  // the calls (1-based) that took the previous call's inputs
  // Phases: where the peak is and the highest point outside that phase ("" / nullopt when unknown).
  std::string peak_phase;
  std::string peak_instruction;
  std::string other_phase;
  std::string other_phase_instruction;
  std::optional<std::int64_t> other_phase_peak_bytes;
  std::vector<PatternInput> patterns;
  // Split-K partials live at the other phase's peak (derived, the same pattern found there): a module-wide
  // flag removes them too.
  std::int64_t other_phase_split_k_bytes = 0;
  std::string other_phase_split_k_instruction;
  // The largest s8 (library workspace) output of a custom call in the module's HLO (read): what a library
  // GEMM may take when split-K is off. 0 when the module has none.
  std::int64_t gemm_workspace_bytes = 0;
  // Host offload (memory space 5), read from the plan.
  std::int64_t host_parameters_bytes = 0;
  std::int64_t host_parameters_aliased_bytes = 0;
  int host_parameter_count = 0;
  std::int64_t host_outputs_bytes = 0;
  std::int64_t host_temp_bytes = 0;
  std::string platform;  // "GPU (AMD)", "TPU", ...
  bool eager = false;    // many small modules and no step module (the runtime leads)
  // The program, for the eager finding (measured): modules that ran, their executions, the most of one.
  std::int64_t program_modules_executed = 0;
  std::int64_t program_executions = 0;
  std::int64_t program_most_executions = 0;
  std::string peak_shares;  // "jit_matmul 244 MiB, jit_add 4.00 MiB" (modules by share of the runtime peak)
  // Runtime: whether an allocator event requested the temp block (nullopt when there is no runtime).
  std::optional<bool> temp_block_seen;
  // The analysed module's allocator's bytes_reserved peak and when (read; 0 when no event carries it above
  // 0), and the largest allocation any allocator event of the capture asks for (read): what the capture
  // shows of memory held outside the allocation events.
  std::string reserved_allocator;
  std::int64_t reserved_peak_bytes = 0;
  std::int64_t reserved_peak_time_ps = 0;
  std::int64_t largest_allocation_bytes = 0;
  std::vector<std::int64_t> growth_steps;
  std::int64_t backward_bytes = 0;
  std::int64_t workspace_bytes = 0;
  std::int64_t other_bytes = 0;
  int remat_instructions = 0;
  std::vector<PeakBuffer> peak_buffers;  // live at the peak, largest first
  // Pool.
  std::optional<std::int64_t> capacity_bytes;  // the allocator's limit, or --capacity
  bool capacity_from_user = false;
  std::optional<std::int64_t> device_memory_bytes;  // the GPU's memory_size stat, when the capture has it
  std::string rocm_arch;                            // "gfx950" etc. when known ("" otherwise)
  // Runtime (measured/read).
  int executions = 0;
  std::optional<std::int64_t> growth_per_execution;
  bool growth_consistent = false;
  std::optional<std::int64_t> in_use_at_last_start;
  // In use at the start of an execution of the module, less its own parameters (measured; the most over its
  // executions, at execution other_live_execution, 1-based): arrays outside the plan beside which every
  // execution, after any fix, still has to fit. 0 (execution 0) without runtime or when none is live.
  std::int64_t other_live_at_start = 0;
  int other_live_execution = 0;
  std::int64_t retry_count = 0;
  std::int64_t retry_longest_ps = 0;
  std::int64_t never_launched = 0;
  bool last_never_launched = false;
  std::vector<std::string> host_events_between;  // names, most frequent first
  std::vector<LiveHolder> live_at_last_start;    // largest first
  // The allocator's runtime peak (read) and, when it falls inside an execution, that execution ("jit_dot(49)
  // execution 2"), what was in use at its start (read) and what it had allocated itself by then (measured).
  std::optional<std::int64_t> runtime_peak_bytes;
  std::int64_t runtime_peak_time_ps = 0;
  std::string runtime_peak_execution;
  std::int64_t runtime_peak_at_start = 0;
  std::int64_t runtime_peak_own_bytes = 0;
};

}  // namespace oomscope::analysis
