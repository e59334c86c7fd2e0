#pragma once
// File > Open Recent: the recent files of the settings (SettingsStore::recentFiles(), most recent first) as a
// menu, numbered 1 to 9 and 0, each with its folder and its full path as tooltip, and "Clear Recent Files".
// The menu is rebuilt each time it is about to show, so it always lists what the settings hold now.
// Choosing a file emits openRequested; the window opens it (MainWindow::openRecent).

#include <QMenu>

namespace oomscope::ui {

class RecentFilesMenu : public QMenu {
  Q_OBJECT

 public:
  explicit RecentFilesMenu(const QString& title, QWidget* parent = nullptr);
  void rebuild();

 signals:
  void openRequested(const QString& path);
};

}  // namespace oomscope::ui
