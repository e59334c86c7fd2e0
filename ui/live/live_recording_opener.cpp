#include "ui/live/live_recording_opener.h"

#include <QDateTime>
#include <QFileDialog>
#include <QWidget>

#include "core/live/client/replay.h"
#include "core/live/client/session.h"
#include "ui/session/job_tracker.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LiveRecordingOpener::LiveRecordingOpener(QWidget* page) : QObject(page) {
  m_opener = new PageFileOpener(tr("Live recordings (*.oomlive)"), &LiveRecordingOpener::opensFile, page);
  connect(m_opener, &PageFileOpener::openRequested, this, &LiveRecordingOpener::openRequested);
  m_job = new JobTracker(this);
  connect(m_job, &JobTracker::failed, this, &LiveRecordingOpener::failed);
}

bool LiveRecordingOpener::opensFile(const QString& path) {
  return path.endsWith(QLatin1String(".oomlive"), Qt::CaseInsensitive) ||
         live::looks_like_recording(path.toStdString());
}

QString LiveRecordingOpener::chooseToOpen(QWidget* parent) {
  return QFileDialog::getOpenFileName(parent, tr("Open Recording"), {},
                                      tr("Live recordings (*.oomlive);;All files (*)"));
}

QString LiveRecordingOpener::chooseToRecord(QWidget* parent) {
  const QString suggested =
      QStringLiteral("session-%1.oomlive")
          .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
  return QFileDialog::getSaveFileName(parent, tr("Record Session"), suggested,
                                      tr("Live recordings (*.oomlive)"));
}

void LiveRecordingOpener::open(const QString& path, const std::shared_ptr<live::LiveSession>& session,
                               std::function<void(const QString& note)> opened) {
  m_job->start<QString>(
      path,
      [session, path](ProgressSink&, std::stop_token stop) {
        return safeMultiline(live::replay_recording(path.toStdString(), *session, std::move(stop)).note);
      },
      [opened = std::move(opened)](const QString& note) { opened(note); });
}

void LiveRecordingOpener::cancel() { m_job->cancel(); }

void LiveRecordingOpener::reportOpened(const QString& path) { m_opener->reportOpened(path); }

void LiveRecordingOpener::reportFailed(const JobError& failure) { m_opener->reportFailed(failure); }

}  // namespace oomscope::ui
