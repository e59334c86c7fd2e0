#pragma once
// A failed job's error as the UI receives it: the kind, the file and the problem kept apart (not flattened
// into one string), so that the window can name the file, word the problem and offer the action that fits
// the kind (ui/shell/load_error_box.h), for a capture and for a file a page opens (PageFileOpener). Built on
// the worker from the exception the job threw; the texts are already made safe for display (controls and
// bidi escaped, ui/session/safe_text_qt.h), not for markup: a widget that renders rich text must still escape
// them or be set to Qt::PlainText.

#include <QMetaType>
#include <QString>
#include <exception>

#include "core/util/error.h"

namespace oomscope::ui {

struct JobError {
  ErrorKind kind = ErrorKind::Internal;
  QString subject;     // what the job worked on, as the UI named it (the path the user gave, "3 files")
  QString file;        // the file the error is about; the subject when the error named none
  QString problem;     // the problem, without the file name, as the reader wrote it
  qint64 offset = -1;  // the byte offset of the damage, -1 when unknown
  QString companion;   // CompanionNeeded: the capture to open instead

  // "<file>: <problem>": the one line the CLI prints for the same error.
  QString text() const;
  // The problem as a sentence: capitalised, ending in a full stop; one that starts "is ..." gets the file's
  // name in front ("host0.trace.json.gz is a trace-viewer export ...").
  QString sentence() const;

  // From an exception a job threw: oomscope::Error keeps its kind and parts; std::bad_alloc is TooLarge
  // (not enough memory); anything else is Internal ("unexpected error: ...").
  static JobError fromException(const QString& subject, std::exception_ptr error);
  static JobError fromError(const QString& subject, const Error& error);
};

}  // namespace oomscope::ui

Q_DECLARE_METATYPE(oomscope::ErrorKind)
Q_DECLARE_METATYPE(oomscope::ui::JobError)
