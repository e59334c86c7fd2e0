// A capture file that shrinks, offscreen: while it is being read (the load fails with "the file shrank
// while it was being read", the previous capture stays, the window stays usable) and after it was loaded
// (a warning, the capture stays open and usable). Screenshots of both error states, and of a capture whose
// names hold terminal escapes (shown as visible escapes in the title, the cells and tooltips).
#include <QMessageBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "core/capture/reader.h"
#include "tests/ui/temp_config_home.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kGood = kData + QStringLiteral("/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kGemm = kData + QStringLiteral("/jax0.8_rocm_mi300x_gemm.xplane.pb");

// Reads like the real loader, but cuts the file to one page as soon as the reader reports progress.
class CutOnProgress final : public oomscope::ProgressSink {
 public:
  CutOnProgress(oomscope::ProgressSink& inner, std::string path) : inner_(inner), path_(std::move(path)) {}
  void report(double fraction, std::string_view stage) override {
    if (!cut_) {
      cut_ = true;
      std::filesystem::resize_file(path_, 4096);
    }
    inner_.report(fraction, stage);
  }

 private:
  oomscope::ProgressSink& inner_;
  std::string path_;
  bool cut_ = false;
};

}  // namespace

class TestShrinkingFile : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QDir().mkpath(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR)); }

  void shrinksWhileBeingRead() {
    auto* session = new CaptureSession(
        [](const std::string& path, oomscope::ProgressSink& progress, std::stop_token stop) {
          if (path.find("shrinking") == std::string::npos)
            return oomscope::capture::read_capture(path, progress, stop);
          CutOnProgress cut(progress, path);
          return oomscope::capture::read_capture(path, cut, stop);
        });
    MainWindow window(session);
    window.resize(1100, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(kGood);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), true);

    const QString shrinking = m_dir.filePath(QStringLiteral("shrinking.xplane.pb"));
    QFile::remove(shrinking);
    QVERIFY(QFile::copy(kData + QStringLiteral("/tf2_gpu_v100x8_bert_multiworker.xplane.pb"), shrinking));
    QFile(shrinking).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    window.openFile(shrinking);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox*>(QStringLiteral("messageBox"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    QVERIFY2(box->informativeText().contains(QLatin1String("shrank while it was being read")),
             qPrintable(box->informativeText()));
    QVERIFY(box->informativeText().contains(QLatin1String("still open")));
    QVERIFY(box->grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/shrank-while-read-dialog.png")));
    QVERIFY(window.grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/shrank-while-read-window.png")));
    box->accept();
    // The previous capture is still open and the window still works.
    QCOMPARE(window.currentCapture().path, kGood);
    window.tabs()->setCurrentIndex(1);
    QCOMPARE(window.tabs()->currentIndex(), 1);
    window.openFile(kGood);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), true);
  }

  void shrinksAfterLoading() {
    MainWindow window;
    window.resize(1100, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString path = m_dir.filePath(QStringLiteral("open.xplane.pb"));
    QFile::remove(path);
    QVERIFY(QFile::copy(kGood, path));
    QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QSignalSpy shrank(&window.session(), &CaptureSession::fileShrank);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.last().at(0).toBool());

    std::filesystem::resize_file(path.toStdString(), 1000);
    QTRY_VERIFY_WITH_TIMEOUT(!shrank.isEmpty(), 5000);  // the file watcher noticed
    window.session().checkCurrentFile();                // once only
    QCOMPARE(shrank.count(), 1);
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox*>(QStringLiteral("messageBox"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    QVERIFY2(box->informativeText().contains(QLatin1String("shrank after it was loaded")),
             qPrintable(box->informativeText()));
    QVERIFY(window.statusText().contains(QLatin1String("shrank")));
    QVERIFY(box->grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/shrank-after-load-dialog.png")));
    QVERIFY(window.grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/shrank-after-load-window.png")));
    box->accept();
    // Still open and usable: every page can be shown.
    QCOMPARE(window.currentCapture().path, path);
    for (int i = 0; i < window.tabs()->count(); ++i) {
      window.tabs()->setCurrentIndex(i);
      QTRY_VERIFY(window.tabs()->currentWidget()->isVisible());
    }
    window.reload();  // the reload reads the short file: a clear error, the old capture stays
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), false);
  }

  void escapeNamesAreShownAsEscapes() {
    QFile in(kGemm);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QByteArray bytes = in.readAll();
    bytes.replace("jit_", "\x1b[2J");  // same length: the protobuf stays valid
    const QString path = m_dir.filePath(QStringLiteral("escape\x07name.xplane.pb"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    MainWindow window;
    window.resize(1100, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.last().at(0).toBool());
    QVERIFY2(!window.windowTitle().contains(QChar(7)), qPrintable(window.windowTitle()));
    QVERIFY(window.windowTitle().contains(QLatin1String("escape\\x07name")));
    const auto* modules = window.findChild<QTableView*>(QStringLiteral("modulesView"));
    QVERIFY(modules);
    const QString name = modules->model()->index(0, 0).data().toString();
    QVERIFY2(!name.contains(QChar(0x1b)) && name.contains(QLatin1String("\\x1b[2J")), qPrintable(name));
    window.tabs()->setCurrentWidget(modules->parentWidget());
    QVERIFY(window.grab().save(QStringLiteral(OOMSCOPE_SCREENSHOT_DIR "/escape-names.png")));
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_shrinking_file")};
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestShrinkingFile)
#include "tst_shrinking_file.moc"
