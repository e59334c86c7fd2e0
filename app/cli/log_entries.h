#pragma once
// Logs as entries of `report` and `info` (other_formats.cpp for logs alone or beside snapshots,
// cmd_report.cpp for logs beside XSpace captures): read once, then written as text or JSON.

#include <iosfwd>
#include <string>
#include <vector>

#include "core/log/log_diagnosis.h"

namespace oomscope::cli {

struct LogEntry {
  log::LogFile file;
  log::LogDiagnosis diagnosis;
};

// Reads a log ("-" reads standard input), with progress on stderr when it is a terminal. Throws
// oomscope::Error ("no out-of-memory message found in FILE; it looks like ...") when the log holds no
// message at all; a log with messages that are not out-of-memory errors (BFC warnings) is returned.
LogEntry load_log_entry(const std::string& path);

// "FILE" or "standard input".
std::string log_display_name(const std::string& path);

// The one-line complaint for a log whose messages are none of them an out-of-memory error, or "".
std::string no_oom_complaint(const LogEntry& e);

// Logs given beside XSpace captures in one `report`: taken out of `files` (in order) so that the captures
// are reported as before and the logs after them. Nothing is taken when no XSpace capture is among the
// files or when files of other formats are (other_formats.cpp reports or refuses those).
std::vector<std::string> take_logs_beside_captures(std::vector<std::string>& files);

}  // namespace oomscope::cli
