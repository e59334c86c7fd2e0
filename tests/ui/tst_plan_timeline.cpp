// Plan vs runtime on the Timeline, and selections that re-scope the pages: the planned curve drawn inside
// each execution with bounded points at any zoom, clicking an instruction selects it on the Plan and Buffers
// pages, shift+drag selects a time range or a program-order range that re-scopes the tables (checked against
// a computation made here from the capture's own tables), the banner clears it, and a buffer selected in
// Buffers shades its lifetime on both charts. Screenshots of each view.
//
// The same views on a 1 GB capture are measured by bench_gui_big_capture (CONTRIBUTING.md, "Benchmarks").
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QTableView>
#include <QValueAxis>
#include <QtTest>
#include <algorithm>

#include "core/analysis/report/report.h"
#include "core/capture/reader.h"
#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/plan_page.h"
#include "ui/analysis/range_banner.h"
#include "ui/analysis/timeline_page.h"
#include "ui/charts/execution_bands_item.h"
#include "ui/charts/plan_charts.h"
#include "ui/charts/plan_runtime_overlay.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/zoom_chart_view.h"
#include "ui/models/report_buffer_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

constexpr auto kConv = OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb";
constexpr auto kTpu = OOMSCOPE_TEST_DATA "/jax_tpu_v6e_inference.xplane.pb";

bool waitForResult(AnalysisPages& pages, int timeoutMs = 30000) {
  QSignalSpy spy(&pages, &AnalysisPages::resultChanged);
  return spy.wait(timeoutMs);
}

// The Timeline page of the conv3d capture's analysis, shown at 1280x800; null when the analysis or the
// window did not come.
TimelinePage* showConvTimeline(AnalysisPages& pages) {
  pages.setCapture(capture::read_capture(kConv));
  if (!waitForResult(pages)) return nullptr;
  TimelinePage* page = pages.timelinePage();
  page->resize(1280, 800);
  page->show();
  return QTest::qWaitForWindowExposed(page) ? page : nullptr;
}

void shoot(QWidget* page, const QString& name) {
  QDir().mkpath(screenshotDir());
  QCoreApplication::processEvents();
  const QString file = QDir(screenshotDir()).filePath(name + QStringLiteral(".png"));
  QVERIFY2(page->grab().save(file), qPrintable(file));
}

// Scene x of a chart value, then view coordinates.
QPoint viewPointAt(ZoomChartView* view, QValueAxis* axis, double x) {
  const QRectF plot = view->chart()->plotArea();
  const double frac = (x - axis->min()) / (axis->max() - axis->min());
  return view->mapFromScene(QPointF(plot.left() + frac * plot.width(), plot.center().y()));
}

}  // namespace

class TestPlanTimeline : public QObject {
  Q_OBJECT

 private slots:
  void plannedCurveInsideEachExecution() {
    AnalysisPages pages;
    TimelinePage* page = showConvTimeline(pages);
    QVERIFY(page);
    PlanRuntimeOverlay* overlay = page->overlay();
    const auto& tl = *pages.result()->planTimeline;
    QCOMPARE(tl.executions.size(), std::size_t(5));
    overlay->refresh();
    QVERIFY(overlay->plannedPointCount() > 0);
    QVERIFY(!overlay->stretchedVisible());
    // The overview labels the difference of executions where there is room, never overlapping.
    const QList<QString> labels = overlay->visibleLabels();
    QVERIFY2(!labels.isEmpty(), "no difference label");
    QVERIFY2(labels.front().contains(QLatin1String("vs plan")), qPrintable(labels.front()));
    // The five executions as five bands, each inside the plot and at least a pixel wide.
    const auto bands = page->chart()->executionBands()->bandRects();
    QCOMPARE(bands.size(), std::size_t(5));
    for (const QRectF& r : bands)
      QVERIFY(r.width() >= 1 && page->chart()->chart()->plotArea().adjusted(-1, -1, 1, 1).contains(r));
    shoot(page, QStringLiteral("plan-timeline-conv3d-whole"));

    // Zoom onto execution 2: the planned curve is redrawn for the window, bounded by the pixels.
    const auto& x = tl.executions[1];
    QValueAxis* axis = page->chart()->xAxis();
    axis->setRange(double(x.start_ps) / 1e12, double(x.end_ps) / 1e12);
    const int pixels = int(page->chart()->chart()->plotArea().width());
    QVERIFY(overlay->plannedPointCount() > 0);
    QVERIFY2(overlay->plannedPointCount() <= 4 * std::max(pixels, 100) + 16,
             qPrintable(QString::number(overlay->plannedPointCount())));
    QVERIFY(overlay->runtimePointCount() <= 4 * std::max(pixels, 100) + 8);
    const QString hover = overlay->describe(double(x.planned_peak_time_ps) / 1e12);
    QVERIFY2(hover.contains(QLatin1String("cudnn-conv.1")) && hover.contains(QLatin1String("planned")),
             qPrintable(hover));
    QVERIFY2(hover.contains(QLatin1String("allocates")), qPrintable(hover));
    shoot(page, QStringLiteral("plan-timeline-conv3d-execution2"));
  }

