#pragma once
// The diagnosis rules of each family of messages (docs/logs.md "Diagnosis"): diagnose_torch.cpp (PyTorch
// CUDA / HIP / MPS and memory_summary), diagnose_xla.cpp (XLA GPU and TPU), diagnose_other.cpp (BFC,
// TensorFlow, vLLM, NCCL, XLA allocation failures). Each fills a MessageDiagnosis from read figures only.

#include <optional>
#include <string>

#include "core/log/log_diagnosis.h"

namespace oomscope::log::detail {

void diagnose_torch(const Message& m, MessageDiagnosis& d);
void diagnose_mps(const Message& m, MessageDiagnosis& d);
void diagnose_summary(const Message& m, MessageDiagnosis& d);
void diagnose_xla_gpu(const Message& m, MessageDiagnosis& d);
void diagnose_tpu(const Message& m, MessageDiagnosis& d);
void diagnose_other(const Message& m, MessageDiagnosis& d);

// Shared by the rule files.
std::optional<std::int64_t> value(const Message& m, std::string_view key);
std::string read(const Message& m, std::string_view key);  // "16.00 GiB" as printed, "" when absent
std::string bytes(std::int64_t v);                         // "3.72 GiB" (derived figures)
std::string percent(double fraction);                      // "12.3 %"
analysis::DiagnosisLine line(std::string rule, analysis::Provenance p, std::string finding,
                             std::string cause = {});
analysis::Fix fix(std::string action, std::optional<std::int64_t> saving, std::string note,
                  std::string cost = {});
void derive(MessageDiagnosis& d, std::string key, std::int64_t v, std::string how);

}  // namespace oomscope::log::detail
