// The snapshot window: pages for real snapshots and traces, the models under QAbstractItemModelTester,
// timeline zoom/hover/selection, allocator state following the selection, landing on the OOM entry, the
// Diff page between two open snapshots, loading on the worker (and its errors), the main window's
// dispatch by content, and screenshots of every page.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>
#include <algorithm>

#include "core/snapshot/snapshot_analysis.h"
#include "tests/ui/screenshots.h"
#include "ui/shell/main_window.h"
#include "ui/snapshot/allocator_state_widget.h"
#include "ui/snapshot/memory_timeline_widget.h"
#include "ui/snapshot/snapshot_models.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

QString data(const char* name) { return QStringLiteral(OOMSCOPE_TEST_DATA "/") + QString::fromUtf8(name); }

std::shared_ptr<const SnapshotDocument> load(const char* name) {
  NullProgress none;
  return loadSnapshotDocument(data(name), none);
}

void saveTabs(SnapshotWindow& w, const QString& prefix) {
  QDir().mkpath(screenshotDir());
  w.resize(1280, 820);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  for (int i = 0; i < w.tabs()->count(); ++i) {
    w.tabs()->setCurrentIndex(i);
    QCoreApplication::processEvents();
    const QString file = QDir(screenshotDir())
                             .filePath(QStringLiteral("snapshot-%1-%2.png")
                                           .arg(prefix, w.tabs()->tabText(i).toLower().replace(
                                                            QLatin1Char(' '), QLatin1Char('-'))));
    QVERIFY2(w.grab().save(file), qPrintable(file));
  }
}

// A small snapshot whose trace ends in an OOM entry: one 20 MiB segment split by two live blocks with a
// 6 MiB hole and a 4 MiB tail, then a 8 MiB request that fails with 2 MiB free on the device.
std::shared_ptr<const SnapshotDocument> oomDocument() {
  auto snap = std::make_shared<snapshot::Snapshot>();
  snap->path = "synthetic-oom.pickle";
  snap->frame_lists.emplace_back();
  snapshot::Segment seg;
  seg.address = 0x10000000;
  seg.total_size = 20 << 20;
  seg.block_count = 4;
  snap->segments.push_back(seg);
  auto block = [&](std::uint64_t off, std::int64_t size, snapshot::BlockState st) {
    snapshot::Block b;
    b.address = seg.address + off;
    b.size = size;
    b.requested_size = st == snapshot::BlockState::Inactive ? 0 : size;
    b.effective_requested = b.requested_size;
    b.state = st;
    snap->blocks.push_back(b);
  };
  block(0, 5 << 20, snapshot::BlockState::ActiveAllocated);
  block(5 << 20, 6 << 20, snapshot::BlockState::Inactive);
  block(11 << 20, 5 << 20, snapshot::BlockState::ActiveAllocated);
  block(16 << 20, 4 << 20, snapshot::BlockState::Inactive);
  auto& trace = snap->device_traces.emplace_back();
  trace.push_back({seg.address, 20 << 20, -1, 0, 0, snapshot::Action::SegmentAlloc});
  trace.push_back({seg.address, 5 << 20, -1, 0, 0, snapshot::Action::Alloc});
  trace.push_back({seg.address + (5 << 20), 6 << 20, -1, 0, 0, snapshot::Action::Alloc});
  trace.push_back({seg.address + (11 << 20), 5 << 20, -1, 0, 0, snapshot::Action::Alloc});
  trace.push_back({seg.address + (5 << 20), 6 << 20, -1, 0, 0, snapshot::Action::FreeRequested});
  trace.push_back({seg.address + (5 << 20), 6 << 20, -1, 0, 0, snapshot::Action::FreeCompleted});
  trace.push_back({2 << 20, 8 << 20, -1, 0, 0, snapshot::Action::Oom});
  auto doc = std::make_shared<SnapshotDocument>();
  doc->path = QStringLiteral("synthetic-oom.pickle");
  doc->kind = snapshot::FileKind::TorchSnapshot;
  doc->snap = snap;
  doc->report = std::make_shared<const snapshot::SnapshotReport>(snapshot::analyse_snapshot(*snap, 50));
  doc->device = 0;
  return doc;
}

}  // namespace

class TestSnapshotPages : public QObject {
  Q_OBJECT

