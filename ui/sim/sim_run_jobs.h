#pragma once
// The Simulator page's two run slots as worker jobs: each slot (A, B) has its own JobTracker, so a run of
// A and one of B are computed at once, and a newer job of a slot supersedes the older (its result never
// arrives). A slot shows either a simulation or a trace file (tracePath() non-empty).
//
//   auto* jobs = new SimRunJobs(page);
//   connect(jobs, &SimRunJobs::runArrived, page, [page](int slot, const RunPtr& run) { ... });
//   jobs->simulate(0, config, "original");

#include <QObject>
#include <QString>
#include <array>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

class JobTracker;

class SimRunJobs : public QObject {
  Q_OBJECT

 public:
  explicit SimRunJobs(QObject* parent = nullptr);

  // Simulates `config` into `slot`, its run titled `title`; the slot's trace path is left as it is.
  void simulate(int slot, const sim::SimConfig& config, const QString& title);
  // Reads the trace at `path` into `slot`, which from now on shows that trace.
  void openTrace(int slot, const QString& path);
  void cancel(int slot);
  void cancelAll();
  bool busy() const;

  QString tracePath(int slot) const { return m_tracePaths[std::size_t(slot)]; }
  void clearTracePath(int slot) { m_tracePaths[std::size_t(slot)].clear(); }

 signals:
  void runArrived(int slot, const oomscope::ui::RunPtr& run);
  void failed(const QString& message);
  void busyChanged();
  void progress(double fraction, const QString& stage);

 private:
  std::array<JobTracker*, 2> m_jobs{};
  std::array<QString, 2> m_tracePaths;
};

}  // namespace oomscope::ui
