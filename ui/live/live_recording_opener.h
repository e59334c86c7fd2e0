#pragma once
// How the Live page opens recordings: it recognises them (opensFile), replays one into a fresh session on
// a worker (JobTracker: a newer open, or cancel() when the page starts another session, supersedes it),
// and offers the main window the page's PageFileOpener (File > Open, recent files and drops hand
// recordings to the page; the page reports back whether they opened). The PageFileOpener is a direct
// child of the page, where the main window looks for it.

#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "ui/session/job_error.h"

class QWidget;

namespace oomscope::live {
class LiveSession;
}

namespace oomscope::ui {

class JobTracker;
class PageFileOpener;

class LiveRecordingOpener : public QObject {
  Q_OBJECT

 public:
  explicit LiveRecordingOpener(QWidget* page);

  // Named *.oomlive, or starting like a recording.
  static bool opensFile(const QString& path);
  // The file dialogs: a recording to open, and a file to record the session to (empty: cancelled).
  static QString chooseToOpen(QWidget* parent);
  static QString chooseToRecord(QWidget* parent);
  // Replays the recording at `path` into `session` on a worker; `opened` gets its note on the UI thread,
  // failed() the error.
  void open(const QString& path, const std::shared_ptr<live::LiveSession>& session,
            std::function<void(const QString& note)> opened);
  void cancel();
  // What the page reports to the main window once it shows the recording, or failed to.
  void reportOpened(const QString& path);
  void reportFailed(const JobError& failure);

 signals:
  void openRequested(const QString& path);  // the main window hands the page a recording
  void failed(const oomscope::ui::JobError& failure);

 private:
  JobTracker* m_job = nullptr;
  PageFileOpener* m_opener = nullptr;
};

}  // namespace oomscope::ui
