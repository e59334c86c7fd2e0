#pragma once
// What the diagnosis rules of every family of messages (detail/diagnose_torch.h, diagnose_xla.h,
// diagnose_other.h) share: reading a message's figures, formatting, and building lines, fixes and derived
// figures. Each rule fills a MessageDiagnosis from read figures only (docs/logs.md "Diagnosis").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/log/log_diagnosis.h"

namespace oomscope::log::detail {

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
