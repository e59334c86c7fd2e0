#pragma once
// A log's report and `info` as text (log_text.cpp). The output holds raw bytes from the log (first lines,
// names, shapes): the caller makes it safe for its terminal or widget.

#include <ostream>

#include "core/log/log.h"
#include "core/log/log_diagnosis.h"

namespace oomscope::log {

// The report as text (the CLI prints it through terminal_safe; the GUI shows it as plain text).
void write_log_text(std::ostream& out, const LogFile& log, const LogDiagnosis& d);
// `info`: the messages found, with their kinds and line numbers.
void write_log_info(std::ostream& out, const LogFile& log);

}  // namespace oomscope::log
