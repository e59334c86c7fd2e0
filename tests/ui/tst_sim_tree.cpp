// The recursion-tree view: a 100,000-node run lays out once and paints without stalling (figures printed,
// not asserted against a clock), level of detail when zoomed out, hit testing, follow-the-current-attempt.
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QtTest>
#include <deque>
#include <random>

#include "core/sim/config.h"
#include "ui/sim/run_data.h"
#include "ui/sim/tree_layout.h"
#include "ui/sim/tree_view.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

// A run with at least `nodes` events: 2 GiB budget (0.5 GiB for points), no fragmentation, so scenes split
// into several spatial pieces each and the run always completes.
sim::SimConfig bigConfig(std::int64_t scenes) {
  sim::SimConfig c = sim::default_config();
  c.policy = sim::preset_corrected();
  c.scenes.count = scenes;
  c.memory.budget = 2LL << 30;
  c.memory.fragmentation_penalty = 0;
  return c;
}

void saveShot(const QImage& image, const QString& name) {
  const QByteArray env = qgetenv("OOMSCOPE_SCREENSHOT_DIR");
  const QString dir = env.isEmpty() ? QStringLiteral(OOMSCOPE_SCREENSHOT_DIR) : QString::fromLocal8Bit(env);
  QDir().mkpath(dir);
  QVERIFY(image.save(QDir(dir).filePath(name)));
}

double ms(const QElapsedTimer& t) { return double(t.nsecsElapsed()) * 1e-6; }

// A run of the simulator's shape (batches of 4 scenes, one per-scene level, uneven spatial halves, halves
// under the floor dropped, FIFO order) built directly: the Debug simulator would spend minutes generating
// the millions of points such a run splits, and the tree view only sees events.
sim::EventLog syntheticLog(std::size_t targetNodes) {
  using sim::Origin;
  using sim::Outcome;
  struct Frag {
    std::int64_t parent;
    std::int32_t depth;
    Origin origin;
    std::int64_t points;
    std::uint32_t firstScene, scenes;
  };
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> size(20'000, 300'000);
  std::uniform_real_distribution<double> cut(0.15, 0.85);
  constexpr std::int64_t kFits = 43'690;  // points that fit in the 0.5 GiB left for them
  sim::EventLog log;
  std::int64_t step = 0, batch = 0;
  std::uint32_t nextScene = 0;
  auto addEvent = [&](const Frag& f, Outcome o, std::int64_t stepId) {
    sim::Event e;
    e.id = std::int64_t(log.events.size());
    e.parent = f.parent;
    e.step = stepId;
    e.batch = batch;
    e.depth = f.depth;
    e.origin = f.origin;
    e.outcome = o;
    e.points = f.points;
    e.scenes_offset = std::uint32_t(log.scene_ids.size());
    e.scenes_count = f.scenes;
    for (std::uint32_t s = 0; s < f.scenes; ++s) log.scene_ids.push_back(f.firstScene + s);
    log.events.push_back(e);
    return e.id;
  };
  while (log.events.size() < targetNodes) {
    std::deque<Frag> queue;
    std::vector<std::int64_t> sizes(4);
    std::int64_t total = 0;
    for (auto& s : sizes) total += (s = size(rng));
    queue.push_back({-1, 0, Origin::Batch, total, nextScene, 4});
    while (!queue.empty()) {
      const Frag f = queue.front();
      queue.pop_front();
      const std::int64_t stepId = step++;
      if (f.points <= kFits) {
        addEvent(f, Outcome::Ok, stepId);
        continue;
      }
      const auto id = addEvent(f, Outcome::Oom, stepId);
      if (f.scenes > 1) {
        for (std::uint32_t s = 0; s < f.scenes; ++s)
          queue.push_back({id, f.depth + 1, Origin::Scene, sizes[s], f.firstScene + s, 1});
        continue;
      }
      const std::int64_t low = std::int64_t(double(f.points) * cut(rng));
      for (const auto& [pts, origin] :
           {std::pair{low, Origin::SpatialLow}, std::pair{f.points - low, Origin::SpatialHigh}}) {
        const Frag half{id, f.depth + 1, origin, pts, f.firstScene, 1};
        if (pts <= 500)
          addEvent(half, Outcome::Dropped, stepId);
        else
          queue.push_back(half);
      }
    }
    nextScene += 4;
    ++batch;
  }
  return log;
}

}  // namespace

class TestSimTree : public QObject {
  Q_OBJECT

