// A load error reaches the main window with its kind, file and problem (JobError), and the box offers the
// action that fits the kind; each test presses that action and checks that it does what it says:
// "Open host.xplane.pb" for a .trace.json.gz beside its capture, "Retry" for a file that shrank while it
// was read, "Choose Another File..." for a wrong format (starting in the file's folder), no box for a
// cancel, Close only for an internal error. The recent files keep a file that failed unless it is gone. A
// file name holding markup is shown literally. Screenshots of the boxes.
#include <zlib.h>

#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <filesystem>

#include "core/capture/reader.h"
#include "tests/ui/screenshots.h"
#include "ui/session/settings_store.h"
#include "ui/shell/main_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kGood = kData + QStringLiteral("/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kBig = kData + QStringLiteral("/tf2_gpu_v100x8_bert_multiworker.xplane.pb");

void writeGzip(const QString& path, const std::string& text) {
  gzFile gz = gzopen(path.toLocal8Bit().constData(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

QStringList buttonNames(QMessageBox* box) {
  QStringList names;
  for (QAbstractButton* b : box->buttons()) names << b->objectName();
  names.sort();
  return names;
}

// Cuts the file to one page at the first progress report of the first read only: a writer still at work.
class CutOnce final : public ProgressSink {
 public:
  CutOnce(ProgressSink& inner, std::string path) : m_inner(inner), m_path(std::move(path)) {}
  void report(double fraction, std::string_view stage) override {
    if (!m_cut) std::filesystem::resize_file(m_path, 4096);
    m_cut = true;
    m_inner.report(fraction, stage);
  }

 private:
  ProgressSink& m_inner;
  std::string m_path;
  bool m_cut = false;
};

}  // namespace

class TestLoadErrors : public QObject {
  Q_OBJECT

 public:
  TestLoadErrors() {
    qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_load_errors"));
  }

 private slots:
  void init() { SettingsStore::instance().clearRecent(); }

  void traceExportOffersTheCaptureBesideIt() {
    const QString trace = m_dir.filePath(QStringLiteral("host0.trace.json.gz"));
    writeGzip(trace, R"({"displayTimeUnit": "ns", "traceEvents": [{"ph": "X", "name": "step", "ts": 1}]})");
    const QString capture = m_dir.filePath(QStringLiteral("host0.xplane.pb"));
    QVERIFY(QFile::copy(kGood, capture));
    MainWindow window;
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QSignalSpy failed(&window.session(), &CaptureSession::loadFailed);
    show(window);
    window.openFile(trace);  // by content a Chrome trace; with its capture beside it, it goes to the reader
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    const auto error = failed.last().at(0).value<JobError>();
    QCOMPARE(error.kind, ErrorKind::CompanionNeeded);
    QCOMPARE(error.companion, capture);
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QCOMPARE(buttonNames(box),
             (QStringList{QStringLiteral("chooseAnotherButton"), QStringLiteral("closeButton"),
                          QStringLiteral("openCompanionButton")}));
    auto* open = box->findChild<QPushButton*>(QStringLiteral("openCompanionButton"));
    QCOMPARE(open->text(), QStringLiteral("Open host0.xplane.pb"));
    QCOMPARE(box->defaultButton(), open);
    QVERIFY2(
        box->informativeText().contains(QLatin1String("\n\nhost0.trace.json.gz is a trace-viewer export")),
        qPrintable(box->informativeText()));
    shoot(*box, QStringLiteral("load-error-companion.png"));
    open->click();
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QCOMPARE(window.currentCapture().path, capture);
  }

  void fileThatShrankOffersRetry() {
    const QString path = m_dir.filePath(QStringLiteral("writing.xplane.pb"));
    QFile::remove(path);
    QVERIFY(QFile::copy(kBig, path));
    QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    auto reads = std::make_shared<std::atomic<int>>(0);
    auto* session = new CaptureSession(
        [reads](const std::string& file, ProgressSink& progress, const std::stop_token& stop) {
          if (reads->fetch_add(1) > 0) return capture::read_capture(file, progress, stop);
          CutOnce cut(progress, file);
          return capture::read_capture(file, cut, stop);
        });
    MainWindow window(session);
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QSignalSpy failed(session, &CaptureSession::loadFailed);
    show(window);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QCOMPARE(failed.last().at(0).value<JobError>().kind, ErrorKind::Changed);
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QCOMPARE(buttonNames(box), (QStringList{QStringLiteral("closeButton"), QStringLiteral("retryButton")}));
    shoot(*box, QStringLiteral("load-error-changed.png"));
    // The writer finishes; Retry reads the whole file.
    QFile::remove(path);
    QVERIFY(QFile::copy(kBig, path));
    box->findChild<QPushButton*>(QStringLiteral("retryButton"))->click();
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QCOMPARE(window.currentCapture().path, path);
    QCOMPARE(reads->load(), 2);
  }

  void wrongFormatOffersToChooseAnotherFile() {
    QTemporaryDir folder;
    const QString notes = folder.filePath(QStringLiteral("notes.xplane.pb"));
    QFile f(notes);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArrayLiteral("\x08\x01\x10\x02 this is not an XSpace capture at all"));
    f.close();
    SettingsStore::instance().addRecent(notes);
    MainWindow window;
    QString askedIn;
    window.setFileChooser([&](const QString& dir) {
      askedIn = dir;
      return QStringList{kGood};
    });
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QSignalSpy failed(&window.session(), &CaptureSession::loadFailed);
    show(window);
    window.openRecent(notes);
    QVERIFY(finished.wait(20000));
    QCOMPARE(failed.last().at(0).value<JobError>().kind, ErrorKind::NotACapture);
    // A file that exists stays in the recent list whatever its problem.
    QVERIFY(SettingsStore::instance().recentFiles().contains(notes));
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QCOMPARE(buttonNames(box),
             (QStringList{QStringLiteral("chooseAnotherButton"), QStringLiteral("closeButton")}));
    shoot(*box, QStringLiteral("load-error-wrong-format.png"));
    box->findChild<QPushButton*>(QStringLiteral("chooseAnotherButton"))->click();
    QCOMPARE(askedIn, folder.path());  // the chooser starts where the failed file is
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QCOMPARE(window.currentCapture().path, kGood);
  }

  void missingFileLeavesTheRecentList() {
    const QString gone = m_dir.filePath(QStringLiteral("deleted.xplane.pb"));
    QVERIFY(QFile::copy(kGood, gone));
    SettingsStore::instance().addRecent(gone);
    QVERIFY(QFile::remove(gone));
    MainWindow window;
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    show(window);
    window.openFile(gone);  // not through openRecent, which checks before it loads
    QVERIFY(finished.wait(20000));
    QVERIFY(!SettingsStore::instance().recentFiles().contains(gone));
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QVERIFY2(box->informativeText().contains(QLatin1String("removed from the recent files")),
             qPrintable(box->informativeText()));
    QVERIFY(box->findChild<QPushButton*>(QStringLiteral("chooseAnotherButton")));
    box->findChild<QPushButton*>(QStringLiteral("closeButton"))->click();
    QTRY_VERIFY(!boxOf(window, 0));  // closed
  }

  void cancelShowsNoBoxAndInternalErrorOnlyCloses() {
    auto* session = new CaptureSession([](const std::string& file, ProgressSink&,
                                          const std::stop_token&) -> std::shared_ptr<const capture::Capture> {
      if (file.find("stop") != std::string::npos) throw Cancelled(file);
      throw std::logic_error("a bug");
    });
    MainWindow window(session);
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    show(window);
    window.openFile(QStringLiteral("/data/stop.xplane.pb"));
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    QVERIFY(session->jobs().settle(10000));
    QVERIFY(!window.findChild<QMessageBox*>(QStringLiteral("messageBox")));
    QVERIFY(window.statusText().contains(QLatin1String("cancelled")));

    window.openFile(QStringLiteral("/data/bug.xplane.pb"));
    QVERIFY(finished.wait(20000));
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QCOMPARE(buttonNames(box), QStringList{QStringLiteral("closeButton")});
    QVERIFY(box->informativeText().contains(QLatin1String("Unexpected error: a bug.")));
  }

  void markupInAFileNameIsShownLiterally() {
    // No '/' can be in a file name; an unclosed <b> is enough for a rich-text widget to turn the rest bold.
    const QString path = m_dir.filePath(QStringLiteral("<b>bold<b> name.xplane.pb"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArrayLiteral("\x08\x01\x10\x02 not a capture"));  // binary: the capture reader words it
    f.close();
    MainWindow window;
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    show(window);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QMessageBox* box = boxOf(window);
    QVERIFY(box);
    QVERIFY(box->text().contains(QLatin1String("<b>bold<b> name.xplane.pb")));
    for (QLabel* label : box->findChildren<QLabel*>()) {
      if (!label->text().contains(QLatin1String("<b>"))) continue;
      QCOMPARE(label->textFormat(), Qt::PlainText);
    }
    auto* status = window.findChild<QLabel*>(QStringLiteral("statusText"));
    QCOMPARE(status->textFormat(), Qt::PlainText);
    shoot(*box, QStringLiteral("load-error-markup-name.png"));
  }

 private:
  static void show(MainWindow& window) {
    window.resize(1000, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
  }

  // The window's visible error box (waiting up to msecs for one to show), or null.
  static QMessageBox* boxOf(MainWindow& window, int msecs = 5000) {
    QMessageBox* box = nullptr;
    (void)QTest::qWaitFor(
        [&] {
          for (QMessageBox* b : window.findChildren<QMessageBox*>(QStringLiteral("messageBox")))
            if (b->isVisible()) box = b;
          return box != nullptr;
        },
        msecs);
    return box;
  }

  QTemporaryDir m_config;
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestLoadErrors)
#include "tst_load_errors.moc"
