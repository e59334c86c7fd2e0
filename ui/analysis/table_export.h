#pragma once
// Turning tables and charts into files and text: CSV of a model, tab-separated text of a selection, PNG and
// SVG of a chart (or any widget), and the one way every export reaches the disk (atomically).

#include <QByteArray>
#include <QString>

class QAbstractItemModel;
class QAbstractItemView;
class QWidget;

namespace oomscope::ui {

// Header line, then one line per row in the model's order (RFC 4180 quoting, "\r\n" line ends). Numbers are
// written exactly (a RecordTableModel's raw value: bytes, not "3.72 GiB"); byte columns say so in their
// header ("Size (bytes)"); text is written as shown.
QString modelToCsv(const QAbstractItemModel& model);
// The selected cells of view as tab-separated text, one line per row, in the view's order; cells not
// selected inside the selection's bounding rows and columns are left empty. Empty when nothing is selected.
QString selectionToTsv(const QAbstractItemView& view);

// The widget as it is drawn on screen, at its size (device pixel ratio 1).
QByteArray widgetToPng(QWidget* widget);
// The widget drawn as SVG (vector), with a title element.
QByteArray widgetToSvg(QWidget* widget, const QString& title);

// Writes data to path, never half-written: a temporary file renamed over path (core/util/atomic_file.h).
// Returns an empty string on success, else one sentence naming the path and the reason.
QString writeExportFile(const QString& path, const QByteArray& data);

}  // namespace oomscope::ui
