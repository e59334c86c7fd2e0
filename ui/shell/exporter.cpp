#include "ui/shell/exporter.h"

#include <QAbstractProxyModel>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QMenu>
#include <QTableView>
#include <sstream>

#include "core/analysis/report/report.h"
#include "core/analysis/report/report_json.h"
#include "core/analysis/report/report_text.h"
#include "core/util/safe_text.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/table_export.h"
#include "ui/session/capture_session.h"
#include "ui/session/settings_store.h"

namespace oomscope::ui {

namespace {

const QString kExportDirKey = QStringLiteral("lastExportDirectory");

struct BuiltReport {
  std::string text;
  std::string json;
};

// "path: problem" back into its parts (the run keeps a failure as one line).
analysis::ReportFailure splitFailure(const QString& line) {
  const int at = line.indexOf(QStringLiteral(": "));
  if (at < 0) return {line.toStdString(), {}};
  return {line.left(at).toStdString(), line.mid(at + 2).toStdString()};
}

QString chartName(QChartView* view, const QString& fallback) {
  const QString title = view->chart() ? view->chart()->title() : QString();
  return title.isEmpty() ? fallback : title;
}

QString fileSafe(QString name) {
  name = name.toLower();
  for (QChar& c : name)
    if (!c.isLetterOrNumber() && c != QLatin1Char('.') && c != QLatin1Char('-')) c = QLatin1Char('-');
  while (name.contains(QStringLiteral("--"))) name.replace(QStringLiteral("--"), QStringLiteral("-"));
  return name;
}

}  // namespace

QString exportName(const QWidget* view) {
  QString id = view->objectName();
  if (id.endsWith(QLatin1String("View"))) id.chop(4);
  if (id.isEmpty())
    return qobject_cast<const QChartView*>(view) ? Exporter::tr("Chart") : Exporter::tr("Table");
  // "roleTotals" -> "Role Totals" (menu entries are in title case)
  QString name;
  for (const QChar c : id) {
    if (c.isUpper() && !name.isEmpty()) name += QLatin1Char(' ');
    name += name.isEmpty() ? c.toUpper() : c;
  }
  return name;
}

Exporter::Exporter(QWidget* window, CaptureSession* session, AnalysisPages* analysis)
    : QObject(window), m_window(window), m_session(session), m_analysis(analysis) {
  m_choose = [this](const QString& title, const QString& suggested, const QString& filter) {
    SettingsStore& settings = SettingsStore::instance();
    const QString dir = settings.value(kExportDirKey, QDir::homePath()).toString();
    const QString path = QFileDialog::getSaveFileName(m_window, title, QDir(dir).filePath(suggested), filter);
    if (!path.isEmpty()) settings.setValue(kExportDirKey, QFileInfo(path).absolutePath());
    return path;
  };
  connect(&m_jobs, &JobTracker::failed, this, [this](const JobError& error) {
    if (m_tell) m_tell(tr("Cannot export the report"), error.text());
    emit failed(error.subject, error.text());
  });
}

QString Exporter::baseName() const {
  const LoadedRun& run = m_session->run();
  if (run.hosts.empty()) return QStringLiteral("oomscope");
  QString name = QFileInfo(run.isMultiHost() ? run.label : run.hosts.front().path).fileName();
  for (const char* suffix : {".xplane.pb.gz", ".xplane.pb"})
    if (name.endsWith(QLatin1String(suffix))) name.chop(int(qstrlen(suffix)));
  if (run.isMultiHost()) {
    const LoadedCapture& host = m_session->current();
    QString hostFile = QFileInfo(host.path).fileName();
    hostFile.chop(hostFile.endsWith(QLatin1String(".gz")) ? 13 : 10);
    name += QLatin1Char('-') + hostFile;
  }
  return fileSafe(name);
}

QString Exporter::choose(const QString& title, const QString& suggested, const QString& filter) {
  return m_choose ? m_choose(title, suggested, filter) : QString();
}

bool Exporter::write(const QString& what, const QString& path, const QByteArray& data) {
  const QString error = writeExportFile(path, data);
  if (error.isEmpty()) {
    emit exported(path);
    return true;
  }
  if (m_tell)
    m_tell(tr("Cannot export %1").arg(what),
           QStringLiteral("%1\n\n%2").arg(QDir::toNativeSeparators(path), error));
  emit failed(path, error);
  return false;
}

void Exporter::copySelection(QTableView* view) {
  const QString text = selectionToTsv(*view);
  if (!text.isEmpty()) QApplication::clipboard()->setText(text);
}

bool Exporter::exportTable(QTableView* view, const QString& name, bool allRows) {
  const QAbstractItemModel* shown = view->model();
  if (!shown) return false;
  const auto* proxy = qobject_cast<const QAbstractProxyModel*>(shown);
  const QAbstractItemModel* model = allRows && proxy ? proxy->sourceModel() : shown;
  const QString path = choose(
      allRows ? tr("Export %1: All Rows as CSV").arg(name) : tr("Export %1: Shown Rows as CSV").arg(name),
      baseName() + QLatin1Char('-') + fileSafe(name) + QStringLiteral(".csv"), tr("CSV files (*.csv)"));
  if (path.isEmpty()) return false;
  return write(tr("the %1 table").arg(name), path, modelToCsv(*model).toUtf8());
}

bool Exporter::exportChart(QChartView* view, const QString& name, ChartFormat format) {
  const bool png = format == ChartFormat::Png;
  const QString path = choose(png ? tr("Export %1 as PNG").arg(name) : tr("Export %1 as SVG").arg(name),
                              baseName() + QLatin1Char('-') + fileSafe(name) +
                                  (png ? QStringLiteral(".png") : QStringLiteral(".svg")),
                              png ? tr("PNG images (*.png)") : tr("SVG images (*.svg)"));
  if (path.isEmpty()) return false;
  return write(tr("the %1 chart").arg(name), path, png ? widgetToPng(view) : widgetToSvg(view, name));
}

void Exporter::exportReport(ReportFormat format) {
  const LoadedRun& run = m_session->run();
  if (run.hosts.empty()) return;
  const bool json = format == ReportFormat::Json;
  const QString path =
      choose(json ? tr("Export the Report as JSON") : tr("Export the Report as Text"),
             baseName() + (json ? QStringLiteral("-report.json") : QStringLiteral("-report.txt")),
             json ? tr("JSON files (*.json)") : tr("Text files (*.txt)"));
  if (path.isEmpty()) return;
  analysis::ReportOptions options;
  // One file: the module and pool chosen in the window, as `--module` and `--capacity` would give them.
  if (!run.isMultiHost() && m_analysis && m_analysis->result()) {
    const AnalysisRequest& request = m_analysis->result()->request;
    if (request.module.programId)
      options.program_id = *request.module.programId;
    else if (!request.module.name.isEmpty())
      options.module = request.module.name.toStdString();
    if (request.capacity) options.capacity = *request.capacity;
  }
  std::vector<std::shared_ptr<const capture::Capture>> captures;
  for (const LoadedCapture& host : run.hosts) captures.push_back(host.capture);
  std::vector<analysis::ReportFailure> failures;
  for (const QString& line : run.failures) failures.push_back(splitFailure(line));
  JobTracker::Work<BuiltReport> work = [captures, options, failures, json](ProgressSink& progress,
                                                                           std::stop_token stop) {
    std::vector<analysis::HostReport> reports;
    for (std::size_t i = 0; i < captures.size(); ++i) {
      progress.report(double(i) / double(captures.size()), "building the report");
      reports.push_back(analysis::build_host_report(*captures[i], options, stop));
    }
    analysis::add_multi_host_limits(reports);
    BuiltReport built;
    if (json) {
      built.json = analysis::report_json_text(reports, options, failures);
    } else {
      std::ostringstream text;
      analysis::write_report_text(text, reports, options.top);
      for (const auto& f : failures) text << "\n== " << f.file << "\nnot reported: " << f.message << "\n";
      built.text = terminal_safe(text.str());
    }
    return built;
  };
  m_jobs.start<BuiltReport>(path, std::move(work), [this, path, json](const BuiltReport& built) {
    const std::string& content = json ? built.json : built.text;
    write(tr("the report"), path, QByteArray(content.data(), qsizetype(content.size())));
  });
}

void Exporter::attachTable(QTableView* view, const QString& name) {
  view->installEventFilter(this);  // Ctrl+C copies the whole selection, not only the current cell
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this, [this, view, name](const QPoint& at) {
    QMenu menu(view);
    QAction* copyAction = menu.addAction(tr("&Copy"), view, [view] { copySelection(view); });
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setEnabled(view->selectionModel() && view->selectionModel()->hasSelection());
    menu.addSeparator();
    menu.addAction(tr("Export All Rows as CSV\u2026"), this,
                   [this, view, name] { exportTable(view, name, true); });
    menu.addAction(tr("Export Shown Rows as CSV\u2026"), this,
                   [this, view, name] { exportTable(view, name, false); });
    menu.exec(view->viewport()->mapToGlobal(at));
  });
}

