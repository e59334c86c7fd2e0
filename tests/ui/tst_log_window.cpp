// The Log window on real logs from tests/data/logs (posted by users in public issues; README there): the
// messages table, the device bar, the peak buffers, the figures and the diagnosis; its models under
// QAbstractItemModelTester; Edit > Paste Log from the main window; text without a message; names from the log
// that would reorder or drive the display. Screenshots of each kind go to the screenshot folder.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "core/log/log.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/log/device_bar_widget.h"
#include "ui/log/log_buffers_model.h"
#include "ui/log/log_figures_model.h"
#include "ui/log/log_messages_model.h"
#include "ui/log/log_window.h"
#include "ui/session/job_tracker.h"
#include "ui/shell/main_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

QString logPath(const char* name) {
  return QStringLiteral(OOMSCOPE_TEST_DATA "/logs/") + QLatin1String(name);
}

QByteArray slurp(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

// Loads `path` in `w` and waits for the worker.
bool loadAndWait(LogWindow& w, const QString& path) {
  QSignalSpy loaded(&w, &LogWindow::loaded);
  w.load(path);
  return loaded.wait(20000);
}

LogWindow* findLogWindow() {
  for (QWidget* top : QApplication::topLevelWidgets())
    if (auto* w = qobject_cast<LogWindow*>(top)) return w;
  return nullptr;
}

}  // namespace

class TestLogWindow : public QObject {
  Q_OBJECT

 private slots:
  void torchCudaMessage();
  void xlaPeakBuffers();
  void ranksInOneLog();
  void everyKind_data();
  void everyKind();
  void modelsUnderTester();
  void noMessage();
  void hostileText();
  void pasteFromMainWindow();

 private:
  TempConfigHome m_config{QStringLiteral("tst_log_window")};
};

// torch 2.x wording (pytorch/pytorch#16417): 22.00 MiB asked, 11.06 MiB free of 23.65 GiB, the process
// holds 23.60 GiB of which PyTorch allocated 22.90 GiB and reserved 194.87 MiB more.
void TestLogWindow::torchCudaMessage() {
  LogWindow w;
  w.resize(1100, 760);
  w.show();
  QVERIFY(loadAndWait(w, logPath("torch-cuda_pytorch_16417.log")));
  QCOMPARE(w.messageModel()->rowCount(), 1);
  QCOMPARE(w.messageModel()->index(0, LogMessagesModel::Kind).data().toString(),
           QStringLiteral("pytorch-cuda"));
  QCOMPARE(w.messageModel()->index(0, LogMessagesModel::Requested).data().toString(),
           QStringLiteral("22.0 MiB"));
  QCOMPARE(w.selectedMessage(), 0);
  // The bar: capacity as its scale, the framework's allocated and reserved-unused parts, free and the
  // request.
  const DeviceBarWidget* bar = w.deviceBar();
  QVERIFY(bar->capacityStated());
  QCOMPARE(bar->scaleBytes(), w.document()->file.messages[0].figure("capacity")->value);
  QCOMPARE(bar->requestBytes(), w.document()->file.messages[0].figure("requested")->value);
  qint64 parts = 0;
  QStringList names;
  for (const auto& p : bar->parts()) {
    parts += p.bytes;
    names << p.name;
  }
  QVERIFY2(names.contains(QStringLiteral("allocated by the framework")), qPrintable(names.join(u',')));
  QVERIFY2(names.contains(QStringLiteral("free")), qPrintable(names.join(u',')));
  QVERIFY(parts <= bar->scaleBytes());
  // Every figure the log printed is there, tagged read; the diagnosis and the whole report are shown.
  const int read = static_cast<int>(w.document()->file.messages[0].figures.size());
  QVERIFY(read >= 5);
  QVERIFY(w.figuresModel()->rowCount() >= read);
  QCOMPARE(w.figuresModel()->index(0, LogFiguresModel::Provenance).data().toString(), QStringLiteral("read"));
  QVERIFY(w.diagnosisText()->toPlainText().contains(QStringLiteral("Tried to allocate 22.00 MiB")));
  QVERIFY(w.diagnosisText()->toPlainText().contains(QStringLiteral("[")));
  QCOMPARE(w.reportText()->toPlainText(), QString::fromStdString(w.document()->report));
  QVERIFY(!w.detailTabs()->isTabEnabled(1));  // no peak buffers in a PyTorch message
  shoot(w, QStringLiteral("log_torch_cuda.png"));
}

