// Live recordings open on the Live page from the main window as they do from the command line: File > Open,
// a recent file and a drop each hand a .oomlive file (or one that starts like a recording, whatever its
// name) to the Live page and show it; the recording joins the recent files. A damaged recording gets the
// same error box as a capture that cannot be read, naming the file and the problem. Screenshots of the
// Live page showing an opened recording and of the error box.
#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <string>

#include "core/live/client/recorder.h"
#include "core/live/client/recording_format.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/settings_store.h"
#include "ui/shell/main_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

// A small recording of one rank: 40 samples 100 ms apart, allocated bytes climbing, one OOM event.
void writeRecording(const QString& path) {
  live::Recorder r(path.toStdString());
  const std::int64_t t0 = 1'764'500'000LL * 1'000'000'000LL;
  live::Hello hello;
  hello.host = "trainer-0";
  hello.backend = "cuda";
  hello.device = "test device";
  hello.total_bytes = 8LL << 30;
  r.on_endpoint(0, "unix:/tmp/oomscope-test-rank0.sock");
  r.on_hello(0, hello);
  for (int i = 0; i < 40; ++i) {
    live::Sample s;
    s.t = t0 + i * 100'000'000LL;
    s.set(live::Field::Allocated, (1LL + i) * (150LL << 20));
    s.set(live::Field::Reserved, (2LL + i) * (150LL << 20));
    s.set(live::Field::Step, i / 4);
    r.on_sample(0, s);
  }
  r.on_event(0, live::Event{t0 + 3'900'000'000LL, "oom", "CUDA out of memory (test)", "", 9});
  r.close();
}

QAction* fileOpenAction(MainWindow& window) {
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text() == QStringLiteral("&Open\u2026")) return a;
  return nullptr;
}

}  // namespace

class TestLiveOpen : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    SettingsStore::instance().clearRecent();
    m_window = std::make_unique<MainWindow>();
    m_live = new LivePage;
    m_window->addPage(m_live, QStringLiteral("Live"));
    m_window->resize(1300, 760);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  }
  void cleanup() { m_window.reset(); }

  void recordingsOpenOnTheLivePage() {
    const QString rec = m_dir.filePath(QStringLiteral("run.oomlive"));
    writeRecording(rec);
    QSignalSpy opened(m_live, &LivePage::recordingOpened);

    // File > Open.
    m_window->setFileChooser([&](const QString&) { return QStringList{rec}; });
    QAction* open = fileOpenAction(*m_window);
    QVERIFY(open);
    open->trigger();
    QVERIFY(opened.wait(10000));
    QCOMPARE(opened.last().at(0).toString(), rec);
    QCOMPARE(m_window->tabs()->currentWidget(), m_live);
    QCOMPARE(m_live->rankModel()->rowCount(), 1);
    QVERIFY(m_live->statusText().startsWith(QStringLiteral("Recording ") + rec));
    QVERIFY(!m_window->currentCapture().capture);  // not read as a capture
    QVERIFY(!m_window->findChild<QMessageBox*>(QStringLiteral("messageBox")));
    QCOMPARE(SettingsStore::instance().recentFiles().value(0), QFileInfo(rec).absoluteFilePath());
    m_live->refreshNow();
    shoot(*m_window, QStringLiteral("live-open-recording.png"));

    // The recent files.
    m_window->tabs()->setCurrentIndex(0);
    m_window->openRecent(rec);
    QVERIFY(opened.wait(10000));
    QCOMPARE(m_window->tabs()->currentWidget(), m_live);

    // A drop, of a recording whose name does not say so (recognised by its content).
    const QString unnamed = m_dir.filePath(QStringLiteral("session-7.dat"));
    QVERIFY(QFile::copy(rec, unnamed));
    m_window->tabs()->setCurrentIndex(0);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(unnamed)});
    QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &drop);
    QVERIFY(opened.wait(10000));
    QCOMPARE(opened.last().at(0).toString(), unnamed);
    QCOMPARE(m_window->tabs()->currentWidget(), m_live);
  }

  void aDamagedRecordingGetsTheErrorBox() {
    // The header, then a record whose rank index is out of any range: the reader calls it damaged.
    const QString damaged = m_dir.filePath(QStringLiteral("damaged.oomlive"));
    std::string bytes(live::rec::kMagic);
    bytes += char(live::rec::Kind::Sample);
    live::rec::put_varint(bytes, 200000);
    QFile f(damaged);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes.data(), qint64(bytes.size()));
    f.close();
    QSignalSpy failed(m_live, &LivePage::failed);
    m_window->openFile(damaged);
    QVERIFY(failed.wait(10000));
    QCOMPARE(m_window->tabs()->currentWidget(), m_live);
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(QStringLiteral("messageBox"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    QCOMPARE(box->text(), QStringLiteral("Cannot open damaged.oomlive"));
    QVERIFY2(box->informativeText().startsWith(damaged + QStringLiteral("\n\n")),
             qPrintable(box->informativeText()));
    QVERIFY2(box->informativeText().contains(QLatin1String("Damaged record: rank index 200000")),
             qPrintable(box->informativeText()));
    QVERIFY(box->findChild<QPushButton*>(QStringLiteral("chooseAnotherButton")));
    QVERIFY(m_live->statusText().contains(QLatin1String("damaged record")));
    QVERIFY(!SettingsStore::instance().recentFiles().contains(QFileInfo(damaged).absoluteFilePath()));
    shoot(*box, QStringLiteral("live-open-damaged.png"));
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_live_open")};
  QTemporaryDir m_dir;
  std::unique_ptr<MainWindow> m_window;
  LivePage* m_live = nullptr;
};

QTEST_MAIN(TestLiveOpen)
#include "tst_live_open.moc"
