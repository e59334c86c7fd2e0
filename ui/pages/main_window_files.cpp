// MainWindow: choosing files (dialog, recent list, drag and drop, several at once).
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QUrl>

#include "ui/pages/main_window.h"
#include "ui/pages/recent_files.h"

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

void MainWindow::chooseFile() {
  QSettings settings;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Capture"), settings.value(kLastDirKey).toString(),
                                   tr("XProf captures (*.xplane.pb *.xplane.pb.gz);;PyTorch snapshots and "
                                      "traces, JAX memory profiles (*.pickle "
                                      "*.json *.gz *.prof);;Protocol buffers (*.pb);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
  openFile(path);
}

void MainWindow::openFiles(const QStringList& paths) {
  for (int i = 0; i < paths.size(); ++i) {
    if (i == 0) {
      openFile(paths.first());
      continue;
    }
    // One capture per window, as heaptrack does: comparing two runs side by side is the usual reason.
    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setExamplePath(m_examplePath);
    window->show();
    window->openFile(paths.at(i));
  }
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  m_settingsWriter.waitForDone();  // a just-loaded file is on the list
  const QStringList recent = recent_files::load();
  for (int i = 0; i < recent.size(); ++i) {
    const QFileInfo info(recent.at(i));
    // Accelerators 1..9, then 0 for the tenth.
    const QString text =
        QStringLiteral("&%1  %2  \u2014  %3").arg((i + 1) % 10).arg(info.fileName(), info.absolutePath());
    auto* action = m_recentMenu->addAction(text);
    action->setToolTip(recent.at(i));
    connect(action, &QAction::triggered, this, [this, path = recent.at(i)] { openRecent(path); });
  }
  if (recent.isEmpty()) {
    m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    return;
  }
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(tr("Clear Recent Files"), this, [] { recent_files::clear(); });
}

void MainWindow::openRecent(const QString& path) {
  if (!QFileInfo::exists(path)) {
    m_settingsWriter.waitForDone();
    recent_files::remove(path);
    tell(QMessageBox::Information, tr("File not found"),
         tr("%1 no longer exists, so it was removed from the recent files.").arg(path));
    return;
  }
  openFile(path);
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
