// Logs as report entries (log_entries.h).

#include "app/cli/log_entries.h"

#include <unistd.h>

#include <cstdio>

#include "core/snapshot/file_kind.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

class StderrProgress final : public ProgressSink {
 public:
  void report(double fraction, std::string_view stage) override {
    const int percent = static_cast<int>(fraction * 100.0);
    if (percent == last_) return;
    last_ = percent;
    std::fprintf(stderr, "\r%-16.*s %3d%%", static_cast<int>(stage.size()), stage.data(), percent);
    if (percent >= 100) std::fprintf(stderr, "\r%24s\r", "");
    std::fflush(stderr);
  }

 private:
  int last_ = -1;
};

}  // namespace

std::string log_display_name(const std::string& path) { return path == "-" ? "standard input" : path; }

LogEntry load_log_entry(const std::string& path) {
  LogEntry e;
  if (::isatty(STDERR_FILENO)) {
    StderrProgress progress;
    e.file = log::read_log(path, progress);
  } else {
    NullProgress none;
    e.file = log::read_log(path, none);
  }
  if (e.file.messages.empty())
    throw Error(ErrorKind::NotACapture, "",
                "no out-of-memory message found in " + log_display_name(path) + "; it looks like " +
                    e.file.looks_like);
  e.diagnosis = log::diagnose_log(e.file);
  return e;
}

std::string no_oom_complaint(const LogEntry& e) {
  if (e.file.first_oom()) return "";
  return "no out-of-memory message found in " + log_display_name(e.file.path) + "; it looks like " +
         e.file.looks_like;
}

std::vector<std::string> take_logs_beside_captures(std::vector<std::string>& files) {
  std::vector<snapshot::FileKind> kinds;
  bool xspace = false, other = false;
  for (const std::string& f : files) {
    kinds.push_back(f == "-" ? snapshot::FileKind::Log : snapshot::detect_file_kind(f).kind);
    xspace = xspace || kinds.back() == snapshot::FileKind::XSpace;
    other = other || (kinds.back() != snapshot::FileKind::XSpace && kinds.back() != snapshot::FileKind::Log);
  }
  std::vector<std::string> logs;
  if (!xspace || other) return logs;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < files.size(); ++i)
    (kinds[i] == snapshot::FileKind::Log ? logs : rest).push_back(files[i]);
  files = std::move(rest);
  return logs;
}

}  // namespace oomscope::cli
