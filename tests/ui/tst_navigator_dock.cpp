// The navigator dock at the window's default width: long module names (jit_train_step(123),
// pjit__wrapped_fun...) are cut at their end and keep their program id, so two modules of one name stay
// apart; every row's tooltip has the whole name; the dock widens to its rows within 40 % of the window and
// never narrows a width the user chose. Real captures fit whole. Screenshots of each, and of the window with
// a PyTorch snapshot open (it opens in a window of its own; the navigator keeps the capture).
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDockWidget>
#include <QFontMetrics>
#include <QHeaderView>
#include <QMainWindow>
#include <QSignalSpy>
#include <QtTest>
#include <memory>

#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/models/navigator_model.h"
#include "ui/shell/main_window.h"
#include "ui/shell/navigator_view.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope::ui;

namespace {

const QString kGood = QStringLiteral(OOMSCOPE_TEST_DATA "/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kSnapshot = QStringLiteral(OOMSCOPE_TEST_DATA "/torch2.0_snapshot_flexgen_oom.pickle");
const QString kLong = QStringLiteral("pjit__wrapped_fun_of_transformer_block_with_rotary_attention_and_mlp");

ModuleRow module(const QString& name, quint64 id, qint64 bytes) {
  ModuleRow m;
  m.name = name;
  m.programId = id;
  m.hasPlan = true;
  m.totalAllocation = bytes;
  return m;
}

// Every module row under the navigator's first host.
QModelIndexList moduleRows(const NavigatorModel& nav) {
  QModelIndexList rows;
  const QModelIndex host = nav.hostIndex(0);
  for (int g = 0; g < nav.rowCount(host); ++g) {
    const QModelIndex group = nav.index(g, 0, host);
    if (NavigatorModel::kindOf(group) != NavigatorModel::Kind::ModuleGroup) continue;
    for (int r = 0; r < nav.rowCount(group); ++r) rows << nav.index(r, 0, group);
  }
  return rows;
}

}  // namespace

class TestNavigatorDock : public QObject {
  Q_OBJECT

 private slots:
  void elideKeepingCutsTheNameNotTheSuffix() {
    const QFontMetrics fm(QApplication::font());
    const QString text = kLong + QStringLiteral("(123)");
    const int width = fm.horizontalAdvance(QStringLiteral("pjit__wrapped(123)"));
    const QString cut = NavigatorView::elideKeeping(text, QStringLiteral("(123)"), fm, width);
    QVERIFY2(cut.endsWith(QStringLiteral("\u2026(123)")), qPrintable(cut));
    QVERIFY(cut.startsWith(QStringLiteral("pjit_")));
    QVERIFY(fm.horizontalAdvance(cut) <= width);
    // Text that fits is left alone; without the suffix it is cut at its end like any name.
    QCOMPARE(NavigatorView::elideKeeping(QStringLiteral("jit_f(1)"), QStringLiteral("(1)"), fm, 1000),
             QStringLiteral("jit_f(1)"));
    QVERIFY(NavigatorView::elideKeeping(text, QString(), fm, width).endsWith(QChar(0x2026)));
    // Narrower than any of the name: the ellipsis and the id.
    QCOMPARE(NavigatorView::elideKeeping(text, QStringLiteral("(123)"), fm,
                                         fm.horizontalAdvance(QStringLiteral("(123)"))),
             QStringLiteral("\u2026(123)"));
  }

