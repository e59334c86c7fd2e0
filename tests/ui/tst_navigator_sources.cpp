// The navigator lists the Live page's ranks (while attached) and the Simulator's runs beside the open
// files, in sync with those pages both ways: picking a rank or a run there switches to the page and selects
// it; selecting one on the page selects it there. Live ranks come from two in-process agents (synthetic
// figures) on loopback; the simulator runs its default configuration. QAbstractItemModelTester on the
// navigator throughout; a screenshot of the navigator with both lists.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "core/live/agent/agent_server.h"
#include "core/util/bytes.h"
#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/models/navigator_model.h"
#include "ui/session/navigator_source.h"
#include "ui/shell/main_window.h"
#include "ui/sim/simulator_page.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

const QString kConv = QStringLiteral(OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");

class FixedSource final : public live::StatsSource {
 public:
  explicit FixedSource(std::int64_t allocated) : allocated_(allocated) {}
  std::string name() const override { return "fixed"; }
  void fill(live::Sample& s) override {
    s.set(live::Field::Allocated, allocated_);
    s.set(live::Field::Reserved, allocated_ + 100'000'000);
    s.set(live::Field::RecommendedMax, 8'000'000'000);
  }

 private:
  std::int64_t allocated_;
};

std::unique_ptr<live::AgentServer> agent(int rank) {
  live::AgentOptions o;
  o.interval_ms = 100;
  o.hello.rank = rank;
  o.hello.world_size = 2;
  o.hello.backend = "synthetic";
  o.log = [](const std::string&) {};
  auto a = std::make_unique<live::AgentServer>(o);
  a->add_source(std::make_unique<FixedSource>(1'000'000'000LL * (rank + 1)));
  a->start();
  return a;
}

QStringList childTexts(const QModelIndex& parent) {
  QStringList out;
  for (int r = 0; r < parent.model()->rowCount(parent); ++r)
    out << parent.model()->index(r, 0, parent).data().toString();
  return out;
}

}  // namespace

class TestNavigatorSources : public QObject {
  Q_OBJECT

 public:
  TestNavigatorSources() {
    qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_navigator_sources"));
  }

 private slots:
  void ranksAndRunsAreListedAndInSync() {
    MainWindow window;
    window.setMessagePresenter([](QMessageBox::Icon, const QString&, const QString&) {});
    QAbstractItemModelTester tester(window.navigator(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto* sim = static_cast<SimulatorPage*>(createSimulatorPage(&window));
    auto* live = new LivePage(&window);
    window.addPage(sim, QStringLiteral("Simulator"));
    window.addPage(live, QStringLiteral("Live"));
    window.resize(2000, 1000);  // the Live page's charts and table need 1500 px beside the navigator
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    NavigatorModel* nav = window.navigator();
    QTreeView* tree = window.navigatorView();

    // A capture first: its file stays the first row, the pages' lists come after it.
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(kConv);
    QVERIFY(finished.wait(30000));
    QCOMPARE(nav->hostCount(), 1);
    // Its analysis selects the default module in the navigator; let it land before the lists are checked.
    QTRY_VERIFY_WITH_TIMEOUT(window.analysis()->result(), 30000);
    window.resizeDocks({window.navigatorDock()}, {360}, Qt::Horizontal);

    // The simulator's run A, once simulated.
    QTRY_VERIFY_WITH_TIMEOUT(sim->run(0), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(nav->sourceIndex(0).isValid(), 10000);
    const QModelIndex runs = nav->sourceIndex(0);
    QCOMPARE(runs.data().toString(), QStringLiteral("Simulator runs"));
    QVERIFY(runs.row() >= nav->hostCount());
    QCOMPARE(childTexts(runs).first(), QStringLiteral("A: %1").arg(sim->run(0)->title));
    const qint64 attempts = sim->run(0)->stepTotals.back().attempts;
    QVERIFY2(
        nav->sourceEntryIndex(0, 0).siblingAtColumn(1).data().toString().contains(QLatin1String("attempt")),
        qPrintable(nav->sourceEntryIndex(0, 0).siblingAtColumn(1).data().toString()));
    QVERIFY(attempts > 0);
    // Picking run A in the navigator shows the Simulator page.
    window.tabs()->setCurrentIndex(0);
    tree->selectionModel()->setCurrentIndex(nav->sourceEntryIndex(0, 0), QItemSelectionModel::ClearAndSelect);
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(sim));

    // No live list until the Live page is attached; then one entry per rank.
    QVERIFY(!nav->sourceIndex(1).isValid());
    auto a0 = agent(0), a1 = agent(1);
    live->attach({a0->endpoint(), a1->endpoint()}, {}, {});
    QTRY_COMPARE_WITH_TIMEOUT(live->rankModel()->rowCount(), 2, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(nav->sourceIndex(1).isValid(), 10000);
    const QModelIndex ranks = nav->sourceIndex(1);
    QCOMPARE(ranks.data().toString(), QStringLiteral("Live ranks"));
    QVERIFY(ranks.row() > runs.row());  // in the order the pages were added
    QCOMPARE(nav->rowCount(ranks), 2);
    for (int r = 0; r < 2; ++r)
      QCOMPARE(nav->sourceEntryIndex(1, r).data().toString(),
               QStringLiteral("rank %1").arg(live->rankModel()->row(r).rank));
    // Once samples arrive, each rank's headroom (recommended max 8 GB less reserved) is its size column.
    for (int r = 0; r < 2; ++r)
      QTRY_VERIFY_WITH_TIMEOUT(
          nav->sourceEntryIndex(1, r).siblingAtColumn(1).data().toString().endsWith(QLatin1String(" free")),
          15000);
    QCOMPARE(nav->sourceEntryIndex(1, 0).siblingAtColumn(1).data().toString(),
             QStringLiteral("%1 free").arg(
                 QString::fromStdString(oomscope::format_bytes(8'000'000'000 - 1'100'000'000))));

    // Navigator -> page: picking rank 1 shows the Live page with that rank's row selected.
    window.tabs()->setCurrentIndex(0);
    tree->selectionModel()->setCurrentIndex(nav->sourceEntryIndex(1, 1), QItemSelectionModel::ClearAndSelect);
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(live));
    auto* sorted = static_cast<QSortFilterProxyModel*>(live->rankTable()->model());
    QCOMPARE(sorted->mapToSource(live->rankTable()->currentIndex()).row(), 1);

    // Page -> navigator: selecting rank 0 in the rank table selects it there.
    const QModelIndex row0 = sorted->mapFromSource(live->rankModel()->index(0, 0));
    live->rankTable()->selectionModel()->setCurrentIndex(
        row0, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QTRY_COMPARE(tree->currentIndex(), nav->sourceEntryIndex(1, 0));
    tree->expandAll();
    live->refreshNow();
    shoot(window, QStringLiteral("navigator-live-sim.png"));

    // Detaching keeps the recorded ranks listed; closing the capture keeps both lists.
    window.closeCapture();
    QCOMPARE(nav->hostCount(), 0);
    QVERIFY(nav->sourceIndex(0).isValid());
    QVERIFY(nav->sourceIndex(1).isValid());
    live->detach();
  }

 private:
  QTemporaryDir m_config;
};

QTEST_MAIN(TestNavigatorSources)
#include "tst_navigator_sources.moc"
