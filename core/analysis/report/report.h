#pragma once
// The assembled "explain the peak" report of one capture file (one host): the plan of the analysed module,
// the runtime analysis, the diagnosis and the known limits that apply. Text and JSON writers render it.

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"
#include "core/analysis/plan/plan.h"
#include "core/analysis/report/donation_liveness.h"
#include "core/analysis/report/program_kind.h"
#include "core/analysis/runtime/runtime_peak.h"
#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"
#include "core/util/enum_names.h"

namespace oomscope::analysis {

struct HostReport;

struct ReportOptions {
  std::optional<std::string> module;  // name, "name(id)" or program id; nullopt = the default choice
  // The module with this program id (the GUI's choice); takes precedence over module.
  std::optional<std::uint64_t> program_id;
  std::size_t top = 25;                  // rows of the live-at-peak, host-event and live-group lists
  std::optional<std::int64_t> capacity;  // answer "would it fit in a pool of this size"
  std::size_t series_points = 1000;      // per allocator in-use series (JSON, charts)
  // A selection: the analysed module's peak is looked for in trace positions [first, last] only
  // (PlanOptions::peak_range), and the runtime sees only [first, last] ps of the capture
  // (RuntimeOptions::time_window). nullopt = everything.
  std::optional<std::pair<std::int64_t, std::int64_t>> plan_range;
  std::optional<std::pair<std::int64_t, std::int64_t>> time_window;
  // A report of the same capture without a time window (the GUI keeps the one it showed before the
  // selection): its executions are reused instead of being built again. The report is the same with or
  // without it; it is ignored unless it was built from this file (path and size) with no time window.
  const HostReport* whole_capture = nullptr;
};

// Where HostReport::capacity_bytes came from.
enum class CapacitySource : std::uint8_t {
  None,       // no capacity: no allocator capacity in the capture and none given
  Allocator,  // an allocator's capacity, read from the capture (HostReport::capacity_allocator names it)
  Given,      // given by the user (the CLI's --capacity, the GUI's pool field)
};
// The names are what the JSON report's capacity.source says (an allocator's own name for Allocator).
inline constexpr EnumName<CapacitySource> kCapacitySourceNames[] = {{CapacitySource::None, ""},
                                                                    {CapacitySource::Allocator, "allocator"},
                                                                    {CapacitySource::Given, "--capacity"}};
static_assert(names_every_value(kCapacitySourceNames, CapacitySource::Given));

struct ModuleRow {
  std::string name;
  std::uint64_t program_id = 0;
  PlanStatus status = PlanStatus::NoBufferAssignment;
  std::int64_t peak_bytes = 0;  // plan peak (derived); allocation total when there is no heap trace
  std::int64_t temp_bytes = 0;
  std::int64_t parameters_bytes = 0;
  std::int64_t donated_bytes = 0;
  std::int64_t outputs_bytes = 0;
  std::int64_t executions = 0;                // host executions matched to it
  std::int64_t executions_by_program_id = 0;  // of those, matched by program id (the rest by name)
  std::int64_t executions_ambiguous = 0;      // of the rest, those whose launches named several programs
  bool has_backward = false;                  // its plan has a backward pass (a transpose( name stack)
};

struct HostReport {
  std::string path;
  std::uint64_t file_size = 0;
  std::vector<std::string> hostnames;
  std::optional<std::int64_t>
      profile_start_ns;    // Task Environment's profile_start_time (read), when recorded
  std::string platform;    // "GPU (AMD)", "GPU (Nvidia)", "TPU", "unknown"
  bool plan_only = false;  // a bare HloProto: no runtime section
  std::optional<std::int64_t> device_memory_bytes;  // memory_size stat of the first device plane (read)
  std::vector<ModuleRow> modules;                   // every module of /host:metadata, by program id
  std::optional<std::size_t> module_index;          // the analysed module (index into modules)
  std::optional<PlanAnalysis> plan;                 // its plan
  RuntimeAnalysis runtime;
  std::optional<std::int64_t> capacity_bytes;
  CapacitySource capacity_source = CapacitySource::None;
  std::string capacity_allocator;       // the allocator whose capacity it is (CapacitySource::Allocator)
  ProgramKind program;                  // eager or a step, decided for the program (derived)
  bool eager = false;                   // program.eager
  std::optional<bool> temp_block_seen;  // an allocator event requested the analysed module's temp block
  std::int64_t largest_allocation_bytes =
      0;  // the largest any allocation event asks for (read; with temp_block_seen)
  // The peak of the analysed module's allocator (else the device allocator with the largest peak)
  // explained: its execution, what was live by producer, requested -> chunk.
  std::optional<RuntimePeak> runtime_peak;
  std::optional<std::size_t> peak_module_index;  // the module of the peak's execution (index into modules)
  // Module-wide facts (derived / read): split-K partials at the other phase's peak, the largest library
  // workspace (s8 custom-call output) in the module.
  std::int64_t other_phase_split_k_bytes = 0;
  std::string other_phase_split_k_instruction;
  std::int64_t gemm_workspace_bytes = 0;
  // Whether the donatable parameters' buffers are dead after the analysed module's calls (measured).
  DonationLiveness donation_liveness;
  std::string diagnosis_pool_note;  // the inferred memory fraction ("" when it cannot be inferred)
  std::vector<DiagnosisLine> diagnosis;
  std::vector<std::string> limits;  // the spec's known limits that apply to this capture
  // The file is cut short (capture/cut_short.h): every runtime figure counts only the planes read whole.
  bool cut_short = false;
  std::string module_note;            // several modules answer --module NAME: which one is analysed
  std::vector<std::string> problems;  // XSpace errors, module problems, selection notes
};

// What the JSON report's capacity.source says: "--capacity", the allocator's name, or "" without a capacity.
std::string capacity_source_text(const HostReport& report);

// Throws oomscope::Error(InvalidArgument) when options.module or options.program_id names no module of the
// capture.
HostReport build_host_report(const capture::Capture& capture, const ReportOptions& options,
                             const std::stop_token& stop = {});

// A plan-only report of a bare HloProto sidecar (<module>(<id>).hlo_proto.pb): no runtime, the capacity only
// when given in the options.
HostReport build_plan_report(const capture::Module& module, const std::string& path, std::uint64_t file_size,
                             const ReportOptions& options);

// Adds the limits that concern several files read together (one file per host).
void add_multi_host_limits(std::vector<HostReport>& hosts);

}  // namespace oomscope::analysis
