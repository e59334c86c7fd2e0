#include "ui/log/log_figures_model.h"

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LogFiguresModel::LogFiguresModel(QObject* parent) : QAbstractTableModel(parent) {}

void LogFiguresModel::setMessage(std::shared_ptr<const LogDocument> doc, int message) {
  beginResetModel();
  m_doc = std::move(doc);
  m_read = nullptr;
  m_derived = nullptr;
  if (m_doc && message >= 0 && static_cast<std::size_t>(message) < m_doc->file.messages.size()) {
    const auto i = static_cast<std::size_t>(message);
    m_read = &m_doc->file.messages[i];
    m_derived = m_doc->diagnosisOf(i);
  }
  endResetModel();
}

int LogFiguresModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_read) return 0;
  return static_cast<int>(m_read->figures.size() + (m_derived ? m_derived->derived.size() : 0));
}

int LogFiguresModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogFiguresModel::data(const QModelIndex& index, int role) const {
  if (!m_read || !index.isValid() || index.row() >= rowCount()) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const bool read = row < m_read->figures.size();
  if (role == Qt::DisplayRole) {
    if (read) {
      const log::Figure& f = m_read->figures[row];
      switch (index.column()) {
        case Key:
          return safeText(f.key);
        case Value:
          return f.count ? QString::number(f.value) : bytesText(f.value);
        case Provenance:
          return provenanceText(analysis::Provenance::Read);
        case Printed:
          return f.exact || f.error == 0
                     ? safeText(f.printed)
                     : tr("%1 (\u00b1 %2 as printed)").arg(safeText(f.printed), bytesText(f.error));
        default:
          return {};
      }
    }
    const log::DerivedFigure& f = m_derived->derived[row - m_read->figures.size()];
    switch (index.column()) {
      case Key:
        return safeText(f.key);
      case Value:
        return bytesText(f.bytes);
      case Provenance:
        return provenanceText(analysis::Provenance::Derived);
      case Printed:
        return safeText(f.how);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Value) {
    if (read) {
      const log::Figure& f = m_read->figures[row];
      return f.count ? QString() : exactBytesText(f.value);
    }
    return exactBytesText(m_derived->derived[row - m_read->figures.size()].bytes);
  }
  if (role == Qt::ToolTipRole && index.column() == Provenance)
    return provenanceMeaning(read ? analysis::Provenance::Read : analysis::Provenance::Derived);
  if (role == Qt::ForegroundRole && index.column() == Provenance)
    return provenanceColor(read ? analysis::Provenance::Read : analysis::Provenance::Derived);
  if (role == Qt::TextAlignmentRole && index.column() == Value) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant LogFiguresModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Key:
      return tr("Figure");
    case Value:
      return tr("Value");
    case Provenance:
      return tr("Source");
    case Printed:
      return tr("As printed / how it was computed");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
