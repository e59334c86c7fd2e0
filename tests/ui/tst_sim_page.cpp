// The Simulator page as a user drives it: runs computed on workers, keyboard stepping, play, run to end,
// original vs corrected side by side, editing inputs, a planted bug, opening good and bad traces; with
// screenshots at the start, mid-way and at the end of a run (OOMSCOPE_SCREENSHOT_DIR).
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "core/sim/simulator.h"
#include "core/sim/trace_writer.h"
#include "tests/ui/screenshots.h"
#include "ui/sim/event_table_model.h"
#include "ui/sim/memory_gauge.h"
#include "ui/sim/sim_controls.h"
#include "ui/sim/simulator_page.h"
#include "ui/sim/totals_model.h"
#include "ui/sim/transport_bar.h"
#include "ui/sim/tree_view.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

bool settled(const SimulatorPage& page, bool wantB) {
  return !page.isBusy() && page.run(0) && (!wantB || page.run(1));
}

}  // namespace

class TestSimPage : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    m_page = std::make_unique<SimulatorPage>();
    m_page->resize(1600, 1000);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    QTRY_VERIFY_WITH_TIMEOUT(settled(*m_page, true), 60000);
  }
  void cleanup() { m_page.reset(); }

  void keyboardSteppingAndScreenshots() {
    auto& page = *m_page;
    QVERIFY(page.lastStep() > 20);
    QCOMPARE(page.step(), 0);
    shoot(page, QStringLiteral("simulator_start.png"));

    page.setFocus();
    for (int i = 0; i < 3; ++i) QTest::keyClick(&page, Qt::Key_Right);
    QCOMPARE(page.step(), 3);
    QTest::keyClick(&page, Qt::Key_Left);
    QCOMPARE(page.step(), 2);
    QCOMPARE(page.eventModel(0)->rowCount(), int(page.run(0)->eventsAfter(2)));
    QVERIFY(page.detailsText().contains(QStringLiteral("Attempt #")));

    // Play advances on its own, Space pauses.
    QTest::keyClick(&page, Qt::Key_Space);
    QVERIFY(page.isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(page.step() > 4, 5000);
    QTest::keyClick(&page, Qt::Key_Space);
    QVERIFY(!page.isPlaying());

    page.stepTo(page.lastStep() / 2);
    // Pin an attempt by clicking it in tree A: the details follow it.
    SimTreeView* tree = page.treeView(0);
    const auto pinned = page.run(0)->attemptOfStep(page.step());
    QTest::mouseClick(tree, Qt::LeftButton, {}, tree->nodeCenter(pinned).toPoint());
    QCOMPARE(tree->selected(), pinned);
    QVERIFY(page.detailsText().contains(QStringLiteral("Attempt #%1").arg(pinned)));
    page.next();
    shoot(page, QStringLiteral("simulator_mid.png"));

    QTest::keyClick(&page, Qt::Key_End);
    QCOMPARE(page.step(), page.lastStep());
    shoot(page, QStringLiteral("simulator_end.png"));
    QTest::keyClick(&page, Qt::Key_Home);
    QCOMPARE(page.step(), 0);
    QCOMPARE(page.eventModel(0)->rowCount(), 0);
  }

  void comparisonStepsTogether() {
    auto& page = *m_page;
    auto* totals = page.totalsModel();
    QCOMPARE(totals->runCount(), 2);
    page.runToEnd();
    QCOMPARE(page.run(0)->title, QStringLiteral("original"));
    QCOMPARE(page.run(1)->title, QStringLiteral("corrected"));
    QVERIFY(totals->value(SimTotalsModel::GradientPoints, 0) <
            totals->value(SimTotalsModel::GradientPoints, 1));
    // The schedules that avoid OOM altogether, for the same scenes, with the simulator's figures.
    const auto& lazy = page.run(0)->baselines->lazy_fix;
    QVERIFY(page.alternativesText().contains(QStringLiteral("Lazy fix")));
    if (lazy.feasible) QVERIFY(page.alternativesText().contains(QString::number(lazy.attempts)));
    // With 8 GiB every scene fits alone: the lazy fix and micro-batches become possible.
    page.controls()->setBudgetGiB(8.0);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) && page.run(0)->config->memory.budget == (8LL << 30), 60000);
    QVERIFY(page.run(0)->baselines->micro_batch.feasible);
    QVERIFY(page.alternativesText().contains(QStringLiteral("Micro-batches")));
    QVERIFY(!page.alternativesText().contains(QStringLiteral("not possible")));
    for (auto* tabs : page.findChildren<QTabWidget*>())
      for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == QStringLiteral("Other schedules")) tabs->setCurrentIndex(i);
    page.runToEnd();
    shoot(page, QStringLiteral("simulator_schedules.png"));
    // Stepping moves both runs; the shorter one waits at its end.
    page.stepTo(5);
    QCOMPARE(page.treeView(0)->step(), 5);
    QCOMPARE(page.treeView(1)->step(), std::min<std::int64_t>(5, page.run(1)->steps()));
    QCOMPARE(totals->value(SimTotalsModel::Attempts, 0), double(page.run(0)->stepTotals[5].attempts));
  }

  void editingInputsResimulates() {
    auto& page = *m_page;
    const auto before = page.run(0)->stepTotals.back().oom_attempts;
    page.controls()->setBudgetGiB(16.0);  // 4 x 300,000 points fit: no OOM at all
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) && page.run(0)->config->memory.budget == (16LL << 30),
                             60000);
    QVERIFY(before > 0);
    QCOMPARE(page.run(0)->stepTotals.back().oom_attempts, 0);
    page.runToEnd();
    QVERIFY(!page.gauge(0)->overBudget());

    // A planted shape bug: swallowed and dropped by the original, a loud crash under the corrected policy.
    sim::SimConfig c = page.controls()->config();
    c.memory.budget = 4LL << 30;
    c.fault = {sim::BugKind::ShapeMismatch, 3};
    page.controls()->setConfig(c);
    page.controls()->setCompare(SimControls::Compare::Corrected);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) &&
                                 page.run(0)->config->fault.kind == sim::BugKind::ShapeMismatch &&
                                 page.run(1)->config->fault.kind == sim::BugKind::ShapeMismatch,
                             60000);
    page.runToEnd();
    QVERIFY(page.totalsModel()->value(SimTotalsModel::BugsSwallowed, 0) > 0);
    QCOMPARE(page.totalsModel()->value(SimTotalsModel::Crashes, 0), 0.0);
    QCOMPARE(page.totalsModel()->value(SimTotalsModel::Crashes, 1), 1.0);
    shoot(page, QStringLiteral("simulator_bug.png"));

    // A sizes file that is not there: the banner names it, the previous runs stay on screen.
    QSignalSpy failed(&page, &SimulatorPage::failed);
    page.controls()->setSizesFile(QStringLiteral("/nonexistent/room_sizes.txt"));
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() >= 1, 30000);
    QVERIFY2(page.errorText().contains(QStringLiteral("room_sizes.txt")), qPrintable(page.errorText()));
    QVERIFY(page.run(0) && !page.run(0)->fromTrace);
    QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy(), 30000);

    QTemporaryDir dir;
    const QString sizes = dir.filePath(QStringLiteral("sizes.txt"));
    std::ofstream(sizes.toStdString()) << "# points per scene\n250000\n40000\n120000\n90000\n";
    page.controls()->setSizesFile(sizes);
    QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && page.run(0)->config->scenes.dist == sim::SizeDist::File,
                             60000);
    QCOMPARE(page.run(0)->stepTotals.back().scenes, 4);
  }

  // A run that takes seconds to simulate is computed on the worker: the event loop keeps ticking, the old
  // runs stay steppable meanwhile, and Cancel keeps them.
  void bigRunDoesNotFreezeAndCancels() {
    auto& page = *m_page;
    const RunPtr before = page.run(0);
    sim::SimConfig c = page.controls()->config();
    // Big enough to still be running after 200 ms at millions of attempts per second (optimised builds).
    c.scenes.count = 3'000'000;
    page.controls()->setConfig(c);
    page.simulateNow();
    QVERIFY(page.isBusy());
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worstGap = 0;
    int ticks = 0;
    // 200 ms: well inside the job in every build (it takes about 0.8 s optimised, several seconds in Debug).
    while (clock.elapsed() < 200 && page.isBusy()) {
      QTest::qWait(10);
      worstGap = std::max(worstGap, clock.elapsed() - last);
      last = clock.elapsed();
      ++ticks;
      if (ticks == 5) page.next();  // stepping the old runs while the new ones compute
    }
    qInfo("while simulating 3,000,000 scenes: %d event-loop ticks in %lld ms, worst gap %lld ms", ticks,
          qlonglong(clock.elapsed()), qlonglong(worstGap));
    QVERIFY(page.isBusy());  // still computing: the numbers above were taken during the job
    QCOMPARE(page.step(), 1);
    QVERIFY(worstGap < 1000);
    emit page.findChild<SimTransportBar*>()->cancelRequested();  // what the Cancel button does
    QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy(), 10000);
    QCOMPARE(page.run(0), before);
  }

  void opensTracesAndReportsBadOnes() {
    auto& page = *m_page;
    QTemporaryDir dir;
    sim::SimConfig c = sim::default_config();
    c.policy = sim::preset_corrected();
    c.seed = 5;
    sim::Simulator simulator(c);
    simulator.run_to_end();
    const QString good = dir.filePath(QStringLiteral("corrected-seed5.jsonl"));
    sim::write_trace_file(good.toStdString(), simulator.config(), simulator.log(), simulator.totals(),
                          simulator.baselines());
    page.controls()->setCompare(SimControls::Compare::None);
    QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && !page.run(1), 60000);
    page.openTrace(good, 1);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true), 60000);
    QVERIFY(page.run(1)->fromTrace);
    QCOMPARE(page.run(1)->title, QStringLiteral("corrected-seed5.jsonl"));
    page.runToEnd();
    QCOMPARE(page.totalsModel()->value(SimTotalsModel::Attempts, 1), double(simulator.totals().attempts));
    shoot(page, QStringLiteral("simulator_trace_compare.png"));

    const QString bad = dir.filePath(QStringLiteral("truncated.jsonl"));
    std::ofstream(bad.toStdString())
        << "{\"format\":\"oomscope-split-trace\",\"version\":1,\"source\":\"x\"}\n{\"id\":";
    QSignalSpy failed(&page, &SimulatorPage::failed);
    page.openTrace(bad, 1);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 30000);
    QVERIFY2(page.errorText().contains(QStringLiteral("truncated.jsonl")), qPrintable(page.errorText()));
    QVERIFY(page.run(0));  // the window stays usable
    page.reset();
    page.next();
    QCOMPARE(page.step(), 1);
  }

  // The preset and compare boxes carry their enum in item data: the preset shown follows the policy, and
  // choosing one in the box applies its policy.
  void presetAndCompareBoxesCarryTheirEnum() {
    SimControls controls;
    auto* preset = controls.findChild<QComboBox*>(QStringLiteral("preset"));
    QVERIFY(preset);
    sim::SimConfig c = sim::default_config();
    c.policy = sim::preset_corrected();
    controls.setConfig(c);
    QCOMPARE(sim::Preset(preset->currentData().toInt()), sim::Preset::Corrected);
    QCOMPARE(preset->currentText(), QStringLiteral("corrected"));
    c.policy.floor = 7;
    controls.setConfig(c);
    QCOMPARE(sim::Preset(preset->currentData().toInt()), sim::Preset::Custom);
    preset->setCurrentIndex(preset->findData(int(sim::Preset::Original)));
    emit preset->activated(preset->currentIndex());  // what choosing it with the mouse does
    QVERIFY(controls.config().policy == sim::preset_original());
    controls.setCompare(SimControls::Compare::Original);
    QCOMPARE(controls.compare(), SimControls::Compare::Original);
    QVERIFY(controls.compareConfig() && controls.compareConfig()->policy == sim::preset_original());
    controls.setCompare(SimControls::Compare::None);
    QVERIFY(!controls.compareConfig());
  }

 private:
  std::unique_ptr<SimulatorPage> m_page;
};

QTEST_MAIN(TestSimPage)
#include "tst_sim_page.moc"
