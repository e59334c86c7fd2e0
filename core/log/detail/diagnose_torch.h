#pragma once
// The diagnosis rules of PyTorch's messages (diagnose_torch.cpp): CUDA and HIP, MPS, and
// torch.cuda.memory_summary() tables.

#include "core/log/log_diagnosis.h"

namespace oomscope::log::detail {

void diagnose_torch(const Message& m, MessageDiagnosis& d);
void diagnose_mps(const Message& m, MessageDiagnosis& d);
void diagnose_summary(const Message& m, MessageDiagnosis& d);

}  // namespace oomscope::log::detail