bool Exporter::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
    if (auto* view = qobject_cast<QTableView*>(watched)) {
      copySelection(view);
      return true;
    }
  }
  return QObject::eventFilter(watched, event);
}

void Exporter::attachChart(QChartView* view, const QString& name) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this, [this, view, name](const QPoint& at) {
    QMenu menu(view);
    const QString shown = chartName(view, name);
    menu.addAction(tr("Export Chart as PNG\u2026"), this,
                   [this, view, shown] { exportChart(view, shown, ChartFormat::Png); });
    menu.addAction(tr("Export Chart as SVG\u2026"), this,
                   [this, view, shown] { exportChart(view, shown, ChartFormat::Svg); });
    menu.exec(view->mapToGlobal(at));
  });
}

void Exporter::fillMenu(QMenu* menu, QWidget* page) {
  menu->clear();
  bool any = false;
  if (page) {
    for (QTableView* view : page->findChildren<QTableView*>()) {
      if (!view->isVisibleTo(page) || !view->model() || view->model()->columnCount() == 0) continue;
      const QString name = exportName(view);
      menu->addAction(tr("%1 Table: All Rows as CSV\u2026").arg(name), this,
                      [this, view, name] { exportTable(view, name, true); });
      menu->addAction(tr("%1 Table: Shown Rows as CSV\u2026").arg(name), this,
                      [this, view, name] { exportTable(view, name, false); });
      any = true;
    }
    for (QChartView* view : page->findChildren<QChartView*>()) {
      if (!view->isVisibleTo(page)) continue;
      const QString name = chartName(view, exportName(view));
      menu->addAction(tr("%1 Chart as PNG\u2026").arg(name), this,
                      [this, view, name] { exportChart(view, name, ChartFormat::Png); });
      menu->addAction(tr("%1 Chart as SVG\u2026").arg(name), this,
                      [this, view, name] { exportChart(view, name, ChartFormat::Svg); });
      any = true;
    }
  }
  if (any) menu->addSeparator();
  const bool open = !m_session->run().hosts.empty();
  const QString hosts = m_session->run().isMultiHost() ? tr(" (All Hosts)") : QString();
  menu->addAction(tr("Report as Text%1\u2026").arg(hosts), this, [this] { exportReport(ReportFormat::Text); })
      ->setEnabled(open);
  menu->addAction(tr("Report as JSON%1\u2026").arg(hosts), this, [this] { exportReport(ReportFormat::Json); })
      ->setEnabled(open);
}

}  // namespace oomscope::ui
