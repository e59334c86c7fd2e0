#pragma once
// The diagnosis rules of the other messages (diagnose_other.cpp): TensorFlow's BFC allocator and OOM
// errors, the stream executor, vLLM, NCCL and XLA allocation failures.

#include "core/log/log_diagnosis.h"

namespace oomscope::log::detail {

void diagnose_other(const Message& m, MessageDiagnosis& d);

}  // namespace oomscope::log::detail