 private slots:
  void decomflPagesAndModels() {
    SnapshotWindow w;
    w.setDocument(load("torch_snapshot_decomfl_windows_with_trace.pickle"));
    QCOMPARE(w.tabs()->count(), 6);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("Timeline"));
    QCOMPARE(w.tabs()->tabText(4), QStringLiteral("What if"));  // a trace to replay (tst_whatif_panel)
    QCOMPARE(w.tabs()->tabText(5), QStringLiteral("Overlay"));
    QAbstractItemModelTester top(w.topModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester segs(w.segmentModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Lands on the peak (no OOM entry): entry 11,205 (docs/snapshot-format.md, 5).
    QCOMPARE(w.selectedEvent(), std::int64_t{11205});
    QVERIFY(w.topModel()->rowCount() > 100);
    QCOMPARE(w.topModel()->data(w.topModel()->index(0, TopAllocationsModel::Size)).toString(),
             QStringLiteral("147 MiB"));
    QVERIFY(w.topModel()->framesText(0).contains(QStringLiteral("adam_forward.py")));
    // The allocator state follows the selection: the last event is the snapshot itself
    // (docs/snapshot-format.md, 3, "Allocator state at an event").
    w.selectEvent(23104);
    QCOMPARE(w.segmentModel()->rowCount(), 61);
    QVERIFY2(w.stateHeader()->text().contains(QStringLiteral("965 MiB allocated / 1.77 GiB reserved")),
             qPrintable(w.stateHeader()->text()));
    w.selectEvent(0);
    QCOMPARE(w.segmentModel()->rowCount(), 1);
    QVERIFY(w.stateHeader()->text().contains(QStringLiteral("0 B allocated / 148 MiB reserved")));
    QVERIFY(!w.stateWidget()->describeAt(QPoint(300, 10)).isEmpty());
    w.selectEvent(11205);
    saveTabs(w, QStringLiteral("decomfl"));
  }

  void timelineZoomHoverAndSelect() {
    SnapshotWindow w;
    w.setDocument(load("torch_snapshot_cs336_small_peak.pickle"));
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    MemoryTimelineWidget* t = w.timeline();
    QCOMPARE(t->rangeLo(), -1.0);
    QCOMPARE(t->rangeHi(), 96.0);
    // Zooming in stops at a few events per screen, so every event is reachable; Show all resets.
    for (int i = 0; i < 40; ++i) t->zoomAt(52, 0.5);
    QVERIFY(t->rangeHi() - t->rangeLo() <= 8.0 + 1e-9);
    QVERIFY(t->rangeLo() <= 52 && t->rangeHi() >= 52);
    const int x = t->width() / 2;
    const std::int64_t index = t->indexAtX(x);
    QVERIFY(index >= 48 && index <= 56);
    // Hovering shows the event and, over a band, its size and stack.
    const QString over = t->describeAt(QPoint(x, t->height() - 60));
    QVERIFY2(over.startsWith(QStringLiteral("Trace entry")), qPrintable(over));
    QSignalSpy selected(t, &MemoryTimelineWidget::eventSelected);
    QTest::mouseClick(t, Qt::LeftButton, {}, QPoint(x, t->height() / 2));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(w.selectedEvent(), index);
    t->resetZoom();
    QCOMPARE(t->rangeHi(), 96.0);
    saveTabs(w, QStringLiteral("small-peak"));
  }

  void landsOnTheOomEntry() {
    SnapshotWindow w;
    w.setDocument(oomDocument());
    QCOMPARE(w.selectedEvent(), std::int64_t{6});
    QVERIFY(w.stateHeader()->text().contains(QStringLiteral("(the OOM)")));
    QVERIFY(w.stateHeader()->text().contains(QStringLiteral("10.0 MiB free in the cache")));
    QVERIFY(w.document()->reportText.empty());  // built by hand: no CLI text; the diagnosis is in the report
    const auto& diag = w.document()->report->diagnosis;
    QVERIFY(!diag.empty());
    QCOMPARE(QString::fromStdString(diag.front().rule), QStringLiteral("oom-fragmentation"));
    QVERIFY(QString::fromStdString(diag.front().fixes.front().action)
                .contains(QStringLiteral("expandable_segments:True")));
    saveTabs(w, QStringLiteral("oom"));
  }

  void diffBetweenTwoOpenSnapshots() {
    auto* a = new SnapshotWindow;
    auto* b = new SnapshotWindow;
    a->setDocument(load("torch_snapshot_cs336_fp32_ctx128.pickle"));
    b->setDocument(load("torch_snapshot_cs336_bf16_ctx128.pickle"));
    QCOMPARE(a->tabs()->count(), 7);  // What if (a trace) and Overlay, then Diff
    QCOMPARE(a->tabs()->tabText(6), QStringLiteral("Diff"));
    QAbstractItemModelTester diff(a->diffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(a->diffModel()->rowCount() >= 10);
    QCOMPARE(a->diffModel()->data(a->diffModel()->index(0, DiffModel::Delta)).toString(),
             QStringLiteral("+213 MiB"));
    QVERIFY(a->diffText()->toPlainText().contains(QStringLiteral("swiglu.py")));
    saveTabs(*a, QStringLiteral("cs336-fp32"));
    delete b;
    QCOMPARE(a->tabs()->count(), 6);  // nothing left to compare with (Overlay stays: it opens files)
    delete a;
  }

  void otherFormats() {
    for (const char* name :
         {"kineto_h100_qwen1.5_0.5b_inference_profile_memory.json.gz", "torch_memory_timeline_raw_hta.raw.gz",
          "jax_device_memory_profile_cuda_microjax.prof", "torch2.0_snapshot_flexgen_oom.pickle"}) {
      SnapshotWindow w;
      w.setDocument(load(name));
      QVERIFY(w.tabs()->count() >= 1);
      saveTabs(w, QString::fromUtf8(name).section(QLatin1Char('.'), 0, 0));
    }
  }

  void loadsOnTheWorkerAndReportsErrors() {
    SnapshotWindow w;
    QSignalSpy ok(&w, &SnapshotWindow::loaded);
    w.load(data("torch2.0_snapshot_flexgen_opt1.3b.pickle"));
    QVERIFY(ok.wait(20000));
    QCOMPARE(w.document()->report->segments, std::size_t{257});
    SnapshotWindow bad;
    QSignalSpy failed(&bad, &SnapshotWindow::failed);
    bad.load(data("README.md"));
    QVERIFY(failed.wait(20000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("is text, not a snapshot")),
             qPrintable(failed.at(0).at(0).toString()));
  }

  // Frame time of the timeline while zooming and panning (printed, not asserted: speed is a benchmark).
  // Zooming in halves the shown range around its centre, panning moves it (clamped to the trace), and every
  // frame draws what the range shows: each one differs from the frame before. The time a frame takes is
  // measured by the benchmark tests/bench/gui_snapshot_timeline.cpp, not here.
  void timelineZoomAndPan() {
    const auto doc = load("torch_snapshot_decomfl_windows_with_trace.pickle");
    MemoryTimelineWidget t;
    t.resize(1280, 600);
    t.setDocument(doc);
    t.resetZoom();
    const double fullLo = t.rangeLo(), fullHi = t.rangeHi();
    QVERIFY(fullHi - fullLo > 1000);  // enough entries for six halvings above the 8-entry minimum
    QImage previous(t.size(), QImage::Format_ARGB32);
    t.render(&previous);
    for (int i = 0; i < 12; ++i) {
      const double lo = t.rangeLo(), hi = t.rangeHi(), span = hi - lo;
      if (i < 6) {
        t.zoomAt((lo + hi) / 2, 0.5);
        QCOMPARE(t.rangeHi() - t.rangeLo(), span / 2);
        QCOMPARE((t.rangeLo() + t.rangeHi()) / 2, (lo + hi) / 2);
      } else {
        t.setRange(lo + span * 0.3, hi + span * 0.3);
        QCOMPARE(t.rangeHi() - t.rangeLo(), span);
        QCOMPARE(t.rangeLo(), std::min(lo + span * 0.3, fullHi - span));
      }
      QImage frame(t.size(), QImage::Format_ARGB32);
      t.render(&frame);
      QVERIFY2(frame != previous,
               qPrintable(QStringLiteral("frame %1 drew the same as the one before").arg(i)));
      previous = frame;
    }
    t.resetZoom();
    QCOMPARE(t.rangeLo(), fullLo);
    QCOMPARE(t.rangeHi(), fullHi);
  }

  void mainWindowDispatchesByContent() {
    MainWindow main;
    const int before = SnapshotWindow::openWindows().size();
    main.openFile(data("torch_snapshot_cs336_small_peak.pickle"));
    QCOMPARE(SnapshotWindow::openWindows().size(), before + 1);
    SnapshotWindow* opened = SnapshotWindow::openWindows().last();
    QSignalSpy ok(opened, &SnapshotWindow::loaded);
    QVERIFY(ok.wait(20000));
    QCOMPARE(opened->selectedEvent(), std::int64_t{52});
    opened->close();
  }
};

QTEST_MAIN(TestSnapshotPages)
#include "tst_snapshot_pages.moc"
