#pragma once
// The diagnosis rules, one function per row of the spec's table, and diagnose() running them all in the
// report's order, for those that use all of them (the report, the tests). Each file declares what its
// source defines: the rules over the buffer assignment in diagnosis_plan.h, over the shape of the peak in
// diagnosis_patterns.h, over the runtime (and diagnose()) in diagnosis_runtime.h.

#include "core/analysis/diagnosis/diagnosis_patterns.h"  // IWYU pragma: export
#include "core/analysis/diagnosis/diagnosis_plan.h"      // IWYU pragma: export
#include "core/analysis/diagnosis/diagnosis_runtime.h"   // IWYU pragma: export
