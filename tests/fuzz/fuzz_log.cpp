// libFuzzer target for the log reader: any bytes must give a LogFile (read_log_text never throws), whose
// messages keep their line order and their figures' invariants; the diagnosis, the text report and the info
// list are computed too, and nothing that leaves terminal_safe may hold an escape byte.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/log/log_diagnosis.h"
#include "core/log/log_text.h"
#include "core/util/safe_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const oomscope::log::LogFile log = oomscope::log::read_log_text(text, "<fuzz input>");
  if (log.bytes != size) __builtin_trap();
  std::int64_t last = 0;
  for (const auto& m : log.messages) {
    if (m.line < 1 || m.end_line < m.line || m.line > log.lines + 1) __builtin_trap();
    if (m.line < last - 8) __builtin_trap();  // in order (a TPU report may take in up to 8 lines before it)
    last = m.line;
    for (const auto& f : m.figures)
      if (f.error < 0 || (f.exact && f.error != 0)) __builtin_trap();
  }
  const oomscope::log::LogDiagnosis d = oomscope::log::diagnose_log(log);
  if (d.messages.size() != log.messages.size()) __builtin_trap();
  std::ostringstream out;
  oomscope::log::write_log_text(out, log, d);
  oomscope::log::write_log_info(out, log);
  const std::string shown = oomscope::terminal_safe(out.str());
  if (shown.find('\x1b') != std::string::npos) __builtin_trap();
  return 0;
}
