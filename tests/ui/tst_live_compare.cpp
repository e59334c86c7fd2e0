// The Live page's ranks compared as one job, and two recordings on one axis (issue 25). An opened
// recording (tests/data/live/four_ranks_rank3_leaks.oomlive, the CLI golden's) shows the verdict and the
// imbalance lines `report` prints, word for word, over a per-rank table (RankComparisonModel, under
// QAbstractItemModelTester); a live session's store compares as the recording of the same records does.
// "Compare with Recording…" lays a second recording (the run after a fix: rank 3 leaks 100 MiB a step,
// not 500, and never runs out) over it: aligned by step, B shifted, the gap per rank, no site table and
// why; a snapshot chosen as B is refused naming the file. Screenshots of the page and of the overlay.

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextStream>
#include <QtTest>
#include <sstream>

#include "core/live/client/recorder.h"
#include "core/live/client/recording_ranks.h"
#include "core/live/client/session.h"
#include "tests/core/live/recorded_job.h"
#include "tests/ui/screenshots.h"
#include "ui/live/live_page.h"
#include "ui/live/live_rank_comparison.h"
#include "ui/live/live_recording_overlay.h"
#include "ui/live/rank_comparison_model.h"
#include "ui/live/recording_gap_model.h"
#include "ui/live/recording_overlay_chart.h"
#include "ui/session/job_tracker.h"

using namespace oomscope;
using namespace oomscope::ui;
using namespace oomscope::live::testjob;

namespace {

const QString kRecording = QStringLiteral(OOMSCOPE_TEST_DATA "/live/four_ranks_rank3_leaks.oomlive");

// The lines of the CLI golden `report RECORDING` (tests/cli/golden/report_recording_ranks.out).
QStringList goldenLines() {
  QFile f(QStringLiteral(OOMSCOPE_TEST_DATA "/../cli/golden/report_recording_ranks.out"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
}

QString cell(QAbstractItemModel* m, int row, int column) { return m->index(row, column).data().toString(); }

}  // namespace

class TestLiveCompare : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    m_page = std::make_unique<LivePage>();
    m_page->resize(1400, 860);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
  }
  void cleanup() { m_page.reset(); }

