#include "ui/session/capture_session.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThreadPool>
#include <utility>

#include "core/capture/reader.h"
#include "ui/session/run_reader.h"

namespace oomscope::ui {

CaptureSession::Loader defaultCaptureLoader() {
  return [](const std::string& path, ProgressSink& progress, std::stop_token stop) {
    return capture::read_capture(path, progress, std::move(stop));
  };
}

CaptureSession::CaptureSession(QObject* parent) : CaptureSession(defaultCaptureLoader(), parent) {}

CaptureSession::CaptureSession(Loader loader, QObject* parent)
    : QObject(parent), m_loader(std::move(loader)) {
  connect(&m_jobs, &JobTracker::progress, this, &CaptureSession::progress);
  connect(&m_jobs, &JobTracker::failed, this, &CaptureSession::loadFailed);
  connect(&m_jobs, &JobTracker::cancelled, this, &CaptureSession::loadCancelled);
  connect(&m_jobs, &JobTracker::busyChanged, this, &CaptureSession::busyChanged);
  connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this](const QString&) { checkCurrentFile(); });
}

void CaptureSession::checkCurrentFile() {
  if (!m_current || m_shrinkReported || !m_current.capture->file_shrank()) return;
  m_shrinkReported = true;
  const QFileInfo info(m_current.path);
  const QString now = info.exists() ? tr("%L1 bytes now").arg(info.size()) : tr("gone now");
  emit fileShrank(
      m_current.path,
      tr("%1: the file shrank after it was loaded (it was %L2 bytes, %3); it is probably still being "
         "written or replaced. What is shown was read before and stays; details read from the file "
         "from now on would be zeros. Reload it once it is complete.")
          .arg(m_current.path)
          .arg(qint64(m_current.capture->file_size()))
          .arg(now));
}

CaptureSession::~CaptureSession() = default;

void CaptureSession::open(const QString& path) {
  struct Timed {
    std::shared_ptr<const capture::Capture> capture;
    double seconds = 0.0;
  };
  JobTracker::Work<Timed> work = [loader = m_loader, file = path.toStdString()](ProgressSink& progress,
                                                                                const std::stop_token& stop) {
    QElapsedTimer timer;
    timer.start();
    auto capture = loader(file, progress, stop);
    return Timed{std::move(capture), double(timer.nsecsElapsed()) / 1e9};
  };
  m_requested = {path};
  emit loadStarted(path);
  m_jobs.start<Timed>(path, std::move(work), [this, path](const Timed& result) {
    if (!result.capture) {  // a loader breaking its contract must not leave the window with a null capture
      emit loadFailed(
          JobError{ErrorKind::Internal, path, path, tr("the reader returned no capture."), -1, {}});
      return;
    }
    LoadedCapture opened{result.capture, path, result.seconds};
    replaceRun(LoadedRun{{path}, path, {opened}, nullptr, nullptr, {}, result.seconds}, 0);
    emit loaded(m_current);
  });
}

// Several capture files of one multi-host run, read together on the worker (run_reader.h).
void CaptureSession::openRun(const QStringList& pathsOrFolders) {
  if (pathsOrFolders.size() == 1 && !QFileInfo(pathsOrFolders.first()).isDir()) {
    open(pathsOrFolders.first());
    return;
  }
  const QString label = pathsOrFolders.size() == 1 ? pathsOrFolders.first()
                                                   : tr("%n files", nullptr, int(pathsOrFolders.size()));
  m_requested = pathsOrFolders;
  emit loadStarted(label);
  m_jobs.start<LoadedRun>(label, RunReader(m_loader, pathsOrFolders, label), [this](const LoadedRun& result) {
    // The run opens on the host that ran out first: that is where the story starts.
    int host = 0;
    if (result.comparison && result.comparison->first_out) host = int(*result.comparison->first_out);
    replaceRun(result, host);
    emit loaded(m_current);
  });
}

void CaptureSession::reload() {
  if (!m_current) return;
  if (m_run.isMultiHost() || m_run.inputs.size() > 1)
    openRun(m_run.inputs);
  else
    open(m_current.path);
}

void CaptureSession::retry() {
  if (m_requested.isEmpty()) return;
  const QStringList again = m_requested;  // a copy: open() replaces m_requested while it reads the path
  openRun(again);                         // one file that is not a folder: the same as open()
}

void CaptureSession::close() {
  m_jobs.cancel();
  if (!m_current) return;
  replaceRun(LoadedRun{}, -1);
  emit closed();
}

void CaptureSession::cancel() { m_jobs.cancel(); }

void CaptureSession::setCurrentHost(int index) {
  if (index < 0 || index >= int(m_run.hosts.size()) || index == m_host) return;
  m_host = index;
  replaceCurrent(m_run.hosts[std::size_t(index)]);
  emit hostChanged(index);
}

void CaptureSession::replaceRun(LoadedRun next, int host) {
  LoadedRun old = std::move(m_run);
  m_run = std::move(next);
  m_host = host;
  replaceCurrent(host >= 0 ? m_run.hosts.at(std::size_t(host)) : LoadedCapture{});
  // The other hosts of the old run are freed off the UI thread too (replaceCurrent frees the current one).
  std::vector<std::shared_ptr<const capture::Capture>> rest;
  for (LoadedCapture& h : old.hosts)
    if (h.capture.use_count() == 1) rest.push_back(std::move(h.capture));
  if (!rest.empty())
    QThreadPool::globalInstance()->start([rest = std::move(rest)]() mutable { rest.clear(); });
}

void CaptureSession::replaceCurrent(LoadedCapture next) {
  auto old = std::move(m_current.capture);
  if (!m_watcher.files().isEmpty()) m_watcher.removePaths(m_watcher.files());
  m_current = std::move(next);
  m_shrinkReported = false;
  if (m_current) m_watcher.addPath(m_current.path);
  // Freeing a large capture (unmapping, millions of records) must not stall the UI thread; if this was the
  // last reference, the destructor runs on a pool thread.
  if (old && old.use_count() == 1) {
    QThreadPool::globalInstance()->start([old = std::move(old)]() mutable { old.reset(); });
  }
}

}  // namespace oomscope::ui
