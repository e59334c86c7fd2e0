#include "ui/session/settings_store.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QSettings>
#include <memory>

namespace oomscope::ui {

namespace {

const QString kRecentKey = QStringLiteral("recentFiles");

std::unique_ptr<QSettings> open(const QString& iniPath) {
  if (iniPath.isEmpty()) return std::make_unique<QSettings>();
  return std::make_unique<QSettings>(iniPath, QSettings::IniFormat);
}

}  // namespace

SettingsStore& SettingsStore::instance() {
  static QPointer<SettingsStore> store;
  if (!store) store = new SettingsStore({}, QCoreApplication::instance());
  return *store;
}

SettingsStore::SettingsStore(const QString& iniPath, QObject* parent) : QObject(parent), m_iniPath(iniPath) {
  m_writer.setMaxThreadCount(1);  // one thread, first in first out: the file sees the changes in call order
  m_writer.setExpiryTimeout(-1);
  QStringList list = open(m_iniPath)->value(kRecentKey).toStringList();
  list.removeAll(QString());
  list.removeDuplicates();
  while (list.size() > kMaxRecent) list.removeLast();
  m_recent = list;
}

SettingsStore::~SettingsStore() { m_writer.waitForDone(); }

void SettingsStore::addRecent(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = m_recent;
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxRecent) list.removeLast();
  setRecent(std::move(list));
}

void SettingsStore::removeRecent(const QString& path) {
  QStringList list = m_recent;
  list.removeAll(QFileInfo(path).absoluteFilePath());
  list.removeAll(path);
  setRecent(std::move(list));
}

void SettingsStore::clearRecent() { setRecent({}); }

void SettingsStore::setRecent(QStringList list) {
  m_recent = std::move(list);
  write(kRecentKey, m_recent);
  emit recentFilesChanged();
}

QVariant SettingsStore::value(const QString& key, const QVariant& fallback) const {
  if (auto it = m_cache.constFind(key); it != m_cache.constEnd()) return it->isValid() ? *it : fallback;
  // Not changed in this process: whatever the file holds (written by an earlier run).
  return open(m_iniPath)->value(key, fallback);
}

void SettingsStore::setValue(const QString& key, const QVariant& value) {
  m_cache.insert(key, value);
  write(key, value);
}

void SettingsStore::remove(const QString& key) {
  m_cache.insert(key, QVariant());
  write(key, QVariant());
}

void SettingsStore::write(const QString& key, const QVariant& value) {
  ++m_issued;
  m_writer.start([iniPath = m_iniPath, key, value] {
    auto settings = open(iniPath);
    if (value.isValid())
      settings->setValue(key, value);
    else
      settings->remove(key);
    settings->sync();
  });
}

void SettingsStore::flush() { m_writer.waitForDone(); }

}  // namespace oomscope::ui
