// A range selection re-scopes the Diagnosis and Allocators pages too, in the main window over the real
// reader: each shows the range with one click to clear it; the Allocators rows equal a reading of the
// capture's own allocator events inside the range; the Diagnosis claims no OOM outside the range; a
// program-order range leaves the Allocators table whole and says why. QAbstractItemModelTester on the
// Allocators model and proxy; screenshots of both pages with a range.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "core/capture/capture.h"
#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/range_banner.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/report_buffer_model.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/shell/main_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kConv = kData + QStringLiteral("/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");
const QString kOom = kData + QStringLiteral("/hand/hand_oom_retry.xplane.pb");

struct Counted {
  qint64 events = 0;
  qint64 maxInUse = 0;
};

// Independent reading: per allocator name, events and the highest bytes in use inside [from, to].
std::map<QString, Counted> countInside(const capture::Capture& c, qint64 from, qint64 to) {
  std::map<QString, Counted> out;
  for (const capture::MemoryEvent& m : c.memory_events()) {
    if (m.time_ps < from || m.time_ps > to) continue;
    Counted& k = out[QString::fromStdString(c.allocators()[m.allocator].name)];
    ++k.events;
    k.maxInUse = std::max(k.maxInUse, qint64(m.bytes_in_use));
  }
  return out;
}

QStringList rules(const AnalysisResult& r) {
  QStringList out;
  for (const auto& line : r.report->diagnosis) out << QString::fromStdString(line.rule);
  return out;
}

QString allFindingText(const QWidget* page) {
  QString text;
  for (const QLabel* label : page->findChildren<QLabel*>()) text += label->text() + QLatin1Char('\n');
  return text;
}

}  // namespace

class TestRangePages : public QObject {
  Q_OBJECT

 public:
  TestRangePages() {
    qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_range_pages"));
  }

