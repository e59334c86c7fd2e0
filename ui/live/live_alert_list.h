#pragma once
// The Live page's alert list: each alert of the session's rules as it fires (red), and each `oom` event
// whose agent wrote a snapshot (blue; activating it asks to open that snapshot at the OOM). New lines are
// found while the page holds the session's lock (collect) and added after it (showCollected), so the lock
// is never held while widgets change.

#include <QListWidget>
#include <QPair>
#include <QStringList>
#include <QVector>
#include <cstddef>
#include <vector>

namespace oomscope::live {
class AlertEngine;
class Store;
}  // namespace oomscope::live

namespace oomscope::ui {

class LiveAlertList : public QListWidget {
  Q_OBJECT

 public:
  explicit LiveAlertList(QWidget* parent = nullptr);

  // A new session: no lines, nothing seen.
  void newSession();
  // Under the session's lock: the alerts and snapshot events not seen before.
  void collect(const live::Store& store, const live::AlertEngine& alerts);
  // Adds what collect() found, and scrolls to it.
  void showCollected();

 signals:
  void openSnapshotRequested(const QString& path);

 private:
  std::size_t m_seenAlerts = 0;
  std::vector<std::size_t> m_seenEvents;  // per rank: events already scanned for oom snapshots
  QStringList m_newAlerts;
  QVector<QPair<QString, QString>> m_snapshots;  // (line, path) of oom events that name a snapshot
};

}  // namespace oomscope::ui
