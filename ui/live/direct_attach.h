#pragma once
// The drill-down from a Prometheus view to one rank's own agent: the stats_endpoint its agent publishes in
// oomscope_agent_info is tried on a worker (JobTracker: one attempt at a time, a new one supersedes the
// last, at most 3 s, stopped when asked), and when it answers, a Live page attached to it (10 Hz detail and
// events) opens in a window of its own, a child of the page that asked. Every way it cannot (no endpoint
// published, one that does not parse, no answer) is one sentence naming the rank.

#include <QObject>
#include <QString>

#include "core/live/prom/prom_source.h"
#include "ui/live/live_page.h"  // complete: moc registers the signal's LivePage*

namespace oomscope::ui {

class JobTracker;

class DirectAttach : public QObject {
  Q_OBJECT

 public:
  // page: the Live page whose ranks these are; the windows opened are its children.
  explicit DirectAttach(QWidget* page);

  // Tries the rank with this session index; false, with failed() emitted, when it has nothing to try.
  bool start(const live::PromRankInfo& info, int index);

 signals:
  void connecting(const QString& status);
  void attached(oomscope::ui::LivePage* page, const QString& notice);
  void failed(const QString& reason);

 private:
  QWidget* m_page;
  JobTracker* m_job;
};

}  // namespace oomscope::ui
