#pragma once
// The sentences of the Log window, built from a LogDocument: the summary over all messages, the heading
// of one message, and its diagnosis as plain text (every string from the log made safe first).

#include <QString>

#include "ui/log/log_document.h"

namespace oomscope::ui {

// "3 messages, 2 of them out-of-memory errors, from rank 0 and rank 3; the first out-of-memory error: rank 3,
// line 120." (or the no-message sentence).
QString logSummary(const LogDocument& doc);
// "Message 2 of 3: pytorch-cuda at lines 10-14, from rank 3, GPU 0 (torch >= 2.1 wording)".
QString messageHeading(const LogDocument& doc, int message);
// The message's recognised line as shown: made safe, runs of spaces collapsed, and a memory_summary table's
// box rule ("|   PyTorch CUDA memory summary, device ID 0   |") taken off.
QString shownFirstLine(const log::Message& m);
// The message's diagnosis lines with their provenance, causes, fixes and savings, then what to run next.
QString messageDiagnosisText(const LogDocument& doc, int message);

}  // namespace oomscope::ui
