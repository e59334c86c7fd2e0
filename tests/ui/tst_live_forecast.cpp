// The OOM forecast on the Live page, driven by the replay path: a recording (.oomlive, written by the real
// Recorder) of four ranks on 1 GiB devices, two of them leaking at known rates, is opened on the page.
// The rank table (under QAbstractItemModelTester, through the page's sorting proxy too) must carry each
// rank's forecast and put the soonest forecast OOM on top, then the others by headroom; each leaking
// rank's chart must hold the projection to the limit line with its range; the banner must name the
// soonest; the navigator's live ranks must show it. The expected steps come from the series' own
// arithmetic, not from the forecast code. Takes a screenshot (live_forecast.png). A chart without a known
// capacity says so on the plot (live_chart_no_capacity.png).
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdint>

#include "core/live/client/recorder.h"
#include "tests/ui/screenshots.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_chart_data.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/navigator_source.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

constexpr std::int64_t MiB = 1024 * 1024;
constexpr std::int64_t kCapacity = 1024 * MiB;
constexpr std::int64_t kStepPeak = 64 * MiB;  // each step's own allocations above its start (the peak)
constexpr int kSteps = 100;                   // recorded steps, two samples a step, 0.1 s apart
constexpr std::int64_t kT0 = 1'764'600'000'000'000'000;

struct RankPlan {
  std::int64_t start, leakPerStep;
  // The first step whose start plus its peak reaches the capacity (none without a leak).
  std::int64_t oomStep() const { return (kCapacity - kStepPeak - start + leakPerStep - 1) / leakPerStep; }
};
// Rank 0 leaks fastest (OOM at step 190), rank 1 slower (step 400); rank 2 has the most headroom and
// rank 3 the least, neither leaks.
const RankPlan kPlans[] = {{200 * MiB, 4 * MiB}, {560 * MiB, 1 * MiB}, {300 * MiB, 0}, {880 * MiB, 0}};

void writeRecording(const QString& path) {
  live::Recorder rec(path.toStdString());
  for (int r = 0; r < 4; ++r) {
    rec.on_endpoint(r, "127.0.0.1:" + std::to_string(7070 + r));
    live::Hello h;
    h.pid = 1000 + r;
    h.host = "node";
    h.rank = r;
    h.world_size = 4;
    h.backend = "cuda";
    h.device = "stand-in 1 GiB";
    h.total_bytes = kCapacity;
    h.framework = "torch";
    rec.on_hello(r, h);
    rec.on_connected(r, kT0);
  }
  for (int i = 0; i < 2 * kSteps; ++i) {
    const std::int64_t step = i / 2;
    for (int r = 0; r < 4; ++r) {
      live::Sample s;
      s.t = kT0 + std::int64_t(i) * 100'000'000 + r * 1'000'000;
      const std::int64_t wobble = ((i * 37 + r * 11) % 7) * 256 * 1024;
      const std::int64_t base = kPlans[r].start + kPlans[r].leakPerStep * step + wobble;
      s.set(live::Field::Step, step);
      s.set(live::Field::Allocated, base);
      s.set(live::Field::Reserved, base + 20 * MiB);  // the limiting figure: headroom is capacity - reserved
      s.set(live::Field::PeakAllocated, base + kStepPeak);
      s.set(live::Field::Ooms, 0);
      rec.on_sample(r, s);
    }
  }
  rec.close();
}

QString cell(const QAbstractItemModel* m, int row, int column) {
  return m->data(m->index(row, column), Qt::DisplayRole).toString();
}

}  // namespace

class TestLiveForecast : public QObject {
  Q_OBJECT

