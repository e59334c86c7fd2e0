#include "ui/sim/simulator_page.h"

#include <QDateTime>
#include <QFileDialog>
#include <QLabel>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/sim/event_table_model.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_alternatives.h"
#include "ui/sim/sim_controls.h"
#include "ui/sim/sim_format.h"
#include "ui/sim/sim_notice.h"
#include "ui/sim/sim_run_jobs.h"
#include "ui/sim/sim_run_navigator.h"
#include "ui/sim/sim_run_pane.h"
#include "ui/sim/sim_side_panel.h"
#include "ui/sim/totals_model.h"
#include "ui/sim/transport_bar.h"
#include "ui/sim/tree_view.h"

namespace oomscope::ui {

namespace {

const char* slotLetter(int s) { return s == 0 ? "A" : "B"; }

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
  m_jobs = new SimRunJobs(this);
  connect(m_jobs, &SimRunJobs::busyChanged, this, [this] { m_transport->setBusy(isBusy()); });
  connect(m_jobs, &SimRunJobs::failed, this, &SimulatorPage::jobFailed);
  connect(m_jobs, &SimRunJobs::progress, this,
          [this](double f, const QString& stage) { m_transport->setProgress(f, stage); });
  connect(m_jobs, &SimRunJobs::runArrived, this, &SimulatorPage::runArrived);
  for (int s = 0; s < 2; ++s) {
    m_panes[std::size_t(s)] = new SimRunPane(s);
    connect(m_panes[std::size_t(s)], &SimRunPane::eventClicked, this,
            [this, s](qint64 id) { selectEvent(s, id); });
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
  m_notice = new SimNotice;
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
  paneSplit->addWidget(m_panes[0]);
  paneSplit->addWidget(m_panes[1]);
  treesLayout->addWidget(paneSplit, 1);

  m_eventTabs = new QTabWidget;
  m_eventTabs->setDocumentMode(true);
  m_eventTabs->addTab(m_panes[0]->eventView(), tr("Attempts · A"));
  m_eventTabs->addTab(m_panes[1]->eventView(), tr("Attempts · B"));
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
  m_side = new SimSidePanel({m_panes[0]->gauge(), m_panes[1]->gauge()}, m_totals);
  main->addWidget(m_side);
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
    if (!m_predict) m_jobs->clearTracePath(0);
    if (m_controls->compare() != SimControls::Compare::None) m_jobs->clearTracePath(1);
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
    for (auto* pane : m_panes) {
      pane->tree()->setFollowCurrent(true);
      pane->tree()->fit();
    }
  });
  connect(m_transport, &SimTransportBar::openTraceRequested, this, &SimulatorPage::chooseTrace);
  connect(m_transport, &SimTransportBar::cancelRequested, this, [this] {
    m_jobs->cancelAll();
    m_endPending = false;
  });

  auto shortcut = [this](const QKeySequence& key, auto fn) {
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
  m_panes[1]->hide();
  m_eventTabs->setTabVisible(1, false);
  createNavigatorSource();
  stepTo(0);
  startJobs();
}

SimulatorPage::~SimulatorPage() = default;

SimEventTableModel* SimulatorPage::eventModel(int slot) const { return m_panes[std::size_t(slot)]->events(); }
SimTreeView* SimulatorPage::treeView(int slot) const { return m_panes[std::size_t(slot)]->tree(); }
SimMemoryGauge* SimulatorPage::gauge(int slot) const { return m_panes[std::size_t(slot)]->gauge(); }
RunPtr SimulatorPage::run(int slot) const { return m_panes[std::size_t(slot)]->run(); }

QString SimulatorPage::errorText() const {
  return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString();
}
QString SimulatorPage::detailsText() const { return m_side->detailsText(); }
QString SimulatorPage::alternativesText() const { return m_side->alternativesText(); }
QString SimulatorPage::noticeText() const { return m_notice->shownText(); }

void SimulatorPage::chooseTrace(int slot) {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a split-and-retry trace"), {},
                                                    tr("Traces (*.jsonl *.json);;All files (*)"));
  if (path.isEmpty()) return;
  if (slot == 2)
    openRealRunWithPrediction(path);
  else
    openTrace(path, slot);
}

