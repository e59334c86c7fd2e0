// The Simulator page's newer inputs and views: every CLI option in the controls (round trip), a calibrated
// model file, a run too large to keep whole, and a real trainer's trace (hand-written here, in the format
// docs/sim-trace-format.md asks of one) side by side with the simulator's prediction of it.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/sim/simulator.h"
#include "core/sim/trace_json.h"
#include "tests/ui/screenshots.h"
#include "ui/sim/sim_controls.h"
#include "ui/sim/simulator_page.h"
#include "ui/sim/totals_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

bool settled(const SimulatorPage& page, bool wantB) {
  return !page.isBusy() && page.run(0) && (!wantB || page.run(1));
}

// Two scenes of 4,000 and 3,000 points at 1 KiB a point in a 4,500 KiB budget: the batch OOMs, each scene
// fits.
sim::SimConfig realConfig() {
  sim::SimConfig c;
  c.policy = sim::preset_corrected();
  c.scenes.dist = sim::SizeDist::File;
  c.scenes.sizes_file = "";
  c.scenes.sizes = {4000, 3000};
  c.scenes.count = 2;
  c.batch = 2;
  c.seed = 7;
  c.memory.bytes_per_point = 1024;
  c.memory.fixed_bytes = 0;
  c.memory.budget = 4500 * 1024;
  c.memory.fragmentation_penalty = 0;
  return c;
}

// What a LibTorch trainer writes for that run: measured times and bytes, its own boxes.
void writeRealTrace(const std::string& path) {
  const sim::SimConfig c = realConfig();
  sim::Simulator s(c);  // only for the scene order the trainer must follow (batch_scenes)
  const auto order = s.batch_scenes(0);
  nlohmann::json header = {{"type", "header"}, {"format", "oomscope-split-trace"},
                           {"version", 1},     {"source", "libtorch"},
                           {"seed", c.seed},   {"config", sim::config_to_json(c)}};
  header["config"]["trainer"] = {{"device", "cpu"}, {"torch_version", "1.13.1"}, {"steps", 1}};
  std::ofstream out(path);
  out << header.dump() << "\n";
  auto event = [&](int id, int parent, int depth, const char* origin, const char* outcome,
                   std::vector<std::int64_t> scenes, std::int64_t points, std::int64_t bytes,
                   std::int64_t start, std::int64_t dur) {
    out << nlohmann::json{{"type", "event"},
                          {"id", id},
                          {"parent", parent},
                          {"step", id},
                          {"epoch", 0},
                          {"batch", 0},
                          {"depth", depth},
                          {"origin", origin},
                          {"outcome", outcome},
                          {"scenes", scenes},
                          {"points", points},
                          {"bbox", {0, 0, 0, 5.5, 4.25, 2.75}},
                          {"axis", nullptr},
                          {"split", nullptr},
                          {"bytes_needed", bytes},
                          {"budget", 4500 * 1024},
                          {"available", 4500 * 1024},
                          {"start_ns", start},
                          {"duration_ns", dur}}
               .dump()
        << "\n";
  };
  auto pts = [&](std::int64_t scene) { return scene == 0 ? 4000 : 3000; };
  event(0, -1, 0, "batch", "oom", {order[0], order[1]}, 7000, 7000 * 1024, 0, 9'100'000);
  event(1, 0, 1, "scene", "ok", {order[0]}, pts(order[0]), pts(order[0]) * 1024, 9'100'000, 21'000'000);
  event(2, 0, 1, "scene", "ok", {order[1]}, pts(order[1]), pts(order[1]) * 1024, 30'100'000, 17'000'000);
}

}  // namespace

class TestSimRealRun : public QObject {
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

