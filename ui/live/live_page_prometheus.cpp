// The Live page's Prometheus view (see live_page.h): attaching to a Prometheus server, its status line,
// and the rank menu that drills down to a rank's own agent (direct_attach.h).

#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTableView>

#include "core/util/error.h"
#include "ui/live/direct_attach.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

void LivePage::attachPrometheus(const std::string& server, const std::string& selector,
                                std::vector<live::AlertRule> rules) {
  resetSession(std::move(rules));
  m_isRecording = false;
  if (m_windowSeconds == 0) setWindowSeconds(600);
  live::PromOptions options;
  options.selector = selector;
  options.since_s = std::max(600, m_windowSeconds);
  try {
    m_prom = std::make_unique<live::PrometheusSource>(server, *m_session, options);
  } catch (const Error& e) {
    rankFailed(safeText(e.what()));
    return;
  }
  m_promSelector = safeText(options.selector);
  m_notice.clear();
  m_prom->start();
  m_record->setEnabled(true);
  m_record->setText(tr("Record\u2026"));
  rebuildCharts(0);
  m_status->setText(
      tr("Reading %1 from Prometheus at %2\u2026")
          .arg(m_promSelector.isEmpty() ? tr("every oomscope series") : m_promSelector, safeText(server)));
  refresh(true);
}

std::vector<live::PromRankInfo> LivePage::prometheusRanks() const {
  return m_prom ? m_prom->ranks() : std::vector<live::PromRankInfo>{};
}

void LivePage::rankFailed(const QString& reason) {
  m_notice = reason;
  m_status->setText(reason);
  emit directAttachFailed(reason);
}

bool LivePage::attachDirectly(int index) {
  if (!m_prom) {
    rankFailed(tr("Attach directly works from a Prometheus view; this session is already direct."));
    return false;
  }
  const auto ranks = m_prom->ranks();
  if (index < 0 || index >= int(ranks.size())) return false;
  return m_direct->start(ranks[std::size_t(index)], index);
}

void LivePage::showRankMenu(const QPoint& at) {
  const QModelIndex source = m_sorted->mapToSource(m_table->indexAt(at));
  if (!source.isValid()) return;
  const int index = m_ranks->row(source.row()).index;
  QMenu menu(this);
  QAction* chart = menu.addAction(tr("Show Chart"));
  QAction* direct = menu.addAction(tr("Attach Directly (10 Hz, events)"));
  direct->setEnabled(m_prom != nullptr);
  if (!m_prom) direct->setToolTip(tr("Only from a Prometheus view"));
  QAction* chosen = menu.exec(m_table->viewport()->mapToGlobal(at));
  if (chosen == chart && index < int(m_charts.size()))
    m_scroll->ensureWidgetVisible(m_charts[std::size_t(index)]);
  else if (chosen == direct)
    attachDirectly(index);
}

void LivePage::updatePrometheusStatus() {
  int up = 0;
  m_session->read([&](const live::Store& store, const live::AlertEngine&) {
    for (const auto& r : store.ranks()) up += r.connected ? 1 : 0;
    return 0;
  });
  const live::PromStatus st = m_prom->status();
  QString s = tr("Prometheus %1 %2: ").arg(safeText(st.server), m_promSelector);
  if (st.ranks == 0)
    s += safeText(st.phase) + QStringLiteral("\u2026");
  else
    s += tr("%1 of %2 rank(s) up").arg(up).arg(st.ranks);
  if (!st.error.empty()) s += QStringLiteral(" \u2014 ") + safeText(st.error);
  if (!m_notice.isEmpty()) s += QStringLiteral(" \u2014 ") + m_notice;
  if (m_session->recording()) s += tr(" \u00b7 recording to %1").arg(safeText(m_session->recording_path()));
  if (s != m_status->text() && (st.ranks > 0 || !st.error.empty())) m_status->setText(s);
  m_status->setToolTip(tr("History read in %1 s (step %2 s); %3 requests, %4 MB so far.")
                           .arg(st.history_seconds, 0, 'f', 2)
                           .arg(double(st.step_ms) / 1000.0)
                           .arg(st.requests)
                           .arg(double(st.bytes) / 1e6, 0, 'f', 1));
}

}  // namespace oomscope::ui
