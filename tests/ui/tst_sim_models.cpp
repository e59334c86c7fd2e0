// The Simulator page's models and run records: QAbstractItemModelTester on the counters and attempt
// tables while they step, the per-step counters checked against the core simulator stepping on its own,
// counters derived from a trace file checked against the simulator's, and the original-vs-corrected
// comparison going the expected way.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "core/sim/simulator.h"
#include "core/sim/trace_writer.h"
#include "core/util/error.h"
#include "ui/sim/event_table_model.h"
#include "ui/sim/run_data.h"
#include "ui/sim/totals_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

RunPtr simulate(sim::Policy policy, std::int64_t scenes = 64) {
  sim::SimConfig c = sim::default_config();
  c.policy = policy;
  c.scenes.count = scenes;
  NullProgress progress;
  return simulateRun(c, QString::fromStdString(sim::preset_name(policy)), progress, {});
}

QStringList shown(const QAbstractItemModel& m) {
  QStringList out;
  for (int r = 0; r < m.rowCount(); ++r)
    for (int c = 0; c < m.columnCount(); ++c) out << m.index(r, c).data().toString();
  return out;
}

}  // namespace

class TestSimModels : public QObject {
  Q_OBJECT

 private slots:
  void totalsModelPassesTesterWhileStepping() {
    const auto a = simulate(sim::preset_original());
    const auto b = simulate(sim::preset_corrected());
    SimTotalsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), 1);
    model.setRuns(a, nullptr);
    QCOMPARE(model.columnCount(), 2);
    for (std::int64_t s = 0; s <= a->steps(); s += 7) model.setSteps(s, -1);
    model.setRuns(a, b);
    QCOMPARE(model.columnCount(), 4);
    QCOMPARE(model.rowCount(), int(SimTotalsModel::RowCount));
    for (std::int64_t s = std::max(a->steps(), b->steps()); s >= 0; s -= 5) model.setSteps(s, s);
    QCOMPARE(model.headerData(3, Qt::Horizontal).toString(), QStringLiteral("B − A"));
    QVERIFY(model.headerData(1, Qt::Horizontal).toString().contains(QStringLiteral("original")));
    QVERIFY(!model.index(SimTotalsModel::Attempts, 0).data(Qt::ToolTipRole).toString().isEmpty());
    model.setRuns(nullptr, nullptr);
    QCOMPARE(model.columnCount(), 1);
  }

  void eventModelPassesTesterWhileStepping() {
    const auto run = simulate(sim::preset_original());
    QVERIFY(run->steps() > 20);
    SimEventTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(run, 0);
    QCOMPARE(model.rowCount(), 0);
    for (std::int64_t s = 1; s <= run->steps(); ++s) {
      model.setStep(s);
      QCOMPARE(model.rowCount(), int(run->stepEnd[std::size_t(s)]));
    }
    model.setStep(3);
    QCOMPARE(model.rowCount(), int(run->stepEnd[3]));
    const auto& e = run->log.events[0];
    QCOMPARE(model.index(0, SimEventTableModel::Points).data(SimEventTableModel::SortRole).toLongLong(),
             qlonglong(e.points));
    QCOMPARE(model.index(0, SimEventTableModel::Outcome).data().toString().isEmpty(), false);
    model.setRun(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  // The counters recorded per step are the simulator's own after the same number of steps, and stepping the
  // core simulator back reproduces them: the page's cursor shows exactly what a stepping simulator would.
  void stepCountersMatchTheCoreSimulator() {
    sim::SimConfig c = sim::default_config();
    c.fault = {sim::BugKind::NanLoss, 5};
    NullProgress progress;
    const auto run = simulateRun(c, QStringLiteral("original"), progress, {});
    sim::Simulator simulator(c);
    std::int64_t s = 0;
    while (simulator.step()) {
      ++s;
      QVERIFY(simulator.totals() == run->stepTotals[std::size_t(s)]);
      QCOMPARE(std::int64_t(simulator.log().events.size()), std::int64_t(run->stepEnd[std::size_t(s)]));
    }
    QCOMPARE(s, run->steps());
    for (int k = 0; k < 25 && s > 0; ++k) {
      QVERIFY(simulator.step_back());
      --s;
      QVERIFY(simulator.totals() == run->stepTotals[std::size_t(s)]);
    }
    QVERIFY(run->stepTotals.back().bug_attempts > 0);  // the NaN bug was swallowed, not lost
  }

  void forwardThenBackRestoresTheShownCounters() {
    const auto a = simulate(sim::preset_original());
    const auto b = simulate(sim::preset_corrected());
    SimTotalsModel model;
    model.setRuns(a, b);
    const std::int64_t k = 10, n = 17;
    model.setSteps(k, k);
    const QStringList before = shown(model);
    for (std::int64_t i = 1; i <= n; ++i) model.setSteps(k + i, k + i);
    QVERIFY(shown(model) != before);  // the counters did move
    for (std::int64_t i = n - 1; i >= 0; --i) model.setSteps(k + i, k + i);
    QCOMPARE(shown(model), before);
  }

  void originalLosesGradientCorrectedKeepsIt() {
    const auto a = simulate(sim::preset_original());
    const auto b = simulate(sim::preset_corrected());
    SimTotalsModel model;
    model.setRuns(a, b);
    model.setSteps(a->steps(), b->steps());
    const auto& ta = a->stepTotals.back();
    const auto& tb = b->stepTotals.back();
    QVERIFY2(ta.retries > 0, "the default config must split");
    const double fa = model.value(SimTotalsModel::GradientPoints, 0);
    const double fb = model.value(SimTotalsModel::GradientPoints, 1);
    qInfo("gradient reached the step: original %.1f %%, corrected %.1f %%", 100 * fa, 100 * fb);
    QVERIFY(fa < 0.9);
    // Corrected: every point that was not dropped reaches the step.
    QCOMPARE(tb.points_applied, tb.points - tb.points_dropped);
    QVERIFY(fb > fa);
    QCOMPARE(model.value(SimTotalsModel::DiscardedGradients, 1), 0.0);
    QVERIFY(model.value(SimTotalsModel::DiscardedGradients, 0) > 0);
    // The difference column says B gained, in percentage points, in the "better" colour.
    const QModelIndex delta = model.index(SimTotalsModel::GradientPoints, 3);
    QVERIFY(delta.data().toString().startsWith(QLatin1Char('+')));
    QVERIFY(delta.data().toString().endsWith(QStringLiteral("pp")));
    QCOMPARE(delta.data(Qt::ForegroundRole).value<QColor>(), QColor(0x1e, 0x7e, 0x3c));
    QVERIFY(std::fabs(delta.data(SimTotalsModel::ValueRole).toDouble() - (fb - fa)) < 1e-12);
    QCOMPARE(ta.points_spatial > 0, true);
  }

  // Counters derived from a trace's events equal the simulator's at every step; the model-dependent ones are
  // known too because a simulator trace carries its config.
  void traceCountersMatchTheSimulator() {
    sim::SimConfig c = sim::default_config();
    c.fault = {sim::BugKind::ShapeMismatch, 9};
    sim::Simulator simulator(c);
    simulator.run_to_end();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("run.jsonl"));
    sim::write_trace_file(path.toStdString(), simulator.config(), simulator.log(), simulator.totals(),
                          simulator.baselines());
    NullProgress progress;
    const auto live = simulateRun(c, QStringLiteral("original"), progress, {});
    const auto trace = loadTraceRun(path, progress, {});
    QCOMPARE(trace->steps(), live->steps());
    QVERIFY(trace->hasFinalTotals);
    for (std::int64_t s = 0; s <= live->steps(); ++s) {
      const auto& d = trace->stepTotals[std::size_t(s)];
      const auto& t = live->stepTotals[std::size_t(s)];
      QCOMPARE(d.attempts, t.attempts);
      QCOMPARE(d.retries, t.retries);
      QCOMPARE(d.wasted_forward_passes, t.wasted_forward_passes);
      QCOMPARE(d.bug_attempts, t.bug_attempts);
      QCOMPARE(d.dropped_fragments, t.dropped_fragments);
      QCOMPARE(d.points_dropped, t.points_dropped);
      QCOMPARE(d.points_spatial, t.points_spatial);
      QCOMPARE(d.optimizer_steps, t.optimizer_steps);
      QCOMPARE(d.points_applied, t.points_applied);
      QCOMPARE(d.scenes_applied, t.scenes_applied);
      QCOMPARE(d.time_ns, t.time_ns);
      QCOMPARE(d.oom_free_time_ns, t.oom_free_time_ns);
    }
  }

  void badTraceNamesFileAndLine() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.jsonl"));
    std::ofstream(path.toStdString()) << "{\"format\":\"oomscope-split-trace\",\"version\":1}\nnot json\n";
    NullProgress progress;
    try {
      loadTraceRun(path, progress, {});
      QFAIL("a broken trace was accepted");
    } catch (const oomscope::Error& e) {
      const QString what = QString::fromStdString(e.what());
      QVERIFY2(what.contains(QStringLiteral("broken.jsonl")), qPrintable(what));
    }
  }
};

QTEST_GUILESS_MAIN(TestSimModels)
#include "tst_sim_models.moc"
