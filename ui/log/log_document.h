#pragma once
// One log read for the Log window: its messages (core/log/log.h), what they say (log_diagnosis.h) and the
// report text the CLI prints for it, built on a worker and immutable after that, so the window and its models
// share it without locks.

#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "core/log/log_diagnosis.h"
#include "core/util/progress.h"

namespace oomscope::ui {

struct LogDocument {
  log::LogFile file;
  log::LogDiagnosis diagnosis;
  std::string report;  // write_log_text(): raw bytes from the log inside, shown through safeMultiline

  bool empty() const { return file.messages.empty(); }
  // What oomscope derived for message `index` (in the log's order); nullptr for an index out of range.
  const log::MessageDiagnosis* diagnosisOf(std::size_t index) const;
  // What the window says when the text holds no out-of-memory message (the CLI's sentence).
  std::string noMessageText() const;
};

// Reads a log file (throws oomscope::Error naming it, or Cancelled).
std::shared_ptr<const LogDocument> loadLogDocument(const std::string& path, ProgressSink& progress,
                                                   std::stop_token stop);
// Reads text in memory (a pasted log); `name` is what the report calls it.
std::shared_ptr<const LogDocument> logDocumentFromText(std::string_view text, const std::string& name);

}  // namespace oomscope::ui
