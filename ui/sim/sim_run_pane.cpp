#include "ui/sim/sim_run_pane.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/sim/event_table_model.h"
#include "ui/sim/memory_gauge.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"
#include "ui/sim/tree_view.h"

namespace oomscope::ui {

SimRunPane::SimRunPane(int slot, QWidget* parent) : QWidget(parent), m_slot(slot) {
  m_events = new SimEventTableModel(this);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  m_header = new QLabel;
  m_header->setTextFormat(Qt::RichText);
  v->addWidget(m_header);
  m_tree = new SimTreeView;
  m_tree->setObjectName(slot == 0 ? QStringLiteral("treeA") : QStringLiteral("treeB"));
  v->addWidget(m_tree, 1);
  connect(m_tree, &SimTreeView::nodeClicked, this, &SimRunPane::eventClicked);

  m_eventView = new QTableView;
  m_eventView->setModel(m_events);
  m_eventView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_eventView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_eventView->verticalHeader()->hide();
  m_eventView->verticalHeader()->setDefaultSectionSize(20);
  m_eventView->horizontalHeader()->setStretchLastSection(true);
  const int widths[] = {56, 52, 50, 46, 104, 116, 120, 84, 80, 80, 74};
  for (int c = 0; c < int(std::size(widths)); ++c) m_eventView->setColumnWidth(c, widths[c]);
  m_eventView->setAlternatingRowColors(true);
  m_eventView->setWordWrap(false);
  connect(m_eventView, &QTableView::clicked, this, [this](const QModelIndex& idx) {
    emit eventClicked(idx.data(SimEventTableModel::EventIdRole).toLongLong());
  });

  m_gauge = new SimMemoryGauge;
}

QString SimRunPane::letter() const { return m_slot == 0 ? QStringLiteral("A") : QStringLiteral("B"); }

void SimRunPane::setRun(const RunPtr& run, std::int64_t step) {
  m_run = run;
  m_tree->setRun(run);
  m_events->setRun(run, step);
}

void SimRunPane::showStep(std::int64_t st, bool busy, bool pinned) {
  const QString letter = this->letter();
  if (!m_run) {
    m_gauge->clear(letter);
    m_header->setText(QStringLiteral("<b>%1</b> · %2").arg(letter, busy ? tr("simulating…") : tr("no run")));
    return;
  }
  const auto& r = *m_run;
  m_tree->setStep(st);
  m_events->setStep(st);
  const auto attempt = r.attemptOfStep(st);
  const sim::Event* e = attempt >= 0 ? &r.log.events[std::size_t(attempt)] : nullptr;
  m_gauge->setAttempt(e, letter + QStringLiteral(" · ") + r.title);
  const auto& t = r.stepTotals[std::size_t(st)];
  QString state;
  if (!e)
    state = tr("before the first attempt");
  else {
    state = tr("attempt #%1 <span style='color:%2'>%3</span> · batch %4 of %5")
                .arg(attempt)
                .arg(sim_style::outcomeColor(e->outcome).name(), sim_style::outcomeLabel(e->outcome))
                .arg(e->batch + 1)
                .arg(simfmt::count(r.batchCount));
  }
  if (st == r.steps() && st > 0) state += t.crashes ? tr(" · <b>crashed</b>") : tr(" · finished");
  m_header->setText(
      QStringLiteral("<b>%1 · %2</b>&nbsp;&nbsp;<span style='color:#5b636d'>step %3 of %4 · %5</span>")
          .arg(letter, r.title.toHtmlEscaped(), simfmt::count(st), simfmt::count(r.steps()), state));
  if (attempt >= 0 && m_eventView->isVisible()) {
    // Deferred: rows inserted just now are not in the scroll range until the view has laid them out.
    QTimer::singleShot(0, m_eventView, [view = m_eventView, model = m_events, attempt, pinned] {
      if (pinned || attempt >= model->rowCount()) return;
      // The attempt is at most a dropped half or two from the end: scrollToBottom lays the rows out first.
      if (attempt + 3 >= model->rowCount())
        view->scrollToBottom();
      else
        view->scrollTo(model->index(int(attempt), 0), QAbstractItemView::PositionAtCenter);
    });
  }
}

void SimRunPane::revealEvent(std::int64_t eventId) {
  if (eventId < 0 || !m_run) return;
  m_tree->ensureVisible(eventId);
  if (eventId < m_events->rowCount()) m_eventView->selectRow(int(eventId));
}

}  // namespace oomscope::ui
