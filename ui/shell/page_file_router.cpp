#include "ui/shell/page_file_router.h"

#include <QFileInfo>
#include <QTabWidget>

#include "core/capture/companion.h"
#include "core/snapshot/file_kind.h"
#include "ui/log/log_window.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/settings_store.h"
#include "ui/snapshot/snapshot_window.h"

namespace oomscope::ui {

PageFileRouter::PageFileRouter(QTabWidget* tabs, QObject* parent) : QObject(parent), m_tabs(tabs) {}

void PageFileRouter::addOpener(PageFileOpener* opener, QWidget* page) {
  m_openers.emplace_back(opener, page);
  connect(opener, &PageFileOpener::opened, this, [](const QString& path) {
    SettingsStore::instance().addRecent(QFileInfo(path).absoluteFilePath());
  });
  connect(opener, &PageFileOpener::failed, this, &PageFileRouter::failed);
}

QStringList PageFileRouter::filters() const {
  QStringList filters;
  for (const auto& [opener, page] : m_openers) filters << opener->filter();
  return filters;
}

bool PageFileRouter::openOnPage(const QString& path) {
  if (QFileInfo(path).isDir()) return false;
  for (const auto& [opener, page] : m_openers) {
    if (!opener->accepts(path)) continue;
    m_tabs->setCurrentWidget(page);
    opener->open(path);
    return true;
  }
  return false;
}

bool PageFileRouter::openInOwnWindow(const QString& path) {
  if (QFileInfo(path).isDir() || capture::capture_beside(path.toStdString())) return false;
  const snapshot::FileKind kind = snapshot::detect_file_kind(path.toStdString()).kind;
  if (kind == snapshot::FileKind::XSpace) return false;
  if (kind != snapshot::FileKind::Log) {
    SnapshotWindow::openFile(path);
    return true;
  }
  LogWindow* window = LogWindow::openFile(path);
  connect(window, &LogWindow::loaded, this,
          [path] { SettingsStore::instance().addRecent(QFileInfo(path).absoluteFilePath()); });
  return true;
}

}  // namespace oomscope::ui
