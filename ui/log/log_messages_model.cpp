#include "ui/log/log_messages_model.h"

#include <QBrush>
#include <QColor>

#include "ui/log/log_texts.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LogMessagesModel::LogMessagesModel(QObject* parent) : QAbstractTableModel(parent) {}

void LogMessagesModel::setDocument(std::shared_ptr<const LogDocument> doc) {
  beginResetModel();
  m_doc = std::move(doc);
  endResetModel();
}

int LogMessagesModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_doc) return 0;
  return static_cast<int>(m_doc->file.messages.size());
}

int LogMessagesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogMessagesModel::data(const QModelIndex& index, int role) const {
  if (!m_doc || !index.isValid() || index.row() >= rowCount()) return {};
  const log::Message& m = m_doc->file.messages[static_cast<std::size_t>(index.row())];
  const log::Figure* requested = m.figure("requested");
  const bool oom = log::is_out_of_memory(m);
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Index:
        return index.row() + 1;
      case Source:
        return m.source.empty() ? tr("(not stated)") : safeText(m.source);
      case Kind:
        return QString::fromLatin1(log::to_string(m.kind));
      case Lines:
        return m.end_line > m.line ? QStringLiteral("%1\u2013%2").arg(m.line).arg(m.end_line)
                                   : QString::number(m.line);
      case Requested:
        return requested ? bytesText(requested->value) : QString();
      case Device:
        return safeText(m.device);
      case Oom:
        if (m.kind == log::MessageKind::BfcWarning) return tr("no: a warning");
        return oom ? tr("yes") : tr("no");
      case FirstLine:
        return shownFirstLine(m);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == FirstLine) return plainToolTip(safeText(m.first_line));
    if (index.column() == Requested && requested)
      return tr("%1 as the log printed it (read)").arg(safeText(requested->printed));
    if (index.column() == Oom && m.kind == log::MessageKind::BfcWarning)
      return tr("The allocator says itself that this is not a failure: it retries, and the run may go on.");
    if (index.column() == Lines && !m.complete) return tr("The log cuts this message short.");
    return {};
  }
  if (role == Qt::ForegroundRole && index.column() == Oom && !oom) return QBrush(QColor(0x70, 0x70, 0x70));
  if (role == Qt::TextAlignmentRole &&
      (index.column() == Index || index.column() == Requested || index.column() == Lines))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::UserRole) return index.row();  // the message's index, through any sort proxy
  return {};
}

QVariant LogMessagesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Index:
      return tr("#");
    case Source:
      return tr("Rank / process");
    case Kind:
      return tr("Kind");
    case Lines:
      return tr("Lines");
    case Requested:
      return tr("Requested");
    case Device:
      return tr("Device");
    case Oom:
      return tr("Out of memory");
    case FirstLine:
      return tr("Message");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
