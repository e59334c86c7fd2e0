#include "ui/snapshot/category_rules_menu.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

namespace oomscope::ui {

namespace {

QString& sessionPath() {
  static QString path;  // the rules file of this session; "" = built-in rules only
  return path;
}

}  // namespace

QString CategoryRulesMenu::sessionRules() { return sessionPath(); }

void CategoryRulesMenu::setSessionRules(const QString& path) { sessionPath() = path; }

CategoryRulesMenu::CategoryRulesMenu(QMainWindow* window) : QObject(window), m_window(window) {
  m_menu = window->menuBar()->addMenu(tr("&Categories"));
  m_menu->setToolTipsVisible(true);  // a disabled action says why
  m_load = m_menu->addAction(tr("&Load Category Rules\u2026"));
  connect(m_load, &QAction::triggered, this, [this] {
    const QString start = sessionPath().isEmpty() ? QString() : QFileInfo(sessionPath()).path();
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Load Category Rules"), start,
                                                      tr("Category rules (*.rules *.txt);;All files (*)"));
    if (!path.isEmpty()) emit applyRequested(path);
  });
  m_reload = m_menu->addAction(tr("&Reload Category Rules"));
  connect(m_reload, &QAction::triggered, this, [this] {
    if (!m_rulesPath.isEmpty()) emit applyRequested(m_rulesPath);
  });
  m_builtIn = m_menu->addAction(tr("&Built-in Categories Only"));
  connect(m_builtIn, &QAction::triggered, this, [this] { emit applyRequested(QString()); });
  setState(false, QString());
}

void CategoryRulesMenu::setState(bool available, const QString& rulesPath, const QString& whyNot) {
  m_rulesPath = rulesPath;
  m_load->setEnabled(available);
  m_reload->setEnabled(available && !rulesPath.isEmpty());
  m_builtIn->setEnabled(available && !rulesPath.isEmpty());
  const QString why = available ? QString() : whyNot;
  m_load->setToolTip(
      why.isEmpty() ? tr("A file of TARGET REGEX -> CATEGORY lines, tried before the built-in rules") : why);
  m_reload->setToolTip(why.isEmpty() ? tr("Read the rules file again (after editing it)") : why);
  m_builtIn->setToolTip(why.isEmpty() ? tr("Categorise with the built-in rules only") : why);
  m_menu->setToolTip(why);
}

}  // namespace oomscope::ui
