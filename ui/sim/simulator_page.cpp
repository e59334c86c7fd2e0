#include "ui/sim/simulator_page.h"

#include <QFileDialog>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/session/job_tracker.h"
#include "ui/session/navigator_source.h"
#include "ui/sim/event_table_model.h"
#include "ui/sim/memory_gauge.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_controls.h"
#include "ui/sim/totals_model.h"
#include "ui/sim/transport_bar.h"
#include "ui/sim/tree_view.h"

namespace oomscope::ui {

namespace {

QString legendHtml() {
  using sim::Outcome;
  QString html;
  for (Outcome o : {Outcome::Ok, Outcome::Oom, Outcome::Bug, Outcome::Dropped, Outcome::Crash})
    html += QStringLiteral("<span style='color:%1; font-size:14px'>●</span>&nbsp;%2&nbsp;&nbsp;&nbsp;")
                .arg(sim_style::outcomeColor(o).name(), sim_style::outcomeLabel(o));
  html += QStringLiteral(
              "<span style='color:#6b7480; font-size:14px'>◌</span>&nbsp;queued&nbsp;&nbsp;&nbsp;"
              "<span style='color:#c3c8ce; font-size:14px'>●</span>&nbsp;not reached yet&nbsp;&nbsp;&nbsp;"
              "<span style='color:%1; font-size:14px'>◯</span>&nbsp;current attempt&nbsp;&nbsp;&nbsp;"
              "<span style='color:#5b636d'>size: points · wheel: zoom · drag: pan</span>")
              .arg(sim_style::currentRing().name());
  return html;
}

}  // namespace

QWidget* createSimulatorPage(QWidget* parent) { return new SimulatorPage(parent); }

SimulatorPage::SimulatorPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("simulatorPage"));
  m_totals = new SimTotalsModel(this);
  for (int s = 0; s < 2; ++s) {
    auto& slot = m_slots[std::size_t(s)];
    slot.jobs = new JobTracker(this);
    slot.events = new SimEventTableModel(this);
    connect(slot.jobs, &JobTracker::busyChanged, this, [this] { updateBusy(); });
    connect(slot.jobs, &JobTracker::failed, this, [this](const JobError& error) { jobFailed(error.text()); });
    connect(slot.jobs, &JobTracker::progress, this,
            [this](double f, const QString& stage) { m_transport->setProgress(f, stage); });
  }

  auto* root = new QVBoxLayout(this);
  root->setContentsMargins(8, 8, 8, 6);
  root->setSpacing(6);
  m_controls = new SimControls;
  root->addWidget(m_controls);
  m_transport = new SimTransportBar;
  root->addWidget(m_transport);
  m_error = new QLabel;
  m_error->setTextFormat(Qt::PlainText);  // errors name files: never markup
  m_error->setWordWrap(true);
  m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_error->setStyleSheet(
      QStringLiteral("background:#fdecea; color:#8a1c12; border:1px solid #f5c2bd; padding:4px 8px;"));
  m_error->hide();
  root->addWidget(m_error);
  m_notice = new QLabel;
  m_notice->setObjectName(QStringLiteral("simNotice"));
  m_notice->setWordWrap(true);
  m_notice->setTextFormat(Qt::RichText);
  m_notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_notice->setStyleSheet(
      QStringLiteral("background:#fff8e1; color:#5c4400; border:1px solid #f0d68a; padding:4px 8px;"));
  m_notice->hide();
  root->addWidget(m_notice);

  auto* trees = new QWidget;
  auto* treesLayout = new QVBoxLayout(trees);
  treesLayout->setContentsMargins(0, 0, 0, 0);
  treesLayout->setSpacing(4);
  auto* legend = new QLabel(legendHtml());
  legend->setTextFormat(Qt::RichText);
  treesLayout->addWidget(legend);
  auto* paneSplit = new QSplitter(Qt::Vertical);
  paneSplit->setChildrenCollapsible(false);
  paneSplit->addWidget(buildPane(0));
  paneSplit->addWidget(buildPane(1));
  treesLayout->addWidget(paneSplit, 1);

  m_eventTabs = new QTabWidget;
  m_eventTabs->setDocumentMode(true);
  for (int s = 0; s < 2; ++s) {
    auto& slot = m_slots[std::size_t(s)];
    slot.eventView = new QTableView;
    slot.eventView->setModel(slot.events);
    slot.eventView->setSelectionBehavior(QAbstractItemView::SelectRows);
    slot.eventView->setSelectionMode(QAbstractItemView::SingleSelection);
    slot.eventView->verticalHeader()->hide();
    slot.eventView->verticalHeader()->setDefaultSectionSize(20);
    slot.eventView->horizontalHeader()->setStretchLastSection(true);
    const int widths[] = {56, 52, 50, 46, 104, 116, 120, 84, 80, 80, 74};
    for (int c = 0; c < int(std::size(widths)); ++c) slot.eventView->setColumnWidth(c, widths[c]);
    slot.eventView->setAlternatingRowColors(true);
    slot.eventView->setWordWrap(false);
    m_eventTabs->addTab(slot.eventView, s == 0 ? tr("Attempts · A") : tr("Attempts · B"));
    connect(slot.eventView, &QTableView::clicked, this, [this, s](const QModelIndex& idx) {
      selectEvent(s, idx.data(SimEventTableModel::EventIdRole).toLongLong());
    });
  }
  auto* leftSplit = new QSplitter(Qt::Vertical);
  leftSplit->setChildrenCollapsible(false);
  leftSplit->addWidget(trees);
  leftSplit->addWidget(m_eventTabs);
  leftSplit->setStretchFactor(0, 3);
  leftSplit->setStretchFactor(1, 1);
  leftSplit->setSizes({620, 210});

  auto* main = new QSplitter(Qt::Horizontal);
  main->setChildrenCollapsible(false);
  main->addWidget(leftSplit);
  main->addWidget(buildSidePanel());
  main->setStretchFactor(0, 3);
  main->setStretchFactor(1, 1);
  main->setSizes({1100, 460});
  root->addWidget(main, 1);
  m_status = new QLabel;
  m_status->setTextFormat(Qt::PlainText);  // run sources are file paths: never markup
  m_status->setStyleSheet(QStringLiteral("color:#5b636d"));
  root->addWidget(m_status);

  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(200);
  connect(m_debounce, &QTimer::timeout, this, &SimulatorPage::startJobs);
  connect(m_controls, &SimControls::modelError, this, &SimulatorPage::jobFailed);
  connect(m_controls, &SimControls::configChanged, this, [this] {
    // Any edit of the inputs means "simulate this": a trace shown in A gives way to the simulation, except
    // a real run, whose prediction (B) the edit changes.
    if (!m_predict) m_slots[0].tracePath.clear();
    if (m_controls->compare() != SimControls::Compare::None) m_slots[1].tracePath.clear();
    m_debounce->start();
  });
  m_playTimer = new QTimer(this);
  m_playTimer->setInterval(30);
  connect(m_playTimer, &QTimer::timeout, this, &SimulatorPage::tick);

  connect(m_transport, &SimTransportBar::resetRequested, this, &SimulatorPage::reset);
  connect(m_transport, &SimTransportBar::backRequested, this, &SimulatorPage::back);
  connect(m_transport, &SimTransportBar::nextRequested, this, &SimulatorPage::next);
  connect(m_transport, &SimTransportBar::endRequested, this, &SimulatorPage::runToEnd);
  connect(m_transport, &SimTransportBar::playToggled, this, &SimulatorPage::setPlaying);
  connect(m_transport, &SimTransportBar::fitRequested, this, [this] {
    for (auto& slot : m_slots) {
      slot.tree->setFollowCurrent(true);
      slot.tree->fit();
    }
  });
  connect(m_transport, &SimTransportBar::openTraceRequested, this, &SimulatorPage::chooseTrace);
  connect(m_transport, &SimTransportBar::cancelRequested, this, [this] {
    for (auto& slot : m_slots) slot.jobs->cancel();
    m_endPending = false;
  });

  auto shortcut = [this](QKeySequence key, auto fn) {
    auto* sc = new QShortcut(key, this);
    sc->setContext(Qt::WidgetWithChildrenShortcut);
    connect(sc, &QShortcut::activated, this, fn);
  };
  shortcut(QKeySequence(Qt::Key_Right), [this] { next(); });
  shortcut(QKeySequence(Qt::Key_Left), [this] { back(); });
  shortcut(QKeySequence(Qt::Key_Space), [this] { setPlaying(!m_playing); });
  shortcut(QKeySequence(Qt::Key_End), [this] { runToEnd(); });
  shortcut(QKeySequence(Qt::Key_Home), [this] { reset(); });

  setFocusPolicy(Qt::StrongFocus);
  m_slots[1].pane->hide();
  m_eventTabs->setTabVisible(1, false);
  createNavigatorSource();
  stepTo(0);
  startJobs();
}

