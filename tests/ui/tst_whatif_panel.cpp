// The snapshot window's What-if page (ui/snapshot/whatif_panel.h): its models under
// QAbstractItemModelTester, the replay of a choice and the standard scenarios on the worker with the same
// figures as `oomscope-cli whatif` (core run_whatif), a new choice superseding the run before it, Cancel,
// refused values, the first failure as the allocator saw it, and screenshots on real snapshots.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include "core/allocator/whatif.h"
#include "core/snapshot/snapshot_reader.h"
#include "tests/ui/screenshots.h"
#include "ui/session/job_tracker.h"
#include "ui/snapshot/memory_timeline_widget.h"
#include "ui/snapshot/snapshot_window.h"
#include "ui/snapshot/whatif_chart.h"
#include "ui/snapshot/whatif_oom_model.h"
#include "ui/snapshot/whatif_panel.h"
#include "ui/snapshot/whatif_scenario_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

std::string data(const char* name) { return std::string(OOMSCOPE_TEST_DATA "/") + name; }

std::shared_ptr<const snapshot::Snapshot> read(const char* name) {
  return snapshot::read_snapshot(data(name));
}

allocator::WhatIfResult cliResult(const snapshot::Snapshot& snap, const allocator::WhatIfOptions& o) {
  NullProgress none;
  return allocator::run_whatif(snap, o, none);
}

// Waits until both of the panel's jobs are over and what they queued is delivered.
void settle(WhatIfPanel& p) {
  QTRY_VERIFY_WITH_TIMEOUT(!p.choiceJob()->busy() && !p.standardJob()->busy(), 60000);
  QVERIFY(p.choiceJob()->settle(10000));
  QVERIFY(p.standardJob()->settle(10000));
}

std::uint64_t maxReserved(const std::vector<allocator::CurvePoint>& c) {
  std::uint64_t top = 0;
  for (const auto& p : c) top = std::max(top, p.reserved);
  return top;
}

// The highest reserved figure in force during entries [lo, hi] of a full step curve.
std::uint64_t maxReservedIn(const std::vector<allocator::CurvePoint>& c, std::int64_t lo, std::int64_t hi) {
  std::uint64_t top = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::int64_t end = i + 1 < c.size() ? c[i + 1].index - 1 : hi;
    if (end >= lo && c[i].index <= hi) top = std::max(top, c[i].reserved);
  }
  return top;
}

// Loads a snapshot into a window and waits for its What if page's jobs.
void loadWindow(SnapshotWindow& w, const char* name) {
  QSignalSpy loaded(&w, &SnapshotWindow::loaded);
  w.load(QString::fromStdString(data(name)));
  QVERIFY(loaded.wait(60000));
  settle(*w.whatIfPanel());
}

}  // namespace

class TestWhatIfPanel : public QObject {
  Q_OBJECT