  void anOpenedRecordingShowsTheComparisonTheCliPrints() {
    LiveRankComparison* cmp = m_page->comparison();
    QAbstractItemModelTester tester(cmp->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!cmp->compareButton()->isEnabled());
    QSignalSpy opened(m_page.get(), &LivePage::recordingOpened);
    m_page->openRecording(kRecording);
    QVERIFY(opened.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(cmp->model()->rowCount(), 4, 10000);
    QVERIFY(cmp->compareButton()->isEnabled());

    const QStringList golden = goldenLines();
    QVERIFY(golden.size() > 15);
    // The verdict and its sentence, and the imbalance line, as the CLI words them.
    const QStringList verdict = cmp->verdictText().split(QLatin1Char('\n'));
    QCOMPARE(verdict.size(), 2);
    QCOMPARE(verdict[0], golden[12]);                         // "verdict: rank 3 (oom)"
    QCOMPARE(QStringLiteral("  ") + verdict[1], golden[13]);  // the sentence, indented in the CLI
    QVERIFY(golden[14].startsWith(QStringLiteral("imbalance [derived]: ")));
    bool imbalanceShown = false;
    for (QLabel* l : cmp->findChildren<QLabel*>()) imbalanceShown = imbalanceShown || l->text() == golden[14];
    QVERIFY(imbalanceShown);
    // The table's figures are the golden's columns, rank by rank.
    RankComparisonModel* m = cmp->model();
    for (int r = 0; r < 4; ++r) {
      const QStringList cols = golden[3 + r].split(QRegularExpression(QStringLiteral("\\s{2,}")));
      QCOMPARE(cell(m, r, RankComparisonModel::Rank).trimmed(), cols[0].trimmed());
      QCOMPARE(cell(m, r, RankComparisonModel::PeakAllocated), cols[1].trimmed());
      QCOMPARE(cell(m, r, RankComparisonModel::PeakReserved), cols[2].trimmed());
      QCOMPARE(cell(m, r, RankComparisonModel::Capacity), cols[3].trimmed());
      QVERIFY(golden[3 + r].endsWith(cell(m, r, RankComparisonModel::Tightest)));
    }
    QCOMPARE(cell(m, 0, RankComparisonModel::Ooms), QStringLiteral("-"));
    QVERIFY(
        cell(m, 3, RankComparisonModel::Ooms)
            .endsWith(golden[9].mid(golden[9].indexOf(QStringLiteral(" at ")) + 1)));  // "at 2.000 s, ..."
    QVERIFY(cmp->table()->isColumnHidden(RankComparisonModel::PeakDriver));  // no rank has a driver figure
    m_page->refreshNow();
    shoot(*m_page, QStringLiteral("live-compare-ranks.png"));
  }

  void aLiveSessionComparesAsTheRecordingOfItsRecords() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("same.oomlive"));
    const Job job;
    {
      live::Recorder rec(path.toStdString());
      play(rec, job);
      rec.close();
    }
    auto session = std::make_shared<live::LiveSession>();
    play(*session, job);
    LiveRankComparison cmp;
    QAbstractItemModelTester tester(cmp.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    cmp.showSession(session);
    QTRY_COMPARE_WITH_TIMEOUT(cmp.model()->rowCount(), 4, 10000);
    QVERIFY(!cmp.compareButton()->isEnabled());  // nothing to lay a recording over yet
    const live::RecordingComparison fromFile = live::compare_recording_ranks(path.toStdString());
    QCOMPARE(cmp.verdictText(), comparisonVerdictText(fromFile));
    QCOMPARE(cmp.verdictText().section(QLatin1Char('\n'), 0, 0), QStringLiteral("verdict: rank 3 (oom)"));
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < RankComparisonModel::ColumnCount; ++c) {
        RankComparisonModel fileModel;
        fileModel.setComparison(std::make_shared<const live::RecordingComparison>(fromFile));
        QCOMPARE(cell(cmp.model(), r, c), cell(&fileModel, r, c));
      }
    QVERIFY(cmp.noteText().contains(QStringLiteral("every two seconds")));
    // A new sample makes the panel compare again: rank 0 now holds the most.
    live::Sample s;
    s.t = when(job, 0, job.steps);
    s.set(live::Field::Allocated, 15 * kGiB);
    s.set(live::Field::Reserved, 15 * kGiB + kMiB);
    session->on_sample(0, s);
    cmp.refreshNow();
    QTRY_COMPARE_WITH_TIMEOUT(cell(cmp.model(), 0, RankComparisonModel::PeakAllocated),
                              QStringLiteral("15.0 GiB"), 10000);
  }

  void aSecondRecordingIsLaidOverTheFirst() {
    QTemporaryDir dir;
    const QString after = dir.filePath(QStringLiteral("after-fix.oomlive"));
    const Job fixed{.steps = 30, .leak = 100 * kMiB, .ooms = false};
    {
      live::Recorder rec(after.toStdString());
      play(rec, fixed);
      rec.close();
    }
    QSignalSpy opened(m_page.get(), &LivePage::recordingOpened);
    m_page->openRecording(kRecording);
    QVERIFY(opened.wait(10000));
    LiveRankComparison* cmp = m_page->comparison();
    QTRY_VERIFY_WITH_TIMEOUT(cmp->compareButton()->isEnabled(), 10000);
    QVERIFY(cmp->compareWith(after));
    LiveRecordingOverlay* overlay = cmp->overlay();
    QVERIFY(overlay);
    QAbstractItemModelTester tester(overlay->gapModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_VERIFY_WITH_TIMEOUT(overlay->chart()->overlay() != nullptr, 10000);
    QVERIFY(overlay->isVisible());
    const live::RecordingOverlay* o = overlay->chart()->overlay();
    QCOMPARE(o->axis, live::OverlayAxis::Step);
    QCOMPARE(o->rank, 3);  // A's verdict rank is drawn first
    QCOMPARE(int(o->a.allocated.size()), 20);
    QCOMPARE(int(o->b.allocated.size()), 30);
    QCOMPARE(o->a.allocated.back().bytes, 14 * kGiB + 28 * kMiB);  // 4 GiB + 768 MiB + 19 x 500 MiB
    QCOMPARE(o->b.allocated.back().bytes, allocated(fixed, kLeaker, 29));
    QCOMPARE(o->b.allocated.front().x, 0.0);
    // The gap table: rank 3's peaks and their change, A's OOMs.
    RecordingGapModel* gap = overlay->gapModel();
    QCOMPARE(gap->rowCount(), 4);
    QCOMPARE(cell(gap, 3, RecordingGapModel::AllocatedA), QStringLiteral("14.0 GiB"));
    QCOMPARE(cell(gap, 3, RecordingGapModel::AllocatedB), QStringLiteral("7.58 GiB"));
    QCOMPARE(cell(gap, 3, RecordingGapModel::AllocatedChange), QStringLiteral("\u22126.45 GiB"));
    QCOMPARE(cell(gap, 3, RecordingGapModel::OomsA), QStringLiteral("1"));
    QCOMPARE(cell(gap, 3, RecordingGapModel::OomsB), QStringLiteral("0"));
    QCOMPARE(cell(gap, 0, RecordingGapModel::AllocatedChange), QStringLiteral("0"));
    QVERIFY(overlay->explanationText().contains(
        QStringLiteral("A has 2 OOM events (ranks 3, 1), B has no OOM event")));
    QVERIFY(overlay->explanationText().contains(
        QStringLiteral("rank 3's: 14.0 GiB in A, 7.58 GiB in B (-6.45 GiB)")));
    QVERIFY(overlay->sitesText().contains(QStringLiteral("not allocation stacks")));
    // Shift B by three steps: core places B again, A stays.
    overlay->setShift(3);
    QTRY_COMPARE_WITH_TIMEOUT(overlay->chart()->overlay()->b.allocated.front().x, 3.0, 10000);
    QCOMPARE(overlay->chart()->overlay()->a.allocated.front().x, 0.0);
    QCOMPARE(overlay->chart()->overlay()->x_max, 32.0);
    overlay->setShift(0);
    QTRY_COMPARE_WITH_TIMEOUT(overlay->chart()->overlay()->b.allocated.front().x, 0.0, 10000);
    QVERIFY(QTest::qWaitForWindowExposed(overlay));
    shoot(*overlay, QStringLiteral("live-compare-overlay.png"));
    // Another rank.
    overlay->setRank(0);
    QTRY_COMPARE_WITH_TIMEOUT(overlay->chart()->overlay()->rank, 0, 10000);
    QCOMPARE(overlay->chart()->overlay()->a.allocated.back().bytes, 4 * kGiB);
  }

  void aSnapshotAsBIsRefusedNamingTheFile() {
    QSignalSpy opened(m_page.get(), &LivePage::recordingOpened);
    m_page->openRecording(kRecording);
    QVERIFY(opened.wait(10000));
    LiveRankComparison* cmp = m_page->comparison();
    QTRY_VERIFY_WITH_TIMEOUT(cmp->compareButton()->isEnabled(), 10000);
    const QString snapshot = QStringLiteral(OOMSCOPE_TEST_DATA "/torch_snapshot_cs336_small_peak.pickle");
    QVERIFY(cmp->compareWith(snapshot));
    QSignalSpy failed(cmp->overlay(), &LiveRecordingOverlay::failed);
    QVERIFY(failed.wait(10000));
    const QString error = cmp->overlay()->errorText();
    QVERIFY2(error.contains(snapshot), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("not an oomscope live recording")), qPrintable(error));
    QVERIFY(!cmp->overlay()->chart()->overlay());
  }

 private:
  std::unique_ptr<LivePage> m_page;
};

QTEST_MAIN(TestLiveCompare)
#include "tst_live_compare.moc"
