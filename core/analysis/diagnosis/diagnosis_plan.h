#pragma once
// The diagnosis rules over the buffer assignment (diagnosis_plan.cpp): the plan against the pool, which role
// fills it, workspace, donation, rematerialisation. Each rule returns nothing when its condition does not
// hold; diagnose() (diagnosis_runtime.h) runs them all in the report's order.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::analysis {

// "the plan fits / does not fit" (with the pool-fraction fix) and, when it does not, the role line(s).
std::vector<DiagnosisLine> rule_plan_vs_pool(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_forward(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_backward(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_workspace(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_mostly_other(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_no_donation(const DiagnosisInput& in);
std::optional<DiagnosisLine> rule_xla_remat(const DiagnosisInput& in);

// "the pool is 75.0 % of the device's 192 GiB: JAX's default ..." ("" when it cannot be inferred: no
// device memory, a user capacity, or TPU).
std::string pool_fraction_note(const DiagnosisInput& in);

// The role with the largest share of the plan's peak, parameters and outputs included ("" when none).
const char* dominant_role(const DiagnosisInput& in);

// Bytes of forward-kept peak buffers shaped like attention scores [..., S, S] (last two dims equal, >= 128).
std::int64_t attention_score_bytes(const DiagnosisInput& in, int* count = nullptr);

}  // namespace oomscope::analysis
