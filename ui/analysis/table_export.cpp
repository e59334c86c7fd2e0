#include "ui/analysis/table_export.h"

#include <QAbstractItemView>
#include <QAbstractProxyModel>
#include <QBuffer>
#include <QItemSelectionModel>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <map>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

namespace {

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
    return text;
  QString quoted = text;
  quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

// The RecordTableModel under model (through proxies), or null.
const RecordTableModel* recordModel(const QAbstractItemModel* model) {
  while (model) {
    if (auto* record = qobject_cast<const RecordTableModel*>(model)) return record;
    auto* proxy = qobject_cast<const QAbstractProxyModel*>(model);
    model = proxy ? proxy->sourceModel() : nullptr;
  }
  return nullptr;
}

QString cellText(const QModelIndex& index) {
  const QVariant raw = index.data(RecordTableModel::SortRole);
  switch (raw.typeId()) {
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Int:
    case QMetaType::UInt:
      return raw.toString();
    default:
      break;
  }
  return index.data(Qt::DisplayRole).toString();
}

}  // namespace

QString modelToCsv(const QAbstractItemModel& model) {
  const RecordTableModel* record = recordModel(&model);
  QStringList lines;
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c) {
    QString title = model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    if (record && c < record->columnCount() &&
        record->columnSpec(c).kind == RecordTableModel::CellKind::Bytes)
      title += QStringLiteral(" (bytes)");
    header << csvField(title);
  }
  lines << header.join(QLatin1Char(','));
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList fields;
    for (int c = 0; c < model.columnCount(); ++c) {
      const QModelIndex index = model.index(r, c);
      // An unknown value ("\u2014" on screen) is an empty field.
      const bool unknown = record && !index.data(RecordTableModel::SortRole).isValid();
      fields << (unknown ? QString() : csvField(cellText(index)));
    }
    lines << fields.join(QLatin1Char(','));
  }
  return lines.join(QStringLiteral("\r\n")) + QStringLiteral("\r\n");
}

QString selectionToTsv(const QAbstractItemView& view) {
  const QItemSelectionModel* selection = view.selectionModel();
  if (!selection || !selection->hasSelection()) return {};
  std::map<int, std::map<int, QString>> cells;  // row -> column -> text, in the view's order
  int firstColumn = INT_MAX, lastColumn = -1;
  for (const QModelIndex& index : selection->selectedIndexes()) {
    QString text = index.data(Qt::DisplayRole).toString();
    text.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
    cells[index.row()][index.column()] = text;
    firstColumn = std::min(firstColumn, index.column());
    lastColumn = std::max(lastColumn, index.column());
  }
  QStringList lines;
  for (const auto& [row, columns] : cells) {
    QStringList fields;
    for (int c = firstColumn; c <= lastColumn; ++c) {
      const auto it = columns.find(c);
      fields << (it == columns.end() ? QString() : it->second);
    }
    lines << fields.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QByteArray widgetToPng(QWidget* widget) {
  QPixmap pixmap(widget->size());
  pixmap.fill(Qt::white);
  widget->render(&pixmap);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  pixmap.save(&buffer, "PNG");
  return bytes;
}

QByteArray widgetToSvg(QWidget* widget, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  svg.setTitle(title);
  svg.setDescription(QStringLiteral("Exported by oomscope"));
  QPainter painter(&svg);
  widget->render(&painter);
  painter.end();
  return bytes;
}

QString writeExportFile(const QString& path, const QByteArray& data) {
  try {
    write_file_atomically(path.toStdString(), std::string_view(data.constData(), std::size_t(data.size())));
    return {};
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    return QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what()));
  }
}

}  // namespace oomscope::ui
