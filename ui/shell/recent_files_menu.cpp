#include "ui/shell/recent_files_menu.h"

#include <QFileInfo>

#include "ui/session/settings_store.h"

namespace oomscope::ui {

RecentFilesMenu::RecentFilesMenu(const QString& title, QWidget* parent) : QMenu(title, parent) {
  connect(this, &QMenu::aboutToShow, this, &RecentFilesMenu::rebuild);
  rebuild();
}

void RecentFilesMenu::rebuild() {
  clear();
  const QStringList recent = SettingsStore::instance().recentFiles();
  for (int i = 0; i < recent.size(); ++i) {
    const QFileInfo info(recent.at(i));
    // Accelerators 1..9, then 0 for the tenth.
    const QString text =
        QStringLiteral("&%1  %2  \u2014  %3").arg((i + 1) % 10).arg(info.fileName(), info.absolutePath());
    auto* action = addAction(text);
    action->setToolTip(recent.at(i));
    connect(action, &QAction::triggered, this, [this, path = recent.at(i)] { emit openRequested(path); });
  }
  if (recent.isEmpty()) {
    addAction(tr("No recent files"))->setEnabled(false);
    return;
  }
  addSeparator();
  addAction(tr("Clear Recent Files"), this, [] { SettingsStore::instance().clearRecent(); });
}

}  // namespace oomscope::ui
