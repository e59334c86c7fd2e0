// Bytes reserved on the Timeline page: the allocator's bytes_reserved stat drawn as a dotted line beside
// bytes in use, with its legend entry, checked point for point against core's reserved_series and, on the
// shared TPU capture, against the figure an independent protobuf read of the raw events gives
// (tests/cli/test_reserved_series.py: 21,491,712,000 B at 19,500,056,406,000 ps on TPU_0). A GPU capture
// whose events all say 0 gets no flat line but a note saying so; an allocator without the stat, a note that
// the capture carries no reserved figure. Screenshots of both captures.
#include <QChart>
#include <QDir>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "core/analysis/report/report.h"
#include "core/capture/reader.h"
#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/timeline_page.h"
#include "ui/charts/chart_series.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/report_format.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

constexpr auto kTpu = OOMSCOPE_TEST_DATA "/jax_tpu_v6e_inference.xplane.pb";
constexpr auto kConv = OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb";

// The Timeline page of `file`'s analysis, shown at 1280x800; null when the analysis or the window did not
// come.
TimelinePage* showTimeline(AnalysisPages& pages, const char* file) {
  QSignalSpy done(&pages, &AnalysisPages::resultChanged);
  pages.setCapture(capture::read_capture(file));
  if (!done.wait(60000)) return nullptr;
  TimelinePage* page = pages.timelinePage();
  page->resize(1280, 800);
  page->show();
  return QTest::qWaitForWindowExposed(page) ? page : nullptr;
}

// The text of the page's note (the label under the heading that names the reserved figure).
QString pageNotes(const TimelinePage& page) {
  QStringList texts;
  for (const QLabel* label : page.findChildren<QLabel*>()) texts << label->text();
  return texts.join(QLatin1Char('\n'));
}

std::size_t allocatorIndex(const TimelineSeries& s, const QString& name) {
  for (std::size_t i = 0; i < s.allocators.size(); ++i)
    if (s.allocators[i].name == name) return i;
  return s.allocators.size();
}

bool legendHas(const TimelineChart& chart, const QString& text) {
  const auto markers = chart.chart()->legend()->markers();
  return std::any_of(markers.begin(), markers.end(),
                     [&](const QLegendMarker* m) { return m->label() == text && m->isVisible(); });
}

}  // namespace

class TestTimelineReserved : public QObject {
  Q_OBJECT

 private slots:
  void tpuReservedLineIsCoresSeries() {
    AnalysisPages pages;
    TimelinePage* page = showTimeline(pages, kTpu);
    QVERIFY(page);
    const TimelineChart& chart = *page->chart();
    const TimelineSeries& s = chart.series();
    const analysis::HostReport& report = *pages.result()->report;
    QCOMPARE(s.allocators.size(), report.runtime.allocators.size());
    const std::size_t tpu0 = allocatorIndex(s, QStringLiteral("TPU_0"));
    QVERIFY(tpu0 < s.allocators.size());
    const analysis::AllocatorRuntime& core = report.runtime.allocators[tpu0];
    QCOMPARE(QString::fromStdString(core.name), QStringLiteral("TPU_0"));
    // The independent read of the raw events (test_reserved_series.py) and core agree; the chart draws it.
    QCOMPARE(core.peak_bytes_reserved, std::int64_t(21491712000));
    QCOMPARE(core.peak_reserved_time_ps, std::int64_t(19500056406000));
    QCOMPARE(s.allocators[tpu0].peakReservedBytes, qint64(core.peak_bytes_reserved));

    for (std::size_t i = 0; i < s.allocators.size(); ++i) {
      const analysis::AllocatorRuntime& a = report.runtime.allocators[i];
      QLineSeries* line = chart.reservedLine(i);
      QVERIFY2(line, qPrintable(s.allocators[i].name));
      QCOMPARE(line->name(), QStringLiteral("%1 reserved (peak %2)")
                                 .arg(s.allocators[i].name, bytesText(a.peak_bytes_reserved)));
      QVERIFY(legendHas(chart, line->name()));
      // At the whole range the line is core's downsampled series as steps: every point of it, in order.
      const QList<QPointF> pts = line->points();
      QList<QPointF> corners;
      for (qsizetype k = 0; k < pts.size(); k += 2) corners << pts[k];
      QCOMPARE(std::size_t(corners.size()), a.reserved_series.size());
      for (std::size_t k = 0; k < a.reserved_series.size(); ++k) {
        QVERIFY(std::llabs(std::llround(corners[qsizetype(k)].x() * 1e12) - a.reserved_series[k].time_ps) <
                10);
        QCOMPARE(qint64(std::llround(corners[qsizetype(k)].y() * chart.unit().bytes)),
                 qint64(a.reserved_series[k].bytes_reserved));
      }
      const auto top = std::max_element(pts.begin(), pts.end(),
                                        [](const QPointF& x, const QPointF& y) { return x.y() < y.y(); });
      QCOMPARE(qint64(std::llround(top->y() * chart.unit().bytes)), qint64(a.peak_bytes_reserved));
    }
    const QLineSeries* tpu0Line = chart.reservedLine(tpu0);
    QCOMPARE(tpu0Line->name(), QStringLiteral("TPU_0 reserved (peak 20.0 GiB)"));
    // The peak is drawn where core puts it (first point at the peak: 19.500056 s).
    const QList<QPointF> pts = tpu0Line->points();
    const auto first = std::find_if(pts.begin(), pts.end(), [&](const QPointF& p) {
      return std::llround(p.y() * chart.unit().bytes) == 21491712000LL;
    });
    QVERIFY(first != pts.end());
    QVERIFY2(std::llabs(std::llround(first->x() * 1e12) - 19500056406000LL) < 1000,
             qPrintable(QString::number(first->x(), 'f', 9)));
    // The axis holds the reserved peak, which is above every byte in use (15.0 GiB).
    QVERIFY(chart.yAxis()->max() * chart.unit().bytes >= 21491712000.0);
    QVERIFY2(chart.yAxis()->titleText().contains(QLatin1String("reserved")),
             qPrintable(chart.yAxis()->titleText()));
    // The hover names the stat and the exact bytes.
    const QString hover = chart.describeReserved(tpu0, first->x() + 1e-9);
    QVERIFY2(
        hover.contains(QLatin1String("21,491,712,000")) && hover.contains(QLatin1String("bytes_reserved")),
        qPrintable(hover));
    // Every TPU event carries the stat: no note of a missing figure.
    QVERIFY2(chart.reservedNote().isEmpty(), qPrintable(chart.reservedNote()));
    QVERIFY(!pageNotes(*page).contains(QLatin1String("no reserved figure")));
    shoot(*page, QStringLiteral("timeline-reserved-tpu.png"));
  }

