#include "ui/live/live_alert_list.h"

#include "core/live/client/alerts.h"
#include "core/live/client/store.h"
#include "core/util/safe_text.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LiveAlertList::LiveAlertList(QWidget* parent) : QListWidget(parent) {
  setObjectName(QStringLiteral("alertList"));
  setWordWrap(true);
  setToolTip(tr("Double-click an OOM line that names a snapshot to open it at the OOM"));
  connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const QString path = item->data(Qt::UserRole).toString();
    if (!path.isEmpty()) emit openSnapshotRequested(path);
  });
}

void LiveAlertList::newSession() {
  clear();
  m_seenAlerts = 0;
  m_seenEvents.clear();
}

void LiveAlertList::collect(const live::Store& store, const live::AlertEngine& alerts) {
  const auto& all = alerts.alerts();
  for (std::size_t i = m_seenAlerts; i < all.size(); ++i) m_newAlerts << safeText(all[i].message);
  m_seenAlerts = all.size();
  const auto& ranks = store.ranks();
  if (m_seenEvents.size() < ranks.size()) m_seenEvents.resize(ranks.size(), 0);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (std::size_t e = m_seenEvents[r]; e < ranks[r].events.size(); ++e) {
      const live::Event& ev = ranks[r].events[e];
      if (ev.kind != "oom" || ev.path.empty()) continue;
      const QString path = QString::fromStdString(ev.path);
      m_snapshots.append({tr("rank %1: OOM, snapshot written to %2 (double-click to open it at the OOM)")
                              .arg(r)
                              .arg(QString::fromStdString(single_line_safe(ev.path))),
                          path});
    }
    m_seenEvents[r] = ranks[r].events.size();
  }
}

void LiveAlertList::showCollected() {
  for (const QString& a : m_newAlerts) {
    auto* item = new QListWidgetItem(a, this);
    item->setForeground(QColor(0xc6, 0x28, 0x28));
  }
  for (const auto& [line, path] : m_snapshots) {
    auto* item = new QListWidgetItem(line, this);
    item->setData(Qt::UserRole, path);
    item->setForeground(QColor(0x1f, 0x5f, 0xbf));
  }
  if (!m_newAlerts.isEmpty() || !m_snapshots.isEmpty()) scrollToBottom();
  m_newAlerts.clear();
  m_snapshots.clear();
}

}  // namespace oomscope::ui
