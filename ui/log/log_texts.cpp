#include "ui/log/log_texts.h"

#include <QCoreApplication>
#include <QStringList>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("LogWindow", text); }

}  // namespace

QString shownFirstLine(const log::Message& m) {
  QString line = safeText(m.first_line).simplified();
  if (line.size() >= 2 && line.front() == u'|' && line.back() == u'|')
    line = line.mid(1, line.size() - 2).trimmed();
  return line;
}

QString logSummary(const LogDocument& doc) {
  if (doc.empty()) return safeText(doc.noMessageText());
  const auto& messages = doc.file.messages;
  int ooms = 0;
  for (const log::Message& m : messages) ooms += log::is_out_of_memory(m) ? 1 : 0;
  QString text = messages.size() == 1 ? tr("1 message") : tr("%1 messages").arg(messages.size());
  if (ooms == static_cast<int>(messages.size()))
    text += messages.size() == 1 ? tr(", an out-of-memory error") : tr(", all out-of-memory errors");
  else
    text += tr(", %1 of them out-of-memory errors").arg(ooms);
  QStringList sources;
  for (const std::string& s : doc.file.sources())
    if (!s.empty()) sources << safeText(s);
  if (!sources.isEmpty()) text += tr(", from %1").arg(sources.join(QStringLiteral(", ")));
  if (const auto first = doc.file.first_oom(); first && sources.size() > 1) {
    const log::Message& m = messages[*first];
    text += tr("; the first out-of-memory error: %1, line %2")
                .arg(m.source.empty() ? tr("no rank stated") : safeText(m.source))
                .arg(m.line);
  }
  return text + QStringLiteral(".");
}

QString messageHeading(const LogDocument& doc, int message) {
  if (message < 0 || static_cast<std::size_t>(message) >= doc.file.messages.size()) return {};
  const log::Message& m = doc.file.messages[static_cast<std::size_t>(message)];
  QString text = tr("Message %1 of %2: %3 at line %4")
                     .arg(message + 1)
                     .arg(doc.file.messages.size())
                     .arg(QString::fromLatin1(log::to_string(m.kind)))
                     .arg(m.line);
  if (m.end_line > m.line) text += QStringLiteral("\u2013%1").arg(m.end_line);
  QStringList parts;
  if (!m.source.empty()) parts << tr("from %1").arg(safeText(m.source));
  if (!m.device.empty()) parts << safeText(m.device);
  if (!m.exception.empty()) parts << safeText(m.exception);
  if (!m.complete) parts << tr("cut short in the log");
  if (!parts.isEmpty()) text += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
  return text;
}

QString messageDiagnosisText(const LogDocument& doc, int message) {
  if (message < 0 || static_cast<std::size_t>(message) >= doc.file.messages.size()) return {};
  QStringList out;
  const log::Message& m = doc.file.messages[static_cast<std::size_t>(message)];
  out << shownFirstLine(m) << QString();
  if (const log::MessageDiagnosis* d = doc.diagnosisOf(static_cast<std::size_t>(message))) {
    if (d->lines.empty()) out << tr("Nothing to add to what the message says.");
    for (const analysis::DiagnosisLine& line : d->lines) {
      const QString indent(2 * line.depth, QLatin1Char(' '));
      out << indent +
                 QStringLiteral("[%1] %2").arg(provenanceText(line.provenance), safeMultiline(line.finding));
      if (!line.cause.empty()) out << indent + tr("    why: %1").arg(safeMultiline(line.cause));
      for (const analysis::Fix& fix : line.fixes) {
        QString f = indent + tr("    fix: %1").arg(safeMultiline(fix.action));
        if (fix.saving_bytes) f += tr(" (saves about %1, derived)").arg(bytesText(*fix.saving_bytes));
        if (!fix.saving_note.empty()) f += QStringLiteral("; ") + safeMultiline(fix.saving_note);
        out << f;
        if (!fix.cost.empty()) out << indent + tr("         cost: %1").arg(safeMultiline(fix.cost));
      }
      if (!line.confirm.empty()) out << indent + tr("    to confirm: %1").arg(safeMultiline(line.confirm));
    }
  }
  if (!m.notes.empty()) {
    out << QString() << tr("What the reader saw of this message:");
    for (const std::string& note : m.notes) out << QStringLiteral("  - ") + safeText(note);
  }
  if (!doc.diagnosis.next_steps.empty()) {
    out << QString() << tr("To learn more:");
    for (const std::string& step : doc.diagnosis.next_steps)
      out << QStringLiteral("  - ") + safeMultiline(step);
  }
  return out.join(QLatin1Char('\n'));
}

}  // namespace oomscope::ui
