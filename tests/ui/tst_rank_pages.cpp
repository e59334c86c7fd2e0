// The Ranks window over the per-rank sets of tests/data/ranks (tools/make_rank_sets.py, from a real
// snapshot): its models under QAbstractItemModelTester, what the user reads (the verdict and the marked
// rank), a folder and several snapshots reaching it from the main window, files that are not one job, and a
// screenshot. (tst_rank_detail.cpp: the pane of a selected rank and the Categories menu.)
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

#include "tests/ui/rank_job_files.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/models/kineto_rank_model.h"
#include "ui/models/snapshot_rank_imbalance_model.h"
#include "ui/models/snapshot_rank_model.h"
#include "ui/shell/main_window.h"
#include "ui/snapshot/ranks_window.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope::ui;

namespace {

RanksWindow* newestRanksWindow() {
  RanksWindow* found = nullptr;
  for (QWidget* w : QApplication::topLevelWidgets())
    if (auto* r = qobject_cast<RanksWindow*>(w)) found = r;
  return found;
}

}  // namespace

class TestRankPages : public QObject {
  Q_OBJECT

 private slots:
  void modelsUnderTester() {
    oomscope::NullProgress none;
    const auto result = loadRankJob(oomJob(), none, {});
    QVERIFY(result->is_job);
    SnapshotRankModel ranks;
    QAbstractItemModelTester t1(&ranks, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ranks.setRows(snapshotRankRows(result->comparison));
    QCOMPARE(ranks.rowCount(), 4);
    RankImbalanceModel imbalance;
    QAbstractItemModelTester t2(&imbalance, QAbstractItemModelTester::FailureReportingMode::QtTest);
    imbalance.setRows(rankImbalanceRows(result->comparison));
    // parameters and the embedding's site beyond the median, then peak allocated, reserved, 3 categories
    QCOMPARE(imbalance.rowCount(), 7);
    QCOMPARE(imbalance.index(0, RankImbalanceModel::Name).data().toString(), QStringLiteral("parameters"));
    QCOMPARE(imbalance.index(0, RankImbalanceModel::Figure).data().toString(), QStringLiteral("+1.00 GiB"));
    // Rank 2 is the verdict's, marked and bold; its capacity is reserved at the OOM + device_free.
    QVERIFY(ranks.index(2, SnapshotRankModel::Rank).data().toString().contains(QStringLiteral("verdict")));
    QVERIFY(!ranks.index(0, SnapshotRankModel::Rank).data().toString().contains(QStringLiteral("verdict")));
    QVERIFY(ranks.index(2, SnapshotRankModel::Rank).data(Qt::FontRole).value<QFont>().bold());
    QCOMPARE(ranks.index(2, SnapshotRankModel::Capacity).data(RecordTableModel::SortRole).toLongLong(),
             qint64(4854906880) + (qint64(64) << 20));
    QVERIFY(ranks.index(1, SnapshotRankModel::Capacity)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("does not record")));
    ranks.setRows({});
    QCOMPARE(ranks.rowCount(), 0);
  }

