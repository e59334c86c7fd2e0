#include "ui/log/log_buffers_model.h"

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LogBuffersModel::LogBuffersModel(QObject* parent) : QAbstractTableModel(parent) {}

void LogBuffersModel::setMessage(std::shared_ptr<const LogDocument> doc, int message) {
  beginResetModel();
  m_doc = std::move(doc);
  m_message = message;
  endResetModel();
}

const log::Message* LogBuffersModel::message() const {
  if (!m_doc || m_message < 0 || static_cast<std::size_t>(m_message) >= m_doc->file.messages.size())
    return nullptr;
  return &m_doc->file.messages[static_cast<std::size_t>(m_message)];
}

int LogBuffersModel::rowCount(const QModelIndex& parent) const {
  const log::Message* m = message();
  if (parent.isValid() || !m) return 0;
  return static_cast<int>(m->buffers.size());
}

int LogBuffersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogBuffersModel::data(const QModelIndex& index, int role) const {
  const log::Message* m = message();
  if (!m || !index.isValid() || index.row() >= rowCount()) return {};
  const log::PeakBuffer& b = m->buffers[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Index:
        return b.index;
      case Size:
        return bytesText(b.size.value);
      case Shape:
        return b.entry_parameter ? tr("%1 (entry parameter)").arg(safeText(b.shape)) : safeText(b.shape);
      case Unpadded:
        return b.unpadded ? bytesText(b.unpadded->value) : QString();
      case Padding:
        return b.padding_extra
                   ? tr("+%1 (%2)").arg(bytesText(b.padding_extra->value), safeText(b.padding_expansion))
                   : QString();
      case Source:
        return b.source_file.empty()
                   ? QString()
                   : QStringLiteral("%1:%2").arg(safeText(b.source_file)).arg(b.source_line);
      case Op:
        return safeText(b.op_name);
      case Label:
        return safeText(b.xla_label);
      case Type:
        return safeText(b.allocation_type);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == Size)
      return tr("%1 as the log printed it (read)%2")
          .arg(safeText(b.size.printed), b.complete ? QString() : tr("; the log cuts this buffer short"));
    if (index.column() == Op) return plainToolTip(safeText(b.op_name));
    if (index.column() == Label) return plainToolTip(safeText(b.xla_label));
    return {};
  }
  if (role == Qt::UserRole && index.column() == Size) return QVariant::fromValue<qint64>(b.size.value);
  if (role == Qt::TextAlignmentRole && (index.column() == Index || index.column() == Size ||
                                        index.column() == Unpadded || index.column() == Padding))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant LogBuffersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Index:
      return tr("#");
    case Size:
      return tr("Size");
    case Shape:
      return tr("Shape");
    case Unpadded:
      return tr("Unpadded");
    case Padding:
      return tr("Padding");
    case Source:
      return tr("Source line");
    case Op:
      return tr("Operator");
    case Label:
      return tr("XLA label");
    case Type:
      return tr("Allocation type");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