// An XLA GPU dump (jax-ml/jax#13428) lists two peak buffers: 6.00 MiB (a concatenate) and 384.0 KiB (an entry
// parameter subshape).
void TestLogWindow::xlaPeakBuffers() {
  LogWindow w;
  w.resize(1100, 760);
  w.show();
  QVERIFY(loadAndWait(w, logPath("xla-gpu_jax_13428.log")));
  QVERIFY(w.messageModel()->rowCount() >= 1);
  const int shown = w.selectedMessage();
  QCOMPARE(w.messageModel()->index(shown, LogMessagesModel::Kind).data().toString(),
           QStringLiteral("xla-gpu"));
  QCOMPARE(w.buffersModel()->rowCount(), 2);
  QCOMPARE(w.buffersModel()->index(0, LogBuffersModel::Size).data().toString(), QStringLiteral("6.00 MiB"));
  QVERIFY(w.buffersModel()
              ->index(0, LogBuffersModel::Shape)
              .data()
              .toString()
              .contains(QStringLiteral("f32[4096,128,3]")));
  QVERIFY(w.buffersModel()
              ->index(1, LogBuffersModel::Shape)
              .data()
              .toString()
              .contains(QStringLiteral("entry parameter")));
  QVERIFY(w.detailTabs()->isTabEnabled(1));
  w.detailTabs()->setCurrentIndex(1);
  shoot(w, QStringLiteral("log_xla_gpu_buffers.png"));
}

// Two ranks in one log (hand-made from two real messages with torchrun prefixes): both listed with their
// rank, the summary names the ranks and which ran out first.
void TestLogWindow::ranksInOneLog() {
  QByteArray text;
  const QByteArray a = slurp(logPath("torch-cuda_GenerateU_10.log"));
  const QByteArray b = slurp(logPath("torch-cuda_VSmTrans_3.log"));
  QVERIFY(!a.isEmpty() && !b.isEmpty());
  for (const QByteArray& line : a.split('\n'))
    if (!line.isEmpty()) text += "[rank3]: " + line + "\n";
  for (const QByteArray& line : b.split('\n'))
    if (!line.isEmpty()) text += "[rank0]: " + line + "\n";
  LogWindow w;
  w.resize(1100, 760);
  w.show();
  QSignalSpy loaded(&w, &LogWindow::loaded);
  w.loadText(QString::fromUtf8(text));
  QVERIFY(loaded.wait(20000));
  QCOMPARE(w.messageModel()->rowCount(), 2);
  QCOMPARE(w.messageModel()->index(0, LogMessagesModel::Source).data().toString(), QStringLiteral("rank 3"));
  QCOMPARE(w.messageModel()->index(1, LogMessagesModel::Source).data().toString(), QStringLiteral("rank 0"));
  const QString summary = w.summary()->text();
  QVERIFY2(summary.contains(QStringLiteral("rank 3")) && summary.contains(QStringLiteral("rank 0")),
           qPrintable(summary));
  QVERIFY2(summary.contains(QStringLiteral("the first out-of-memory error: rank 3")), qPrintable(summary));
  // Choosing the second row shows its message.
  w.messageView()->setCurrentIndex(w.messageView()->model()->index(1, 0));
  QCOMPARE(w.selectedMessage(), 1);
  QVERIFY(w.diagnosisText()->toPlainText().contains(QStringLiteral("226.00 MiB")));
  shoot(w, QStringLiteral("log_two_ranks.png"));
}