 private slots:
  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setMessagePresenter([](QMessageBox::Icon, const QString&, const QString&) {});
    m_window->resize(1400, 860);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  }
  void cleanup() { m_window.reset(); }

  void allocatorsFollowATimeRange() {
    QVERIFY(open(kConv));
    TablePage* page = m_window->allocatorsPage();
    auto* model = static_cast<AllocatorTableModel*>(page->proxy()->sourceModel());
    QAbstractItemModelTester sourceTester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(page->proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto& capture = *m_window->currentCapture().capture;
    QCOMPARE(int(model->rows().size()), int(capture.allocators().size()));
    QVERIFY(!m_window->allocatorsRangeBanner()->isVisibleTo(page));

    // Executions 2 and 3 of the analysed module.
    const auto& ex = m_window->analysis()->result()->report->runtime.module->executions;
    QCOMPARE(int(ex.size()), 5);
    const qint64 from = ex[1].start_ps - 1, to = ex[2].end_ps + 1;
    m_window->analysis()->setTimeRange(from, to);
    QVERIFY(waitForResult());
    const auto inside = countInside(capture, from, to);
    QVERIFY(!inside.empty());
    QCOMPARE(int(model->rows().size()), int(inside.size()));
    for (const AllocatorRow& row : model->rows()) {
      const auto it = inside.find(row.name);
      QVERIFY2(it != inside.end(), qPrintable(row.name));
      QCOMPARE(row.allocations + row.deallocations, it->second.events);
      QCOMPARE(row.maxInUse, it->second.maxInUse);
    }
    RangeBanner* banner = m_window->allocatorsRangeBanner();
    QVERIFY(banner->isVisibleTo(page));
    QVERIFY2(banner->text().contains(QLatin1String("Selection")), qPrintable(banner->text()));
    // Allocators with no event in the range are left out, and the banner says how many.
    QCOMPARE(banner->text().contains(QLatin1String("not listed")),
             inside.size() < capture.allocators().size());
    m_window->tabs()->setCurrentWidget(page);
    shoot(*m_window, QStringLiteral("allocators-range-selected.png"));

    // One click clears it: the capture's own rows again.
    QTest::mouseClick(banner->clearButton(), Qt::LeftButton);
    QVERIFY(waitForResult());
    QVERIFY(!m_window->analysis()->result()->request.timeWindow);
    QCOMPARE(int(model->rows().size()), int(capture.allocators().size()));
    QCOMPARE(model->rows().front().maxInUse, qint64(capture.allocators().front().max_bytes_in_use));
    QVERIFY(!banner->isVisibleTo(page));
  }

  // A time range inside one execution holds a part of the plan: Buffers and the plan's highest point follow
  // the positions that ran in it; a range holding a whole execution keeps the plan's own peak. The banner
  // says which.
  void timeRangeInsideAnExecutionRescopesThePlan() {
    QVERIFY(open(kConv));
    const auto whole = m_window->analysis()->result();
    QVERIFY(whole->report->plan && whole->planTimeline);
    const analysis::PlanAnalysis& plan = *whole->report->plan;
    QVERIFY(whole->planTimeline->executions.size() >= 2);
    const analysis::ExecutionTimeline& x = whole->planTimeline->executions[1];
    // The plan's early part only: from the execution's start to just before the time its peak is placed at
    // (positions placed at the same instant as the peak ran with it, so the range ends before that instant).
    const qint64 from = x.start_ps, to = x.time_at(plan.peak_event_index) - 1;
    QVERIFY(from < to);
    m_window->analysis()->setTimeRange(from, to);
    QVERIFY(waitForResult());
    const auto part = m_window->analysis()->result();
    QVERIFY(part->planWindow);
    QCOMPARE(int(part->planWindow->cover), int(analysis::WindowCover::Part));
    QCOMPARE(part->planWindow->first, x.position_at(from));
    QCOMPARE(part->planWindow->last, x.position_at(to));
    QVERIFY(part->report->plan->peak_range);
    QCOMPARE(part->report->plan->peak_range->first, part->planWindow->first);
    // The highest point of the curve inside those positions, read from the curve itself.
    const auto& curve = plan.curve;
    std::int64_t best = part->planWindow->first;
    for (std::int64_t p = best; p <= part->planWindow->last; ++p)
      if (curve.total_at(std::size_t(p)) > curve.total_at(std::size_t(best))) best = p;
    QCOMPARE(part->report->plan->peak_bytes, curve.total_at(std::size_t(best)));
    QVERIFY(part->report->plan->peak_bytes < plan.peak_bytes);
    BuffersPage* buffers = m_window->analysis()->buffersPage();
    QCOMPARE(buffers->model()->rowCount(), int(part->report->plan->live_at_peak.size()));
    QVERIFY(buffers->model()->rowCount() < int(plan.live_at_peak.size()));
    const QString said = buffers->rangeBanner()->text();
    QVERIFY2(said.contains(QStringLiteral("The plan ran positions %1 .. %2 in it")
                               .arg(part->planWindow->first)
                               .arg(part->planWindow->last)),
             qPrintable(said));
    m_window->tabs()->setCurrentWidget(buffers);
    shoot(*m_window, QStringLiteral("buffers-time-range-part.png"));

    // The whole second execution: every position ran, the plan's own peak and buffers.
    m_window->analysis()->setTimeRange(x.start_ps - 1, x.end_ps + 1);
    QVERIFY(waitForResult());
    const auto all = m_window->analysis()->result();
    QVERIFY(all->planWindow);
    QCOMPARE(int(all->planWindow->cover), int(analysis::WindowCover::Whole));
    QVERIFY(!all->report->plan->peak_range);
    QCOMPARE(all->report->plan->peak_bytes, plan.peak_bytes);
    QCOMPARE(buffers->model()->rowCount(), int(plan.live_at_peak.size()));
    QVERIFY2(buffers->rangeBanner()->text().contains(QLatin1String("Every position of the plan ran in it")),
             qPrintable(buffers->rangeBanner()->text()));
  }

  void programOrderRangeKeepsTheAllocatorsWhole() {
    QVERIFY(open(kConv));
    TablePage* page = m_window->allocatorsPage();
    auto* model = static_cast<AllocatorTableModel*>(page->proxy()->sourceModel());
    const auto before = model->rows().size();
    m_window->analysis()->setPositionRange(0, 3);
    QVERIFY(waitForResult());
    QCOMPARE(model->rows().size(), before);
    QVERIFY(m_window->allocatorsRangeBanner()->text().contains(QLatin1String("selects no time")));
    // The verdict speaks of the highest point inside the range, not of the plan's peak.
    QVERIFY2(m_window->analysis()->diagnosisPage()->verdictText().startsWith(
                 QLatin1String("At its highest point in program positions 0 .. 3")),
             qPrintable(m_window->analysis()->diagnosisPage()->verdictText()));
    m_window->analysis()->clearRange();
    QVERIFY(waitForResult());
    QVERIFY(m_window->allocatorsRangeBanner()->text().isEmpty());
    QVERIFY(m_window->analysis()->diagnosisPage()->verdictText().startsWith(QLatin1String("The plan of")));
  }

  void diagnosisShowsTheRangeAndClaimsNoOomOutsideIt() {
    QVERIFY(open(kOom));
    DiagnosisPage* page = m_window->analysis()->diagnosisPage();
    m_window->tabs()->setCurrentWidget(page);
    const auto whole = m_window->analysis()->result();
    // The whole capture: two AllocatorRetry waits and an execution that never started (one line says both).
    QVERIFY2(rules(*whole).contains(QStringLiteral("allocator-retry")),
             qPrintable(rules(*whole).join(QLatin1Char(','))));
    QVERIFY(!page->rangeBanner()->isVisibleTo(page));

    // The first two executions only (0.100 s and 0.110 s): no wait, no execution that failed to launch.
    m_window->analysis()->setTimeRange(qint64(0.095e12), qint64(0.115e12));
    QVERIFY(waitForResult());
    const auto scoped = m_window->analysis()->result();
    QVERIFY(page->rangeBanner()->isVisibleTo(page));
    QVERIFY2(page->rangeBanner()->text().contains(QLatin1String("diagnosis")),
             qPrintable(page->rangeBanner()->text()));
    QVERIFY(!rules(*scoped).contains(QStringLiteral("never-launched")));
    QVERIFY(!rules(*scoped).contains(QStringLiteral("allocator-retry")));
    const QString shown = allFindingText(page);
    QVERIFY2(!shown.contains(QLatin1String("OOM happened")), qPrintable(shown));
    QVERIFY2(shown.contains(QLatin1String("executions in the selection")), qPrintable(shown));
    QVERIFY2(shown.contains(QLatin1String("in the selection")), qPrintable(shown));
    QVERIFY(scoped->text.contains(QLatin1String("host executions in the selection: 2")));
    // The module selector counts the executions in the range too, and says so.
    const QString module = page->moduleBox()->currentText();
    QVERIFY2(module.contains(QLatin1String(", 2 executions in the selection")), qPrintable(module));
    QVERIFY2(page->moduleBox()
                 ->itemData(page->moduleBox()->currentIndex(), Qt::ToolTipRole)
                 .toString()
                 .contains(QLatin1String("2 host executions in the time selection")),
             qPrintable(module));
    // The range reused the executions of the report shown before it.
    QCOMPARE(scoped->request.wholeCapture, whole->report);
    shoot(*m_window, QStringLiteral("diagnosis-range-selected.png"));

    // The banner's button clears it, on this page too.
    QTest::mouseClick(page->rangeBanner()->clearButton(), Qt::LeftButton);
    QVERIFY(waitForResult());
    QVERIFY(!page->rangeBanner()->isVisibleTo(page));
    QVERIFY(rules(*m_window->analysis()->result()).contains(QStringLiteral("allocator-retry")));
    QVERIFY(!allFindingText(page).contains(QLatin1String("in the selection")));
    const auto& all = *m_window->analysis()->result()->report;
    const qint64 executions = all.modules[*all.module_index].executions;
    QVERIFY(executions > 2);
    QVERIFY2(page->moduleBox()->currentText().contains(QStringLiteral(", %1 executions").arg(executions)) &&
                 !page->moduleBox()->currentText().contains(QLatin1String("selection")),
             qPrintable(page->moduleBox()->currentText()));
    // Clearing shows the result from before the range again, not a new analysis of the whole capture.
    QCOMPARE(m_window->analysis()->result(), whole);

    // Another pool size is another analysis; clearing a range afterwards keeps that pool.
    m_window->analysis()->setCapacity(qint64(1) << 30);
    QVERIFY(waitForResult());
    const auto pooled = m_window->analysis()->result();
    QVERIFY(pooled != whole);
    QCOMPARE(pooled->request.capacity, std::optional<qint64>(qint64(1) << 30));
    m_window->analysis()->setTimeRange(qint64(0.095e12), qint64(0.115e12));
    QVERIFY(waitForResult());
    QCOMPARE(m_window->analysis()->result()->request.wholeCapture, pooled->report);
    m_window->analysis()->clearRange();
    QVERIFY(waitForResult());
    QCOMPARE(m_window->analysis()->result(), pooled);
  }

 private:
  bool open(const QString& path) {
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    QSignalSpy analysed(m_window->analysis(), &AnalysisPages::resultChanged);
    m_window->openFile(path);
    if (!finished.wait(30000) || !finished.first().at(0).toBool()) return false;
    return !analysed.isEmpty() || analysed.wait(30000);
  }
  bool waitForResult() {
    QSignalSpy spy(m_window->analysis(), &AnalysisPages::resultChanged);
    return spy.wait(30000);
  }

  QTemporaryDir m_config;
  std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestRangePages)
#include "tst_range_pages.moc"
