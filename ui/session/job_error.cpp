#include "ui/session/job_error.h"

#include <QFileInfo>
#include <new>
#include <string_view>

#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

QString JobError::text() const { return file.isEmpty() ? problem : file + QStringLiteral(": ") + problem; }

QString JobError::sentence() const {
  QString s = problem;
  // "is a directory, ..." reads as a sentence about the file: "run7 is a directory, ...".
  if (s.startsWith(QLatin1String("is ")) && !file.isEmpty())
    s = QFileInfo(file).fileName() + QLatin1Char(' ') + s;  // a file name keeps its case
  else if (!s.isEmpty())
    s[0] = s[0].toUpper();
  if (!s.endsWith(QLatin1Char('.'))) s += QLatin1Char('.');
  return s;
}

JobError JobError::fromError(const QString& subject, const Error& e) {
  JobError out;
  out.kind = e.kind();
  out.subject = subject;
  out.file = e.file().empty() ? subject : safeText(e.file());
  out.problem = safeMultiline(e.message());
  if (e.offset()) out.offset = qint64(*e.offset());
  out.companion = QString::fromStdString(e.companion());  // a path to open: kept as it is
  return out;
}

JobError JobError::fromException(const QString& subject, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return fromError(subject, e);
  } catch (const std::bad_alloc&) {
    return {ErrorKind::TooLarge,
            subject,
            subject,
            QStringLiteral("not enough memory to load this file."),
            -1,
            {}};
  } catch (const std::exception& e) {
    return {ErrorKind::Internal,
            subject,
            subject,
            QStringLiteral("unexpected error: ") + safeMultiline(std::string_view(e.what())),
            -1,
            {}};
  } catch (...) {
    return {
        ErrorKind::Internal, subject, subject, QStringLiteral("unexpected error of unknown type."), -1, {}};
  }
}

}  // namespace oomscope::ui
