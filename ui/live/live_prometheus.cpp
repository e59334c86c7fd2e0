#include "ui/live/live_prometheus.h"

#include "core/live/client/session.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LivePrometheus::LivePrometheus(const std::string& server, const std::string& selector,
                               std::int64_t sinceSeconds, live::LiveSession& session) {
  live::PromOptions options;
  options.selector = selector;
  options.since_s = sinceSeconds;
  m_source = std::make_unique<live::PrometheusSource>(server, session, options);
  m_selector = safeText(options.selector);
}

LivePrometheus::~LivePrometheus() { m_source->stop(); }

void LivePrometheus::start() { m_source->start(); }

QString LivePrometheus::startText(const std::string& server) const {
  return tr("Reading %1 from Prometheus at %2\u2026")
      .arg(m_selector.isEmpty() ? tr("every oomscope series") : m_selector, safeText(server));
}

LivePrometheus::Status LivePrometheus::status(const live::LiveSession& session, const QString& notice) const {
  int up = 0;
  session.read([&](const live::Store& store, const live::AlertEngine&) {
    for (const auto& r : store.ranks()) up += r.connected ? 1 : 0;
    return 0;
  });
  const live::PromStatus st = m_source->status();
  Status out;
  QString& s = out.text;
  s = tr("Prometheus %1 %2: ").arg(safeText(st.server), m_selector);
  if (st.ranks == 0)
    s += safeText(st.phase) + QStringLiteral("\u2026");
  else
    s += tr("%1 of %2 rank(s) up").arg(up).arg(st.ranks);
  if (!st.error.empty()) s += QStringLiteral(" \u2014 ") + safeText(st.error);
  if (!notice.isEmpty()) s += QStringLiteral(" \u2014 ") + notice;
  if (session.recording()) s += tr(" \u00b7 recording to %1").arg(safeText(session.recording_path()));
  out.worthShowing = st.ranks > 0 || !st.error.empty();
  out.toolTip = tr("History read in %1 s (step %2 s); %3 requests, %4 MB so far.")
                    .arg(st.history_seconds, 0, 'f', 2)
                    .arg(double(st.step_ms) / 1000.0)
                    .arg(st.requests)
                    .arg(double(st.bytes) / 1e6, 0, 'f', 1);
  return out;
}

}  // namespace oomscope::ui
