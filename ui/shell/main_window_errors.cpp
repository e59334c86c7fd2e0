// MainWindow: a load that failed or was cancelled. The error keeps its kind, file and problem up to here
// (JobError); the box names the file and the problem and offers the action that fits the kind
// (ui/shell/load_error_box.h). The recent files keep a file that failed to load unless it is gone.
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>

#include "ui/session/safe_text_qt.h"
#include "ui/session/settings_store.h"
#include "ui/shell/main_window.h"

namespace oomscope::ui {

namespace {

QString shownName(const QString& path) { return safeText(QFileInfo(path).fileName()); }

}  // namespace

void MainWindow::onLoadFailed(const JobError& error) {
  if (error.kind == ErrorKind::Cancelled) {  // a job that stopped itself: as a cancel, no box
    onLoadCancelled(error.subject);
    return;
  }
  showLoadedStatus();
  showLoadError(error, /*onPage=*/false);
  emit loadFinished(false);
}

void MainWindow::showLoadError(const JobError& error, bool onPage) {
  const QString& path = error.subject;
  // A file that is gone leaves the recent list; one that exists stays, whatever its problem (it may be
  // rewritten, or its permissions fixed, and opened again from there).
  bool forgotten = false;
  if (error.kind == ErrorKind::NotFound && !QFileInfo::exists(path) &&
      SettingsStore::instance().recentFiles().contains(QFileInfo(path).absoluteFilePath())) {
    SettingsStore::instance().removeRecent(path);
    forgotten = true;
  }
  // The file on a line of its own, then the problem as a sentence.
  QString text = QStringLiteral("%1\n\n%2").arg(safeText(QDir::toNativeSeparators(path)), error.sentence());
  if (!error.file.isEmpty() && error.file != safeText(path))  // a file of a run, or a folder's file
    text = QStringLiteral("%1\n\n%2: %3")
               .arg(safeText(QDir::toNativeSeparators(path)), error.file, error.sentence());
  if (forgotten) text += tr("\n\nIt was removed from the recent files.");
  if (const auto& current = m_session->current())
    text += tr("\n\n%1 is still open.").arg(shownName(current.path));
  const QString title = tr("Cannot open %1").arg(shownName(path));
  statusBar()->showMessage(tr("Cannot open %1: %2").arg(shownName(path), error.problem), 10'000);
  if (m_customPresenter) {
    tell(QMessageBox::Warning, title, text);
  } else {
    openMessageBox(
        this, QMessageBox::Warning, title, text, loadErrorChoices(error),
        [this, error, onPage](LoadErrorAction action) { runLoadErrorAction(action, error, onPage); });
  }
}

void MainWindow::runLoadErrorAction(LoadErrorAction action, const JobError& error, bool onPage) {
  switch (action) {
    case LoadErrorAction::OpenCompanion:
      openFile(error.companion);
      return;
    case LoadErrorAction::Retry:
      if (onPage)
        openFile(error.subject);  // the page's file again, on the page
      else
        m_session->retry();
      return;
    case LoadErrorAction::ChooseAnother: {
      const QFileInfo info(error.subject);
      chooseFile(info.isDir() ? info.absoluteFilePath() : info.absolutePath());
      return;
    }
  }
}

void MainWindow::onLoadCancelled(const QString& path) {
  showLoadedStatus();
  m_status->setText(tr("Loading %1 cancelled. %2").arg(shownName(path), m_status->text()));
  emit loadFinished(false);
}

}  // namespace oomscope::ui
