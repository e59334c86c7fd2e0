#pragma once
// Runs one long core job at a time on a worker thread and hands its outcome back to the UI thread.
//
// Every start() takes a new generation number; an outcome is delivered only while its generation is still the
// current one, so a superseded or cancelled job can never overwrite newer state (hotspot's JobTracker idea).
// Starting a new job or calling cancel() also asks the old job to stop through its std::stop_token, so it
// stops burning CPU; whatever it returns afterwards is dropped. Progress is forwarded to the UI thread at
// most once per progressInterval(), so a chatty reader cannot flood the event loop.

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <stop_token>
#include <utility>

#include "core/util/error.h"
#include "core/util/progress.h"
#include "ui/session/job_error.h"

namespace oomscope::ui {

class JobTracker : public QObject {
  Q_OBJECT

 public:
  template <class Result>
  using Work = std::function<Result(ProgressSink& progress, std::stop_token stop)>;

  explicit JobTracker(QObject* parent = nullptr);
  // Asks the running job to stop and waits for the worker, so no callback can outlive the tracker.
  ~JobTracker() override;

  // Runs work on the worker thread. on_done runs on the UI thread with the result, unless the job was
  // superseded or cancelled meanwhile. subject names what the job works on (a file path), for messages.
  // Result must be copyable (a shared_ptr to an immutable result is the intended use).
  template <class Result>
  quint64 start(const QString& subject, Work<Result> work, std::function<void(const Result&)> on_done);

  // Stops the current job: its result, error or progress will not be delivered. Emits cancelled() at once.
  void cancel();

  // Blocks until no job of this tracker runs on a worker (superseded and cancelled ones included), then
  // delivers what they queued for this thread. Tests use it to check that nothing else arrives instead of
  // sleeping for a while. False when the workers did not finish within msecs.
  bool settle(int msecs);

  bool busy() const { return m_busy; }
  quint64 generation() const { return m_generation; }
  QString subject() const { return m_subject; }

  std::chrono::milliseconds progressInterval() const { return m_progressInterval; }
  void setProgressInterval(std::chrono::milliseconds interval) { m_progressInterval = interval; }

 signals:
  void busyChanged(bool busy);
  void progress(double fraction, const QString& stage);
  // The job threw oomscope::Error (or something unexpected): its kind, file and problem (error.text() is the
  // one line naming the file and the problem).
  void failed(const oomscope::ui::JobError& error);
  void cancelled(const QString& subject);

 private:
  class ThrottledProgress;

  quint64 beginJob(const QString& subject);
  // True when gen is still current; then the job is over and busy turns false.
  bool finishJob(quint64 gen);
  std::shared_ptr<ProgressSink> makeSink(quint64 gen);
  void postFailure(quint64 gen, const QString& subject, std::exception_ptr error);
  void postCancelled(quint64 gen, const QString& subject);
  void postProgress(quint64 gen, double fraction, const QString& stage);
  void setBusy(bool busy);

  QThreadPool m_pool;
  std::stop_source m_stop;
  quint64 m_generation = 0;
  bool m_busy = false;
  QString m_subject;
  std::chrono::milliseconds m_progressInterval{50};
};

template <class Result>
quint64 JobTracker::start(const QString& subject, Work<Result> work,
                          std::function<void(const Result&)> on_done) {
  const quint64 gen = beginJob(subject);
  auto sink = makeSink(gen);
  m_pool.start([this, gen, subject, sink, stop = m_stop.get_token(), work = std::move(work),
                on_done = std::move(on_done)]() mutable {
    try {
      auto result = std::make_shared<const Result>(work(*sink, stop));
      QMetaObject::invokeMethod(
          this,
          [this, gen, result, on_done] {
            if (finishJob(gen)) on_done(*result);
          },
          Qt::QueuedConnection);
    } catch (const Cancelled&) {
      // A stop requested by cancel() or a newer start() lands on a stale generation and is dropped; a job
      // that cancels itself still ends its generation.
      postCancelled(gen, subject);
    } catch (...) {
      postFailure(gen, subject, std::current_exception());
    }
  });
  return gen;
}

}  // namespace oomscope::ui
