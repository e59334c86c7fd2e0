#include "ui/sim/sim_run_jobs.h"

#include <utility>

#include "ui/session/job_tracker.h"

namespace oomscope::ui {

SimRunJobs::SimRunJobs(QObject* parent) : QObject(parent) {
  for (auto& jobs : m_jobs) {
    jobs = new JobTracker(this);
    connect(jobs, &JobTracker::busyChanged, this, [this] { emit busyChanged(); });
    connect(jobs, &JobTracker::failed, this, [this](const JobError& error) { emit failed(error.text()); });
    connect(jobs, &JobTracker::progress, this, &SimRunJobs::progress);
  }
}

void SimRunJobs::simulate(int s, const sim::SimConfig& config, const QString& title) {
  m_jobs[std::size_t(s)]->start<RunPtr>(
      tr("Simulation %1").arg(s == 0 ? QStringLiteral("A") : QStringLiteral("B")),
      [config, title](ProgressSink& progress, std::stop_token stop) {
        return simulateRun(config, title, progress, std::move(stop));
      },
      [this, s](const RunPtr& run) { emit runArrived(s, run); });
}

void SimRunJobs::openTrace(int s, const QString& path) {
  m_tracePaths[std::size_t(s)] = path;
  m_jobs[std::size_t(s)]->start<RunPtr>(
      path,
      [path](ProgressSink& progress, std::stop_token stop) {
        return loadTraceRun(path, progress, std::move(stop));
      },
      [this, s](const RunPtr& run) { emit runArrived(s, run); });
}

void SimRunJobs::cancel(int s) { m_jobs[std::size_t(s)]->cancel(); }

void SimRunJobs::cancelAll() {
  for (auto* jobs : m_jobs) jobs->cancel();
}

bool SimRunJobs::busy() const { return m_jobs[0]->busy() || m_jobs[1]->busy(); }

}  // namespace oomscope::ui