  // More executions in view than the 4,000 markers a frame once drew (the later ones had no marker and
  // nothing said so): 6,000 copies of execution 1, end to end. Every one is represented, the last ones
  // included, by the highest peak of its marker column, and the legend says markers are thinned.
  void peakMarkersCoverEveryExecutionInView() {
    AnalysisPages pages;
    TimelinePage* page = showConvTimeline(pages);
    QVERIFY(page);
    // The page shown with the result, its timeline and its plan on the wall clock made of the copies.
    auto result = std::make_shared<AnalysisResult>(*pages.result());
    auto many = std::make_shared<analysis::PlanTimeline>(*result->planTimeline);
    const analysis::ExecutionTimeline base = many->executions.at(0);
    const TimelineExecution baseBand = result->timeline.executions.at(0);
    const qint64 period = base.end_ps - base.start_ps + 1000000;
    many->executions.clear();
    result->timeline.executions.clear();
    for (int i = 0; i < 6000; ++i) {
      analysis::ExecutionTimeline x = base;
      const qint64 shift = qint64(i) * period;
      x.number = i + 1;
      x.start_ps += shift;
      x.end_ps += shift;
      x.planned_peak_time_ps += shift;
      x.runtime_peak_time_ps += shift;
      x.runtime_peak_bytes += i % 5;  // the highest of a column is the one shown
      for (auto& a : x.anchors) a.time_ps += shift;
      TimelineExecution band = baseBand;
      band.startPs = x.start_ps;
      band.endPs = x.end_ps;
      band.number = x.number;
      result->timeline.executions.push_back(band);
      many->executions.push_back(std::move(x));
    }
    const auto& ex = many->executions;
    result->timeline.lastPs = std::max<qint64>(result->timeline.lastPs, ex.back().end_ps);
    result->planTimeline = many;
    page->setResult(result);
    PlanRuntimeOverlay* overlay = page->overlay();
    page->chart()->xAxis()->setRange(double(ex.front().start_ps) / 1e12, double(ex.back().end_ps) / 1e12);

    const QList<QPointF> runtime = overlay->runtimePeakSeries()->points();
    const QList<QPointF> planned = overlay->plannedPeakSeries()->points();
    const int pixels = int(page->chart()->chart()->plotArea().width());
    // The last executions are marked: the last marker lies in the last execution's column (with a cap of
    // 4,000 markers, the last one was execution 4,000's, a third of the view before the end).
    const double column = (page->chart()->xAxis()->max() - page->chart()->xAxis()->min()) / pixels * 6;
    QVERIFY(double(ex.back().runtime_peak_time_ps) / 1e12 - runtime.back().x() <= column);
    QVERIFY(double(ex.back().planned_peak_time_ps) / 1e12 - planned.back().x() <= column);
    QVERIFY(overlay->markersThinned());
    QVERIFY2(runtime.size() > pixels / 10 && runtime.size() <= pixels,
             qPrintable(QString::number(runtime.size())));
    QCOMPARE(planned.size(), runtime.size());
    // No stretch of the view without a marker: consecutive markers are at most two columns apart.
    for (qsizetype k = 1; k < runtime.size(); ++k)
      QVERIFY2(runtime[k].x() - runtime[k - 1].x() <= 2 * column, qPrintable(QString::number(k)));
    // Each marker is the highest runtime peak among the executions of its column.
    const double top = page->chart()->unit().toAxis(base.runtime_peak_bytes + 4);
    QCOMPARE(std::count_if(runtime.begin(), runtime.end(),
                           [&](const QPointF& p) { return qFuzzyCompare(p.y(), top); }),
             runtime.size());
    QVERIFY2(overlay->runtimePeakSeries()->name().contains(QLatin1String("highest per")),
             qPrintable(overlay->runtimePeakSeries()->name()));
    // The replaced chart's axis items are deleted later: as an event loop would, before the screenshot.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    shoot(page, QStringLiteral("plan-timeline-6000-executions"));

    // Zoomed onto a few executions, each has its own markers again and the legend says per execution.
    page->chart()->xAxis()->setRange(double(ex[5000].start_ps) / 1e12, double(ex[5003].end_ps) / 1e12);
    overlay->refresh();
    QVERIFY(!overlay->markersThinned());
    QCOMPARE(overlay->runtimePeakSeries()->count(), 4);
    QCOMPARE(overlay->runtimePeakSeries()->name(), QStringLiteral("runtime peak per execution"));
  }