// One real (or, where no shared log has the kind, hand-made) log per message kind: the kind is listed, the
// shown message is of that kind when chosen, the bar's parts never exceed its scale, every figure read is in
// the figures table and the diagnosis names the message. A screenshot of each, to look at.
void TestLogWindow::everyKind_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("kind");
  const struct {
    const char* file;
    const char* kind;
  } rows[] = {
      {"torch-cuda_pytorch_37250.log", "pytorch-cuda"},
      {"torch-hip_TheRock_2118.log", "pytorch-hip"},
      {"torch-mps_ComfyUI_7171.log", "pytorch-mps"},
      {"handmade_memory_summary.log", "pytorch-memory-summary"},
      {"xla-gpu_t5x_870.log", "xla-gpu"},
      {"xla-tpu_EasyDeL_142.log", "xla-tpu"},
      {"other_equinox_737.log", "xla-allocation"},
      {"bfc_tensorflow_47820.log", "bfc"},
      {"bfc_thera_10.log", "bfc-warning"},
      {"handmade_xla_replica_and_bfc_stats.log", "stream-executor"},
      {"other_vllm_10517.log", "vllm-kv-cache"},
      {"other_nccl_1235.log", "nccl"},
  };
  for (const auto& r : rows)
    QTest::newRow(r.kind) << QString::fromLatin1(r.file) << QString::fromLatin1(r.kind);
}

void TestLogWindow::everyKind() {
  QFETCH(QString, file);
  QFETCH(QString, kind);
  LogWindow w;
  w.resize(1100, 760);
  w.show();
  QVERIFY(loadAndWait(w, QStringLiteral(OOMSCOPE_TEST_DATA "/logs/") + file));
  const auto& messages = w.document()->file.messages;
  int index = -1;
  for (std::size_t i = 0; i < messages.size() && index < 0; ++i)
    if (QString::fromLatin1(log::to_string(messages[i].kind)) == kind) index = static_cast<int>(i);
  QVERIFY2(index >= 0, qPrintable(file + QStringLiteral(" holds no ") + kind + QStringLiteral(" message")));
  w.selectMessage(index);
  QCOMPARE(w.selectedMessage(), index);
  bool listed = false;
  for (int row = 0; row < w.messageModel()->rowCount(); ++row) {
    listed = listed || w.messageModel()->index(row, LogMessagesModel::Kind).data().toString() == kind;
    // The line is shown without a table's box rule or runs of spaces.
    const QString line = w.messageModel()->index(row, LogMessagesModel::FirstLine).data().toString();
    QVERIFY2(!line.startsWith(u'|') && !line.contains(QStringLiteral("  ")), qPrintable(line));
  }
  QVERIFY(listed);
  qint64 parts = 0;
  for (const auto& p : w.deviceBar()->parts()) parts += p.bytes;
  QVERIFY2(parts <= w.deviceBar()->scaleBytes() || !w.deviceBar()->capacityStated(),
           qPrintable(QStringLiteral("%1 of %2").arg(parts).arg(w.deviceBar()->scaleBytes())));
  QVERIFY(w.figuresModel()->rowCount() >= static_cast<int>(messages[std::size_t(index)].figures.size()));
  QVERIFY(!w.diagnosisText()->toPlainText().isEmpty());
  // The bar's scale is named for what the message states: the MPS allocator's max allowed and the BFC pool's
  // Limit are limits below the device's capacity.
  if (w.deviceBar()->capacityStated())
    QCOMPARE(w.deviceBar()->capacityName(),
             kind == QStringLiteral("pytorch-mps") ? QStringLiteral("max allowed")
             : kind == QStringLiteral("bfc")       ? QStringLiteral("the allocator's Limit")
                                                   : QStringLiteral("capacity"));
  QCOMPARE(w.detailTabs()->isTabEnabled(1), !messages[std::size_t(index)].buffers.empty());
  shoot(w, QStringLiteral("log_kind_%1.png").arg(kind));
}

