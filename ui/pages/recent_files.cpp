#include "ui/pages/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace oomscope::ui::recent_files {

namespace {

const QString kKey = QStringLiteral("recentFiles");

void store(const QStringList& list) {
  QSettings settings;
  settings.setValue(kKey, list);
}

}  // namespace

QStringList load() {
  QStringList list = QSettings().value(kKey).toStringList();
  list.removeAll(QString());
  list.removeDuplicates();
  while (list.size() > kMaxRecent) list.removeLast();
  return list;
}

void add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = load();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxRecent) list.removeLast();
  store(list);
}

void remove(const QString& path) {
  QStringList list = load();
  list.removeAll(QFileInfo(path).absoluteFilePath());
  list.removeAll(path);
  store(list);
}

void clear() { store({}); }

}  // namespace oomscope::ui::recent_files