// Picking a run in the navigator shows its attempt list and puts the keyboard on its tree; picking an
// attempt tab here selects the run there.
void SimulatorPage::createNavigatorSource() {
  m_navigator = new SimRunNavigator(this);
  connect(m_navigator, &SimRunNavigator::runPicked, this, [this](int slot) {
    m_eventTabs->setCurrentIndex(slot);
    m_panes[std::size_t(slot)]->tree()->setFocus(Qt::OtherFocusReason);
  });
  connect(m_eventTabs, &QTabWidget::currentChanged, this, [this] { updateNavigatorSource(); });
}

void SimulatorPage::updateNavigatorSource() {
  if (m_navigator) m_navigator->setRuns({m_panes[0]->run(), m_panes[1]->run()}, m_eventTabs->currentIndex());
}

void SimulatorPage::simulateNow() {
  m_debounce->stop();
  startJobs();
}

void SimulatorPage::startJobs() {
  m_debounce->stop();
  if (m_predict) {
    // A stays the real run; B is the prediction of the controls' config.
    if (!m_predictPending) m_jobs->simulate(1, m_controls->config(), tr("prediction"));
    return;
  }
  const sim::SimConfig a = m_controls->config();
  if (m_jobs->tracePath(0).isEmpty())
    m_jobs->simulate(0, a, QString::fromStdString(sim::preset_name(a.policy)));
  if (const auto b = m_controls->compareConfig()) {
    m_jobs->clearTracePath(1);
    m_jobs->simulate(1, *b, QString::fromStdString(sim::preset_name(b->policy)));
  } else if (m_jobs->tracePath(1).isEmpty()) {
    m_jobs->cancel(1);
    runArrived(1, nullptr);
  }
}

void SimulatorPage::openRealRunWithPrediction(const QString& path) {
  m_predict = true;
  m_predictPending = true;
  m_jobs->cancel(1);
  runArrived(1, nullptr);
  m_jobs->openTrace(0, path);
}

void SimulatorPage::openTrace(const QString& path, int s) {
  m_predict = m_predictPending = false;
  m_jobs->openTrace(s, path);
}

void SimulatorPage::runArrived(int s, const RunPtr& run) {
  SimRunPane* pane = m_panes[std::size_t(s)];
  pane->setRun(run, run ? std::min(m_step, run->steps()) : 0);
  if (s == 0 || run) m_error->hide();
  if (s == 0 && m_predictPending && run) {
    m_predictPending = false;
    if (run->config) {
      m_controls->setConfig(*run->config);  // no configChanged: the prediction starts here
      m_jobs->simulate(1, *run->config, tr("prediction"));
    } else {
      m_predict = false;
      jobFailed(tr("%1 cannot be predicted: its header has no simulator config (%2)")
                    .arg(m_jobs->tracePath(0), run->configError));
    }
  }
  pane->setVisible(s == 0 || run != nullptr);
  m_eventTabs->setTabVisible(s, s == 0 || run != nullptr);
  if (m_detailSlot == s) m_detailEvent = -1;
  m_totals->setRuns(m_panes[0]->run(), m_panes[1]->run());
  updateNavigatorSource();
  m_side->alternatives()->setRun(m_panes[0]->run());
  stepTo(m_step);
  QStringList status;
  for (int i = 0; i < 2; ++i) {
    const auto& r = m_panes[std::size_t(i)]->run();
    if (!r) continue;
    status << tr("%1: %2 (%3 attempts, %4 nodes; computed in %5 ms, layout %6 ms)%7")
                  .arg(QLatin1String(slotLetter(i)), r->source, simfmt::count(r->stepTotals.back().attempts),
                       simfmt::count(std::int64_t(r->layout.nodeCount())))
                  .arg(r->computeSeconds * 1e3, 0, 'f', 0)
                  .arg(r->layoutSeconds * 1e3, 0, 'f', 0)
                  .arg(r->truncated ? tr(" — only the first %1 steps kept").arg(simfmt::count(kMaxSteps))
                                    : QString());
  }
  m_status->setText(status.join(QStringLiteral("   ·   ")));
  m_notice->showRuns(m_panes[0]->run(), m_panes[1]->run(), m_predict);
  if (!isBusy()) {
    if (m_endPending) {
      m_endPending = false;
      stepTo(lastStep());
    }
    emit runsReady();
  }
}