 private slots:
  void layoutKeepsSubtreesContiguous() {
    NullProgress progress;
    const auto run = simulateRun(bigConfig(40), QStringLiteral("t"), progress, {});
    const auto& L = run->layout;
    QCOMPARE(L.nodeCount(), run->log.events.size());
    for (std::size_t v = 0; v < L.nodeCount(); ++v) {
      const auto b = L.childBegin[v], e = L.childBegin[v + 1];
      if (b == e) continue;
      const float lo = L.x[std::size_t(L.children[std::size_t(b)])],
                  hi = L.x[std::size_t(L.children[std::size_t(e - 1)])];
      QVERIFY(L.x[v] >= lo && L.x[v] <= hi);  // parent over its children
      for (auto c = b; c < e; ++c)
        QCOMPARE(int(L.depth[std::size_t(L.children[std::size_t(c)])]), L.depth[v] + 1);
    }
    QVERIFY(std::is_sorted(L.sortedX.begin(), L.sortedX.end()));
  }

  void hundredThousandNodes() {
    QElapsedTimer clock;
    // What the worker does for a trace of this size: derive the per-step counters, lay out the tree.
    const auto run = runFromLog(syntheticLog(100'000), sim::GradMode::Accumulate, std::nullopt);
    QVERIFY(run->layout.nodeCount() >= 100'000);
    QVERIFY(!run->truncated);
    const double simulateMs = run->computeSeconds * 1e3;

    clock.start();
    const TreeLayout again = layoutTree(run->log);
    const double layoutMs = ms(clock);
    QCOMPARE(again.nodeCount(), run->layout.nodeCount());

    SimTreeView view;
    view.resize(1400, 520);
    clock.start();
    view.setRun(run);
    view.setStep(run->steps() / 2);
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    view.render(&image);
    const double firstPaintMs = ms(clock);
    QVERIFY(view.levelOfDetail());  // fitted: far below a pixel per node
    const double coarsePaint = view.lastPaintMs();

    // Stepping repaints: the cursor moves, nothing is laid out again.
    clock.start();
    for (int i = 0; i < 50; ++i) {
      view.setStep(run->steps() / 2 + i);
      view.render(&image);
    }
    const double stepPaintMs = ms(clock) / 50;

    saveShot(image, QStringLiteral("tree_100k_fit.png"));
    view.zoomBy(400.0, 700);
    QVERIFY(!view.levelOfDetail());
    clock.start();
    view.render(&image);
    const double detailedPaintMs = ms(clock);
    saveShot(image, QStringLiteral("tree_100k_zoomed.png"));
    const auto detailedNodes = view.lastPaintedNodes();

    qInfo(
        "100k tree: %zu nodes, %lld steps, depth %d | counters %.0f ms, layout %.1f ms (worker, once per "
        "run) | "
        "first paint incl. setRun %.1f ms (LOD paint %.1f ms) | step+repaint %.2f ms | zoomed-in paint %.1f "
        "ms for "
        "%lld nodes in view",
        run->layout.nodeCount(), qlonglong(run->steps()), run->layout.maxDepth, simulateMs, layoutMs,
        firstPaintMs, coarsePaint, stepPaintMs, detailedPaintMs, qlonglong(detailedNodes));
    // Not a timing assertion: culling must have cut the zoomed-in paint to a small part of the tree.
    QVERIFY(detailedNodes < std::int64_t(run->layout.nodeCount()) / 20);
  }

  void hitTestingAndFollow() {
    NullProgress progress;
    const auto run = simulateRun(bigConfig(60), QStringLiteral("t"), progress, {});
    SimTreeView view;
    view.resize(1000, 400);
    view.setRun(run);
    // Fitted, the whole tree is in view: stepping must not move it.
    view.setStep(1);
    const QPointF rootAtStart = view.nodeCenter(0);
    for (std::int64_t s = 2; s <= run->steps(); s += 3) view.setStep(s);
    QCOMPARE(view.nodeCenter(0), rootAtStart);
    view.setStep(run->steps());
    view.zoomBy(20.0, 500);
    QVERIFY(!view.levelOfDetail());
    // The current attempt is kept in view while stepping.
    for (std::int64_t s : {std::int64_t(1), run->steps() / 3, run->steps() - 1}) {
      view.setStep(s);
      const auto id = run->attemptOfStep(s);
      const QPointF c = view.nodeCenter(id);
      QVERIFY2(c.x() >= 0 && c.x() <= view.width(), qPrintable(QString::number(c.x())));
      QCOMPARE(view.nodeAt(c), id);
    }
    // Attempts after the cursor cannot be picked.
    view.setStep(1);
    const auto later = run->attemptOfStep(run->steps());
    view.ensureVisible(later);
    QCOMPARE(view.nodeAt(view.nodeCenter(later)), std::int64_t(-1));
    QSignalSpy clicked(&view, &SimTreeView::nodeClicked);
    const QPointF root = view.nodeCenter(0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, root.toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toLongLong(), 0LL);
  }
};

QTEST_MAIN(TestSimTree)
#include "tst_sim_tree.moc"