  void clickingAnInstructionSelectsItOnPlanAndBuffers() {
    AnalysisPages pages;
    pages.setCapture(capture::read_capture(kConv));
    QVERIFY(waitForResult(pages));
    const auto& plan = *pages.result()->report->plan;
    const auto& x = pages.result()->planTimeline->executions.at(0);
    QSignalSpy selected(&pages, &AnalysisPages::instructionSelected);
    pages.timelinePage()->clickAt(double(x.planned_peak_time_ps) / 1e12);
    QCOMPARE(int(selected.count()), 1);
    QCOMPARE(selected.front().front().toString(), QStringLiteral("cudnn-conv.1"));
    QCOMPARE(pages.planPage()->selectedInstruction(), QStringLiteral("cudnn-conv.1"));
    qint64 first = -1, last = -1;
    for (std::size_t i = 0; i < plan.curve.size(); ++i)
      if (plan.curve.instruction_at(i) == "cudnn-conv.1") {
        if (first < 0) first = qint64(i);
        last = qint64(i);
      }
    const analysis::PlanBuffer* b = pages.buffersPage()->selectedBuffer();
    QVERIFY(b);
    QCOMPARE(QString::fromStdString(b->instruction), QStringLiteral("cudnn-conv.1"));
    QVERIFY(b->live_since_event >= first &&
            b->live_since_event <= last);  // it becomes live at the instruction
    // Selecting that buffer shades its lifetime on the Plan chart and on the timeline.
    QCOMPARE(pages.planPage()->curve()->highlight(),
             qMakePair(qint64(b->live_since_event), qint64(b->freed_at_event)));
    QVERIFY(pages.timelinePage()->overlay()->highlightSeries()->isVisible());
  }

  void selectingABufferHighlightsItsLifetime() {
    AnalysisPages pages;
    pages.setCapture(capture::read_capture(kConv));
    QVERIFY(waitForResult(pages));
    BuffersPage* buffers = pages.buffersPage();
    QAbstractItemModelTester tester(buffers->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTableView* view = buffers->view();
    int heapRow = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r)
      if (!buffers->model()
               ->buffer(buffers->proxy()->mapToSource(buffers->proxy()->index(r, 0)).row())
               .indefinite)
        heapRow = r;
    QVERIFY(heapRow >= 0);
    view->selectRow(heapRow);
    const analysis::PlanBuffer* b = buffers->selectedBuffer();
    QVERIFY(b && !b->indefinite);
    QCOMPARE(pages.planPage()->curve()->highlight(),
             qMakePair(qint64(b->live_since_event), qint64(b->freed_at_event)));
    QVERIFY(pages.planPage()->curve()->highlightLabel().contains(QString::fromStdString(b->shape)));
    PlanRuntimeOverlay* overlay = pages.timelinePage()->overlay();
    QVERIFY(overlay->highlightSeries()->isVisible());
    // An indefinite buffer (a parameter) lives for the whole program.
    for (int r = 0; r < view->model()->rowCount(); ++r)
      if (buffers->model()
              ->buffer(buffers->proxy()->mapToSource(buffers->proxy()->index(r, 0)).row())
              .indefinite) {
        view->selectRow(r);
        break;
      }
    QCOMPARE(pages.planPage()->curve()->highlight(), qMakePair(qint64(0), qint64(-1)));
    pages.planPage()->resize(1280, 800);
    pages.planPage()->show();
    QVERIFY(QTest::qWaitForWindowExposed(pages.planPage()));
    view->selectRow(heapRow);
    shoot(pages.planPage(), QStringLiteral("plan-buffer-lifetime"));
  }

