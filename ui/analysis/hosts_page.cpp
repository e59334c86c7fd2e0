#include "ui/analysis/hosts_page.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/report/capture_runs.h"
#include "ui/analysis/table_page.h"
#include "ui/models/host_table_model.h"
#include "ui/models/table_filter_proxy.h"
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
  m_runs = new QLabel(this);
  m_runs->setObjectName(QStringLiteral("hostsRuns"));
  m_runs->setWordWrap(true);
  m_runs->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_runs->setTextFormat(Qt::PlainText);
  m_runs->setStyleSheet(QStringLiteral("color: #9a4b00;"));
  m_runs->hide();
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
  // The verdict is the long column: it takes the width that is left and wraps onto as many lines as it
  // needs (rows grow to fit), so a user reads it whole; the first sign of running out wraps too rather than
  // leaving the verdict no room. The others keep the width of their contents.
  QTableView* view = m_table->view();
  view->setWordWrap(true);
  view->setTextElideMode(Qt::ElideNone);
  // Row heights follow the verdict column's width: set after each resize of the view (queued, so that the
  // stretched column has its new width first) and after each new run.
  view->viewport()->installEventFilter(this);
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
    QTableView* view = m_table->view();
    auto* header = view->horizontalHeader();
    header->setSectionResizeMode(HostTableModel::Host, QHeaderView::Interactive);
    for (int c = 0; c < HostTableModel::Verdict; ++c) {
      view->resizeColumnToContents(c);
      header->resizeSection(c, header->sectionSize(c) + 8);
    }
    const int firstSign = view->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 34;
    if (header->sectionSize(HostTableModel::FirstTrouble) > firstSign)
      header->resizeSection(HostTableModel::FirstTrouble, firstSign);
    // A long hostname (chi-mi300x-013.ord.vultr.cpe.ice.amd.com) would leave the verdict no room: the host
    // column stops at 28 characters (the host selector in the toolbar gives the whole name).
    const int host = view->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28;
    if (header->sectionSize(HostTableModel::Host) > host) header->resizeSection(HostTableModel::Host, host);
    header->setSectionResizeMode(HostTableModel::Verdict, QHeaderView::Stretch);
    fitRows();
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 12, 12, 4);
  layout->addWidget(m_headline);
  layout->addWidget(m_verdict);
  layout->addWidget(m_runs);
  layout->addWidget(m_failures);
  layout->addWidget(m_table, 1);
}

bool HostsPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table->view()->viewport() && event->type() == QEvent::Resize) fitRows();
  return QWidget::eventFilter(watched, event);
}

void HostsPage::fitRows() {
  QMetaObject::invokeMethod(
      this,
      [this] {
        // Row by row: each change is signalled, and the table page fits its height to the rows.
        QTableView* view = m_table->view();
        const QAbstractItemView* asView = view;            // sizeHintForRow is public there
        const int air = view->fontMetrics().height() / 3;  // wrapped lines do not touch the grid
        for (int r = 0; r < view->model()->rowCount(); ++r) {
          const int height = asView->sizeHintForRow(r) + air;
          if (view->rowHeight(r) != height) view->setRowHeight(r, height);
        }
      },
      Qt::QueuedConnection);
}

QString HostsPage::headline() const { return m_headline->text(); }

QString HostsPage::runsNote() const { return m_runs->isHidden() ? QString() : m_runs->text(); }

void HostsPage::setRun(const LoadedRun& run) {
  if (!run.comparison || !run.reports) {
    m_model->setRows({});
    m_headline->clear();
    m_verdict->clear();
    m_failures->hide();
    m_runs->hide();
    return;
  }
  m_model->setRows(hostRows(*run.comparison, *run.reports));
  // The verdict of the host the headline names, whole (the table's column elides it).
  m_verdict->clear();
  for (const HostRow& row : m_model->rows())
    if (row.ranOutFirst) m_verdict->setText(tr("Diagnosis of %1: %2").arg(row.host, row.verdict));
  m_headline->setText(safeText(run.comparison->explanation));
  // Files read together are not always the hosts of one run: say so when the captures show otherwise, or
  // cannot tell.
  const analysis::CaptureRuns runs =
      analysis::judge_capture_runs(std::span<const analysis::HostReport>(*run.reports));
  const bool together = runs.verdict == analysis::CaptureRunsVerdict::Together ||
                        runs.verdict == analysis::CaptureRunsVerdict::Single;
  m_runs->setVisible(!together);
  QString note = together ? QString() : safeText(runs.sentence + ".");
  if (!note.isEmpty()) note[0] = note[0].toUpper();
  m_runs->setText(note);
  m_failures->setVisible(!run.failures.isEmpty());
  if (!run.failures.isEmpty())
    m_failures->setText(tr("Not read: %1").arg(safeText(run.failures.join(QStringLiteral("; ")))));
}

}  // namespace oomscope::ui
