// Settings that persist: the ordered writer (recent files: a clear right after a pending add), window state
// with a version number, the last folder and per-table column widths, each in a throw-away location.
#include <QDockWidget>
#include <QHeaderView>
#include <QMainWindow>
#include <QSettings>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/temp_config_home.h"
#include "ui/analysis/column_widths.h"
#include "ui/session/settings_store.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;

class TestSettings : public QObject {
  Q_OBJECT

 public:
  TestSettings() {
    QStandardPaths::setTestModeEnabled(true);  // the settings home itself is m_config (TempConfigHome)
  }

 private slots:
  void clearAfterAPendingAddStaysCleared() {
    // The race MainWindow had: the add of a just-loaded file was queued on a worker that read the list,
    // while Clear Recent Files wrote an empty list on the UI thread; the worker's write then brought the
    // old list back. Now every change is applied in call order and written whole, in that order.
    const QString ini = m_dir.filePath(QStringLiteral("race.ini"));
    {
      SettingsStore store(ini);
      for (int i = 0; i < 8; ++i) store.addRecent(QStringLiteral("/runs/old%1.xplane.pb").arg(i));
      store.flush();
      for (int round = 0; round < 200; ++round) {
        store.addRecent(QStringLiteral("/runs/new%1.xplane.pb").arg(round));  // pending on the writer
        store.clearRecent();                                                  // at once, on this thread
        QVERIFY(store.recentFiles().isEmpty());
      }
      store.flush();
      QVERIFY(
          QSettings(ini, QSettings::IniFormat).value(QStringLiteral("recentFiles")).toStringList().isEmpty());
      // The other order: a clear, then an add, leaves just that file.
      store.addRecent(QStringLiteral("/runs/a.xplane.pb"));
      store.clearRecent();
      store.addRecent(QStringLiteral("/runs/b.xplane.pb"));
      QCOMPARE(store.writesIssued(), quint64(8 + 400 + 3));
    }  // the destructor waits for the writer
    QCOMPARE(QSettings(ini, QSettings::IniFormat).value(QStringLiteral("recentFiles")).toStringList(),
             QStringList{QStringLiteral("/runs/b.xplane.pb")});
    QCOMPARE(SettingsStore(ini).recentFiles(), QStringList{QStringLiteral("/runs/b.xplane.pb")});
  }

  void recentListIsTrimmedAndMostRecentFirst() {
    SettingsStore store(m_dir.filePath(QStringLiteral("recent.ini")));
    QSignalSpy changed(&store, &SettingsStore::recentFilesChanged);
    for (int i = 0; i < 12; ++i) store.addRecent(QStringLiteral("/r/f%1.xplane.pb").arg(i));
    store.addRecent(QStringLiteral("/r/f5.xplane.pb"));
    QCOMPARE(changed.count(), 13);
    const QStringList list = store.recentFiles();
    QCOMPARE(list.size(), SettingsStore::kMaxRecent);
    QCOMPARE(list.first(), QStringLiteral("/r/f5.xplane.pb"));
    QCOMPARE(list.count(QStringLiteral("/r/f5.xplane.pb")), 1);
    QVERIFY(!list.contains(QStringLiteral("/r/f0.xplane.pb")));
    store.removeRecent(QStringLiteral("/r/f5.xplane.pb"));
    QVERIFY(!store.recentFiles().contains(QStringLiteral("/r/f5.xplane.pb")));
  }

  void valuesPersistAcrossStores() {
    const QString ini = m_dir.filePath(QStringLiteral("values.ini"));
    {
      SettingsStore store(ini);
      store.setValue(QStringLiteral("lastOpenDirectory"), QStringLiteral("/data/runs"));
      store.setValue(QStringLiteral("gone"), 1);
      store.remove(QStringLiteral("gone"));
      QCOMPARE(store.value(QStringLiteral("lastOpenDirectory")).toString(), QStringLiteral("/data/runs"));
      QVERIFY(!store.value(QStringLiteral("gone")).isValid());
    }
    SettingsStore again(ini);
    QCOMPARE(again.value(QStringLiteral("lastOpenDirectory")).toString(), QStringLiteral("/data/runs"));
    QVERIFY(!again.value(QStringLiteral("gone")).isValid());
  }

  void columnWidthsAreKeptPerTable() {
    const QString ini = m_dir.filePath(QStringLiteral("columns.ini"));
    QStandardItemModel model(3, 4);
    {
      SettingsStore store(ini);
      QTableView view;
      view.setModel(&model);
      view.resize(600, 300);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      auto* keeper = ColumnWidthKeeper::attach(&view, QStringLiteral("modules"), &store);
      QCOMPARE(keeper->key(), QStringLiteral("tables/modules/columnWidths"));
      // A resize the window makes itself (an automatic fit) is not the user's: nothing stored.
      view.horizontalHeader()->resizeSection(1, 77);
      QVERIFY(!store.value(keeper->key()).isValid());
      // The user drags a column edge: the mouse is down on the header while the section resizes.
      QWidget* header = view.horizontalHeader()->viewport();
      QTest::mousePress(header, Qt::LeftButton, {}, QPoint(5, 5));
      view.horizontalHeader()->resizeSection(2, 213);
      QTest::mouseRelease(header, Qt::LeftButton, {}, QPoint(5, 5));
      QCOMPARE(store.value(keeper->key()).toList().value(2).toInt(), 213);
    }
    SettingsStore store(ini);
    QTableView view;
    view.setModel(&model);
    ColumnWidthKeeper::attach(&view, QStringLiteral("modules"), &store);
    QCOMPARE(view.horizontalHeader()->sectionSize(2), 213);
    QCOMPARE(view.horizontalHeader()->sectionSize(1), 77);
    // Another table's name does not pick them up; a table whose columns changed keeps its own fit.
    QTableView other;
    other.setModel(&model);
    const int before = other.horizontalHeader()->sectionSize(2);
    QVERIFY(!ColumnWidthKeeper::attach(&other, QStringLiteral("allocators"), &store)->restore());
    QCOMPARE(other.horizontalHeader()->sectionSize(2), before);
    QStandardItemModel wider(3, 5);
    QTableView changed;
    changed.setModel(&wider);
    QVERIFY(!ColumnWidthKeeper::attach(&changed, QStringLiteral("modules"), &store)->restore());
  }

  void windowStateOfAnotherVersionIsIgnored() {
    SettingsStore& store = SettingsStore::instance();
    {
      // The user hid the navigator: saved with the current version, it stays hidden next time.
      MainWindow window;
      window.navigatorDock()->hide();
      window.close();
    }
    store.flush();
    {
      MainWindow window;
      QVERIFY(window.navigatorDock()->isHidden());
    }
    // A state saved by another version of the window (docks and toolbars laid out differently) is not
    // restored: the navigator is where the defaults put it.
    {
      QMainWindow older;
      auto* dock = new QDockWidget(&older);
      dock->setObjectName(QStringLiteral("navigatorDock"));
      older.addDockWidget(Qt::RightDockWidgetArea, dock);
      dock->hide();
      store.setValue(QStringLiteral("mainWindow/state"),
                     older.saveState(MainWindow::kWindowStateVersion - 1));
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.navigatorDock()->isVisible());
    QCOMPARE(window.dockWidgetArea(window.navigatorDock()), Qt::LeftDockWidgetArea);
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_settings")};
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestSettings)
#include "tst_settings.moc"