 private slots:
  void forecastOnTheLivePage() {
    QTemporaryDir tmp;
    const QString rec = tmp.filePath(QStringLiteral("leak.oomlive"));
    writeRecording(rec);

    LivePage page;
    page.resize(1500, 900);
    QAbstractItemModelTester modelTest(page.rankModel(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester sortedTest(page.rankTable()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QSignalSpy opened(&page, &LivePage::recordingOpened);
    page.openRecording(rec);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
    page.refreshNow();

    const RankTableModel* model = page.rankModel();
    QCOMPARE(model->rowCount(), 4);
    // Each leaking rank forecast within 5 % of the step its own arithmetic gives, with a range around it.
    for (int r : {0, 1}) {
      const LiveRankRow& row = model->row(r);
      QVERIFY2(row.forecastOom, qPrintable(row.forecastSentence));
      const double want = double(kPlans[r].oomStep());
      QVERIFY2(std::abs(double(row.oomAtStep) - want) <= 0.05 * want,
               qPrintable(QStringLiteral("rank %1: forecast step %2, the series reaches the capacity at %3")
                              .arg(r)
                              .arg(row.oomAtStep)
                              .arg(want)));
      QVERIFY2(
          cell(model, r, RankTableModel::Forecast).startsWith(QStringLiteral("step %1 (").arg(row.oomAtStep)),
          qPrintable(cell(model, r, RankTableModel::Forecast)));
      QVERIFY(row.forecastSentence.endsWith(QStringLiteral("[derived]")));
      QVERIFY(model->data(model->index(r, RankTableModel::Forecast), Qt::ToolTipRole)
                  .toString()
                  .contains(QStringLiteral(" (steady for ")));
      QVERIFY(row.oomInSeconds > 0);
    }
    for (int r : {2, 3}) {
      QVERIFY2(!model->row(r).forecastOom, qPrintable(model->row(r).forecastSentence));
      QCOMPARE(cell(model, r, RankTableModel::Forecast), QStringLiteral("none in sight"));
    }

    // Sorted by the forecast column: the soonest OOM first, then the later one, then by headroom (rank 3
    // has the least, yet no OOM is forecast for it).
    const QAbstractItemModel* sorted = page.rankTable()->model();
    QStringList order;
    for (int i = 0; i < 4; ++i) order << cell(sorted, i, RankTableModel::Rank);
    QCOMPARE(order, (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("3"),
                                 QStringLiteral("2")}));
    QVERIFY(model->row(3).headroom < model->row(1).headroom);

    // The charts: the projection from the forecast's time to the 1 GiB limit, its range around the
    // crossing, the window widened to show it (rank 0) or left at twice its span (rank 1, further out).
    for (int r : {0, 1}) {
      const LiveChartData& d = page.charts()[std::size_t(r)]->data();
      const auto& p = d.projection;
      QVERIFY2(p.shown, qPrintable(d.forecastNote));
      QCOMPARE(p.limit, kCapacity);
      QCOMPARE(p.figure, live::Field::Reserved);
      QVERIFY(p.t_early <= p.t_oom && p.t_oom <= p.t_late);
      QVERIFY(p.t_from > kT0 && p.t_oom > p.t_from);
      // It starts where the curve is at the forecast's time (forecasts are made once a second of sample
      // time): reserved at that step, within the wobble (1.5 MiB) and one step's leak.
      const std::int64_t stepThen = (p.t_from - kT0) / 200'000'000;
      const std::int64_t reservedThen = kPlans[r].start + kPlans[r].leakPerStep * stepThen + 20 * MiB;
      QVERIFY2(std::abs(double(p.from_bytes - reservedThen)) <= 2.0 * MiB + double(kPlans[r].leakPerStep),
               qPrintable(QStringLiteral("rank %1 from %2, reserved %3 at step %4")
                              .arg(r)
                              .arg(p.from_bytes)
                              .arg(reservedThen)
                              .arg(stepThen)));
      // 0.2 s a step: the crossing lies (forecast step - last step) * 0.2 s after the last sample.
      const double ahead = double(p.t_oom - p.t_from) / 1e9;
      const double wantAhead = double(model->row(r).oomAtStep - stepThen) * 0.2;
      QVERIFY2(std::abs(ahead - wantAhead) <= 0.1 * wantAhead + 0.5,
               qPrintable(QStringLiteral("rank %1: %2 s ahead, want %3").arg(r).arg(ahead).arg(wantAhead)));
      QVERIFY(p.label.startsWith(QStringLiteral("OOM step ")));
    }
    const LiveChartData& d0 = page.charts()[0]->data();
    QVERIFY(d0.t1 >= d0.projection.t_late);  // rank 0's whole range is in view
    const LiveChartData& d1 = page.charts()[1]->data();
    QVERIFY(d1.projection.t_oom > d1.t1);  // rank 1's crossing lies beyond: the window is at most doubled
    QVERIFY(d1.t1 - d1.t0 <= 2 * (d1.projection.t_from - d1.t0) + 2'000'000'000);
    for (int r : {2, 3}) QVERIFY(!page.charts()[std::size_t(r)]->data().projection.shown);

    // The banner names the soonest.
    QVERIFY(page.forecastBanner()->isVisible());
    const QString banner = page.forecastBanner()->text();
    QVERIFY2(banner.startsWith(QStringLiteral("Soonest forecast OOM: rank 0: OOM forecast at step ")),
             qPrintable(banner));
    QVERIFY2(banner.contains(QStringLiteral("1 other rank(s)")), qPrintable(banner));
    QVERIFY(banner.contains(QStringLiteral("[derived]")));

    // The navigator's live ranks: the forecast leads the leaking ranks' detail.
    const auto* nav = page.findChild<NavigatorSource*>(QStringLiteral("navigatorSource"));
    QVERIFY(nav);
    QCOMPARE(int(nav->entries().size()), 4);
    QVERIFY2(nav->entries()[0].detail.startsWith(QStringLiteral("OOM step ")),
             qPrintable(nav->entries()[0].detail));
    QVERIFY(nav->entries()[0].detail.endsWith(QStringLiteral(" free")));
    QVERIFY(!nav->entries()[2].detail.startsWith(QStringLiteral("OOM")));
    QVERIFY(nav->entries()[0].tooltip.contains(QStringLiteral("[derived]")));

    shoot(page, QStringLiteral("live_forecast.png"));
  }

  // A rank whose agent reports no capacity (torch on the CPU) and no recommended maximum: the chart has no
  // limit line and says why on the plot; the same rank with a capacity far above its curves says that the
  // line lies above the plotted range; with a capacity in range, no note. Takes live_chart_no_capacity.png.
  void chartWithoutCapacity() {
    auto store = [](std::int64_t total) {
      live::Store st;
      live::Hello h;
      h.backend = "cpu";
      h.total_bytes = total;
      st.on_hello(0, h);
      st.on_connected(0, kT0);
      for (int i = 0; i < 120; ++i) {
        live::Sample s;
        s.t = kT0 + std::int64_t(i) * 100'000'000;
        s.set(live::Field::Step, i / 2);
        s.set(live::Field::Allocated, 200 * MiB + i * MiB);
        s.set(live::Field::Rss, 900 * MiB);
        st.on_sample(0, s);
      }
      return st;
    };
    const std::int64_t t1 = kT0 + 12'000'000'000;
    const live::Store none = store(0);
    LiveChartData d = cut_chart_data(none, 0, kT0, t1, 200);
    QCOMPARE(d.limitNote, QStringLiteral("capacity unknown: no limit line, no OOM forecast"));
    QCOMPARE(cut_chart_data(store(kCapacity), 0, kT0, t1, 200).limitNote, QString());

    // Painted: the chart with the note differs from the same chart without it only where the note is.
    LiveChart chart;
    chart.resize(640, 260);
    chart.setData(d);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QImage withNote = chart.grab().toImage();
    LiveChartData silent = d;
    silent.limitNote.clear();
    chart.setData(silent);
    const QImage without = chart.grab().toImage();
    QCOMPARE(withNote.size(), without.size());
    int changed = 0, leftHalf = 0;
    for (int y = 0; y < withNote.height(); ++y)
      for (int x = 0; x < withNote.width(); ++x)
        if (withNote.pixel(x, y) != without.pixel(x, y)) {
          ++changed;
          if (x < withNote.width() / 2) ++leftHalf;
        }
    QVERIFY2(changed > 50, qPrintable(QStringLiteral("%1 pixels changed").arg(changed)));
    QVERIFY2(leftHalf < changed / 2, "the note sits at the plot's top right");
    chart.setData(d);
    shoot(chart, QStringLiteral("live_chart_no_capacity.png"));

    // A capacity far above the curves (64 GiB for a few hundred MiB): no line in range, and it says so.
    LiveChartData high = cut_chart_data(store(64 * 1024 * MiB), 0, kT0, t1, 200);
    QCOMPARE(high.limitNote, QString());
    chart.setData(high);
    const QImage highImage = chart.grab().toImage();
    chart.setData(silent);
    QVERIFY(highImage != chart.grab().toImage());  // the painted "capacity 64.0 GiB: above the plotted range"
  }

  void bannerWithoutAnOom() {
    QVector<LiveRankRow> rows(3);
    for (int i = 0; i < 3; ++i) {
      rows[i].index = i;
      rows[i].rank = QString::number(i);
      rows[i].forecastKnown = i < 2;
    }
    rows[0].forecastState = live::ForecastState::NoOom;
    rows[1].forecastState = live::ForecastState::NotEnoughHistory;
    orderByForecast(rows);
    bool oom = true;
    QCOMPARE(forecastBanner(rows, &oom),
             QStringLiteral("No OOM forecast: 1 rank(s) with no OOM in sight, 1 rank(s) with too little "
                            "history yet [derived]"));
    QVERIFY(!oom);
    rows[0].forecastKnown = rows[1].forecastKnown = false;
    QCOMPARE(forecastBanner(rows), QString());
  }
};

QTEST_MAIN(TestLiveForecast)
#include "tst_live_forecast.moc"
