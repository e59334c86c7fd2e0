// The SimulatorPage's runs and cursor: starting the worker jobs, receiving their results and stepping.
#include <QDateTime>
#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>

#include "ui/session/job_tracker.h"
#include "ui/sim/event_table_model.h"
#include "ui/sim/memory_gauge.h"
#include "ui/sim/node_details.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_controls.h"
#include "ui/sim/sim_format.h"
#include "ui/sim/simulator_page.h"
#include "ui/sim/totals_model.h"
#include "ui/sim/transport_bar.h"
#include "ui/sim/tree_view.h"

namespace oomscope::ui {

namespace {
const char* slotLetter(int s) { return s == 0 ? "A" : "B"; }
}  // namespace

void SimulatorPage::simulateNow() {
  m_debounce->stop();
  startJobs();
}

void SimulatorPage::startJobs() {
  m_debounce->stop();
  if (m_predict) {
    // A stays the real run; B is the prediction of the controls' config.
    if (!m_predictPending) startSimulation(1, m_controls->config(), tr("prediction"));
    return;
  }
  const sim::SimConfig a = m_controls->config();
  if (m_slots[0].tracePath.isEmpty())
    startSimulation(0, a, QString::fromStdString(sim::preset_name(a.policy)));
  if (const auto b = m_controls->compareConfig()) {
    m_slots[1].tracePath.clear();
    startSimulation(1, *b, QString::fromStdString(sim::preset_name(b->policy)));
  } else if (m_slots[1].tracePath.isEmpty()) {
    m_slots[1].jobs->cancel();
    runArrived(1, nullptr);
  }
}

void SimulatorPage::startSimulation(int s, const sim::SimConfig& config, const QString& title) {
  m_slots[std::size_t(s)].jobs->start<RunPtr>(
      tr("Simulation %1").arg(QLatin1String(slotLetter(s))),
      [config, title](ProgressSink& progress, std::stop_token stop) {
        return simulateRun(config, title, progress, stop);
      },
      [this, s](const RunPtr& run) { runArrived(s, run); });
}

void SimulatorPage::openRealRunWithPrediction(const QString& path) {
  m_predict = true;
  m_predictPending = true;
  m_slots[1].jobs->cancel();
  runArrived(1, nullptr);
  m_slots[0].tracePath = path;
  m_slots[0].jobs->start<RunPtr>(
      path,
      [path](ProgressSink& progress, std::stop_token stop) { return loadTraceRun(path, progress, stop); },
      [this](const RunPtr& run) { runArrived(0, run); });
}

void SimulatorPage::openTrace(const QString& path, int s) {
  m_predict = m_predictPending = false;
  m_slots[std::size_t(s)].tracePath = path;
  m_slots[std::size_t(s)].jobs->start<RunPtr>(
      path,
      [path](ProgressSink& progress, std::stop_token stop) { return loadTraceRun(path, progress, stop); },
      [this, s](const RunPtr& run) { runArrived(s, run); });
}

void SimulatorPage::runArrived(int s, const RunPtr& run) {
  auto& slot = m_slots[std::size_t(s)];
  slot.run = run;
  if (s == 0 || run) m_error->hide();
  if (s == 0 && m_predictPending && run) {
    m_predictPending = false;
    if (run->config) {
      m_controls->setConfig(*run->config);  // no configChanged: the prediction starts here
      startSimulation(1, *run->config, tr("prediction"));
    } else {
      m_predict = false;
      jobFailed(tr("%1 cannot be predicted: its header has no simulator config (%2)")
                    .arg(m_slots[0].tracePath, run->configError));
    }
  }
  slot.tree->setRun(run);
  slot.events->setRun(run, slotStep(s));
  slot.pane->setVisible(s == 0 || run != nullptr);
  m_eventTabs->setTabVisible(s, s == 0 || run != nullptr);
  if (m_detailSlot == s) m_detailEvent = -1;
  m_totals->setRuns(m_slots[0].run, m_slots[1].run);
  updateNavigatorSource();
  refreshAlternatives();
  stepTo(m_step);
  QStringList status;
  for (int i = 0; i < 2; ++i) {
    const auto& r = m_slots[std::size_t(i)].run;
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
  refreshNotice();
  if (!isBusy()) {
    if (m_endPending) {
      m_endPending = false;
      stepTo(lastStep());
    }
    emit runsReady();
  }
}

void SimulatorPage::refreshAlternatives() {
  const auto& run = m_slots[0].run;
  if (!run || !run->baselines) {
    m_alternatives->setText(
        run ? tr("<span style='color:#5b636d'>No alternatives: this trace carries no baselines.</span>")
            : QString());
    return;
  }
  const auto& t = run->stepTotals.back();
  const double budget = run->config ? double(run->config->memory.budget) : 0.0;
  const double util =
      t.ok_attempts && budget > 0 ? double(t.ok_bytes_sum) / double(t.ok_attempts) / budget : 0.0;
  auto item = [](const QString& name, const QString& text) {
    return QStringLiteral("<p style='margin:0 0 6px 0'><b>%1</b><br>%2</p>").arg(name, text);
  };
  auto figures = [](std::int64_t attempts, std::int64_t ns, double use) {
    return tr("%1 attempts, %2 simulated, %3 of the budget used on average")
        .arg(simfmt::count(attempts), simfmt::duration(ns), simfmt::percent(use));
  };
  auto baseline = [&](const QString& name, const sim::BaselineResult& b, const QString& shape) {
    if (!b.feasible)
      return item(name,
                  tr("not possible: one scene alone exceeds the budget, so only splitting can train it"));
    return item(name + QStringLiteral(" · ") + shape, figures(b.attempts, b.time_ns, b.mean_utilisation));
  };
  const auto& bl = *run->baselines;
  QString html =
      tr("<p style='color:#5b636d; margin:0 0 8px 0'>The same scenes and epochs as run A, priced by A's "
         "memory and "
         "time model (derived by the simulator).</p>");
  html += item(tr("Split and retry (run A) · %1 optimizer steps").arg(simfmt::count(t.optimizer_steps)),
               figures(t.attempts, t.time_ns, util));
  html += baseline(
      tr("Lazy fix"), bl.lazy_fix,
      (bl.lazy_fix.scenes_per_attempt == 1 ? tr("1 scene per step")
                                           : tr("%1 scenes per step").arg(bl.lazy_fix.scenes_per_attempt)) +
          tr(", %1 steps").arg(simfmt::count(bl.lazy_fix.optimizer_steps)));
  html += baseline(
      tr("Micro-batches with accumulation"), bl.micro_batch,
      tr("%1 scenes × %2 per step").arg(bl.micro_batch.scenes_per_attempt).arg(bl.micro_batch.accumulation));
  m_alternatives->setText(html);
}

void SimulatorPage::jobFailed(const QString& message) {
  m_error->setText(message);
  m_error->show();
  emit failed(message);
  if (!isBusy()) emit runsReady();
}

bool SimulatorPage::isBusy() const { return m_slots[0].jobs->busy() || m_slots[1].jobs->busy(); }

void SimulatorPage::updateBusy() { m_transport->setBusy(isBusy()); }

std::int64_t SimulatorPage::lastStep() const {
  std::int64_t last = 0;
  for (const auto& slot : m_slots)
    if (slot.run) last = std::max(last, slot.run->steps());
  return last;
}

std::int64_t SimulatorPage::slotStep(int s) const {
  const auto& r = m_slots[std::size_t(s)].run;
  return r ? std::min(m_step, r->steps()) : 0;
}

void SimulatorPage::stepTo(std::int64_t step) {
  m_step = std::clamp<std::int64_t>(step, 0, lastStep());
  for (int s = 0; s < 2; ++s) refreshSlot(s);
  m_totals->setSteps(slotStep(0), slotStep(1));
  m_transport->setPosition(m_step, lastStep());
  refreshDetails();
  if (m_playing && m_step >= lastStep()) setPlaying(false);
  emit stepChanged(m_step);
}

void SimulatorPage::refreshSlot(int s) {
  auto& slot = m_slots[std::size_t(s)];
  const QString letter = QLatin1String(slotLetter(s));
  if (!slot.run) {
    slot.gauge->clear(letter);
    slot.header->setText(
        QStringLiteral("<b>%1</b> · %2").arg(letter, isBusy() ? tr("simulating…") : tr("no run")));
    return;
  }
  const auto& r = *slot.run;
  const auto st = slotStep(s);
  slot.tree->setStep(st);
  slot.events->setStep(st);
  const auto attempt = r.attemptOfStep(st);
  const sim::Event* e = attempt >= 0 ? &r.log.events[std::size_t(attempt)] : nullptr;
  slot.gauge->setAttempt(e, letter + QStringLiteral(" · ") + r.title);
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
  slot.header->setText(
      QStringLiteral("<b>%1 · %2</b>&nbsp;&nbsp;<span style='color:#5b636d'>step %3 of %4 · %5</span>")
          .arg(letter, r.title.toHtmlEscaped(), simfmt::count(st), simfmt::count(r.steps()), state));
  if (attempt >= 0 && slot.eventView->isVisible()) {
    // Deferred: rows inserted just now are not in the scroll range until the view has laid them out.
    const bool pinned = m_detailEvent >= 0 && m_detailSlot == s;
    QTimer::singleShot(0, slot.eventView, [view = slot.eventView, model = slot.events, attempt, pinned] {
      if (pinned || attempt >= model->rowCount()) return;
      // The attempt is at most a dropped half or two from the end: scrollToBottom lays the rows out first.
      if (attempt + 3 >= model->rowCount())
        view->scrollToBottom();
      else
        view->scrollTo(model->index(int(attempt), 0), QAbstractItemView::PositionAtCenter);
    });
  }
}

void SimulatorPage::refreshDetails() {
  const auto& slot = m_slots[std::size_t(m_detailSlot)];
  if (!slot.run) {
    m_details->clear();
    m_detailsTitle->setText(tr("Click a node or a row."));
    return;
  }
  const auto st = slotStep(m_detailSlot);
  std::int64_t id = m_detailEvent;
  if (id >= slot.run->eventsAfter(st)) id = -1;  // stepped back before it
  const bool following = id < 0;
  if (following) id = slot.run->attemptOfStep(st);
  for (int s = 0; s < 2; ++s)
    m_slots[std::size_t(s)].tree->setSelected(s == m_detailSlot && !following ? id : -1);
  m_detailsTitle->setText(following ? tr("Run %1 · current attempt · click a node to pin one")
                                          .arg(QLatin1String(slotLetter(m_detailSlot)))
                                    : tr("Run %1 · pinned · click empty tree space to follow")
                                          .arg(QLatin1String(slotLetter(m_detailSlot))));
  m_details->setHtml(id >= 0 ? nodeDetailsHtml(*slot.run, id, st)
                             : tr("<i>No attempt yet: press Next (→) or Play (Space).</i>"));
}

void SimulatorPage::selectEvent(int s, std::int64_t eventId) {
  m_detailSlot = s;
  m_detailEvent = eventId;
  auto& slot = m_slots[std::size_t(s)];
  if (eventId >= 0 && slot.run) {
    slot.tree->ensureVisible(eventId);
    if (eventId < slot.events->rowCount()) slot.eventView->selectRow(int(eventId));
  }
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