 private slots:
  void modelsUnderTester() {
    const auto snap = read("torch_snapshot_cs336_small_peak.pickle");
    WhatIfScenarioModel scenarios;
    QAbstractItemModelTester t1(&scenarios, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(scenarios.rowCount(), 0);
    auto standard = std::make_shared<const allocator::WhatIfResult>(cliResult(*snap, {}));
    scenarios.setResult(standard);
    QCOMPARE(scenarios.rowCount(), 1 + static_cast<int>(standard->scenarios.size()));
    QCOMPARE(scenarios.data(scenarios.index(0, WhatIfScenarioModel::Name)).toString(),
             QStringLiteral("recorded"));
    QVERIFY(scenarios.data(scenarios.index(0, WhatIfScenarioModel::Name), Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("reproduced the recording")));
    for (int r = 0; r < scenarios.rowCount(); ++r)
      QCOMPARE(
          scenarios.data(scenarios.index(r, WhatIfScenarioModel::PeakReserved), Qt::UserRole).toULongLong(),
          scenarios.scenario(r)->result.peak_reserved);
    scenarios.setResult(nullptr);
    QCOMPARE(scenarios.rowCount(), 0);

    // An OOM under 1.6 GiB of the decomfl trace (its recorded run peaks at 1.77 GiB reserved).
    const auto decomfl = read("torch_snapshot_decomfl_windows_with_trace.pickle");
    allocator::WhatIfOptions o;
    o.capacity = 1717986918;  // 1.6 GiB
    const allocator::WhatIfResult w = cliResult(*decomfl, o);
    const auto& oom = w.scenarios.front().result.first_oom;
    QVERIFY(oom);
    WhatIfOomModel failure;
    QAbstractItemModelTester t2(&failure, QAbstractItemModelTester::FailureReportingMode::QtTest);
    failure.setOom(oom, decomfl);
    QVERIFY(failure.rowCount() >= 10);
    QStringList figures;
    for (int r = 0; r < failure.rowCount(); ++r)
      figures << failure.data(failure.index(r, 0)).toString() + QStringLiteral("=") +
                     failure.data(failure.index(r, 1)).toString();
    const QString all = figures.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("Trace entry=%1").arg(oom->trace_index)), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Largest free block in the pool=")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Capacity=1.60 GiB")), qPrintable(all));
    failure.setOom(std::nullopt, nullptr);
    QCOMPARE(failure.rowCount(), 0);
  }

  void standardAndChoiceEqualTheCli() {
    const auto snap = read("torch_snapshot_cs336_small_peak.pickle");
    WhatIfPanel panel;
    QSignalSpy views(&panel, &WhatIfPanel::viewChanged);
    QSignalSpy standards(&panel, &WhatIfPanel::standardChanged);
    panel.setSnapshot(snap, 0);
    settle(panel);
    QCOMPARE(standards.count(), 1);
    QCOMPARE(views.count(), 1);
    const allocator::WhatIfResult standard = cliResult(*snap, {});
    const auto* shown = panel.scenarioModel()->result();
    QVERIFY(shown);
    QCOMPARE(shown->scenarios.size(), standard.scenarios.size());
    for (std::size_t i = 0; i < standard.scenarios.size(); ++i) {
      QVERIFY(shown->scenarios[i].name == standard.scenarios[i].name);
      QCOMPARE(shown->scenarios[i].result.peak_reserved, standard.scenarios[i].result.peak_reserved);
      QCOMPARE(shown->scenarios[i].result.peak_allocated, standard.scenarios[i].result.peak_allocated);
    }
    QVERIFY(panel.searches()->text().contains(QStringLiteral("Smallest capacity without an OOM")));
    // As recorded: the replayed curve is the recorded one's peak; the validation line says so.
    QVERIFY(panel.view());
    QVERIFY(panel.view()->choice == WhatIfChoice{});
    QCOMPARE(maxReserved(panel.view()->replayed), standard.recorded.result.peak_reserved);
    QCOMPARE(maxReserved(panel.view()->recorded), standard.recorded.result.peak_reserved);
    QVERIFY(panel.validation()->text().contains(QStringLiteral("reproduced the recording")));
    QVERIFY(panel.view()->recorded.size() <= kWhatIfCurvePoints);

    // A choice: the same figures as `whatif --set expandable_segments:True --capacity 1GiB`.
    WhatIfChoice c;
    c.capacity = 1ull << 30;
    c.settings = {"expandable_segments:True"};
    panel.setChoice(c);
    settle(panel);
    allocator::WhatIfOptions o;
    o.capacity = c.capacity;
    o.settings = c.settings;
    const allocator::WhatIfResult cli = cliResult(*snap, o);
    QVERIFY(panel.view()->choice == c);
    QCOMPARE(panel.view()->scenario().result.peak_reserved, cli.scenarios.front().result.peak_reserved);
    QCOMPARE(maxReserved(panel.view()->replayed), cli.scenarios.front().result.peak_reserved);
    QVERIFY(panel.summary()->text().contains(QStringLiteral("expandable_segments:True")));
    QVERIFY(panel.summary()->text().contains(QStringLiteral("[derived by replay]")));
    QVERIFY(panel.choice() == std::optional<WhatIfChoice>(c));  // the controls show the choice
    QCOMPARE(standards.count(), 1);                             // the table is not replayed again
  }

  void newChoiceSupersedesAndCancel() {
    const auto snap = read("torch_snapshot_decomfl_windows_with_trace.pickle");
    WhatIfPanel panel;
    QSignalSpy views(&panel, &WhatIfPanel::viewChanged);
    panel.setSnapshot(snap, 0);
    const quint64 first = panel.choiceJob()->generation();
    WhatIfChoice a, b;
    a.settings = {"max_split_size_mb:64"};
    b.capacity = 1717986918;  // 1.6 GiB: the recorded settings run out of memory
    panel.setChoice(a);
    panel.setChoice(b);
    QCOMPARE(panel.choiceJob()->generation(), first + 2);
    settle(panel);
    QCOMPARE(views.count(), 1);  // only the last choice landed
    QVERIFY(panel.view()->choice == b);
    const auto& oom = panel.view()->scenario().result.first_oom;
    QVERIFY(oom);
    QVERIFY(panel.oomModel()->rowCount() > 0);
    QVERIFY(panel.summary()->text().contains(
        QStringLiteral("the first allocation to fail: entry %1").arg(oom->trace_index)));
    QVERIFY(!panel.view()->replayed.empty());
    QVERIFY(panel.view()->replayed.back().index <= oom->trace_index);  // the replayed curve ends at the OOM

    // Cancel: nothing lands, the shown view stays.
    QSignalSpy cancelled(panel.choiceJob(), &JobTracker::cancelled);
    WhatIfChoice c;
    c.settings = {"roundup_power2_divisions:4"};
    panel.setChoice(c);
    panel.cancel();
    settle(panel);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(views.count(), 1);
    QVERIFY(panel.view()->choice == b);
  }

  void refusedValuesAreSaidAndNotRun() {
    const auto snap = read("torch_snapshot_cs336_small_peak.pickle");
    WhatIfPanel panel;
    panel.setSnapshot(snap, 0);
    settle(panel);
    const quint64 gen = panel.choiceJob()->generation();
    WhatIfChoice bad;
    bad.settings = {"roundup_power2_divisions:3"};
    panel.setChoice(bad);
    QVERIFY2(!panel.errorText().isEmpty(), "a division count PyTorch refuses");
    QCOMPARE(panel.choiceJob()->generation(), gen);  // no run started
    settle(panel);
    QVERIFY(panel.view()->choice == WhatIfChoice{});
    panel.setChoice({});
    QVERIFY(panel.errorText().isEmpty());
  }

  void maxSplitSizeCanBeSetBackToNone() {
    const auto snap = read("torch_snapshot_decomfl_windows_with_trace.pickle");
    WhatIfPanel panel;
    panel.setSnapshot(snap, 0);
    settle(panel);
    WhatIfChoice limited;
    limited.settings = {"max_split_size_mb:64"};
    panel.setChoice(limited);
    settle(panel);
    QCOMPARE(panel.view()->scenario().result.config.max_split_size, 64 * allocator::kMiB);
    // "none": every block may be split again (PyTorch's default), which the controls can say.
    WhatIfChoice none;
    none.settings = {"max_split_size_mb:none"};
    panel.setChoice(none);
    settle(panel);
    QVERIFY(panel.choice() == std::optional<WhatIfChoice>(none));
    QVERIFY(panel.view()->choice == none);
    QCOMPARE(panel.view()->scenario().result.config.max_split_size, allocator::kNoLimit);
    allocator::WhatIfOptions o;
    o.settings = none.settings;
    o.one_scenario = true;
    QCOMPARE(panel.view()->scenario().result.peak_reserved,
             cliResult(*snap, o).scenarios.front().result.peak_reserved);
    QVERIFY(panel.summary()->text().contains(QStringLiteral("max_split_size_mb:none")));
    panel.setChoice({});
    QVERIFY(panel.choice() == std::optional<WhatIfChoice>(WhatIfChoice{}));
  }

  void standardScenariosShowTheirProgress() {
    const auto snap = read("torch_snapshot_decomfl_windows_with_trace.pickle");
    WhatIfPanel panel;
    panel.standardJob()->setProgressInterval(std::chrono::milliseconds(0));
    QSignalSpy values(panel.standardProgress(), &QProgressBar::valueChanged);
    QSignalSpy reports(panel.standardJob(), &JobTracker::progress);
    panel.setSnapshot(snap, 0);
    QVERIFY(panel.standardJob()->busy());
    QVERIFY(panel.standardProgress()->isVisibleTo(&panel));
    settle(panel);
    QVERIFY(reports.count() > 0);
    int top = 0;
    for (const auto& v : values) top = std::max(top, v.at(0).toInt());
    QVERIFY2(top > 0, "the bar moved with run_whatif's progress");
    double reported = 0;
    for (const auto& r : reports) reported = std::max(reported, r.at(0).toDouble());
    QCOMPARE(top, static_cast<int>(reported * 100));          // the bar shows the job's own figures
    QVERIFY(!panel.standardProgress()->isVisibleTo(&panel));  // hidden once the scenarios landed
  }

  void chartFollowsTheTimelineZoomAndBack() {
    SnapshotWindow w;
    loadWindow(w, "torch_snapshot_decomfl_windows_with_trace.pickle");
    MemoryTimelineWidget* t = w.timeline();
    WhatIfChart* chart = w.whatIfPanel()->chart();
    const WhatIfView* v = chart->view();
    QVERIFY(v);
    QVERIFY(v->lastIndex > 400);
    QCOMPARE(chart->rangeLo(), t->rangeLo());
    QCOMPARE(chart->rangeHi(), t->rangeHi());
    // Zooming the timeline: the chart shows the same entries, downsampled from the full curves.
    t->setRange(120, 360);
    QCOMPARE(chart->rangeLo(), 120.0);
    QCOMPARE(chart->rangeHi(), 360.0);
    QVERIFY(!chart->shownRecorded().empty());
    QCOMPARE(chart->shownRecorded().front().index, std::int64_t{120});
    QVERIFY(chart->shownRecorded().back().index <= 360);
    QCOMPARE(maxReserved(chart->shownRecorded()), maxReservedIn(v->recordedFull, 120, 360));
    QCOMPARE(maxReserved(chart->shownReplayed()), maxReservedIn(v->replayedFull, 120, 360));
    // Zooming the chart with the wheel moves the timeline to the same range.
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QPoint at(chart->width() / 2, chart->height() / 2);
    QWheelEvent wheel(at, chart->mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart, &wheel);
    QVERIFY(chart->rangeHi() - chart->rangeLo() < 240.0);
    QCOMPARE(t->rangeLo(), chart->rangeLo());
    QCOMPARE(t->rangeHi(), chart->rangeHi());
    for (int i = 0; i < w.tabs()->count(); ++i)
      if (w.tabs()->tabText(i) == QStringLiteral("What if")) w.tabs()->setCurrentIndex(i);
    shoot(w, QStringLiteral("whatif-zoomed-decomfl.png"));
    t->resetZoom();
    QCOMPARE(chart->rangeLo(), -1.0);
    QCOMPARE(chart->rangeHi(), static_cast<double>(v->lastIndex));
  }

  void axisLabelsNameRealEntries() {
    SnapshotWindow w;
    loadWindow(w, "torch_snapshot_cs336_small_peak.pickle");
    WhatIfChart* chart = w.whatIfPanel()->chart();
    const std::int64_t last = chart->view()->lastIndex;
    for (const auto& [lo, hi] :
         {std::pair(-1.0, static_cast<double>(last)), std::pair(-1.0, 7.0), std::pair(30.0, 60.0)}) {
      w.timeline()->setRange(lo, hi);
      const auto ticks = chart->axisTicks();
      QVERIFY(ticks.size() >= 2);
      for (const auto& [index, label] : ticks) {
        QVERIFY2(index >= -1 && index <= last, qPrintable(label));
        QVERIFY(index >= chart->rangeLo() && index <= chart->rangeHi());
        QCOMPARE(label, index < 0 ? QStringLiteral("start") : QStringLiteral("entry %1").arg(index));
      }
    }
    // The x axis starts before the first entry (-1): no label may name an entry the trace lacks.
    for (const auto& tick : chart->axisTicks()) QVERIFY(tick.second != QStringLiteral("entry -1"));
  }

  void screenshots() {
    for (const char* name :
         {"torch_snapshot_decomfl_windows_with_trace.pickle", "torch_snapshot_cs336_bf16_ctx128.pickle"}) {
      SnapshotWindow w;
      w.load(QString::fromStdString(data(name)));
      QSignalSpy loaded(&w, &SnapshotWindow::loaded);
      QVERIFY(loaded.wait(60000));
      QTabWidget* tabs = w.tabs();
      int at = -1;
      for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == QStringLiteral("What if")) at = i;
      QVERIFY2(at >= 0, "a snapshot with a trace gets the What if page");
      tabs->setCurrentIndex(at);
      WhatIfPanel& panel = *w.whatIfPanel();
      settle(panel);
      if (std::string(name).find("decomfl") != std::string::npos) {
        WhatIfChoice c;
        c.capacity = 1825361101;  // 1.7 GiB: recorded settings fail, expandable_segments:True fits
        panel.setChoice(c);
        settle(panel);
        QVERIFY(panel.view()->scenario().result.first_oom);
      }
      w.resize(1400, 900);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      shoot(w, QStringLiteral("whatif-%1.png").arg(QString::fromUtf8(name).section(QLatin1Char('.'), 0, 0)));
    }
  }
};

QTEST_MAIN(TestWhatIfPanel)
#include "tst_whatif_panel.moc"
