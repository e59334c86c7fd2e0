// The Live page attached to real agents over real sockets: the Python agent wrapping the unchanged torch
// CPU loop (tests/live/train_tiny.py, when a python with torch is installed) and C++ agents (AgentServer)
// whose stats source plays a synthetic MPS-like run modelled on the reference (allocated about 1 GB while
// the driver figure climbs past the 22,000 MB threshold towards the recommended maximum). Checks the rank
// table, charts and alerts, records and reopens the session, takes screenshots, and prints the redraw time
// with 64 ranks at 10 Hz (a figure, not an assertion).
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cstdint>

#include "core/live/agent/agent_server.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/live/attach_dialog.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

// Synthetic MPS-like figures: allocated near 1 GB with a per-step wobble, the driver figure growing
// ~250 MB per sample from 1.2 GB, reserved a bit above allocated, recommended max 25.5 GB.
class MpsLikeSource final : public live::StatsSource {
 public:
  explicit MpsLikeSource(int seed) : seed_(seed) {}
  std::string name() const override { return "synthetic mps-like"; }
  void fill(live::Sample& s) override {
    ++n_;
    const std::int64_t wobble = ((n_ * 37 + seed_ * 11) % 23) * 9'000'000;
    s.set(live::Field::Allocated, 900'000'000 + wobble);
    s.set(live::Field::Reserved, 1'300'000'000 + wobble / 2);
    s.set(live::Field::Driver, 1'200'000'000 + n_ * (250'000'000 + seed_ * 10'000'000));
    s.set(live::Field::RecommendedMax, 25'559'000'000);
    s.set(live::Field::Ooms, 0);
  }

 private:
  int seed_;
  std::int64_t n_ = 0;
};

std::unique_ptr<live::AgentServer> mpsAgent(int rank, int intervalMs = 100) {
  live::AgentOptions o;
  o.interval_ms = intervalMs;
  o.hello.rank = rank;
  o.hello.world_size = 4;
  o.hello.backend = "mps";
  o.hello.device = "synthetic";
  o.hello.total_bytes = 0;
  o.log = [](const std::string&) {};
  auto a = std::make_unique<live::AgentServer>(o);
  a->add_source(std::make_unique<MpsLikeSource>(rank));
  a->start();
  return a;
}

QString torchPython() {
  for (const QString& exe : {QStringLiteral("/usr/bin/python3"), QStringLiteral("python3")}) {
    QProcess p;
    p.start(exe, {QStringLiteral("-c"), QStringLiteral("import torch")});
    if (p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return exe;
  }
  return {};
}

}  // namespace

class TestLivePage : public QObject {
  Q_OBJECT

 private slots:
  void attachedToRealAgents() {
    QTemporaryDir tmp;
    // The Python agent around the unchanged torch loop (rank 0), when torch is here.
    QProcess python;
    QString pyEndpoint;
    const QString py = torchPython();
    if (!py.isEmpty()) {
      const QString epFile = tmp.filePath(QStringLiteral("ep"));
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert(QStringLiteral("PYTHONPATH"), QStringLiteral(OOMSCOPE_TEST_DATA "/../../app/python-agent"));
      python.setProcessEnvironment(env);
      python.start(py,
                   {QStringLiteral("-m"), QStringLiteral("oomscope_agent"), QStringLiteral("--port"),
                    QStringLiteral("0"), QStringLiteral("--endpoint-file"), epFile,
                    QStringLiteral(OOMSCOPE_TEST_DATA "/../live/train_tiny.py"), QStringLiteral("--steps"),
                    QStringLiteral("100000"), QStringLiteral("--sleep"), QStringLiteral("0.02")});
      QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(epFile), 60000);
      QFile f(epFile);
      QVERIFY(f.open(QIODevice::ReadOnly));
      pyEndpoint = QString::fromUtf8(f.readAll()).trimmed();
    } else {
      qInfo("no python with torch: the Python agent's rank is left out");
    }
    std::vector<std::unique_ptr<live::AgentServer>> agents;
    std::vector<live::Endpoint> eps;
    if (!pyEndpoint.isEmpty()) eps.push_back(live::parse_endpoint(pyEndpoint.toStdString()));
    for (int r = 1; r <= 3; ++r) {
      agents.push_back(mpsAgent(r));
      eps.push_back(agents.back()->endpoint());
    }
    agents.back()->set_step(1200);

    LivePage page;
    page.resize(1500, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.attach(eps, {}, {});
    const int n = int(eps.size());
    QTRY_COMPARE_WITH_TIMEOUT(page.rankModel()->rowCount(), n, 10000);
    auto liveRanks = [&] {
      int up = 0;
      for (int i = 0; i < n; ++i)
        up += page.rankModel()->data(page.rankModel()->index(i, RankTableModel::Status), Qt::DisplayRole) ==
              QStringLiteral("live");
      return up;
    };
    QTRY_COMPARE_WITH_TIMEOUT(liveRanks(), n, 30000);
    agents[0]->post_event(live::Event{0, "checkpoint", "saved state at micro-batch 3000", "", 3000});
    // The driver figure grows 250 MB or more a sample: past 22,000 MB after about 80 samples (8 s at 10 Hz),
    // when the default rule driver>22000MB fires.
    QTRY_VERIFY_WITH_TIMEOUT(page.alertList()->count() > 0, 40000);
    QVERIFY(page.alertList()->item(0)->text().contains(QStringLiteral("driver")));
    QVERIFY(page.alertList()->item(0)->text().contains(QStringLiteral("rule driver>22000MB")));
    if (!pyEndpoint.isEmpty())  // the torch loop's steps reach the table
      QTRY_VERIFY_WITH_TIMEOUT(
          page.rankModel()
                  ->data(page.rankModel()->index(0, RankTableModel::Step), Qt::DisplayRole)
                  .toString() != QStringLiteral("\u2014"),
          30000);
    agents[1]->post_event(live::Event{0, "oom", "MPS backend out of memory (synthetic)", "", std::nullopt});

    // Record until the last rank has sent more than ten samples (the replay below counts them), stop,
    // reopen in another page.
    const QString rec = tmp.filePath(QStringLiteral("session.oomlive"));
    page.refreshNow();
    const std::size_t before = page.charts().back()->data().samples;
    QString error;
    QVERIFY2(page.startRecording(rec, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT((page.refreshNow(), page.charts().back()->data().samples > before + 10), 20000);
    shoot(page, QStringLiteral("live_attached.png"));
    page.stopRecording();
    QCOMPARE(int(page.charts().size()), n);
    for (LiveChart* c : page.charts()) QVERIFY(c->data().samples > 0);

    LivePage replay;
    replay.resize(1500, 900);
    replay.show();
    QSignalSpy opened(&replay, &LivePage::recordingOpened);
    replay.openRecording(rec);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    QCOMPARE(replay.rankModel()->rowCount(), n);
    QVERIFY(replay.charts()[std::size_t(n - 1)]->data().samples > 10);
    shoot(replay, QStringLiteral("live_recording.png"));

    page.detach();
    if (python.state() != QProcess::NotRunning) {
      python.kill();
      python.waitForFinished(5000);
    }
  }

  void timeAxisTicksAreDistinctAndCarryUnits() {
    // Each case: origin, shown window (ns), the unit every label must carry.
    struct Case {
      std::int64_t origin, t0, t1;
      QString unit;
    };
    const std::int64_t s = 1'000'000'000;
    const std::int64_t base = 1'764'500'000 * s;  // a unix time, as the live session's samples carry
    const Case cases[] = {
        {base, base, base + 400'000'000, QStringLiteral(" ms")},            // under a second
        {base, base, base + 3'000'000, QStringLiteral(" ms")},              // 3 ms
        {base, base + 125 * s + 300'000'000, base + 125 * s + 800'000'000,  // half a second, 2 min in
         QStringLiteral(" s")},
        {base, base + 5 * s, base + 9 * s, QStringLiteral(" s")},
        {base, base, base + 30 * 60 * s, QStringLiteral(" min")},
        {base, base + 3 * 3600 * s, base + 9 * 3600 * s, QStringLiteral(" h")},
    };
    for (const Case& c : cases) {
      const std::vector<LiveTimeTick> ticks = liveTimeTicks(c.origin, c.t0, c.t1);
      QStringList labels;
      for (const LiveTimeTick& t : ticks) {
        labels << t.label;
        QVERIFY(t.t >= c.t0 && t.t <= c.t1);
      }
      const QString all = labels.join(QStringLiteral(", "));
      QVERIFY2(ticks.size() >= 3 && ticks.size() <= 11, qPrintable(all));
      QCOMPARE(labels.size(), int(QSet<QString>(labels.begin(), labels.end()).size()));  // all distinct
      for (const QString& l : labels) QVERIFY2(l.endsWith(c.unit), qPrintable(all));
    }
    QCOMPARE(liveTimeTicks(base, base, base + 400'000'000).front().label, QStringLiteral("0 ms"));
    QCOMPARE(liveTimeTicks(base, base, base + 400'000'000)[1].label, QStringLiteral("100 ms"));

    // A chart of 400 ms: screenshot.
    LiveChartData data;
    data.title = QStringLiteral("rank 0 \u00b7 mps \u00b7 400 ms shown");
    data.connected = true;
    data.origin = base;
    data.t0 = base;
    data.t1 = base + 400'000'000;
    data.samples = 41;
    data.has_bytes = true;
    LiveSeries alloc{live::Field::Allocated, {}};
    for (int i = 0; i <= 40; ++i) {
      const std::int64_t t = base + i * 10'000'000, v = 900'000'000 + (i % 7) * 40'000'000;
      alloc.buckets.push_back({t, v, v, v, t});
    }
    data.series.push_back(alloc);
    LiveChart chart;
    chart.resize(640, 240);
    chart.setData(data);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    shoot(chart, QStringLiteral("live_chart_400ms.png"));
  }

  void demoTrainerButton() {
    const QString trainer =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../app/demo-trainer/oomscope-demo-trainer");
    AttachDialog withDemo(true);
    QVERIFY(withDemo.findChild<QPushButton*>(QStringLiteral("startDemo")));
    AttachDialog without(false);
    QVERIFY(!without.findChild<QPushButton*>(QStringLiteral("startDemo")));
    if (!QFileInfo(trainer).isExecutable()) QSKIP("oomscope-demo-trainer was not built (no LibTorch)");
    QTemporaryDir tmp;
    LivePage page;
    page.resize(1400, 800);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.setDemoTrainer(
        trainer,
        {QStringLiteral("--steps"), QStringLiteral("6"), QStringLiteral("--scenes"), QStringLiteral("8"),
         QStringLiteral("--batch"), QStringLiteral("2"), QStringLiteral("--width"), QStringLiteral("8"),
         QStringLiteral("--budget"), QStringLiteral("64MiB"), QStringLiteral("--hold-per-step"),
         QStringLiteral("8MiB"), QStringLiteral("--restart-above"), QStringLiteral("20MiB"),
         QStringLiteral("--checkpoint"), tmp.filePath(QStringLiteral("ck")), QStringLiteral("--quiet")});
    QVERIFY(page.startDemoTrainer());
    auto ooms = [&] {
      return page.rankModel()->rowCount() == 1
                 ? page.rankModel()
                       ->data(page.rankModel()->index(0, RankTableModel::Ooms), Qt::DisplayRole)
                       .toString()
                 : QString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(
        !ooms().isEmpty() && ooms() != QStringLiteral("\u2014") && ooms() != QStringLiteral("0"), 120000);
    // Wait for the restart (a gap), then for the re-attachment (the gap closed by a sample after it) and
    // the trainer's events.
    QTRY_VERIFY_WITH_TIMEOUT(!page.charts()[0]->data().gaps.isEmpty(), 180000);
    const auto reattached = [&] {
      page.refreshNow();
      const LiveChartData& d = page.charts()[0]->data();
      return !d.events.isEmpty() &&
             std::any_of(d.gaps.begin(), d.gaps.end(), [](const live::Gap& g) { return g.to != 0; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(reattached(), 60000);
    shoot(page, QStringLiteral("live_demo_trainer.png"));
    page.detach();
  }

  void oomSnapshotOpensFromTheAlertList() {
    // An agent that wrote a snapshot at an OOM names it in its `oom` event; the alert list offers it, and
    // activating that line asks for the file (the main window opens it, landing on the OOM entry).
    auto agent = mpsAgent(0);
    const QString snapshot = QStringLiteral(OOMSCOPE_TEST_DATA "/torch_snapshot_cs336_small_peak.pickle");
    LivePage page;
    page.attach({agent->endpoint()}, {}, {});
    QTRY_COMPARE_WITH_TIMEOUT(page.rankModel()->rowCount(), 1, 10000);
    live::Event oom;
    oom.kind = "oom";
    oom.message = "CUDA out of memory";
    oom.path = snapshot.toStdString();
    agent->post_event(oom);
    live::Event split;  // an event without a path adds no snapshot line
    split.kind = "split";
    agent->post_event(split);
    auto snapshotItems = [&] {
      QList<QListWidgetItem*> items;
      for (int i = 0; i < page.alertList()->count(); ++i)
        if (!page.alertList()->item(i)->data(Qt::UserRole).toString().isEmpty())
          items << page.alertList()->item(i);
      return items;
    };
    QTRY_COMPARE_WITH_TIMEOUT(snapshotItems().size(), 1, 10000);
    QListWidgetItem* item = snapshotItems().first();
    QVERIFY(item->text().contains(QStringLiteral("rank 0: OOM")));
    QVERIFY(item->text().contains(snapshot));
    QSignalSpy requested(&page, &LivePage::openSnapshotRequested);
    emit page.alertList()->itemActivated(item);
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().first().toString(), snapshot);
    page.refreshNow();  // scanned events are not offered twice
    QCOMPARE(snapshotItems().size(), 1);
    page.detach();
  }

  void sixtyFourRanksRedraw() {
    std::vector<std::unique_ptr<live::AgentServer>> agents;
    std::vector<live::Endpoint> eps;
    for (int r = 0; r < 64; ++r) {
      agents.push_back(mpsAgent(r, 100));
      eps.push_back(agents.back()->endpoint());
    }
    LivePage page;
    page.resize(1500, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.attach(eps, {}, {});
    QTRY_COMPARE_WITH_TIMEOUT(page.rankModel()->rowCount(), 64, 10000);
    // Measure with some history on every chart: at least 20 samples (2 s at 10 Hz) from each rank.
    const auto fewestSamples = [&] {
      page.refreshNow();
      std::size_t fewest = SIZE_MAX;
      for (LiveChart* c : page.charts()) fewest = std::min(fewest, c->data().samples);
      return fewest;
    };
    QTRY_VERIFY_WITH_TIMEOUT(page.charts().size() == 64 && fewestSamples() >= 20, 30000);
    const int rounds = 20;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < rounds; ++i) page.refreshNow();
    const double cutAll = double(timer.nsecsElapsed()) / 1e6 / rounds;
    timer.restart();
    for (int i = 0; i < rounds; ++i) page.refreshVisible();
    const double cutVisible = double(timer.nsecsElapsed()) / 1e6 / rounds;
    timer.restart();
    for (int i = 0; i < rounds; ++i) page.repaint();
    const double paint = double(timer.nsecsElapsed()) / 1e6 / rounds;
    qInfo(
        "live redraw, 64 ranks at 10 Hz: cut all 64 charts %.2f ms; cut the visible ones (the timer's path) "
        "%.2f ms; paint the page %.2f ms",
        cutAll, cutVisible, paint);
    // The event loop kept up: every rank delivered samples while the page refreshed.
    int withSamples = 0;
    for (LiveChart* c : page.charts()) withSamples += c->data().samples > 0;
    QCOMPARE(withSamples, 64);
    shoot(page, QStringLiteral("live_64_ranks.png"));
    page.detach();
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_live_page")};  // the attach dialog keeps its last choices
};

QTEST_MAIN(TestLivePage)
#include "tst_live_page.moc"
