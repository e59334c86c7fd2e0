#pragma once
// The diagnosis rules over the shape of the peak (diagnosis_patterns.cpp): its phase, transients,
// parameters, the buffer patterns, host offload, temporaries the capture did not see, and the sets of fixes.
// Each rule returns nothing when its condition does not hold.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::analysis {

std::optional<DiagnosisLine> rule_peak_phase(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_transient(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_parameters(const DiagnosisInput& in);
std::vector<DiagnosisLine> rule_patterns(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_host_offload(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_temp_unseen(const DiagnosisInput& in);

// When the plan does not fit: the smallest greedy sets of fixes (the best of each line, largest saving
// first) with the need after each set, each phase's peak lowered only by what the fixes remove from it.
std::optional<DiagnosisLine> rule_fix_sets(const DiagnosisInput& in, const std::vector<DiagnosisLine>& lines);

}  // namespace oomscope::analysis
