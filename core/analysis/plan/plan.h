#pragma once
// The memory PLAN of one XLA module: what XLA's buffer assignment says the step needs, where in program
// order the heap peaks, which buffers are live there, and what they are (shape, role, Python line).
//
// Everything is computed from one xla::HloProto (the optimized module + its BufferAssignmentProto) for one
// memory space (color; 0 = device HBM). The rules follow docs/capture-format.md section 6 (XProf's
// memory-viewer peak algorithm) and docs/report-rules.md (roles, donation, remat).
// All byte figures are exact int64 bytes; "read" figures come straight from the proto, everything here is
// "derived" from them by replaying the heap-simulator trace.
//
// Plain structs, no Qt; analyze_plan() is pure and thread-safe (it only reads the proto).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/plan/plan_buffer.h"
#include "core/util/enum_names.h"

namespace xla {
class HloProto;
}  // namespace xla

namespace oomscope::capture {
struct Module;
}

namespace oomscope::analysis {

// ---- donation ---------------------------------------------------------------------------------------

// One entry-parameter allocation and the evidence that it is (or is not) donated.
struct ParameterAllocation {
  std::int64_t allocation_index = -1;
  std::int64_t parameter_number = -1;
  std::vector<std::int64_t> parameter_shape_index;
  std::int64_t bytes = 0;              // allocation size
  std::string shape;                   // shape of the parameter (element), e.g. "f32[1024,1024]"
  std::string name;                    // parameter instruction name
  bool flag_live_out = false;          // allocation also maybe_live_out (param + output in one allocation)
  bool flag_aliased = false;           // is_parameter_aliased_with_output (newer XLA)
  bool in_input_output_alias = false;  // (parameter_number, shape index) in HloModuleProto.input_output_alias
  bool in_buffer_donor = false;        // ... in HloModuleProto.buffer_donor
  // Donated = the allocation says so (flag_live_out or flag_aliased), or, without a buffer assignment, the
  // module's input_output_alias says so.
  bool donated = false;
  // Not donated, but an un-aliased output has the same dtype and dimensions: donate_argnums could reuse it.
  bool donatable = false;
  std::vector<std::int64_t> matching_output_index;  // the output's tuple index, when donatable
  // Not donated; the un-aliased output of the same dtype and dimensions is a gradient (made by a
  // "transpose(" instruction), so it does not replace the parameter and donating it would save nothing.
  bool matching_gradient = false;
};

struct DonationSummary {
  std::int64_t parameter_bytes = 0;  // all entry-parameter allocations
  std::int64_t donated_bytes = 0;
  std::int64_t donatable_bytes = 0;         // what donating the candidates could save ("could save up to X")
  std::int64_t gradient_matched_bytes = 0;  // parameters whose same-shaped output is their gradient
  int donated_count = 0;
  int donatable_count = 0;
  std::vector<ParameterAllocation> parameters;  // by parameter number, then shape index
  // Disagreements between the allocation flags and input_output_alias / buffer_donor, one sentence each.
  std::vector<std::string> inconsistencies;
};

// ---- memory curve -----------------------------------------------------------------------------------

// Heap size in program order. Point i is the heap size AFTER trace event i (so the peak event's point is
// the peak itself); `indefinite_bytes` is the constant to add for the module's total (as XProf does).
// XProf's own timeline is the size BEFORE each event plus one final point; ours is shifted by one.
struct MemoryCurve {
  std::vector<std::int64_t> heap_bytes;        // one per trace event
  std::vector<std::uint32_t> instruction;      // per event: index into instruction_names
  std::vector<std::string> instruction_names;  // distinct event instruction names
  std::int64_t indefinite_bytes = 0;

