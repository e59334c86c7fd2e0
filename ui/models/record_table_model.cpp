#include "ui/models/record_table_model.h"

#include <QLocale>

#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

RecordTableModel::RecordTableModel(std::vector<ColumnSpec> columns, QObject* parent)
    : QAbstractTableModel(parent), m_columns(std::move(columns)) {}

int RecordTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : recordCount();
}

int RecordTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_columns.size());
}

bool RecordTableModel::isTextColumn(int column) const {
  const auto kind = columnSpec(column).kind;
  return kind == CellKind::Text || kind == CellKind::Id;
}

QString RecordTableModel::unknownReason(int, int) const { return QStringLiteral("Not known for this row."); }

QVariant RecordTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int row = index.row();
  const int col = index.column();
  const auto& spec = columnSpec(col);
  const bool numeric = spec.kind != CellKind::Text;

  switch (role) {
    case Qt::DisplayRole: {
      const QVariant raw = rawValue(row, col);
      if (!raw.isValid()) return QStringLiteral("\u2014");
      switch (spec.kind) {
        case CellKind::Text:
          return raw.toString();
        case CellKind::Id:
          return QString::number(raw.toULongLong());
        case CellKind::Count:
          return QLocale().toString(raw.toLongLong());
        case CellKind::Bytes:
          return QString::fromStdString(format_bytes(std::int64_t(raw.toLongLong())));
      }
      return {};
    }
    case SortRole: {
      const QVariant raw = rawValue(row, col);
      // Unknown values sort below every real one.
      if (!raw.isValid()) return numeric ? QVariant(qint64(-1)) : QVariant(QString());
      return raw;
    }
    case Qt::ToolTipRole: {
      const QVariant raw = rawValue(row, col);
      if (!raw.isValid()) return unknownReason(row, col);
      if (spec.kind == CellKind::Bytes) {
        return QStringLiteral("%1 bytes").arg(QString::fromStdString(format_bytes_exact(raw.toLongLong())));
      }
      if (spec.kind == CellKind::Count) return QLocale().toString(raw.toLongLong());
      return plainToolTip(raw.toString());  // a name from the file
    }
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(
          Qt::Alignment(numeric ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
    default:
      return {};
  }
}

QVariant RecordTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size())) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  const auto& spec = columnSpec(section);
  switch (role) {
    case Qt::DisplayRole:
      return spec.title;
    case Qt::ToolTipRole: {
      const QString origin = spec.origin == Origin::Read
                                 ? QStringLiteral("<i>Read from the file.</i>")
                                 : QStringLiteral("<i>Derived: %1</i>").arg(spec.how.toHtmlEscaped());
      return QStringLiteral("<b>%1</b><br>%2<br>%3")
          .arg(spec.title.toHtmlEscaped(), spec.description.toHtmlEscaped(), origin);
    }
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::Alignment(spec.kind == CellKind::Text
                                                   ? Qt::AlignLeft | Qt::AlignVCenter
                                                   : Qt::AlignRight | Qt::AlignVCenter));
    default:
      return QAbstractTableModel::headerData(section, orientation, role);
  }
}

}  // namespace oomscope::ui
