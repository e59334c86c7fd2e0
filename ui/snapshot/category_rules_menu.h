#pragma once
// The Categories menu of a window that categorises PyTorch allocator snapshots (docs/categories.md): Load
// Category Rules…, Reload Category Rules, Built-in Categories Only. It only asks: applyRequested names the
// rules file to categorise with ("" = the built-in rules only), and the window does the work on its worker
// and says which rules are in use (setState). The last file that worked is remembered for the session
// (sessionRules), so windows opened later categorise with it too. Used by CategoryRulesControl (a
// snapshot window) and the Ranks window.

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace oomscope::ui {

class CategoryRulesMenu : public QObject {
  Q_OBJECT

 public:
  // Adds the Categories menu to `window`'s menu bar; every action is disabled until setState.
  explicit CategoryRulesMenu(QMainWindow* window);

  // available: the window holds something to categorise (else every action is disabled, with `whyNot` as
  // their tooltip). rulesPath: the rules file in use ("" = the built-in rules): Reload and Built-in need one.
  void setState(bool available, const QString& rulesPath, const QString& whyNot = QString());
  const QString& rulesPath() const { return m_rulesPath; }

  QMenu* menu() const { return m_menu; }
  QAction* loadAction() const { return m_load; }
  QAction* reloadAction() const { return m_reload; }
  QAction* builtInAction() const { return m_builtIn; }

  // The rules file of this session ("" = none), and the one to remember after rules worked.
  static QString sessionRules();
  static void setSessionRules(const QString& path);

 signals:
  void applyRequested(const QString& path);

 private:
  QMainWindow* m_window;
  QMenu* m_menu = nullptr;
  QAction* m_load = nullptr;
  QAction* m_reload = nullptr;
  QAction* m_builtIn = nullptr;
  QString m_rulesPath;
};

}  // namespace oomscope::ui
