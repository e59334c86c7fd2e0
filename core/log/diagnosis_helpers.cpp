// The helpers every family's diagnosis rules share (detail/diagnosis_helpers.h).

#include "core/log/detail/diagnosis_helpers.h"

#include <cstdio>

#include "core/util/bytes.h"

namespace oomscope::log::detail {

std::optional<std::int64_t> value(const Message& m, std::string_view key) {
  const Figure* f = m.figure(key);
  if (!f) return std::nullopt;
  return f->value;
}

std::string read(const Message& m, std::string_view key) {
  const Figure* f = m.figure(key);
  return f ? f->printed : std::string("(not in the log)");
}

std::string bytes(std::int64_t v) { return format_bytes(v); }

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * fraction);
  return buf;
}

analysis::DiagnosisLine line(std::string rule, analysis::Provenance p, std::string finding,
                             std::string cause) {
  analysis::DiagnosisLine l;
  l.rule = std::move(rule);
  l.provenance = p;
  l.finding = std::move(finding);
  l.cause = std::move(cause);
  return l;
}

analysis::Fix fix(std::string action, std::optional<std::int64_t> saving, std::string note,
                  std::string cost) {
  analysis::Fix f;
  f.action = std::move(action);
  f.saving_bytes = saving;
  f.saving_note = std::move(note);
  f.cost = std::move(cost);
  return f;
}

void derive(MessageDiagnosis& d, std::string key, std::int64_t v, std::string how) {
  d.derived.push_back(DerivedFigure{std::move(key), v, std::move(how)});
}

}  // namespace oomscope::log::detail