  void mainWindowOpensAFolderAsOneJob() {
    MainWindow main;
    main.openFile(kRanks + QStringLiteral("/oom_job"));
    RanksWindow* w = newestRanksWindow();
    QVERIFY(w);
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(30000));
    QVERIFY2(w->verdictLabel()->text().startsWith(QStringLiteral("Verdict (oom): rank 2")),
             qPrintable(w->verdictLabel()->text()));
    QVERIFY(w->verdictLabel()->text().contains(QStringLiteral("ran out of memory")));
    QVERIFY(w->evidenceLabel()->text().contains(QStringLiteral("rank numbers in the file or folder names")));
    QCOMPARE(w->rankModel()->rowCount(), 4);
    w->resize(1500, 700);
    shoot(*w, QStringLiteral("ranks_window_oom_job.png"));
    w->close();
  }

  void severalSnapshotsWithAStranger() {
    MainWindow main;
    main.openFiles({oomJob()[0], oomJob()[1], kRanks + QStringLiteral("/extra/rank3_stranger.pickle")});
    RanksWindow* w = newestRanksWindow();
    QVERIFY(w);
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(30000));
    QCOMPARE(w->rankModel()->rowCount(), 2);
    QVERIFY(w->evidenceLabel()->text().contains(QStringLiteral("left out: ")));
    QVERIFY(w->evidenceLabel()->text().contains(QStringLiteral("rank3_stranger.pickle")));
    w->close();
  }

  void twoClaimsOfOneRankIsAnError() {
    auto* w = RanksWindow::openFiles(
        {oomJob()[0], oomJob()[1], kRanks + QStringLiteral("/extra/oom_rank1.pickle")});
    QSignalSpy failed(w, &RanksWindow::failed);
    QVERIFY(failed.wait(30000));
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("claims rank 1")),
             qPrintable(failed.first().first().toString()));
    QCOMPARE(w->rankModel()->rowCount(), 0);
    w->close();
  }

  // A folder of per-rank Kineto traces (tools/make_kineto_ranks.py, from a real DDP trace) opens as one
  // job with the Kineto table; expected figures from tests/data/kineto_ranks/expected.json.
  void mainWindowOpensAKinetoFolderAsOneJob() {
    const QString dir = QStringLiteral(OOMSCOPE_TEST_DATA) + QStringLiteral("/kineto_ranks/oom_job");
    MainWindow main;
    main.openFile(dir);
    RanksWindow* w = newestRanksWindow();
    QVERIFY(w);
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(60000));
    QVERIFY2(w->verdictLabel()->text().startsWith(QStringLiteral("Verdict (oom): rank 2")),
             qPrintable(w->verdictLabel()->text()));
    QVERIFY(w->verdictLabel()->text().contains(QStringLiteral("no stack and no category")));
    QVERIFY(w->evidenceLabel()->text().contains(QStringLiteral("distributedInfo")));
    KinetoRankModel* m = w->kinetoRankModel();
    QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m->rowCount(), 4);
    QCOMPARE(m->index(2, KinetoRankModel::PeakAllocated).data(RecordTableModel::SortRole).toLongLong(),
             qint64(7703249920));
    QCOMPARE(m->index(0, KinetoRankModel::Capacity).data(RecordTableModel::SortRole).toLongLong(),
             qint64(34089730048));
    QVERIFY(m->index(2, KinetoRankModel::Rank).data().toString().contains(QStringLiteral("verdict")));
    QCOMPARE(w->rankModel()->rowCount(), 0);
    w->resize(1500, 700);
    shoot(*w, QStringLiteral("ranks_window_kineto_oom_job.png"));
    w->close();
  }

  // The capacity field recomputes the verdict on the worker: with no OOM and no capacity known the highest
  // reserved peak is named; a given capacity makes it the rank closest to capacity. A bad size changes
  // nothing and says why.
  void capacityFieldRecomputesTheVerdict() {
    QStringList noOom;
    for (int r = 0; r < 3; ++r) noOom << kRanks + QStringLiteral("/no_oom/rank_%1/snapshot.pickle").arg(r);
    auto* w = RanksWindow::openFiles(noOom);
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(60000));
    QVERIFY2(w->verdictLabel()->text().startsWith(QStringLiteral("Verdict (highest-reserved-peak)")),
             qPrintable(w->verdictLabel()->text()));
    w->applyCapacity(QStringLiteral("12 gigs"));
    QVERIFY(w->statusLabel()->text().contains(QStringLiteral("gigs")));
    QCOMPARE(loaded.count(), 1);
    w->capacityEdit()->setText(QStringLiteral("80 GiB"));
    QTest::keyClick(w->capacityEdit(), Qt::Key_Return);
    QVERIFY(loaded.wait(60000));
    QVERIFY2(w->verdictLabel()->text().startsWith(QStringLiteral("Verdict (closest-to-capacity)")),
             qPrintable(w->verdictLabel()->text()));
    QCOMPARE(
        w->rankModel()->index(0, SnapshotRankModel::Capacity).data(RecordTableModel::SortRole).toLongLong(),
        qint64(80) << 30);
    w->resize(1500, 700);
    shoot(*w, QStringLiteral("ranks_window_capacity_80gib.png"));
    w->applyCapacity(QString());
    QVERIFY(loaded.wait(60000));
    QVERIFY(w->verdictLabel()->text().startsWith(QStringLiteral("Verdict (highest-reserved-peak)")));
    w->close();
  }

  void oneSnapshotIsNoJob() {
    QVERIFY(!RanksWindow::openIfSnapshots({oomJob()[0]}));
    QVERIFY(
        !RanksWindow::openIfSnapshotFolder(QStringLiteral(OOMSCOPE_TEST_DATA) + QStringLiteral("/two_host")));
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_rank_pages")};
};

QTEST_MAIN(TestRankPages)
#include "tst_rank_pages.moc"
