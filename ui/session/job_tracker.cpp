#include "ui/session/job_tracker.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <string_view>

namespace oomscope::ui {

// Lives on the worker thread; forwards reports to the tracker on the UI thread, throttled by time.
class JobTracker::ThrottledProgress final : public ProgressSink {
 public:
  ThrottledProgress(JobTracker* tracker, quint64 gen, std::chrono::milliseconds interval)
      : m_tracker(tracker), m_gen(gen), m_interval(interval) {}

  void report(double fraction, std::string_view stage) override {
    const auto now = std::chrono::steady_clock::now();
    const bool stageChanged = stage != m_lastStage;
    // The last report (fraction 1) and stage changes always go through, so the bar never ends at 97 %.
    if (!m_first && !stageChanged && fraction < 1.0 && now - m_last < m_interval) return;
    m_first = false;
    m_last = now;
    m_lastStage.assign(stage);
    m_tracker->postProgress(m_gen, fraction, QString::fromUtf8(stage.data(), qsizetype(stage.size())));
  }

 private:
  JobTracker* m_tracker;
  quint64 m_gen;
  std::chrono::milliseconds m_interval;
  std::chrono::steady_clock::time_point m_last{};
  std::string m_lastStage;
  bool m_first = true;
};

JobTracker::JobTracker(QObject* parent) : QObject(parent) {
  // One thread for the current job plus one for a superseded job that is still winding down.
  m_pool.setMaxThreadCount(2);
}

JobTracker::~JobTracker() {
  m_stop.request_stop();
  m_pool.waitForDone();
}

quint64 JobTracker::beginJob(const QString& subject) {
  m_stop.request_stop();
  m_stop = std::stop_source{};
  ++m_generation;
  m_subject = subject;
  setBusy(true);
  return m_generation;
}

bool JobTracker::finishJob(quint64 gen) {
  if (gen != m_generation || !m_busy) return false;
  setBusy(false);
  return true;
}

bool JobTracker::settle(int msecs) {
  if (!m_pool.waitForDone(msecs)) return false;
  QCoreApplication::sendPostedEvents(this);
  return true;
}

void JobTracker::cancel() {
  if (!m_busy) return;
  m_stop.request_stop();
  ++m_generation;
  setBusy(false);
  emit cancelled(m_subject);
}

std::shared_ptr<ProgressSink> JobTracker::makeSink(quint64 gen) {
  return std::make_shared<ThrottledProgress>(this, gen, m_progressInterval);
}

void JobTracker::postProgress(quint64 gen, double fraction, const QString& stage) {
  QMetaObject::invokeMethod(
      this,
      [this, gen, fraction, stage] {
        if (gen == m_generation && m_busy) emit progress(fraction, stage);
      },
      Qt::QueuedConnection);
}

void JobTracker::postCancelled(quint64 gen, const QString& subject) {
  QMetaObject::invokeMethod(
      this,
      [this, gen, subject] {
        if (finishJob(gen)) emit cancelled(subject);
      },
      Qt::QueuedConnection);
}

void JobTracker::postFailure(quint64 gen, const QString& subject, std::exception_ptr error) {
  const JobError failure = JobError::fromException(subject, std::move(error));
  QMetaObject::invokeMethod(
      this,
      [this, gen, failure] {
        if (finishJob(gen)) emit failed(failure);
      },
      Qt::QueuedConnection);
}

void JobTracker::setBusy(bool busy) {
  if (busy == m_busy) return;
  m_busy = busy;
  emit busyChanged(busy);
}

}  // namespace oomscope::ui
