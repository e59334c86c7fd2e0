// The Live page's recordings (see live_page.h): opening one on a worker (reported to the main window
// through the page's PageFileOpener), recognising one, and recording the running session.

#include <QDateTime>
#include <QFileDialog>
#include <QLabel>
#include <QPushButton>

#include "core/live/client/replay.h"
#include "core/util/error.h"
#include "ui/live/live_page.h"
#include "ui/session/job_error.h"
#include "ui/session/job_tracker.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

void LivePage::openRecording(const QString& path) {
  resetSession({});
  m_isRecording = true;
  m_record->setEnabled(false);
  m_status->setText(tr("Opening %1\u2026").arg(path));
  auto session = m_session;
  m_recordingJob->start<QString>(
      path,
      [session, path](ProgressSink&, std::stop_token stop) {
        return safeMultiline(live::replay_recording(path.toStdString(), *session, std::move(stop)).note);
      },
      [this, session, path](const QString& note) {
        if (m_session != session) return;
        setWindowSeconds(0);
        const int ranks = session->read(
            [](const live::Store& s, const live::AlertEngine&) { return int(s.ranks().size()); });
        rebuildCharts(ranks);
        refresh(true);
        m_status->setText(
            tr("Recording %1%2").arg(path, note.isEmpty() ? QString() : QStringLiteral(" \u2014 ") + note));
        emit recordingOpened(path, note);
        m_opener->reportOpened(path);
      });
}

void LivePage::recordingFailed(const JobError& failure) {
  const QString error = failure.text();
  m_status->setText(error);
  emit failed(error);
  m_opener->reportFailed(failure);
}

bool LivePage::opensFile(const QString& path) {
  return path.endsWith(QLatin1String(".oomlive"), Qt::CaseInsensitive) ||
         live::looks_like_recording(path.toStdString());
}

bool LivePage::startRecording(const QString& path, QString* error) {
  if (!m_session || m_isRecording) return false;
  try {
    m_session->start_recording(path.toStdString());
  } catch (const Error& e) {
    if (error) *error = safeMultiline(e.what());
    m_status->setText(safeMultiline(e.what()));
    return false;
  }
  m_record->setText(tr("Stop Recording"));
  return true;
}

void LivePage::stopRecording() {
  if (m_session) m_session->stop_recording();
  m_record->setText(tr("Record\u2026"));
}

bool LivePage::isRecording() const { return m_session && m_session->recording(); }

void LivePage::chooseRecording() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Recording"), {},
                                                    tr("Live recordings (*.oomlive);;All files (*)"));
  if (!path.isEmpty()) openRecording(path);
}

void LivePage::toggleRecording() {
  if (isRecording()) {
    stopRecording();
    return;
  }
  const QString suggested =
      QStringLiteral("session-%1.oomlive")
          .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Record Session"), suggested, tr("Live recordings (*.oomlive)"));
  if (!path.isEmpty()) startRecording(path);
}

}  // namespace oomscope::ui
