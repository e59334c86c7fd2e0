// The main window, offscreen, over the real reader: open, pages and their row counts, screenshots of every
// page, a damaged file next to an open capture, cancel, reload, close, recent files, drag and drop, Ctrl+F,
// and how long the UI thread is ever blocked while loading.
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <ctime>
#include <thread>

#include "tests/ui/temp_config_home.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/session/settings_store.h"
#include "ui/shell/app_icon.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kGood = kData + QStringLiteral("/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kBig = kData + QStringLiteral("/tf2_gpu_v100x8_bert_multiworker.xplane.pb");
const QString kCorrupt = kData + QStringLiteral("/CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb");

struct Message {
  QMessageBox::Icon icon;
  QString title;
  QString text;
};

QStringList tabTitles(const QTabWidget* tabs) {
  QStringList titles;
  for (int i = 0; i < tabs->count(); ++i) titles << tabs->tabText(i);
  return titles;
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    SettingsStore::instance().clearRecent();
    m_messages.clear();
    m_window = std::make_unique<MainWindow>();
    m_window->setMessagePresenter([this](QMessageBox::Icon icon, const QString& title, const QString& text) {
      m_messages.push_back({icon, title, text});
    });
    m_window->setExamplePath(kGood);
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  }

  void cleanup() { m_window.reset(); }

  void emptyStateFirst() {
    QCOMPARE(tabTitles(m_window->tabs()), QStringList{QStringLiteral("Start")});
    QCOMPARE(m_window->windowTitle(), QStringLiteral("oomscope"));
    auto* example = m_window->findChild<QPushButton*>(QStringLiteral("openExampleButton"));
    QVERIFY(example && example->isEnabled());
    save(QStringLiteral("empty-state.png"));
    // The example button opens the bundled capture.
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    example->click();
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(m_window->currentCapture().path, kGood);
  }

  void opensACaptureAndFillsThePages() {
    QVERIFY(load(kGood));
    // The analysis tabs follow the Overview; they all have content for this capture once its report is built.
    const QStringList expected{QStringLiteral("Overview"),  QStringLiteral("Diagnosis"),
                               QStringLiteral("Buffers"),   QStringLiteral("Plan"),
                               QStringLiteral("Timeline"),  QStringLiteral("Modules"),
                               QStringLiteral("Allocators")};
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
    QCOMPARE(tabTitles(m_window->tabs()), expected);
    QVERIFY(
        m_window->windowTitle().startsWith(QStringLiteral("jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb")));
    QVERIFY2(m_window->statusText().contains(QLatin1String("200 KiB")) &&
                 m_window->statusText().contains(QLatin1String("loaded in")),
             qPrintable(m_window->statusText()));

    auto* modules = m_window->findChild<QTableView*>(QStringLiteral("modulesView"));
    auto* allocators = m_window->findChild<QTableView*>(QStringLiteral("allocatorsView"));
    QVERIFY(modules && allocators);
    QCOMPARE(modules->model()->rowCount(), 9);
    QCOMPARE(allocators->model()->rowCount(), 1);
    QCOMPARE(allocators->model()->index(0, 0).data().toString(), QStringLiteral("GPU_0_bfc"));
    // Sorted by total allocation, largest first.
    QCOMPARE(modules->model()->index(0, 0).data().toString(), QStringLiteral("jit_loss_fn"));
    QVERIFY(m_window->overviewPage()->headline().contains(QLatin1String("jit_loss_fn")));
    QCOMPARE(SettingsStore::instance().recentFiles().value(0), QFileInfo(kGood).absoluteFilePath());

    for (int i = 0; i < m_window->tabs()->count(); ++i) {
      m_window->tabs()->setCurrentIndex(i);
      save(m_window->tabs()->tabText(i).toLower() + QStringLiteral(".png"));
    }
  }

  void doubleClickingAModuleAnalysesIt() {
    QVERIFY(load(kGood));
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
    QSignalSpy changed(m_window->analysis(), &AnalysisPages::moduleChanged);
    QTableView* view = m_window->modulesPage()->view();
    int row = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r) {
      if (view->model()
              ->index(r, ModuleTableModel::ProgramId)
              .data(RecordTableModel::SortRole)
              .toULongLong() == 5)
        row = r;
    }
    QVERIFY(row >= 0);
    emit view->doubleClicked(view->model()->index(row, ModuleTableModel::Name));
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty() && changed.last().at(1).toString() == QStringLiteral("5"),
                             20000);
    QCOMPARE(m_window->tabs()->tabText(m_window->tabs()->currentIndex()), QStringLiteral("Diagnosis"));
    save(QStringLiteral("diagnosis-after-double-click.png"));
  }

  void damagedFileKeepsThePreviousCapture() {
    QVERIFY(load(kGood));
    QVERIFY(!load(kCorrupt));
    QCOMPARE(m_messages.size(), std::size_t(1));
    qInfo("error shown: %s | %s", qPrintable(m_messages[0].title), qPrintable(m_messages[0].text));
    QCOMPARE(m_messages[0].icon, QMessageBox::Warning);
    QVERIFY(
        m_messages[0].title.contains(QLatin1String("CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb")));
    QVERIFY2(m_messages[0].text.contains(kCorrupt), qPrintable(m_messages[0].text));
    QVERIFY(m_messages[0].text.contains(QLatin1String("still open")));
    QCOMPARE(m_window->currentCapture().path, kGood);
    QVERIFY(m_window->windowTitle().startsWith(QStringLiteral("jax0.8_te2.8")));
    QCOMPARE(m_window->findChild<QTableView*>(QStringLiteral("modulesView"))->model()->rowCount(), 9);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->tabs()->count(), 7, 20000);
    QVERIFY(m_window->statusText().contains(QLatin1String("jax0.8_te2.8")));
    save(QStringLiteral("after-damaged-file.png"));

    // A missing file is an error too, never a crash.
    QVERIFY(!load(kData + QStringLiteral("/no_such_file.xplane.pb")));
    QCOMPARE(m_messages.size(), std::size_t(2));
    QVERIFY(m_messages[1].text.contains(QLatin1String("no_such_file.xplane.pb")));
  }

  void defaultErrorDialogDoesNotBlock() {
    MainWindow window;  // with its own QMessageBox presenter
    window.resize(1000, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(kCorrupt);
    QVERIFY(finished.wait(10000));  // the event loop runs on while the box is up
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox*>(QStringLiteral("messageBox"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    QVERIFY(box->text().contains(QLatin1String("CORRUPT_utf8_mangled")));
    QVERIFY(box->informativeText().contains(kCorrupt));
    QDir().mkpath(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR));
    QVERIFY(box->grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/error-dialog.png")));
    box->accept();
  }

  void cancelKeepsThePreviousCaptureAndSaysNothing() {
    QVERIFY(load(kGood));
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->openFile(kBig);
    auto* cancel = m_window->findChild<QPushButton*>(QStringLiteral("cancelButton"));
    auto* progress = m_window->findChild<QProgressBar*>(QStringLiteral("loadProgress"));
    QVERIFY(cancel->isVisible() && progress->isVisible());
    cancel->click();
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(!cancel->isVisible() && !progress->isVisible());
    QVERIFY(m_window->session().jobs().settle(20000));  // the cancelled load has ended
    QCOMPARE(finished.count(), 1);
    QVERIFY(m_messages.empty());
    QCOMPARE(m_window->currentCapture().path, kGood);
    QVERIFY(m_window->statusText().contains(QLatin1String("cancelled")));
  }

  void progressAndCancelDuringALoad() {
    // A scripted loader that reports half way and then waits to be stopped, like a slow read of a big file.
    auto* session = new CaptureSession(
        [](const std::string& path, oomscope::ProgressSink& progress,
           const std::stop_token& stop) -> std::shared_ptr<const oomscope::capture::Capture> {
          progress.report(0.5, "reading planes");
          while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          throw oomscope::Cancelled(path);
        });
    MainWindow window(session);
    std::vector<Message> messages;
    window.setMessagePresenter([&](QMessageBox::Icon icon, const QString& title, const QString& text) {
      messages.push_back({icon, title, text});
    });
    window.resize(1000, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(QStringLiteral("/data/huge.xplane.pb"));
    auto* progress = window.findChild<QProgressBar*>(QStringLiteral("loadProgress"));
    auto* cancel = window.findChild<QPushButton*>(QStringLiteral("cancelButton"));
    QTRY_COMPARE(progress->value(), 500);
    QVERIFY(progress->isVisible() && cancel->isVisible());
    QCOMPARE(window.statusText(), QStringLiteral("Loading huge.xplane.pb: reading planes\u2026"));
    QDir().mkpath(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR));
    QVERIFY(window.grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/loading.png")));
    window.activateWindow();  // shortcuts work in the active window
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_Escape);  // the Cancel button's shortcut (an animated click)
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(!progress->isVisible());
    QVERIFY(session->jobs().settle(10000));
    QVERIFY(messages.empty());
    QVERIFY(!window.currentCapture());
  }

  void menuShortcuts() {
    QMap<QString, QString> shortcuts;
    for (QAction* menu : m_window->menuBar()->actions()) {
      for (QAction* action : menu->menu()->actions()) {
        if (!action->shortcut().isEmpty()) shortcuts[action->text()] = action->shortcut().toString();
      }
    }
    QCOMPARE(shortcuts.value(QStringLiteral("&Open\u2026")), QStringLiteral("Ctrl+O"));
    QCOMPARE(shortcuts.value(QStringLiteral("&Close")), QStringLiteral("Ctrl+W"));
    QCOMPARE(shortcuts.value(QStringLiteral("Re&load")), QStringLiteral("F5"));
    QCOMPARE(shortcuts.value(QStringLiteral("&Filter Modules")), QStringLiteral("Ctrl+F"));
    QCOMPARE(shortcuts.value(QStringLiteral("&Quit")), QStringLiteral("Ctrl+Q"));
  }

  void reloadCloseAndKeyboard() {
    QVERIFY(load(kGood));
    m_window->tabs()->setCurrentIndex(2);
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    QTest::keyClick(m_window.get(), Qt::Key_F5);
    QVERIFY(finished.wait(10000));
    QCOMPARE(m_window->tabs()->currentIndex(), 2);  // reload keeps the page

    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
    QCOMPARE(m_window->tabs()->currentWidget(), m_window->modulesPage());
    QLineEdit* filter = m_window->modulesPage()->filterEdit();
    QVERIFY(filter->hasFocus());
    QTest::keyClicks(filter, QStringLiteral("normal"));
    QCOMPARE(m_window->modulesPage()->proxy()->rowCount(), 2);
    save(QStringLiteral("modules-filtered.png"));
    filter->clear();

    QSignalSpy changed(m_window.get(), &MainWindow::captureChanged);
    QTest::keyClick(m_window.get(), Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(changed.count(), 1);
    QVERIFY(!m_window->currentCapture());
    QCOMPARE(tabTitles(m_window->tabs()), QStringList{QStringLiteral("Start")});
    QCOMPARE(m_window->windowTitle(), QStringLiteral("oomscope"));
  }

  void recentFiles() {
    QTemporaryDir dir;
    const QString gone = dir.filePath(QStringLiteral("gone.xplane.pb"));
    SettingsStore& store = SettingsStore::instance();
    store.addRecent(gone);
    for (int i = 0; i < 12; ++i) store.addRecent(dir.filePath(QStringLiteral("f%1.xplane.pb").arg(i)));
    QCOMPARE(store.recentFiles().size(), SettingsStore::kMaxRecent);
    QCOMPARE(store.recentFiles().first(), dir.filePath(QStringLiteral("f11.xplane.pb")));

    store.addRecent(gone);
    m_window->openRecent(gone);
    QVERIFY(!store.recentFiles().contains(gone));
    QCOMPARE(m_messages.size(), std::size_t(1));
    QVERIFY(m_messages[0].text.contains(gone));
    QVERIFY(!m_window->session().isLoading());
  }

  void dropOpensTheFile() {
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(kGood)});
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &drop);
    QVERIFY(finished.wait(10000));
    QCOMPARE(m_window->currentCapture().path, kGood);
    delete mime;
  }

  void extraPagesStayWhateverIsOpen() {
    m_window.reset();
    MainWindow::registerPage(QStringLiteral("Registered"),
                             [](MainWindow&) { return new QLabel(QStringLiteral("r")); });
    m_window = std::make_unique<MainWindow>();
    MainWindow::clearRegisteredPages();
    m_window->addPage(new QLabel(QStringLiteral("x")), QStringLiteral("Extra"));
    QCOMPARE(tabTitles(m_window->tabs()),
             QStringList({QStringLiteral("Start"), QStringLiteral("Registered"), QStringLiteral("Extra")}));
    QVERIFY(load(kGood));
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
    QCOMPARE(
        tabTitles(m_window->tabs()),
        QStringList({QStringLiteral("Overview"), QStringLiteral("Diagnosis"), QStringLiteral("Buffers"),
                     QStringLiteral("Plan"), QStringLiteral("Timeline"), QStringLiteral("Modules"),
                     QStringLiteral("Allocators"), QStringLiteral("Registered"), QStringLiteral("Extra")}));
    m_window->closeCapture();
    QCOMPARE(tabTitles(m_window->tabs()),
             QStringList({QStringLiteral("Start"), QStringLiteral("Registered"), QStringLiteral("Extra")}));
    QCOMPARE(m_window->tabs()->currentIndex(), 0);
  }

  void appIconIsDrawn() {
    // Without an SVG plugin the icon is painted; either way it shows the green bar and the red overflow.
    const QImage image = appIcon().pixmap(64, 64).toImage();
    QVERIFY(!image.isNull());
    const QColor bar = image.pixelColor(32, 50);
    const QColor spill = image.pixelColor(48, 28);
    QVERIFY2(bar.green() > 120 && bar.red() < 120, qPrintable(bar.name()));
    QVERIFY2(spill.red() > 180 && spill.green() < 100, qPrintable(spill.name()));
    QDir().mkpath(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR));
    QVERIFY(appIcon().pixmap(256, 256).save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/icon.png")));
  }

  void uiThreadNeverBlocksLong() {
    // A 1 ms timer watches the event loop while every test capture loads in turn. The assertion uses the CPU
    // time the UI thread spent between two ticks, which is what a handler blocking the loop costs; the wall
    // gap also counts time the scheduler gave to other processes (ctest -j), so it is only reported.
    const auto threadCpuMs = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    };
    QElapsedTimer clock;
    clock.start();
    qint64 lastWall = clock.elapsed();
    double lastCpu = threadCpuMs();
    qint64 worstWall = 0;
    double worstCpu = 0;
    QTimer ticker;
    ticker.setInterval(1);
    connect(&ticker, &QTimer::timeout, this, [&] {
      const double cpu = threadCpuMs();
      worstWall = std::max(worstWall, clock.elapsed() - lastWall);
      worstCpu = std::max(worstCpu, cpu - lastCpu);
      lastWall = clock.elapsed();
      lastCpu = cpu;
    });
    ticker.start();
    const QDir dir(kData);
    int loads = 0;
    for (const QString& name : dir.entryList({QStringLiteral("*.xplane.pb")}, QDir::Files, QDir::Name)) {
      load(dir.filePath(name));
      ++loads;
    }
    ticker.stop();
    qInfo("longest UI-thread stall over %d loads: %.1f ms CPU, %lld ms wall", loads, worstCpu, worstWall);
    QVERIFY2(worstCpu < 100, qPrintable(QString::number(worstCpu)));
  }

 private:
  // Opens path and waits for the outcome; true when it loaded.
  bool load(const QString& path) {
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->openFile(path);
    if (!finished.wait(20000)) return false;
    return finished.first().at(0).toBool();
  }

  void save(const QString& name) {
    QCoreApplication::processEvents();
    const QString dir = QStringLiteral(OOMSCOPE_SCREENSHOT_DIR);
    QDir().mkpath(dir);
    QVERIFY(m_window->grab().save(dir + QLatin1Char('/') + name));
  }

  TempConfigHome m_config{QStringLiteral("tst_main_window")};
  std::unique_ptr<MainWindow> m_window;
  std::vector<Message> m_messages;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