void TestLogWindow::modelsUnderTester() {
  LogWindow w;
  QVERIFY(loadAndWait(w, logPath("xla-gpu_jax_13428.log")));
  QAbstractItemModelTester t1(w.messageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t2(w.buffersModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t3(w.figuresModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(loadAndWait(w, logPath("torch-cuda_pytorch_16417.log")));  // resets every model
  QCOMPARE(w.buffersModel()->rowCount(), 0);
}

void TestLogWindow::noMessage() {
  LogWindow w;
  w.show();
  QSignalSpy loaded(&w, &LogWindow::loaded);
  w.loadText(QStringLiteral("epoch 1 loss 0.41\nepoch 2 loss 0.37\n"));
  QVERIFY(loaded.wait(20000));
  QCOMPARE(w.messageModel()->rowCount(), 0);
  auto* empty = w.findChild<QLabel*>(QStringLiteral("logEmpty"));
  QVERIFY(empty && empty->isVisible());
  QVERIFY2(empty->text().startsWith(
               QStringLiteral("no out-of-memory message found in the pasted text; it looks like")),
           qPrintable(empty->text()));
}

// A rank name with a bidi override and an escape sequence: shown as visible escapes, never raw.
void TestLogWindow::hostileText() {
  const QString text = QStringLiteral(
      "[rank\u202e7]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
      "20.00 MiB. GPU 0 has a total capacity of 7.79 GiB of which 2.00 MiB is free. "
      "\x1b[31mIncluding non-PyTorch memory, this process has 7.78 GiB memory in use. "
      "Of the allocated memory 7.50 GiB is allocated by PyTorch, and 100.00 MiB is "
      "reserved by PyTorch but unallocated.\n");
  LogWindow w;
  w.show();
  QSignalSpy loaded(&w, &LogWindow::loaded);
  w.loadText(text);
  QVERIFY(loaded.wait(20000));
  QVERIFY(w.messageModel()->rowCount() >= 1);
  for (int c = 0; c < w.messageModel()->columnCount(); ++c) {
    const QString cell = w.messageModel()->index(0, c).data().toString();
    QVERIFY2(!cell.contains(QChar(0x202e)) && !cell.contains(QChar(0x1b)), qPrintable(cell));
  }
  for (const QString& shown :
       {w.summary()->text(), w.diagnosisText()->toPlainText(), w.reportText()->toPlainText()})
    QVERIFY2(!shown.contains(QChar(0x202e)) && !shown.contains(QChar(0x1b)), qPrintable(shown));
}

// Edit > Paste Log reads the clipboard into a Log window; an empty clipboard says so in the status bar.
void TestLogWindow::pasteFromMainWindow() {
  MainWindow main;
  main.show();
  QApplication::clipboard()->setText(QString());
  main.pasteLog();
  QVERIFY(!findLogWindow());
  QVERIFY(main.statusText().contains(QStringLiteral("clipboard holds no text")));
  QApplication::clipboard()->setText(QString::fromUtf8(slurp(logPath("torch-cuda_GenerateU_10.log"))));
  main.pasteLog();
  LogWindow* w = findLogWindow();
  QVERIFY(w);
  QTRY_VERIFY_WITH_TIMEOUT(w->document() != nullptr, 20000);
  QCOMPARE(w->messageModel()->rowCount(), 1);
  QCOMPARE(w->windowTitle(), QStringLiteral("Pasted log \u2014 oomscope"));
  QVERIFY(w->figuresModel()->rowCount() > 0);
  w->close();  // deleted on close
  QTRY_VERIFY(!findLogWindow());
}

QTEST_MAIN(TestLogWindow)
#include "tst_log_window.moc"
