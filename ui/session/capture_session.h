#pragma once
// The capture a window shows, and the loading of the next one.
//
// A CaptureSession holds at most one loaded capture (immutable, shared) and loads another through a
// JobTracker on a worker thread. The loaded capture is replaced only when a new load succeeds: a failed or
// cancelled load leaves the previous capture in place, so the window stays usable.

#include <QElapsedTimer>
#include <QFileSystemWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/analysis/report/host_comparison.h"
#include "core/analysis/report/report.h"
#include "core/capture/capture.h"
#include "core/util/progress.h"
#include "ui/session/job_tracker.h"

namespace oomscope::ui {

struct LoadedCapture {
  std::shared_ptr<const capture::Capture> capture;  // null when nothing is loaded
  QString path;                                     // as the user gave it
  double loadSeconds = 0.0;                         // wall time of the load on the worker

  explicit operator bool() const { return capture != nullptr; }
};

// What is open: one capture file, or several files of one multi-host run (one per host) read together.
struct LoadedRun {
  QStringList inputs;                // the files and folders the user gave (for reload)
  QString label;                     // the file, the folder, or "N files"
  std::vector<LoadedCapture> hosts;  // every file that loaded, in path order
  // Built on the worker for runs of two or more hosts (null for one file): the default report of each host,
  // as `oomscope-cli report FILES` builds them, and the comparison over them.
  std::shared_ptr<const std::vector<analysis::HostReport>> reports;
  std::shared_ptr<const analysis::HostComparison> comparison;
  QStringList failures;  // "<path>: <problem>" for each file of the run that could not be read
  double loadSeconds = 0.0;

  bool isMultiHost() const { return hosts.size() > 1; }
};

class CaptureSession : public QObject {
  Q_OBJECT

 public:
  using Loader = std::function<std::shared_ptr<const capture::Capture>(
      const std::string& path, ProgressSink& progress, std::stop_token stop)>;

  // Loads with capture::read_capture.
  explicit CaptureSession(QObject* parent = nullptr);
  // Loads with the given function (tests use this to script slow, failing or cancelled loads).
  explicit CaptureSession(Loader loader, QObject* parent = nullptr);
  ~CaptureSession() override;

  // Starts loading path; a load already running is superseded and its result dropped.
  void open(const QString& path);
  // Starts loading several capture files of one run (one per host) together; a folder stands for the
  // .xplane.pb/.xplane.pb.gz files under it (XProf writes plugins/profile/<run>/<host>.xplane.pb). One file
  // in all is the same as open(). Files that cannot be read are listed in run().failures; the load fails
  // only when none can.
  void openRun(const QStringList& pathsOrFolders);
  // Loads the current capture's file (or the run's files) again (no-op when nothing is loaded).
  void reload();
  // Starts the last open()/openRun() again with the same paths (after a failure: the file was still being
  // written, its permissions were fixed). No-op before the first request.
  void retry();
  // The paths of the last open()/openRun() request, as given.
  const QStringList& requested() const { return m_requested; }
  // Forgets the current capture (and cancels a running load).
  void close();
  // Cancels a running load; the current capture stays.
  void cancel();

  const LoadedCapture& current() const { return m_current; }
  // The open run (its hosts are empty when nothing is open); current() is run().hosts[currentHost()].
  const LoadedRun& run() const { return m_run; }
  int currentHost() const { return m_host; }
  // Shows another host of the run: emits hostChanged, then loaded-like consumers read current().
  void setCurrentHost(int index);
  bool isLoading() const { return m_jobs.busy(); }
  QString loadingPath() const { return m_jobs.busy() ? m_jobs.subject() : QString(); }
  JobTracker& jobs() { return m_jobs; }

 signals:
  void loadStarted(const QString& path);
  void progress(double fraction, const QString& stage);
  void loaded(const oomscope::ui::LoadedCapture& capture);
  // Another host of the open run is now current() (setCurrentHost).
  void hostChanged(int index);
  void closed();
  // A load failed: error.subject is the path (or run label) given to open()/openRun(); the kind, file and
  // problem are kept apart for the window to word the error and offer an action.
  void loadFailed(const oomscope::ui::JobError& error);
  void loadCancelled(const QString& path);
  void busyChanged(bool busy);
  // The open capture's file became shorter after it was loaded (a profiler still writing it, a copy being
  // replaced). The capture stays open: what was read stays valid, but details read from the file on demand
  // (event stats) would be zeros. Emitted once per loaded capture.
  void fileShrank(const QString& path, const QString& message);

 public:
  // Checks the open capture's file now (the watcher calls it on every change of the file).
  void checkCurrentFile();

 private:
  void replaceCurrent(LoadedCapture next);
  void replaceRun(LoadedRun next, int host);

  Loader m_loader;
  JobTracker m_jobs;
  LoadedCapture m_current;
  LoadedRun m_run;
  int m_host = -1;
  QFileSystemWatcher m_watcher;
  bool m_shrinkReported = false;
  QStringList m_requested;
};

// The default loader: capture::read_capture.
CaptureSession::Loader defaultCaptureLoader();

}  // namespace oomscope::ui

Q_DECLARE_METATYPE(oomscope::ui::LoadedCapture)
