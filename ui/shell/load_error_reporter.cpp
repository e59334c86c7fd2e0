#include "ui/shell/load_error_reporter.h"

#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QStatusBar>

#include "ui/session/capture_session.h"
#include "ui/session/safe_text_qt.h"
#include "ui/session/settings_store.h"

namespace oomscope::ui {

namespace {

QString shownName(const QString& path) { return safeText(QFileInfo(path).fileName()); }

}  // namespace

LoadErrorReporter::LoadErrorReporter(QMainWindow* window, CaptureSession* session)
    : QObject(window), m_window(window), m_session(session) {}

void LoadErrorReporter::report(const JobError& error, bool onPage) {
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
  m_window->statusBar()->showMessage(tr("Cannot open %1: %2").arg(shownName(path), error.problem), 10'000);
  if (m_teller) {
    m_teller(QMessageBox::Warning, title, text);
  } else {
    openMessageBox(m_window, QMessageBox::Warning, title, text, loadErrorChoices(error),
                   [this, error, onPage](LoadErrorAction action) { runAction(action, error, onPage); });
  }
}

void LoadErrorReporter::runAction(LoadErrorAction action, const JobError& error, bool onPage) {
  switch (action) {
    case LoadErrorAction::OpenCompanion:
      emit openRequested(error.companion);
      return;
    case LoadErrorAction::Retry:
      if (onPage)
        emit openRequested(error.subject);  // the page's file again, on the page
      else
        m_session->retry();
      return;
    case LoadErrorAction::ChooseAnother: {
      const QFileInfo info(error.subject);
      emit chooseRequested(info.isDir() ? info.absoluteFilePath() : info.absolutePath());
      return;
    }
  }
}

}  // namespace oomscope::ui