void SimulatorPage::jobFailed(const QString& message) {
  m_error->setText(message);
  m_error->show();
  emit failed(message);
  if (!isBusy()) emit runsReady();
}

bool SimulatorPage::isBusy() const { return m_jobs->busy(); }

std::int64_t SimulatorPage::lastStep() const {
  std::int64_t last = 0;
  for (const auto* pane : m_panes)
    if (pane->run()) last = std::max(last, pane->run()->steps());
  return last;
}

std::int64_t SimulatorPage::slotStep(int s) const {
  const auto& r = m_panes[std::size_t(s)]->run();
  return r ? std::min(m_step, r->steps()) : 0;
}

void SimulatorPage::stepTo(std::int64_t step) {
  m_step = std::clamp<std::int64_t>(step, 0, lastStep());
  for (int s = 0; s < 2; ++s)
    m_panes[std::size_t(s)]->showStep(slotStep(s), isBusy(), m_detailEvent >= 0 && m_detailSlot == s);
  m_totals->setSteps(slotStep(0), slotStep(1));
  m_transport->setPosition(m_step, lastStep());
  refreshDetails();
  if (m_playing && m_step >= lastStep()) setPlaying(false);
  emit stepChanged(m_step);
}

void SimulatorPage::refreshDetails() {
  const RunPtr& run = m_panes[std::size_t(m_detailSlot)]->run();
  if (!run) {
    m_side->showNoRun();
    return;
  }
  const auto st = slotStep(m_detailSlot);
  std::int64_t id = m_detailEvent;
  if (id >= run->eventsAfter(st)) id = -1;  // stepped back before it
  const bool following = id < 0;
  if (following) id = run->attemptOfStep(st);
  for (int s = 0; s < 2; ++s)
    m_panes[std::size_t(s)]->tree()->setSelected(s == m_detailSlot && !following ? id : -1);
  m_side->showAttempt(*run, QLatin1String(slotLetter(m_detailSlot)), id, st, following);
}

void SimulatorPage::selectEvent(int s, std::int64_t eventId) {
  m_detailSlot = s;
  m_detailEvent = eventId;
  m_panes[std::size_t(s)]->revealEvent(eventId);
  refreshDetails();
}

void SimulatorPage::runToEnd() {
  setPlaying(false);
  if (isBusy()) m_endPending = true;
  stepTo(lastStep());
}

void SimulatorPage::setPlaying(bool play) {
  if (play && m_step >= lastStep()) play = false;
  m_playing = play;
  m_transport->setPlaying(play);
  if (play) {
    m_playCarry = 0;
    m_lastTickMs = QDateTime::currentMSecsSinceEpoch();
    m_playTimer->start();
  } else {
    m_playTimer->stop();
  }
}

void SimulatorPage::tick() {
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  // Elapsed time, not ticks, so a slow paint does not slow the simulated clock; capped to avoid jumps.
  const double dt = std::min(0.25, double(now - m_lastTickMs) / 1000.0);
  m_lastTickMs = now;
  m_playCarry += m_transport->speed() * dt;
  const auto steps = std::int64_t(m_playCarry);
  if (steps <= 0) return;
  m_playCarry -= double(steps);
  stepTo(m_step + steps);
}

}  // namespace oomscope::ui
