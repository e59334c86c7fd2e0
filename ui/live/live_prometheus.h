#pragma once
// The Live page's Prometheus view: a PrometheusSource reading a job's ranks from a Prometheus server into
// the page's session (history first, then new samples every second, on the source's own thread), and the
// page's status line while it does. The page holds one while it shows a Prometheus view; dropping it
// stops the source.
//
//   auto prom = std::make_unique<LivePrometheus>(server, selector, 600, *session);  // throws Error
//   prom->start();
//   const LivePrometheus::Status s = prom->status(*session, notice);

#include <QCoreApplication>
#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/live/prom/prom_source.h"

namespace oomscope::live {
class LiveSession;
}

namespace oomscope::ui {

class LivePrometheus {
  Q_DECLARE_TR_FUNCTIONS(LivePrometheus)

 public:
  // Throws oomscope::Error when the server's address cannot be used.
  LivePrometheus(const std::string& server, const std::string& selector, std::int64_t sinceSeconds,
                 live::LiveSession& session);
  ~LivePrometheus();
  LivePrometheus(const LivePrometheus&) = delete;
  LivePrometheus& operator=(const LivePrometheus&) = delete;

  void start();
  std::vector<live::PromRankInfo> ranks() const { return m_source->ranks(); }
  // "Reading SELECTOR from Prometheus at SERVER…"
  QString startText(const std::string& server) const;

  struct Status {
    QString text;  // "Prometheus SERVER SELECTOR: 2 of 4 rank(s) up — NOTICE · recording to PATH"
    bool worthShowing = false;  // some ranks are known, or there is an error to say
    QString toolTip;            // how long the history took, requests and bytes so far
  };
  // `notice`: the last drill-down result, said after the source's own state.
  Status status(const live::LiveSession& session, const QString& notice) const;

 private:
  std::unique_ptr<live::PrometheusSource> m_source;
  QString m_selector;  // safe for display
};

}  // namespace oomscope::ui