  void gpuZeroReservedIsSaidNotDrawn() {
    AnalysisPages pages;
    TimelinePage* page = showTimeline(pages, kConv);
    QVERIFY(page);
    const TimelineChart& chart = *page->chart();
    const TimelineSeries& s = chart.series();
    const analysis::HostReport& report = *pages.result()->report;
    QVERIFY(!s.allocators.empty());
    for (std::size_t i = 0; i < s.allocators.size(); ++i) {
      // Core reads the stat on every event, and it is 0 on each: no line, not a flat 0 drawn as measured.
      const analysis::AllocatorRuntime& a = report.runtime.allocators[i];
      QCOMPARE(a.reserved_events, a.allocations + a.deallocations);
      QCOMPARE(a.peak_bytes_reserved, std::int64_t(0));
      QVERIFY(!chart.reservedLine(i));
    }
    const QString note = chart.reservedNote();
    QVERIFY2(note.contains(QLatin1String("the bytes_reserved stat reads 0 B on every event of ")) &&
                 note.contains(QLatin1String("no reserved line is drawn")),
             qPrintable(note));
    QVERIFY2(pageNotes(*page).contains(note), qPrintable(pageNotes(*page)));
    QVERIFY(!chart.yAxis()->titleText().contains(QLatin1String("reserved")));
    shoot(*page, QStringLiteral("timeline-reserved-conv3d.png"));
  }

  // The note's sentences on series made here: no stat, 0 everywhere, the stat on only some events.
  void reservedNoteSaysWhatTheEventsCarry() {
    TimelineSeries s;
    const auto allocator = [](const QString& name, qint64 events, qint64 withStat, qint64 peak) {
      TimelineAllocator a;
      a.name = name;
      a.events = events;
      a.reservedEvents = withStat;
      a.peakReservedBytes = peak;
      return a;
    };
    s.allocators = {allocator(QStringLiteral("GPU_0_bfc"), 10, 0, 0)};
    QCOMPARE(reservedNote(s), QStringLiteral("Bytes reserved: the capture carries no reserved figure for "
                                             "GPU_0_bfc (no event has the bytes_reserved stat), so no "
                                             "reserved line is drawn."));
    QVERIFY(!drawsReserved(s.allocators[0]));
    s.allocators.clear();
    for (int i = 0; i < 8; ++i)
      s.allocators.push_back(allocator(QStringLiteral("GPU_%1_bfc").arg(i), 10, 10, 0));
    QCOMPARE(reservedNote(s),
             QStringLiteral("Bytes reserved: the bytes_reserved stat reads 0 B on every event "
                            "of all 8 allocators (GPU_0_bfc .. GPU_7_bfc), so no reserved "
                            "line is drawn (the capture shows no reservation beside bytes in "
                            "use)."));
    s.allocators = {allocator(QStringLiteral("TPU_0"), 10, 10, 5),
                    allocator(QStringLiteral("TPU_1"), 10, 4, 5),
                    allocator(QStringLiteral("TPU_2"), 10, 0, 0)};
    QVERIFY(drawsReserved(s.allocators[0]) && drawsReserved(s.allocators[1]));
    QCOMPARE(
        reservedNote(s),
        QStringLiteral("Bytes reserved: the capture carries no reserved figure for TPU_2 (no event has the "
                       "bytes_reserved stat), so no reserved line is drawn. The reserved line of TPU_1 (4 "
                       "of its 10 events) is drawn from the events that carry the stat only."));
    s.allocators = {allocator(QStringLiteral("TPU_0"), 10, 10, 5)};
    QCOMPARE(reservedNote(s), QString());
  }
};

QTEST_MAIN(TestTimelineReserved)
#include "tst_timeline_reserved.moc"
