#pragma once
// The diagnosis rules over the runtime (diagnosis_runtime.cpp): eager execution, growth between
// executions, other live arrays, allocator retries; and diagnose(), running every rule (these and those of
// diagnosis_plan.h and diagnosis_patterns.h) in the report's order. Each rule returns nothing when its
// condition does not hold.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::analysis {

std::optional<DiagnosisLine> rule_growth(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_other_live_arrays(const DiagnosisInput& in);
// The allocator's runtime peak is over the pool (with --capacity): the execution it falls in, what was live
// at its start and what it allocated itself.
std::optional<DiagnosisLine> rule_runtime_peak_over_pool(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_allocator_retry(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_eager(const DiagnosisInput& in);

// Growth of bytes in use at the start of executions, in words: "+X per execution" when every step is
// the same, "first call +A, then +B per execution", or "not consistent (...)"; "" without steps.
std::string growth_wording(const std::vector<std::int64_t>& steps);

std::vector<DiagnosisLine> diagnose(const DiagnosisInput& in);

}  // namespace oomscope::analysis