  std::size_t size() const { return heap_bytes.size(); }
  // Saturates, as the byte sums it adds do (a damaged plan can carry absurd sizes).
  std::int64_t total_at(std::size_t i) const {
    std::int64_t total = 0;
    if (__builtin_add_overflow(heap_bytes[i], indefinite_bytes, &total))
      return indefinite_bytes > 0 ? INT64_MAX : INT64_MIN;
    return total;
  }
  std::string_view instruction_at(std::size_t i) const { return instruction_names[instruction[i]]; }
};

// ---- traces -----------------------------------------------------------------------------------------

enum class TraceChoice : std::uint8_t {
  Auto,       // the spec's rule: the trace owned by a non-indefinite allocation of the color (first event's
              // logical buffer); otherwise the trace with the most events of that color
  AllTraces,  // walk every trace in order as one sequence, events of other colors left out (XLA's
              // ComputePeakMemory variant)
  Index,      // PlanOptions::trace_index
};

enum class TraceSelection : std::uint8_t {
  None,             // no trace usable (no buffer assignment, no trace, or nothing of the color)
  OwnedByTemp,      // owned by a non-indefinite allocation (XProf's first try)
  MostColorEvents,  // fallback: most events whose buffer has the color
  AllTraces,        // TraceChoice::AllTraces
  Requested,        // TraceChoice::Index
};
inline constexpr EnumName<TraceSelection> kTraceSelectionNames[] = {
    {TraceSelection::None, "none"},
    {TraceSelection::OwnedByTemp, "trace of the temp allocation"},
    {TraceSelection::MostColorEvents, "trace with the most events of the memory space"},
    {TraceSelection::AllTraces, "all traces in sequence"},
    {TraceSelection::Requested, "requested trace"}};
static_assert(names_every_value(kTraceSelectionNames, TraceSelection::Requested));
const char* to_string(TraceSelection selection) noexcept;

struct TraceInfo {
  int index = 0;  // position in heap_simulator_traces
  std::int64_t events = 0;
  std::int64_t color_events = 0;          // events whose logical buffer has the analysed color
  std::int64_t owner_allocation = -1;     // allocation owning the first event's buffer (-1 unknown)
  std::int64_t declared_allocation = -1;  // buffer_allocation_index as written (not trustworthy)
  bool whole_module = false;
  std::int64_t heap_peak_bytes = 0;  // this trace replayed alone
};

// ---- phases ------------------------------------------------------------------------------------------

// Where in the program a heap point lies, from the JAX name stacks of the trace's instructions: the
// backward runs from the first to the last event of a "transpose(" instruction; before it is the
// forward, after it the optimizer/update. A program with no "transpose(" has no backward.
enum class Phase : std::uint8_t { Forward, Backward, Update, NoBackward };
// "forward", "backward", "update", "no backward"
inline constexpr EnumName<Phase> kPhaseNames[] = {{Phase::Forward, "forward"},
                                                  {Phase::Backward, "backward"},
                                                  {Phase::Update, "update"},
                                                  {Phase::NoBackward, "no backward"}};
static_assert(names_every_value(kPhaseNames, Phase::NoBackward));
const char* to_string(Phase phase) noexcept;

// The highest point of the module's memory (heap + indefinite allocations) within one phase.
struct PhasePeak {
  Phase phase = Phase::NoBackward;
  std::int64_t bytes = 0;       // heap + indefinite bytes at that point
  std::int64_t heap_bytes = 0;  // heap (temp) bytes only
  std::int64_t event_index = -1;
  std::string instruction;  // trace event's instruction
};

// ---- patterns ----------------------------------------------------------------------------------------

// A memory pattern seen at the peak (or in the plan), each with its own finding and fix.
enum class PatternKind : std::uint8_t {
  SplitKPartials,   // an f32 buffer of a dot that a reduce sums into a result `factor` times smaller
  ConvOutputTwice,  // a convolution's output live together with a same-size copy/transpose of it
  HostPrefetch,     // copy-start / copy-done pairs (host <-> device prefetch) with buffers at the peak
};
inline constexpr EnumName<PatternKind> kPatternKindNames[] = {
    {PatternKind::SplitKPartials, "split-k-partials"},
    {PatternKind::ConvOutputTwice, "conv-output-twice"},
    {PatternKind::HostPrefetch, "host-prefetch"}};
static_assert(names_every_value(kPatternKindNames, PatternKind::HostPrefetch));
const char* to_string(PatternKind kind) noexcept;  // "split-k-partials", "conv-output-twice", "host-prefetch"

struct PlanPattern {
  PatternKind kind = PatternKind::SplitKPartials;
  std::string instruction;  // the buffer's defining instruction (the dot fusion, the conv, the copy-start)
  std::string shape;        // its shape
  std::int64_t bytes = 0;   // bytes at the peak this pattern accounts for
  std::string other_instruction;  // the reduce / the copy / the copy-done
  std::string other_shape;
  std::int64_t other_bytes = 0;
  int factor = 0;  // split-K: partials / result element ratio
  int count = 1;   // host prefetch: copy-start instructions
  std::string op_name;
  SourceLocation source;
};

// Allocation totals of a memory space other than the analysed one (memory space 5 = host offload).
struct MemorySpaceTotals {
  std::int64_t color = 0;
  std::int64_t parameters_bytes = 0;
  int parameter_allocations = 0;
  std::int64_t parameters_aliased_bytes = 0;  // parameters that are also outputs (aliased)
  std::int64_t outputs_bytes = 0;             // outputs that are not parameters
  std::int64_t temp_bytes = 0;
  std::int64_t other_bytes = 0;  // constants, thread-local
  std::int64_t largest_parameter_bytes = 0;
  std::string largest_parameter_shape;
  int largest_parameter_count = 0;  // parameters of exactly that size
  // Every logical buffer assigned to an allocation of this memory space, largest first (XProf's memory
  // viewer shows a memory space's buffers on its own); size_bytes is the logical buffer's size, role the
  // allocation's kind (parameter, output, constant, thread-local) or the buffer's own for temp.
  std::vector<PlanBuffer> buffers;
};

// ---- the analysis -----------------------------------------------------------------------------------

enum class PlanStatus : std::uint8_t {
  Ok,                  // peak from a replayed trace, or a module without temp memory (nothing to replay)
  NoBufferAssignment,  // HloProto without buffer_assignment: nothing but module facts
  NoHeapTrace,         // buffer assignment but no usable trace: allocation totals only
};
inline constexpr EnumName<PlanStatus> kPlanStatusNames[] = {
    {PlanStatus::Ok, "ok"},
    {PlanStatus::NoBufferAssignment, "no buffer assignment"},
    {PlanStatus::NoHeapTrace, "no heap-simulator trace"}};
static_assert(names_every_value(kPlanStatusNames, PlanStatus::NoHeapTrace));
const char* to_string(PlanStatus status) noexcept;

struct PlanOptions {
  std::int64_t color = 0;
  TraceChoice trace = TraceChoice::Auto;
  int trace_index = 0;  // for TraceChoice::Index
  // Only trace positions [first, last] are looked at for the peak: the "peak" (and the buffers, roles and
  // patterns at it) becomes the highest point of that program-order range. nullopt = the whole trace.
  std::optional<std::pair<std::int64_t, std::int64_t>> peak_range;
};

struct PlanAnalysis {
  std::string module_name;
  std::uint64_t program_id = 0;
  std::int64_t color = 0;
  PlanStatus status = PlanStatus::NoBufferAssignment;
  // Problems met (unknown buffer ids in the trace, FREE of a buffer never allocated, traced buffers in
  // several allocations, an out-of-range trace index...), one sentence each. The analysis still completes.
  std::vector<std::string> notes;

