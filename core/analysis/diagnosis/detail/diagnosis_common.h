#pragma once
// Internal helpers shared by the diagnosis rule files.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "core/analysis/diagnosis/diagnosis_types.h"
#include "core/util/bytes.h"

namespace oomscope::analysis::detail {

inline std::string mib(std::int64_t bytes) { return format_bytes(bytes); }

// "19.500056 s": a time on the capture's clock, as the report prints it.
inline std::string clock_time(std::int64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(ps) / 1e12);
  return buf;
}

inline std::string percent(std::int64_t part, std::int64_t whole) {
  if (whole <= 0) return "0 %";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// Where the other live arrays were counted: "at its start" (one execution), else "at the start of execution
// 2 (the most of its 3)"; with `named`, the module is named: "at the start of execution 2 of jit_dot (...)".
inline std::string other_live_where(const DiagnosisInput& in, bool named = false) {
  const std::string of = named ? " of " + in.module : "";
  if (in.executions <= 1) return named ? "at the start" + of : "at its start";
  return "at the start of execution " + std::to_string(in.other_live_execution) + of + " (the most of its " +
         std::to_string(in.executions) + ")";
}

// Fills fits_after / needed_after for a fix that lowers the plan's requirement `need` by its saving.
// other_phase_saving: what the fix also removes from the other phase's peak (parameters, outputs: all of
// it; a fix of the peak phase's temporaries: nothing). The need never drops below that other peak.
inline Fix checked(Fix f, const DiagnosisInput& in, std::int64_t need, std::int64_t other_phase_saving = 0) {
  f.other_phase_saving_bytes = other_phase_saving;
  if (f.saving_bytes) {
    std::int64_t after = need - *f.saving_bytes;
    if (in.other_phase_peak_bytes) {
      const std::int64_t floor = *in.other_phase_peak_bytes - other_phase_saving;
      if (floor > after) {
        after = floor;
        f.floor_bytes = floor;
      }
    }
    f.needed_after_bytes = after;
    f.other_live_bytes = in.other_live_at_start;
    f.other_live_where = other_live_where(in);
    if (in.capacity_bytes) f.fits_after = after + in.other_live_at_start <= *in.capacity_bytes;
  }
  return f;
}

// What the analysed module is to the program: "the step", or "this op" in an eager program (many single-op
// modules, none a step), where step and optimizer wording would be untrue.
inline std::string unit_of(const DiagnosisInput& in) { return in.eager ? "this op" : "the step"; }

inline constexpr const char* kConfirm =
    "confirm on your side with jit(f).lower(...).compile().memory_analysis() after the change";

}  // namespace oomscope::analysis::detail