  void dragSelectsATimeRangeAndTheBannerClearsIt() {
    AnalysisPages pages;
    const auto capture = std::shared_ptr<const capture::Capture>(capture::read_capture(kConv));
    pages.setCapture(capture);
    QVERIFY(waitForResult(pages));
    TimelinePage* page = pages.timelinePage();
    page->resize(1280, 800);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page));
    const auto whole = pages.result();
    QCOMPARE(whole->report->runtime.module->executions.size(), std::size_t(5));
    // Shift+drag across executions 2 and 3 only.
    const auto& ex = whole->report->runtime.module->executions;
    const double a = double(ex[1].start_ps) / 1e12 - 0.001, b = double(ex[2].end_ps) / 1e12 + 0.001;
    ZoomChartView* view = page->view();
    QValueAxis* axis = page->chart()->xAxis();
    const QPoint from = viewPointAt(view, axis, a), to = viewPointAt(view, axis, b);
    QSignalSpy ranged(page, &TimelinePage::timeRangeSelected);
    QTest::mousePress(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(view->viewport(), (from + to) / 2);
    QTest::mouseMove(view->viewport(), to);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, to);
    QCOMPARE(int(ranged.count()), 1);
    QVERIFY(waitForResult(pages));
    const auto scoped = pages.result();
    QVERIFY(scoped->request.timeWindow);
    const auto [t0, t1] = *scoped->request.timeWindow;
    // Independent reading of the window: executions that start in it, and each allocator's highest bytes in
    // use among its events in it.
    std::size_t inside = 0;
    for (const auto& e : ex) inside += e.start_ps >= t0 && e.start_ps <= t1;
    QCOMPARE(inside, std::size_t(2));
    QCOMPARE(scoped->report->runtime.module->executions.size(), inside);
    for (const auto& al : scoped->report->runtime.allocators) {
      qint64 peak = -1;
      for (const auto& m : capture->memory_events())
        if (m.allocator == al.index && m.time_ps >= t0 && m.time_ps <= t1)
          peak = std::max(peak, qint64(m.bytes_in_use));
      if (peak >= 0) QCOMPARE(qint64(al.peak_bytes_in_use), peak);
    }
    QVERIFY(page->rangeBanner()->isVisible());
    QVERIFY2(page->rangeBanner()->text().contains(QLatin1String("Selection")),
             qPrintable(page->rangeBanner()->text()));
    QVERIFY(pages.buffersPage()->rangeBanner()->isVisibleTo(pages.buffersPage()));
    QCOMPARE(pages.result()->planTimeline->executions.size(), inside);
    shoot(page, QStringLiteral("plan-timeline-range-selected"));

    // One click clears it: everything is back to the whole capture.
    QTest::mouseClick(page->rangeBanner()->clearButton(), Qt::LeftButton);
    QVERIFY(waitForResult(pages));
    QVERIFY(!pages.result()->request.timeWindow);
    QCOMPARE(pages.result()->report->runtime.module->executions.size(), std::size_t(5));
    QVERIFY(!page->rangeBanner()->isVisible());
  }

  void programOrderRangeReScopesTheBuffers() {
    AnalysisPages pages;
    pages.setCapture(capture::read_capture(kConv));
    QVERIFY(waitForResult(pages));
    BuffersPage* buffers = pages.buffersPage();
    QAbstractItemModelTester tester(buffers->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const analysis::MemoryCurve curve =
        pages.result()->report->plan->curve;  // a copy: the result is replaced
    const int wholeRows = buffers->model()->rowCount();
    // The range before the peak: its highest point, read straight off the curve.
    const qint64 peak = qint64(pages.result()->report->plan->peak_event_index);
    QVERIFY(peak > 0);
    const qint64 from = 0, to = peak - 1;
    qint64 best = from;
    for (qint64 i = from; i <= to; ++i)
      if (curve.total_at(std::size_t(i)) > curve.total_at(std::size_t(best))) best = i;
    emit pages.planPage()->positionRangeSelected(from, to);
    QVERIFY(waitForResult(pages));
    QCOMPARE(qint64(pages.result()->report->plan->peak_event_index), best);
    QCOMPARE(buffers->model()->totalBytes(), qint64(curve.total_at(std::size_t(best))));
    QVERIFY(buffers->model()->rowCount() < wholeRows);
    QVERIFY(pages.planPage()->rangeBanner()->text().contains(QLatin1String("program positions")));
    pages.clearRange();
    QVERIFY(waitForResult(pages));
    QCOMPARE(buffers->model()->rowCount(), wholeRows);
  }

  void tpuCaptureSaysStretched() {
    AnalysisPages pages;
    pages.setCapture(capture::read_capture(kTpu));
    QVERIFY(waitForResult(pages));
    TimelinePage* page = pages.timelinePage();
    page->resize(1280, 800);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page));
    const auto& tl = *pages.result()->planTimeline;
    // The fixture's jit_f ran 100 times and no device event names one of its instructions: the plan is
    // placed on every execution, stretched over its host span, and the chart says so.
    QCOMPARE(tl.executions.size(), std::size_t(100));
    QVERIFY(page->showsChart());
    QVERIFY(page->overlay()->stretchedVisible());
    shoot(page, QStringLiteral("plan-timeline-tpu-stretched"));
  }
};

QTEST_MAIN(TestPlanTimeline)
#include "tst_plan_timeline.moc"