  void controlsHoldEveryOption() {
    sim::SimConfig c = sim::default_config();
    c.policy = {sim::CatchMode::RuntimeError,
                sim::GradMode::Accumulate,
                sim::SplitPoint::Median,
                sim::AxisRule::AlternateXY,
                700,
                sim::FloorAction::Raise,
                sim::NormMode::GroupNorm};
    c.scenes.count = 123;
    c.batch = 6;
    c.epochs = 3;
    c.max_batches = 17;
    c.seed = 18446744073709551615ull;
    c.memory = {3391, 52428801, 5'000'000'123, 100LL << 20, 250};
    c.time = {123'456, 654'321, 4'321'987, 12'345, 1'234'567, 250};
    c.fault = {sim::BugKind::NanLoss, 9};
    m_page->controls()->setConfig(c);
    QCOMPARE(QString::fromStdString(sim::config_to_json(m_page->controls()->config()).dump()),
             QString::fromStdString(sim::config_to_json(c).dump()));
    m_page->simulateNow();
    QTRY_VERIFY_WITH_TIMEOUT(settled(*m_page, true) && m_page->run(0)->config->seed == c.seed, 60000);
    m_page->runToEnd();
    qInfo("page minimum size %d x %d", m_page->minimumSizeHint().width(), m_page->minimumSizeHint().height());
    QVERIFY(m_page->minimumSizeHint().width() <= 1600);  // every option, still on a 1600-pixel screen
    shoot(*m_page, QStringLiteral("simulator_every_option.png"));
  }

  void loadsACalibratedModelAndReportsABadOne() {
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("model.json"));
    std::ofstream(good.toStdString())
        << R"({"format":"oomscope-sim-model","version":1,"fixed_bytes":104857600,)"
        << R"("bytes_per_point":2500.4,"time_fixed_s":0.003,"time_per_point_s":2e-6})";
    QVERIFY(m_page->controls()->loadModelFile(good));
    const sim::SimConfig c = m_page->controls()->config();
    QCOMPARE(c.memory.bytes_per_point, 2500);
    QCOMPARE(c.memory.fixed_bytes, 104857600);
    QCOMPARE(c.time.fixed_ns_per_attempt, 3'000'000);
    QCOMPARE(c.time.forward_ps_per_point + c.time.backward_ps_per_point, 2'000'000);

    const QString bad = dir.filePath(QStringLiteral("bad_model.json"));
    std::ofstream(bad.toStdString()) << R"({"format":"oomscope-sim-model","version":1,"fixed_bytes":1})";
    QSignalSpy failed(m_page.get(), &SimulatorPage::failed);
    QVERIFY(!m_page->controls()->loadModelFile(bad));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(m_page->errorText().contains(QStringLiteral("bad_model.json: missing key 'bytes_per_point'")),
             qPrintable(m_page->errorText()));
  }

  void realRunBesidesItsPrediction() {
    auto& page = *m_page;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("real.jsonl"));
    writeRealTrace(path.toStdString());
    page.openRealRunWithPrediction(path);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) && page.run(0)->realRun && page.run(1) &&
                                 page.run(1)->title == QStringLiteral("prediction"),
                             60000);
    QVERIFY(page.predicting());
    QCOMPARE(page.run(1)->config->memory.budget, 4500 * 1024);
    QVERIFY2(page.noticeText().contains(
                 QStringLiteral("the same outcome for 3 of 3 events (100.0 %); no divergence")),
             qPrintable(page.noticeText()));
    page.next();
    page.next();
    QCOMPARE(page.step(), 2);
    page.runToEnd();
    shoot(page, QStringLiteral("simulator_real_vs_prediction.png"));

    // Editing the controls re-predicts B and keeps the real run in A: with 3.5 MiB the 4,000-point scene
    // no longer fits, so the prediction diverges at its attempt.
    page.controls()->setBudgetGiB(3.5 / 1024.0);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) && page.run(1)->config->memory.budget < 4500 * 1024, 60000);
    QVERIFY(page.run(0)->realRun);
    QVERIFY2(page.noticeText().contains(QStringLiteral("first divergence at event #")),
             qPrintable(page.noticeText()));
  }

  // A trace the real LibTorch trainer wrote (tests/data/sim/libtorch_default.jsonl): the prediction from its
  // header has the same outcome at every attempt.
  void realTrainerTraceMatchesItsPrediction() {
    auto& page = *m_page;
    page.openRealRunWithPrediction(QStringLiteral(OOMSCOPE_TEST_DATA "/sim/libtorch_default.jsonl"));
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, true) && page.run(0)->realRun && page.run(1) &&
                                 page.run(1)->title == QStringLiteral("prediction"),
                             60000);
    QCOMPARE(page.run(0)->log.events.size(), std::size_t(20));
    QVERIFY2(page.noticeText().contains(
                 QStringLiteral("the same outcome for 20 of 20 events (100.0 %); no divergence")),
             qPrintable(page.noticeText()));
    page.stepTo(8);
    shoot(page, QStringLiteral("simulator_libtorch_vs_prediction.png"));
  }

  void aRunTooLargeToKeepSaysSo() {
    auto& page = *m_page;
    sim::SimConfig c = page.controls()->config();
    c.scenes.count = 250'000;  // about 480,000 attempts: more than the page keeps
    page.controls()->setConfig(c);
    page.controls()->setCompare(SimControls::Compare::None);
    QTRY_VERIFY_WITH_TIMEOUT(settled(page, false) && page.run(0)->truncated, 120000);
    QVERIFY(page.run(0)->wholeRun);
    QVERIFY(page.run(0)->wholeRun->attempts > page.run(0)->stepTotals.back().attempts);
    QCOMPARE(page.run(0)->wholeRun->batches, 62'500);
    QVERIFY2(page.noticeText().contains(QStringLiteral("too large to keep whole")),
             qPrintable(page.noticeText()));
    shoot(page, QStringLiteral("simulator_truncated.png"));
  }

 private:
  std::unique_ptr<SimulatorPage> m_page;
};

QTEST_MAIN(TestSimRealRun)
#include "tst_sim_real_run.moc"
