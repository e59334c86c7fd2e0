#pragma once
// The one place the GUI's settings are written: recent files, the last folder, window state, column widths.
//
// Reads come from an in-memory copy, updated on the calling (UI) thread in call order; every change is then
// written by a single worker thread, in the same order (QSettings syncs to disk, which took 10-20 ms on the
// UI thread). Each write stores the whole new value, never a read-modify-write on the worker, so the file
// always ends as the last change left it: "Clear Recent Files" right after a load cannot be undone by that
// load's pending add (the add came first, so the clear wins), and an add after a clear leaves just that file.
//
// The process-wide store (instance()) uses the application's QSettings and is shared by every window; tests
// make their own over a file of their choosing.

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QVariant>

namespace oomscope::ui {

class SettingsStore : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxRecent = 10;

  // The application's settings (QSettings() with the organisation and application names), created on first
  // use as a child of the application object.
  static SettingsStore& instance();

  // Settings in an INI file at iniPath; an empty path means the application's QSettings.
  explicit SettingsStore(const QString& iniPath = {}, QObject* parent = nullptr);
  // Waits for the pending writes.
  ~SettingsStore() override;

  // Most recent first, absolute paths, at most kMaxRecent.
  QStringList recentFiles() const { return m_recent; }
  // Puts path at the top (moving it if listed) and trims the list.
  void addRecent(const QString& path);
  void removeRecent(const QString& path);
  void clearRecent();

  QVariant value(const QString& key, const QVariant& fallback = {}) const;
  void setValue(const QString& key, const QVariant& value);
  void remove(const QString& key);

  // Blocks until every change made so far is written and synced.
  void flush();
  // Writes issued so far (for tests and diagnostics).
  quint64 writesIssued() const { return m_issued; }

 signals:
  void recentFilesChanged();

 private:
  void setRecent(QStringList list);
  // Queues writing value under key (an invalid value removes the key).
  void write(const QString& key, const QVariant& value);

  QString m_iniPath;
  QThreadPool m_writer;
  QHash<QString, QVariant> m_cache;
  QStringList m_recent;
  quint64 m_issued = 0;
};

}  // namespace oomscope::ui
