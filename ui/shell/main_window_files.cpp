// MainWindow: choosing files (dialog, a recent file from recent_files_menu.h, drag and drop, several at
// once), and the files a page opens itself (PageFileOpener: the Live page's recordings).
#include <QChartView>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QTableView>
#include <QUrl>
#include <vector>

#include "core/capture/companion.h"
#include "core/snapshot/file_kind.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/log/log_window.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/settings_store.h"
#include "ui/shell/exporter.h"
#include "ui/shell/main_window.h"
#include "ui/snapshot/ranks_window.h"
#include "ui/snapshot/snapshot_window.h"

namespace oomscope::ui {

namespace {

const QString kLastDirKey = QStringLiteral("lastOpenDirectory");

QStringList localFiles(const QMimeData* mime) {
  QStringList files;
  if (!mime || !mime->hasUrls()) return files;
  for (const QUrl& url : mime->urls()) {
    if (url.isLocalFile()) files << url.toLocalFile();
  }
  return files;
}

}  // namespace

void MainWindow::chooseFile(const QString& dir) {
  SettingsStore& settings = SettingsStore::instance();
  const QString start = dir.isEmpty() ? settings.value(kLastDirKey).toString() : dir;
  QStringList filters = {
      tr("XProf captures (*.xplane.pb *.xplane.pb.gz)"),
      tr("PyTorch snapshots and traces, JAX memory profiles (*.pickle *.json *.gz *.prof)")};
  for (const auto& [opener, page] : m_openers) filters << opener->filter();
  filters << tr("Protocol buffers (*.pb)") << tr("All files (*)");
  // Several files at once are one multi-host run (one file per host).
  const QStringList paths = m_chooser
                                ? m_chooser(start)
                                : QFileDialog::getOpenFileNames(
                                      this, tr("Open Capture (several files: one run, one file per host)"),
                                      start, filters.join(QStringLiteral(";;")));
  if (paths.isEmpty()) return;
  settings.setValue(kLastDirKey, QFileInfo(paths.first()).absolutePath());
  openFiles(paths);
}

void MainWindow::chooseFolder() {
  SettingsStore& settings = SettingsStore::instance();
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Open Run Folder (its .xplane.pb files, one per host)"),
                                        settings.value(kLastDirKey).toString());
  if (dir.isEmpty()) return;
  settings.setValue(kLastDirKey, dir);
  openFile(dir);
}

void MainWindow::openFiles(const QStringList& paths) {
  if (RanksWindow::openIfSnapshots(paths)) return;  // several PyTorch snapshots: the ranks of one job?
  QStringList captures;
  for (const QString& path : paths) {
    if (path.isEmpty()) continue;
    if (openOnPage(path)) continue;  // a live recording: on the Live page
    if (openInOwnWindow(path)) continue;
    captures << path;
  }
  if (captures.size() == 1)
    openFile(captures.first());
  else if (!captures.isEmpty())
    m_session->openRun(captures);
}

bool MainWindow::openInOwnWindow(const QString& path) {
  if (QFileInfo(path).isDir() || capture::capture_beside(path.toStdString())) return false;
  const snapshot::FileKind kind = snapshot::detect_file_kind(path.toStdString()).kind;
  if (kind == snapshot::FileKind::XSpace) return false;
  if (kind != snapshot::FileKind::Log) {
    SnapshotWindow::openFile(path);
    return true;
  }
  LogWindow* window = LogWindow::openFile(path);
  connect(window, &LogWindow::loaded, this,
          [path] { SettingsStore::instance().addRecent(QFileInfo(path).absoluteFilePath()); });
  return true;
}

void MainWindow::pasteLog() {
  const QString text = QGuiApplication::clipboard()->text();
  if (text.trimmed().isEmpty()) {
    m_status->setText(tr("The clipboard holds no text to read as a log."));
    return;
  }
  LogWindow::openText(text);
}

void MainWindow::addPageFileOpener(PageFileOpener* opener, QWidget* page) {
  m_openers.emplace_back(opener, page);
  connect(opener, &PageFileOpener::opened, this, [this](const QString& path) {
    SettingsStore::instance().addRecent(QFileInfo(path).absoluteFilePath());
  });
  connect(opener, &PageFileOpener::failed, this,
          [this](const JobError& error) { showLoadError(error, /*onPage=*/true); });
}

bool MainWindow::openOnPage(const QString& path) {
  if (QFileInfo(path).isDir()) return false;
  for (const auto& [opener, page] : m_openers) {
    if (!opener->accepts(path)) continue;
    m_tabs->setCurrentWidget(page);
    opener->open(path);
    return true;
  }
  return false;
}

void MainWindow::openRecent(const QString& path) {
  if (!QFileInfo::exists(path)) {
    SettingsStore::instance().removeRecent(path);
    tell(QMessageBox::Information, tr("File not found"),
         tr("%1 no longer exists, so it was removed from the recent files.").arg(path));
    return;
  }
  openFile(path);
}

void MainWindow::attachExports() {
  std::vector<QWidget*> pages = {m_overview, m_modulesPage, m_allocatorsPage, m_hostsPage};
  for (const auto& [page, title] : m_analysis->pages()) pages.push_back(page);
  for (QWidget* page : pages) {
    for (QTableView* view : page->findChildren<QTableView*>())
      m_exporter->attachTable(view, exportName(view));
    for (QChartView* view : page->findChildren<QChartView*>())
      m_exporter->attachChart(view, exportName(view));
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!localFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QStringList files = localFiles(event->mimeData());
  if (files.isEmpty()) return;
  event->acceptProposedAction();
  openFiles(files);
}

}  // namespace oomscope::ui