SimulatorPage::~SimulatorPage() = default;

QWidget* SimulatorPage::buildPane(int s) {
  auto& slot = m_slots[std::size_t(s)];
  slot.pane = new QWidget;
  auto* v = new QVBoxLayout(slot.pane);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  slot.header = new QLabel;
  slot.header->setTextFormat(Qt::RichText);
  v->addWidget(slot.header);
  slot.tree = new SimTreeView;
  slot.tree->setObjectName(s == 0 ? QStringLiteral("treeA") : QStringLiteral("treeB"));
  v->addWidget(slot.tree, 1);
  connect(slot.tree, &SimTreeView::nodeClicked, this, [this, s](qint64 id) { selectEvent(s, id); });
  return slot.pane;
}

QWidget* SimulatorPage::buildSidePanel() {
  auto* side = new QWidget;
  side->setMinimumWidth(440);
  auto* v = new QVBoxLayout(side);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(6);

  auto* gaugeBox = new QGroupBox(tr("Memory of the current attempt"));
  auto* gv = new QVBoxLayout(gaugeBox);
  gv->setContentsMargins(8, 6, 8, 6);
  for (auto& slot : m_slots) {
    slot.gauge = new SimMemoryGauge;
    gv->addWidget(slot.gauge);
  }
  v->addWidget(gaugeBox);

  auto* countersBox = new QGroupBox(tr("Counters"));
  auto* cv = new QVBoxLayout(countersBox);
  cv->setContentsMargins(4, 6, 4, 4);
  auto* table = new QTableView;
  table->setObjectName(QStringLiteral("totalsTable"));
  table->setModel(m_totals);
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
  m_alternatives = new QLabel;
  m_alternatives->setTextFormat(Qt::RichText);
  m_alternatives->setWordWrap(true);
  m_alternatives->setToolTip(
      tr("The same scenes and epochs without split-and-retry, priced by the same memory and time model "
         "(derived by the simulator)"));
  m_alternatives->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_alternatives->setContentsMargins(6, 6, 6, 6);
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
  return side;
}

