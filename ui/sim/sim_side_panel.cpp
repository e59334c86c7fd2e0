#include "ui/sim/sim_side_panel.h"

#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "ui/sim/memory_gauge.h"
#include "ui/sim/node_details.h"
#include "ui/sim/sim_alternatives.h"
#include "ui/sim/totals_model.h"

namespace oomscope::ui {

SimSidePanel::SimSidePanel(const std::array<SimMemoryGauge*, 2>& gauges, SimTotalsModel* totals,
                           QWidget* parent)
    : QWidget(parent) {
  setMinimumWidth(440);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(6);

  auto* gaugeBox = new QGroupBox(tr("Memory of the current attempt"));
  auto* gv = new QVBoxLayout(gaugeBox);
  gv->setContentsMargins(8, 6, 8, 6);
  for (auto* gauge : gauges) gv->addWidget(gauge);
  v->addWidget(gaugeBox);

  auto* countersBox = new QGroupBox(tr("Counters"));
  auto* cv = new QVBoxLayout(countersBox);
  cv->setContentsMargins(4, 6, 4, 4);
  auto* table = new QTableView;
  table->setObjectName(QStringLiteral("totalsTable"));
  table->setModel(totals);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(20);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->setSelectionMode(QAbstractItemView::NoSelection);
  table->setFocusPolicy(Qt::NoFocus);
  table->setAlternatingRowColors(true);
  table->setShowGrid(false);
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->setMinimumHeight(20 * 16 + 6);  // scrolls past 15 rows
  cv->addWidget(table);
  m_alternatives = new SimAlternatives;
  v->addWidget(countersBox);

  // The selected attempt and the alternative schedules share the bottom: both are read one at a time.
  auto* bottom = new QTabWidget;
  bottom->setDocumentMode(true);
  auto* detailsPage = new QWidget;
  auto* dv = new QVBoxLayout(detailsPage);
  dv->setContentsMargins(6, 6, 6, 6);
  m_detailsTitle = new QLabel;
  m_detailsTitle->setStyleSheet(QStringLiteral("color:#5b636d"));
  dv->addWidget(m_detailsTitle);
  m_details = new QTextBrowser;
  m_details->setFrameShape(QFrame::NoFrame);
  m_details->setOpenLinks(false);
  dv->addWidget(m_details, 1);
  bottom->addTab(detailsPage, tr("Selected attempt"));
  bottom->addTab(m_alternatives, tr("Other schedules"));
  v->addWidget(bottom, 1);
}

void SimSidePanel::showNoRun() {
  m_details->clear();
  m_detailsTitle->setText(tr("Click a node or a row."));
}

void SimSidePanel::showAttempt(const RunData& run, const QString& letter, std::int64_t id, std::int64_t step,
                               bool following) {
  m_detailsTitle->setText(following ? tr("Run %1 · current attempt · click a node to pin one").arg(letter)
                                    : tr("Run %1 · pinned · click empty tree space to follow").arg(letter));
  m_details->setHtml(id >= 0 ? nodeDetailsHtml(run, id, step)
                             : tr("<i>No attempt yet: press Next (→) or Play (Space).</i>"));
}

QString SimSidePanel::detailsText() const { return m_details->toPlainText(); }
QString SimSidePanel::alternativesText() const { return m_alternatives->text(); }

}  // namespace oomscope::ui
