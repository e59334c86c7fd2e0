#pragma once
// The diagnosis rules of XLA's messages on GPU and TPU (diagnose_xla.cpp).

#include "core/log/log_diagnosis.h"

namespace oomscope::log::detail {

void diagnose_xla_gpu(const Message& m, MessageDiagnosis& d);
void diagnose_tpu(const Message& m, MessageDiagnosis& d);

}  // namespace oomscope::log::detail
