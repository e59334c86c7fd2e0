// The log model's small helpers (log.h).

#include "core/log/log.h"

#include <algorithm>

namespace oomscope::log {

const char* to_string(MessageKind k) noexcept { return enum_name(kMessageKindNames, k, "?"); }

bool is_out_of_memory(const Message& m) noexcept {
  if (m.kind == MessageKind::BfcWarning) return false;
  if (m.kind == MessageKind::PytorchMemorySummary) {
    const Figure* ooms = m.figure("ooms");
    return ooms && ooms->value > 0;
  }
  return true;
}

const Figure* Message::figure(std::string_view key) const noexcept {
  for (const Figure& f : figures)
    if (f.key == key) return &f;
  return nullptr;
}

std::vector<std::string> LogFile::sources() const {
  std::vector<std::string> out;
  for (const Message& m : messages)
    if (std::find(out.begin(), out.end(), m.source) == out.end()) out.push_back(m.source);
  return out;
}

std::optional<std::size_t> LogFile::first_oom() const {
  for (std::size_t i = 0; i < messages.size(); ++i)
    if (is_out_of_memory(messages[i])) return i;
  return std::nullopt;
}

bool has_oom_marker(std::string_view head) { return read_log_text(head, "").first_oom().has_value(); }

}  // namespace oomscope::log
