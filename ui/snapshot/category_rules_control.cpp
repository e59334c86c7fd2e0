#include "ui/snapshot/category_rules_control.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

#include "core/snapshot/category_rules.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString& sessionPath() {
  static QString path;  // the rules file of this session; "" = built-in rules only
  return path;
}

}  // namespace

QString CategoryRulesControl::sessionRules() { return sessionPath(); }

CategoryRulesControl::CategoryRulesControl(QMainWindow* window) : QObject(window), m_window(window) {
  m_job = new JobTracker(this);
  m_label = new QLabel;
  m_label->setWordWrap(true);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  connect(m_job, &JobTracker::failed, this, [this](const JobError& e) {
    const QString message = tr("Category rules not applied: %1").arg(safeText(e.text()));
    m_label->setText(
        QStringLiteral("<span style='color:#c81e1e'>%1</span> %2")
            .arg(message.toHtmlEscaped(), tr("The categories shown are those of before.").toHtmlEscaped()));
    emit failed(message);
  });
  QMenu* menu = window->menuBar()->addMenu(tr("&Categories"));
  QAction* load = menu->addAction(tr("&Load Category Rules\u2026"));
  load->setToolTip(tr("A file of TARGET REGEX -> CATEGORY lines, tried before the built-in rules"));
  connect(load, &QAction::triggered, this, [this] {
    const QString start = sessionPath().isEmpty() ? QString() : QFileInfo(sessionPath()).path();
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Load Category Rules"), start,
                                                      tr("Category rules (*.rules *.txt);;All files (*)"));
    if (!path.isEmpty()) apply(path);
  });
  QAction* reload = menu->addAction(tr("&Reload Category Rules"));
  connect(reload, &QAction::triggered, this, [this] {
    if (m_doc && m_doc->rules) apply(QString::fromStdString(m_doc->rules->path()));
  });
  QAction* builtIn = menu->addAction(tr("&Built-in Categories Only"));
  connect(builtIn, &QAction::triggered, this, [this] { apply(QString()); });
  connect(menu, &QMenu::aboutToShow, this, [this, load, reload, builtIn] {
    const bool snap = m_doc && m_doc->snap;
    load->setEnabled(snap);
    reload->setEnabled(snap && m_doc->rules);
    builtIn->setEnabled(snap && m_doc->rules);
  });
}

bool CategoryRulesControl::busy() const { return m_job->busy(); }

void CategoryRulesControl::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  showSource();
}

void CategoryRulesControl::apply(const QString& path) {
  if (!m_doc || !m_doc->snap) {
    const QString message =
        tr("Category rules apply to PyTorch allocator snapshots; this window holds none.");
    m_label->setText(message);
    emit failed(message);
    return;
  }
  m_label->setText(path.isEmpty()
                       ? tr("Categorising with the built-in rules\u2026")
                       : tr("Reading %1 and categorising\u2026").arg(safeText(path).toHtmlEscaped()));
  m_job->start<std::shared_ptr<const SnapshotDocument>>(
      path.isEmpty() ? tr("the built-in categories") : path,
      [doc = m_doc, file = path.toStdString()](ProgressSink&, std::stop_token stop) {
        std::shared_ptr<const snapshot::CategoryRules> rules;
        if (!file.empty())
          rules = std::make_shared<const snapshot::CategoryRules>(snapshot::CategoryRules::read(file));
        return recategorised(*doc, std::move(rules), stop);
      },
      [this, path](const std::shared_ptr<const SnapshotDocument>& doc) {
        if (!m_doc || doc->snap != m_doc->snap) return;  // another file was opened meanwhile
        sessionPath() = path;
        setDocument(doc);
        emit applied(doc);
      });
}

void CategoryRulesControl::showSource() {
  if (!m_doc || !m_doc->snap)
    m_label->clear();
  else if (m_doc->rules)
    m_label->setText(
        tr("Categories: the %n rule(s) of <b>%1</b> first, then the built-in rules (docs/categories.md). The "
           "Category rule column says which rule decided each allocation.",
           nullptr, static_cast<int>(m_doc->rules->rules().size()))
            .arg(safeText(m_doc->rules->path()).toHtmlEscaped()));
  else
    m_label->setText(tr(
        "Categories: the built-in rules (docs/categories.md); Categories > Load Category Rules\u2026 tries "
        "your own first. The Category rule column says which rule decided each allocation."));
}

}  // namespace oomscope::ui
