#pragma once
// Export from the window: each table as CSV (every row of the model, or only the rows shown, in the order
// shown), each chart as PNG or SVG, the report as text or JSON (exactly what `oomscope-cli report` and
// `--json` write for the same files), and Copy (Ctrl+C) of a table selection as tab-separated text.
//
// Offered from File > Export (for the page in front: its tables, its charts, then the report) and from
// context menus on every table and chart the window attaches. Files are written atomically; a failure is
// told with the path and the reason, and the window stays as it was. The report is built on a worker.

#include <QObject>
#include <QPointer>
#include <functional>

#include "ui/session/job_tracker.h"

class QChartView;
class QMenu;
class QTableView;
class QWidget;

namespace oomscope::ui {

class AnalysisPages;
class CaptureSession;

class Exporter : public QObject {
  Q_OBJECT

 public:
  enum class ChartFormat { Png, Svg };
  enum class ReportFormat { Text, Json };

  // Asks where to save: (dialog title, suggested file name, filter) -> path, empty = cancelled. The default
  // shows a file dialog in the last export folder; tests install their own.
  using PathChooser =
      std::function<QString(const QString& title, const QString& suggested, const QString& filter)>;
  // Tells the user about a failure (title, text naming the path and the reason).
  using Teller = std::function<void(const QString& title, const QString& text)>;

  Exporter(QWidget* window, CaptureSession* session, AnalysisPages* analysis);

  void setPathChooser(PathChooser chooser) { m_choose = std::move(chooser); }
  void setTeller(Teller teller) { m_tell = std::move(teller); }

  // Context menu (Copy, Export all rows / shown rows as CSV) and Ctrl+C on a table.
  void attachTable(QTableView* view, const QString& name);
  // Context menu (Export as PNG / SVG) on a chart.
  void attachChart(QChartView* view, const QString& name);
  // File > Export for page: its visible tables and charts (found among its children), then the report.
  void fillMenu(QMenu* menu, QWidget* page);

  // Each returns false when nothing was written (cancelled or failed; a failure is told).
  bool exportTable(QTableView* view, const QString& name, bool allRows);
  bool exportChart(QChartView* view, const QString& name, ChartFormat format);
  // Builds the reports of every open host on the worker, then writes them; exported() or failed() follows.
  void exportReport(ReportFormat format);
  // Copies view's selection as tab-separated text to the clipboard.
  static void copySelection(QTableView* view);

  JobTracker& jobs() { return m_jobs; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 signals:
  void exported(const QString& path);
  void failed(const QString& path, const QString& message);

 private:
  QString choose(const QString& title, const QString& suggested, const QString& filter);
  bool write(const QString& what, const QString& path, const QByteArray& data);
  QString baseName() const;

  QWidget* m_window;
  CaptureSession* m_session;
  QPointer<AnalysisPages> m_analysis;
  PathChooser m_choose;
  Teller m_tell;
  JobTracker m_jobs;
};

// A table's name for menus and file names: "Modules", "Buffers"; from the view's objectName.
QString exportName(const QWidget* view);

}  // namespace oomscope::ui