  // Allocation totals of the color (read). A parameter allocation that is also live-out counts as parameter.
  std::int64_t parameters_bytes = 0;
  std::int64_t outputs_bytes = 0;  // maybe_live_out allocations that are not parameters
  std::int64_t temp_bytes = 0;     // the non-indefinite allocations (GPU: one combined temp block)
  std::int64_t constants_bytes = 0;
  std::int64_t thread_local_bytes = 0;
  std::int64_t indefinite_bytes =
      0;  // sum of the indefinite allocations (param/output/constant/thread-local)
  std::int64_t total_allocation_bytes = 0;
  int allocation_count = 0;

  // Peak (derived). peak_bytes = heap_peak_bytes + indefinite_bytes.
  TraceSelection selection = TraceSelection::None;
  int selected_trace = -1;  // index into traces; -1 for None and AllTraces
  std::int64_t heap_peak_bytes = 0;
  std::int64_t peak_bytes = 0;
  std::optional<std::pair<std::int64_t, std::int64_t>> peak_range;  // PlanOptions::peak_range, as applied
  std::int64_t peak_event_index = -1;  // index into the replayed event sequence (curve x of the peak)
  std::string peak_instruction;        // that event's instruction_name
  std::string peak_computation;        // that event's computation_name
  // XLA's ComputePeakMemory: largest assigned logical buffer of every non-thread-local indefinite
  // allocation + the peak of all traces replayed as one sequence (both restricted to the color). Differs
  // from peak_bytes when there are several traces or representatives smaller than their allocation;
  // shown for cross-checking.
  std::int64_t xla_compute_peak_bytes = 0;
  // XProf's "peak unpadded heap": the unpadded sizes of the heap buffers live at the peak (-1 when a
  // shape is unknown, or no heap peak), and with the indefinite allocations added at their padded size,
  // as XProf adds them. Equal to the heap figures where layouts add no padding (GPU); smaller on TPU.
  std::int64_t unpadded_heap_peak_bytes = -1;
  std::int64_t unpadded_peak_bytes = -1;

  // Buffers live at the peak: indefinite representatives first (by allocation index, empty allocations
  // left out), then the heap buffers in the order they became live. Each buffer appears once. Small
  // buffers are kept individually; merge_small_buffers() gives XProf's merged view.
  std::vector<PlanBuffer> live_at_peak;
  // One entry per role that has buffers at the peak, largest first; sums to peak_bytes.
  std::vector<RoleTotal> role_totals;

  MemoryCurve curve;
  std::vector<TraceInfo> traces;
  DonationSummary donation;

  // Phases (derived from the name stacks): where the peak is, the highest point of each phase present,
  // highest first, and the backward's first/last trace event (-1 when the program has no backward).
  Phase peak_phase = Phase::NoBackward;
  std::vector<PhasePeak> phase_peaks;
  std::int64_t backward_start_event = -1;
  std::int64_t backward_end_event = -1;
  // The highest phase peak outside the peak's phase; nullopt when there is one phase only.
  std::optional<PhasePeak> other_phase_peak() const;

  std::vector<PlanPattern> patterns;
  std::vector<MemorySpaceTotals> other_memory_spaces;  // colors other than `color`, by color

  int remat_instructions = 0;          // instructions (outside fusion bodies) whose name contains ".remat"
  int instruction_count = 0;           // instructions outside fusion bodies
  std::int64_t trace_event_count = 0;  // events replayed

  // Sum of one role at the peak (0 when absent).
  std::int64_t role_bytes(BufferRole role) const;
};

// Analyses one module. Never throws for odd content (it is reported in notes); throws std::bad_alloc only.
PlanAnalysis analyze_plan(const xla::HloProto& hlo, const PlanOptions& options = {});
// Same, for a module of a capture (module name and program id from the capture). A module whose hlo is null
// yields status NoBufferAssignment and a note.
PlanAnalysis analyze_plan(const capture::Module& module, const PlanOptions& options = {});

}  // namespace oomscope::analysis
