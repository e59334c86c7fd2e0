#include "ui/snapshot/category_rules_control.h"

#include <QLabel>
#include <QMainWindow>

#include "core/snapshot/category_rules.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/category_rules_menu.h"

namespace oomscope::ui {

namespace {

QString noSnapshot() {
  return CategoryRulesControl::tr(
      "Category rules apply to PyTorch allocator snapshots; this window holds none.");
}

}  // namespace

QString CategoryRulesControl::sessionRules() { return CategoryRulesMenu::sessionRules(); }

CategoryRulesControl::CategoryRulesControl(QMainWindow* window) : QObject(window) {
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
  m_menu = new CategoryRulesMenu(window);
  connect(m_menu, &CategoryRulesMenu::applyRequested, this, &CategoryRulesControl::apply);
}

bool CategoryRulesControl::busy() const { return m_job->busy(); }

void CategoryRulesControl::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  showSource();
}

void CategoryRulesControl::apply(const QString& path) {
  if (!m_doc || !m_doc->snap) {
    const QString message = noSnapshot();
    m_label->setText(message);
    emit failed(message);
    return;
  }
  m_label->setText(path.isEmpty()
                       ? tr("Categorising with the built-in rules\u2026")
                       : tr("Reading %1 and categorising\u2026").arg(safeText(path).toHtmlEscaped()));
  m_job->start<std::shared_ptr<const SnapshotDocument>>(
      path.isEmpty() ? tr("the built-in categories") : path,
      [doc = m_doc, file = path.toStdString()](ProgressSink&, const std::stop_token& stop) {
        std::shared_ptr<const snapshot::CategoryRules> rules;
        if (!file.empty())
          rules = std::make_shared<const snapshot::CategoryRules>(snapshot::CategoryRules::read(file));
        return recategorised(*doc, std::move(rules), stop);
      },
      [this, path](const std::shared_ptr<const SnapshotDocument>& doc) {
        if (!m_doc || doc->snap != m_doc->snap) return;  // another file was opened meanwhile
        CategoryRulesMenu::setSessionRules(path);
        setDocument(doc);
        emit applied(doc);
      });
}

void CategoryRulesControl::showSource() {
  const bool snap = m_doc && m_doc->snap;
  m_menu->setState(snap, snap && m_doc->rules ? QString::fromStdString(m_doc->rules->path()) : QString(),
                   noSnapshot());
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