QString SimulatorPage::errorText() const {
  return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString();
}
QString SimulatorPage::detailsText() const { return m_details->toPlainText(); }
QString SimulatorPage::alternativesText() const { return m_alternatives->text(); }
QString SimulatorPage::noticeText() const { return m_notice->isHidden() ? QString() : m_notice->text(); }

void SimulatorPage::chooseTrace(int slot) {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a split-and-retry trace"), {},
                                                    tr("Traces (*.jsonl *.json);;All files (*)"));
  if (path.isEmpty()) return;
  if (slot == 2)
    openRealRunWithPrediction(path);
  else
    openTrace(path, slot);
}

// The runs (A, and B when comparing) in the main window's navigator: picking one there shows its attempt
// list and puts the keyboard on its tree; picking an attempt tab here selects the run there.
void SimulatorPage::createNavigatorSource() {
  m_navigator = new NavigatorSource(tr("Simulator runs"), this);
  connect(m_navigator, &NavigatorSource::activated, this, [this](int entry) {
    // Entries list the slots that hold a run, A first.
    int slot = -1;
    for (int s = 0, seen = 0; s < 2; ++s)
      if (m_slots[std::size_t(s)].run && seen++ == entry) slot = s;
    if (slot < 0) return;
    m_eventTabs->setCurrentIndex(slot);
    m_slots[std::size_t(slot)].tree->setFocus(Qt::OtherFocusReason);
  });
  connect(m_eventTabs, &QTabWidget::currentChanged, this, [this] { updateNavigatorSource(); });
}

void SimulatorPage::updateNavigatorSource() {
  if (!m_navigator) return;
  std::vector<NavigatorSource::Entry> entries;
  int current = -1;
  for (int s = 0; s < 2; ++s) {
    const RunPtr& run = m_slots[std::size_t(s)].run;
    if (!run) continue;
    if (s == m_eventTabs->currentIndex()) current = int(entries.size());
    const qint64 attempts = run->stepTotals.empty() ? 0 : qint64(run->stepTotals.back().attempts);
    entries.push_back({tr("%1: %2").arg(s == 0 ? QStringLiteral("A") : QStringLiteral("B"), run->title),
                       attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(QLocale().toString(attempts)),
                       run->source});
  }
  m_navigator->setEntries(std::move(entries), current);
}

}  // namespace oomscope::ui
