#include "ui/pages/hosts_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/host_table_model.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/pages/table_page.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

HostsPage::HostsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("hostsPage"));
  m_model = new HostTableModel(this);
  m_headline = new QLabel(this);
  m_headline->setObjectName(QStringLiteral("hostsHeadline"));
  m_headline->setWordWrap(true);
  m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_headline->setTextFormat(Qt::PlainText);
  QFont font = m_headline->font();
  font.setPointSizeF(font.pointSizeF() * 1.15);
  font.setBold(true);
  m_headline->setFont(font);
  m_verdict = new QLabel(this);
  m_verdict->setObjectName(QStringLiteral("hostsVerdict"));
  m_verdict->setWordWrap(true);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_verdict->setTextFormat(Qt::PlainText);
  m_failures = new QLabel(this);
  m_failures->setObjectName(QStringLiteral("hostsFailures"));
  m_failures->setWordWrap(true);
  m_failures->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_failures->setTextFormat(Qt::PlainText);
  m_failures->hide();
  m_table = new TablePage(
      m_model,
      {tr("host"),
       false,
       {},
       tr("Each host's figures come from its own capture file, analysed with the default module as "
          "`oomscope-cli report` does. Hosts are placed on one wall clock by the start each capture records "
          "(as exact as the hosts' clocks agree); without it, times are by each host's own clock. "
          "Double-click a host to show its pages; the host selector in the toolbar "
          "and the navigator switch hosts too."),
       HostTableModel::Host,
       Qt::AscendingOrder},
      this);
  m_table->view()->setObjectName(QStringLiteral("hostsView"));
  connect(m_table->view(), &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const QModelIndex source = m_table->proxy()->mapToSource(index);
    if (source.isValid()) emit hostActivated(source.row());
  });
  // The verdict is the long column: it takes the width that is left (elided, whole in its tooltip); the
  // others keep the width of their contents.
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
    auto* header = m_table->view()->horizontalHeader();
    header->setSectionResizeMode(HostTableModel::Host, QHeaderView::Interactive);
    for (int c = 0; c < HostTableModel::Verdict; ++c) {
      m_table->view()->resizeColumnToContents(c);
      header->resizeSection(c, header->sectionSize(c) + 8);
    }
    header->setSectionResizeMode(HostTableModel::Verdict, QHeaderView::Stretch);
  });
  m_table->view()->setTextElideMode(Qt::ElideRight);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 12, 12, 4);
  layout->addWidget(m_headline);
  layout->addWidget(m_verdict);
  layout->addWidget(m_failures);
  layout->addWidget(m_table, 1);
}

QString HostsPage::headline() const { return m_headline->text(); }

void HostsPage::setRun(const LoadedRun& run) {
  if (!run.comparison || !run.reports) {
    m_model->setRows({});
    m_headline->clear();
    m_verdict->clear();
    m_failures->hide();
    return;
  }
  m_model->setRows(hostRows(*run.comparison, *run.reports));
  // The verdict of the host the headline names, whole (the table's column elides it).
  m_verdict->clear();
  for (const HostRow& row : m_model->rows())
    if (row.ranOutFirst) m_verdict->setText(tr("Diagnosis of %1: %2").arg(row.host, row.verdict));
  m_headline->setText(safeText(run.comparison->explanation));
  m_failures->setVisible(!run.failures.isEmpty());
  if (!run.failures.isEmpty())
    m_failures->setText(tr("Not read: %1").arg(safeText(run.failures.join(QStringLiteral("; ")))));
}

}  // namespace oomscope::ui