  void longModuleNamesKeepTheirProgramId() {
    QMainWindow window;
    window.resize(900, 600);
    auto* nav = new NavigatorModel(&window);
    new QAbstractItemModelTester(nav, QAbstractItemModelTester::FailureReportingMode::QtTest, &window);
    auto* view = new NavigatorView;
    view->setModel(nav);
    view->header()->setStretchLastSection(false);
    view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    view->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto* dock = new QDockWidget(QStringLiteral("Navigator"), &window);
    dock->setWidget(view);
    window.addDockWidget(Qt::LeftDockWidgetArea, dock);
    window.setCentralWidget(new QWidget);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const int before = dock->width();

    NavigatorModel::HostEntry host;
    host.path = QStringLiteral("/tmp/plugins/profile/2026_12_01/worker-0.xplane.pb");
    host.hostnames << QStringLiteral("worker-0");
    host.modules = {module(QStringLiteral("jit_train_step"), 123, qint64(3) << 30),
                    module(kLong, 7, qint64(2) << 30), module(QStringLiteral("jit_matmul"), 1, 1 << 20),
                    module(QStringLiteral("jit_matmul"), 2, 1 << 19)};
    nav->setHosts({host});
    view->expandAll();
    // The dock widens to its rows, up to 40 % of the window (the long name needs more than that).
    QTRY_VERIFY(dock->width() > before);
    QVERIFY(dock->width() <= window.width() * 2 / 5 + 20);
    shoot(window, QStringLiteral("navigator_long_names.png"));

    QStringList shown;
    for (const QModelIndex& row : moduleRows(*nav)) {
      const QString full = row.data(Qt::DisplayRole).toString();
      const QString id = QStringLiteral("(%1)").arg(row.data(NavigatorModel::ProgramIdRole).toULongLong());
      const QString visible = view->visibleText(row);
      QVERIFY2(visible.endsWith(id), qPrintable(visible));
      QVERIFY2(row.data(Qt::ToolTipRole).toString().contains(full), qPrintable(full));
      shown << visible;
    }
    QCOMPARE(shown.size(), 4);
    // The long one is cut, at its end, within its column; the two jit_matmul rows stay apart.
    const QString longShown = shown.filter(QStringLiteral("(7)")).value(0);
    QVERIFY2(longShown.endsWith(QStringLiteral("\u2026(7)")), qPrintable(longShown));
    QVERIFY(longShown.startsWith(QStringLiteral("pjit__")));
    QVERIFY(shown.contains(QStringLiteral("jit_matmul(1)")));
    QVERIFY(shown.contains(QStringLiteral("jit_matmul(2)")));
    QVERIFY(shown.contains(QStringLiteral("jit_train_step(123)")));
    // Every row, groups too, has its whole name in its tooltip.
    for (const QModelIndex& group :
         {nav->index(0, 0), nav->hostIndex(0), nav->index(0, 0, nav->hostIndex(0))})
      QVERIFY(group.data(Qt::ToolTipRole).toString().contains(group.data(Qt::DisplayRole).toString()));

    // A width the user chose is kept: a dock made wider than its rows stays that wide when they change.
    window.resizeDocks({dock}, {600}, Qt::Horizontal);
    QTRY_VERIFY(dock->width() > 500);
    const int wide = dock->width();
    nav->setHosts({host});
    QTest::qWait(50);
    QCOMPARE(dock->width(), wide);
  }

  void realCaptureShowsWholeNamesAndSnapshotsOpenBeside() {
    MainWindow window;
    window.resize(1400, 820);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFiles({kGood});
    QVERIFY(finished.wait(30000));
    QVERIFY(finished.first().at(0).toBool());
    auto* view = qobject_cast<NavigatorView*>(window.navigatorView());
    QVERIFY(view);
    const QModelIndexList rows = moduleRows(*window.navigator());
    QVERIFY(rows.size() >= 9);
    // The longest name here, jit_convert_element_type(15), and every other fits whole at the default width
    // once the dock has widened to its rows.
    auto whole = [&] {
      for (const QModelIndex& row : rows)
        if (view->visibleText(row) != row.data(Qt::DisplayRole).toString()) return false;
      return true;
    };
    QTRY_VERIFY(whole());
    for (const QModelIndex& row : rows)
      QVERIFY(row.data(Qt::ToolTipRole).toString().contains(row.data(Qt::DisplayRole).toString()));
    shoot(window, QStringLiteral("navigator_real_capture.png"));

    // A PyTorch snapshot opens in a window of its own (no navigator there); the window's navigator keeps
    // listing the capture, its rows as they were.
    const int before = int(SnapshotWindow::openWindows().size());
    window.openFiles({kSnapshot});
    QCOMPARE(int(SnapshotWindow::openWindows().size()), before + 1);  // opened at once, loading on a worker
    SnapshotWindow* snapshot = SnapshotWindow::openWindows().last();
    QTRY_VERIFY_WITH_TIMEOUT(snapshot->document() != nullptr, 30000);
    snapshot->resize(1280, 800);
    shoot(*snapshot, QStringLiteral("navigator_snapshot_window.png"));
    QCOMPARE(window.navigator()->hostCount(), 1);
    QVERIFY(whole());
    shoot(window, QStringLiteral("navigator_with_snapshot_open.png"));
    snapshot->close();
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_navigator_dock")};
};

QTEST_MAIN(TestNavigatorDock)
#include "tst_navigator_dock.moc"
