// Two runs on one axis in the snapshot window: the cs336 fp32 run with the bf16 run laid over it through the
// Overlay page (read on the page's worker), the site/category model under QAbstractItemModelTester and equal
// to core's diff, the shift moving B, the hand-built checkpointing pair's peak moving from forward into
// backward, a file that is not a snapshot failing with its name, and screenshots.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>
#include <cstdlib>

#include "tests/ui/screenshots.h"
#include "ui/snapshot/overlay_page.h"
#include "ui/snapshot/overlay_widget.h"
#include "ui/snapshot/site_diff_model.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {
QString data(const char* name) { return QStringLiteral(OOMSCOPE_TEST_DATA "/") + QString::fromUtf8(name); }
}  // namespace

class TstSnapshotOverlay : public QObject {
  Q_OBJECT

 private slots:
  void overlaysTheCs336Pair() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("torch_snapshot_cs336_fp32_ctx128.pickle"), none));
    OverlayPage* page = w.overlayPage();
    QVERIFY(page);
    QVERIFY(w.tabs()->indexOf(page) >= 0);
    QAbstractItemModelTester tester(page->siteModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(page, &OverlayPage::overlaid);
    page->openSecondRun(data("torch_snapshot_cs336_bf16_ctx128.pickle"));
    QVERIFY(done.wait(60000));
    const auto& r = page->result();
    QVERIFY(r);
    QCOMPARE(r->overlay.axis, snapshot::OverlayAxis::Time);  // the pair carries no ProfilerStep markers
    QCOMPARE(r->overlay.a.peak_bytes, qint64(556843008));    // tests/data/tools/snapshot_peak_sites.py
    QCOMPARE(r->overlay.b.peak_bytes, qint64(779837440));
    // The model shows exactly core's rows, largest change first.
    SiteDiffModel* m = page->siteModel();
    QCOMPARE(m->rowCount(), static_cast<int>(r->diff.site_rows.size()));
    QVERIFY(m->rowCount() > 5);
    for (int i = 0; i < m->rowCount(); ++i) {
      const auto& row = r->diff.site_rows[static_cast<std::size_t>(i)];
      QCOMPARE(m->data(m->index(i, SiteDiffModel::Delta), Qt::UserRole).toLongLong(),
               std::llabs(row.delta()));
      QCOMPARE(m->data(m->index(i, SiteDiffModel::Site)).toString(), QString::fromStdString(row.site));
    }
    QVERIFY(page->summary()->text().contains(QStringLiteral("Neither run carries ProfilerStep#N markers")));
    // The view shows core's order: the largest change, either way, first.
    const QAbstractItemModel* shown = page->siteView()->model();
    QCOMPARE(shown->data(shown->index(0, SiteDiffModel::Site)).toString(),
             QString::fromStdString(r->diff.site_rows.front().site));
    // The shift moves B on the shared axis (ms in the box, µs on the axis).
    const double before = page->chart()->placedB(0);
    page->shiftBox()->setValue(12.5);
    QCOMPARE(page->chart()->placedB(0), before + 12500.0);
    page->shiftBox()->setValue(0);
    w.resize(1280, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(page);
    shoot(w, QStringLiteral("snapshot-overlay-cs336-fp32-bf16.png"));
  }

  // The hand-built pair without and with activation checkpointing (tests/data/README.md): the summary says
  // the peak moved from the end of forward into backward, and the largest change is an activation site.
  void checkpointingMovesThePeak() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("hand_snapshots/torch_snapshot_ckpt_off.pickle"), none));
    OverlayPage* page = w.overlayPage();
    QVERIFY(page);
    QSignalSpy done(page, &OverlayPage::overlaid);
    page->openSecondRun(data("hand_snapshots/torch_snapshot_ckpt_on.pickle"));
    QVERIFY(done.wait(60000));
    const auto& r = page->result();
    QVERIFY(r);
    QCOMPARE(r->overlay.a.peak_bytes, qint64(23) << 20);  // tests/data/tools/snapshot_peak_sites.py
    QCOMPARE(r->overlay.b.peak_bytes, qint64(13) << 20);
    const QString text = page->summary()->text();
    QVERIFY2(text.contains(QStringLiteral(
                 "The peak moved: A's falls inside ## forward ##, B's inside ## backward ## [derived].")),
             qPrintable(text));
    QVERIFY(!r->diff.site_rows.empty());
    QCOMPARE(QString::fromStdString(r->diff.site_rows.front().category), QStringLiteral("activations"));
    w.resize(1280, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(page);
    shoot(w, QStringLiteral("snapshot-overlay-ckpt-off-on.png"));
  }

  // Before a second run is open the site table is empty; each header but the last (which stretches) is
  // as wide as its text needs, not elided to the default section width.
  void theEmptySiteTableShowsWholeHeaders() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("torch_snapshot_cs336_fp32_ctx128.pickle"), none));
    w.resize(1280, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(w.overlayPage());
    QHeaderView* h = w.overlayPage()->siteView()->horizontalHeader();
    QCOMPARE(w.overlayPage()->siteModel()->rowCount(), 0);
    for (int c = 0; c + 1 < h->count(); ++c)
      QVERIFY2(
          h->sectionSize(c) >= h->sectionSizeHint(c),
          qPrintable(
              QStringLiteral("column %1: %2 < %3").arg(c).arg(h->sectionSize(c)).arg(h->sectionSizeHint(c))));
    shoot(w, QStringLiteral("snapshot-overlay-empty.png"));
  }

  // Two Kineto traces of one job (tests/data/kineto_ranks, cut from a real DDP trace): both timelines on one
  // axis, aligned at ProfilerStep#2; no site table, and the text says why.
  void overlaysTwoKinetoTraces() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("kineto_ranks/oom_job/node0_783658.pt.trace.json.gz"), none));
    OverlayPage* page = w.overlayPage();
    QVERIFY(w.tabs()->indexOf(page) >= 0);
    QAbstractItemModelTester tester(page->siteModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(page, &OverlayPage::overlaid);
    page->openSecondRun(data("kineto_ranks/oom_job/node1_783660.pt.trace.json.gz"));
    QVERIFY(done.wait(60000));
    const auto& r = page->result();
    QVERIFY(r && r->profile);
    QCOMPARE(r->overlay.axis, snapshot::OverlayAxis::Step);
    QCOMPARE(qint64(r->overlay.aligned_step), qint64(2));
    QCOMPARE(r->overlay.b.peak_bytes, qint64(7703249920));  // kineto_ranks/expected.json, rank 2
    QCOMPARE(page->siteModel()->rowCount(), 0);
    QVERIFY2(page->summary()->text().contains(QStringLiteral("no stack and no category")),
             qPrintable(page->summary()->text()));
    QVERIFY(page->summary()->text().contains(QStringLiteral("ProfilerStep#2")));
    w.resize(1280, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(page);
    shoot(w, QStringLiteral("snapshot-overlay-kineto-rank0-rank2.png"));
  }

  // Two JAX memory profiles: no time axis, said on the chart and in the text; the site table side by side.
  void comparesTwoJaxProfilesSideBySide() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("jax_device_memory_profile_cuda_microjax.prof"), none));
    OverlayPage* page = w.overlayPage();
    QVERIFY(w.tabs()->indexOf(page) >= 0);
    QSignalSpy done(page, &OverlayPage::overlaid);
    page->openSecondRun(data("jax_device_memory_profile_cuda_microjax.prof"));
    QVERIFY(done.wait(60000));
    QVERIFY(page->result()->noTimeAxis());
    QVERIFY2(page->summary()->text().contains(QStringLiteral("no time axis")),
             qPrintable(page->summary()->text()));
    QVERIFY(!page->shiftBox()->isEnabled());
    QCOMPARE(page->siteModel()->headerData(SiteDiffModel::A, Qt::Horizontal).toString(),
             QStringLiteral("A live"));
    w.resize(1280, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(page);
    shoot(w, QStringLiteral("snapshot-overlay-jax-profiles.png"));
  }

  void aFileThatIsNotASnapshotFailsWithItsName() {
    SnapshotWindow w;
    NullProgress none;
    w.setDocument(loadSnapshotDocument(data("torch_snapshot_cs336_fp32_ctx128.pickle"), none));
    QSignalSpy failed(w.overlayPage(), &OverlayPage::failed);
    const QString other = data("torch_memory_timeline_raw_hta.raw.gz");
    w.overlayPage()->openSecondRun(other);
    QVERIFY(failed.wait(60000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("torch_memory_timeline_raw_hta.raw.gz")),
             qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!w.overlayPage()->result());
  }
};

QTEST_MAIN(TstSnapshotOverlay)
#include "tst_snapshot_overlay.moc"
