#pragma once
// The diagnosis rules, one function per row of the spec's table, and diagnose() running them all in the
// report's order. Each rule returns nothing when its condition does not hold.

#include <optional>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::analysis {

// "the plan fits / does not fit" (with the pool-fraction fix) and, when it does not, the role line(s).
std::vector<DiagnosisLine> rule_plan_vs_pool(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_forward(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_backward(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_workspace(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_other(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_growth(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_no_donation(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_other_live_arrays(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_allocator_retry(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_xla_remat(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_peak_phase(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_transient(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_parameters(const DiagnosisInput& in);
std::vector<DiagnosisLine> rule_patterns(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_host_offload(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_temp_unseen(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_eager(const DiagnosisInput& in);

// "the pool is 75.0 % of the device's 192 GiB: JAX's default ..." ("" when it cannot be inferred: no
// device memory, a user capacity, or TPU).
std::string pool_fraction_note(const DiagnosisInput& in);

// Growth of bytes in use at the start of executions, in words: "+X per execution" when every step is
// the same, "first call +A, then +B per execution", or "not consistent (...)"; "" without steps.
std::string growth_wording(const std::vector<std::int64_t>& steps);

// When the plan does not fit: the smallest greedy sets of fixes (the best of each line, largest saving
// first) with the need after each set, each phase's peak lowered only by what the fixes remove from it.
std::optional<DiagnosisLine> rule_fix_sets(const DiagnosisInput& in, const std::vector<DiagnosisLine>& lines);

std::vector<DiagnosisLine> diagnose(const DiagnosisInput& in);

// The role with the largest share of the plan's peak, parameters and outputs included ("" when none).
const char* dominant_role(const DiagnosisInput& in);

// Bytes of forward-kept peak buffers shaped like attention scores [..., S, S] (last two dims equal, >= 128).
std::int64_t attention_score_bytes(const DiagnosisInput& in, int* count = nullptr);

}  // namespace oomscope::analysis
