// Names from a capture or an agent are data: a crafted capture whose module, instruction and allocator names
// hold ESC, BEL, CR, U+202E (right-to-left override) and invalid UTF-8, and an agent that sends such a
// backend, device and event message, must reach every widget escaped ("\x1b", "\u{202e}", "\xff"): the
// Diagnosis page, the report text, the module box, the Plan and Timeline labels, the chart legends, the
// Buffers table and the Live page. Screenshots of the Diagnosis page with the hostile capture.
#include <QAbstractItemModel>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QListWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "core/capture/reader.h"
#include "core/live/agent/agent_server.h"
#include "core/live/client/alerts.h"
#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/plan_page.h"
#include "ui/analysis/timeline_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/snapshot_document.h"
#include "ui/snapshot/snapshot_models.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

constexpr auto kGemm = OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_gemm.xplane.pb";

// Same-length replacements keep the protobuf valid: module names "jit_..." start with ESC BEL CR and an
// invalid byte, the allocator "GPU_0_bfc" starts with U+202E, and the peak instruction "custom-call.1" holds
// an OSC title sequence, BEL, U+202E and an invalid byte.
std::string hostileCapture(const QString& dir) {
  std::ifstream in(kGemm, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  const auto replace = [&](const std::string& from, const std::string& to) {
    Q_ASSERT(from.size() == to.size());
    for (std::size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + to.size()))
      bytes.replace(at, from.size(), to);
  };
  replace("jit_", std::string("\x1b\x07\r\xff", 4));
  replace("GPU_0_bfc", std::string("\xe2\x80\xae"
                                   "G0_bfc",
                                   9));
  replace("custom-call.1", std::string("cc\x1b]0;\x07\xe2\x80\xae\xc0.1", 13));
  const std::string path = QDir(dir).filePath(QStringLiteral("hostile.xplane.pb")).toStdString();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// No raw control, bidi override or replacement character: what reached the widget was escaped.
bool clean(const QString& text, bool multiline = false) {
  for (const QChar c : text) {
    const char16_t u = c.unicode();
    if (multiline && (u == u'\n' || u == u'\t')) continue;
    if (u < 0x20 || u == 0x7f || (u >= 0x80 && u <= 0x9f) || (u >= 0x202a && u <= 0x202e) ||
        (u >= 0x2066 && u <= 0x2069) || u == 0xfffd)
      return false;
  }
  return true;
}

QString modelText(const QAbstractItemModel& m, int role = Qt::DisplayRole) {
  QString all;
  for (int r = 0; r < m.rowCount(); ++r)
    for (int c = 0; c < m.columnCount(); ++c) all += m.data(m.index(r, c), role).toString() + QChar(u'|');
  return all;
}

QString legendText(QChart* chart) {
  QString all;
  for (QLegendMarker* marker : chart->legend()->markers()) all += marker->label() + QChar(u'|');
  return all;
}

class SteadySource final : public live::StatsSource {
 public:
  std::string name() const override { return "steady"; }
  void fill(live::Sample& s) override { s.set(live::Field::Allocated, 1'000'000); }
};

}  // namespace

class TestSafeNames : public QObject {
  Q_OBJECT

 private slots:
  void helperEscapesEveryKind() {
    const std::string raw("a\x1b[2Jb\x07\r\n\t\xe2\x80\xae\xff\xe2\x81\xa6z");
    QCOMPARE(safeText(raw), QStringLiteral("a\\x1b[2Jb\\x07\\x0d\\x0a\\x09\\u{202e}\\xff\\u{2066}z"));
    QCOMPARE(safeMultiline(raw), QStringLiteral("a\\x1b[2Jb\\x07\\x0d\n\t\\u{202e}\\xff\\u{2066}z"));
    QCOMPARE(safeText(QStringLiteral("x\u202ey")), QStringLiteral("x\\u{202e}y"));
    QCOMPARE(safeText(std::string("plain name_1 \xc3\xa9")), QStringLiteral("plain name_1 \u00e9"));
  }

  void hostileCaptureIsShownEscaped() {
    QTemporaryDir dir;
    const auto capture =
        std::shared_ptr<const capture::Capture>(capture::read_capture(hostileCapture(dir.path())));
    AnalysisPages pages;
    QSignalSpy filled(&pages, &AnalysisPages::resultChanged);
    pages.setCapture(capture);
    QVERIFY(filled.wait(20000));

    DiagnosisPage* diagnosis = pages.diagnosisPage();
    QString labels;
    for (const QLabel* l : diagnosis->findChildren<QLabel*>()) labels += l->text() + QChar(u'|');
    QVERIFY2(clean(labels), qPrintable(labels));
    QVERIFY2(labels.contains(QLatin1String("planned peak of \\x1b\\x07\\x0d\\xffdot")), qPrintable(labels));
    QVERIFY2(labels.contains(QLatin1String("\\u{202e}G0_bfc")), qPrintable(labels));  // the allocator
    QVERIFY2(clean(diagnosis->verdictText()), qPrintable(diagnosis->verdictText()));
    QVERIFY2(diagnosis->verdictText().contains(QLatin1String("the plan of \\x1b\\x07\\x0d\\xffdot needs")),
             qPrintable(diagnosis->verdictText()));

    // The report text, as `oomscope-cli report` prints it: newlines kept, every other control escaped.
    const QString text = diagnosis->copyAsText();
    QVERIFY(clean(text, true));
    QVERIFY(text.contains(QLatin1String("cc\\x1b]0;\\x07\\u{202e}\\xc0.1")));
    QVERIFY(text.count(QLatin1Char('\n')) > 20);

    QComboBox* box = diagnosis->moduleBox();
    QVERIFY(box->count() > 1);
    for (int i = 0; i < box->count(); ++i) QVERIFY2(clean(box->itemText(i)), qPrintable(box->itemText(i)));
    QVERIFY(clean(modelText(*box->model(), Qt::ToolTipRole), true));

    PlanPage* plan = pages.planPage();
    QVERIFY2(clean(plan->summaryText()), qPrintable(plan->summaryText()));
    QVERIFY2(plan->summaryText().contains(QLatin1String("cc\\x1b]0;\\x07\\u{202e}\\xc0.1")),
             qPrintable(plan->summaryText()));

    TimelinePage* timeline = pages.timelinePage();
    QVERIFY2(clean(timeline->summaryText()), qPrintable(timeline->summaryText()));
    QVERIFY(timeline->summaryText().contains(QLatin1String("\\x1b\\x07\\x0d\\xffdot(49)")));
    const QString legend = legendText(timeline->chart()->chart());
    QVERIFY2(clean(legend), qPrintable(legend));
    QVERIFY2(legend.contains(QLatin1String("\\u{202e}G0_bfc (peak")), qPrintable(legend));
    QVERIFY2(legend.contains(QLatin1String("\\x1b\\x07\\x0d\\xffdot(49) executions")), qPrintable(legend));
    QVERIFY(clean(timeline->chart()->describeAllocator(0, 0.005), true));

    BuffersPage* buffers = pages.buffersPage();
    const QString cells =
        modelText(*buffers->view()->model()) + modelText(*buffers->view()->model(), Qt::ToolTipRole);
    QVERIFY2(clean(cells, true), qPrintable(cells));

    QDir().mkpath(screenshotDir());
    diagnosis->resize(1280, 800);
    diagnosis->show();
    QVERIFY(QTest::qWaitForWindowExposed(diagnosis));
    QCoreApplication::processEvents();
    QVERIFY(
        diagnosis->grab().save(QDir(screenshotDir()).filePath(QStringLiteral("safe-names-diagnosis.png"))));
    diagnosis->hide();
    timeline->resize(1280, 800);
    timeline->show();
    QVERIFY(QTest::qWaitForWindowExposed(timeline));
    QVERIFY(timeline->grab().save(QDir(screenshotDir()).filePath(QStringLiteral("safe-names-timeline.png"))));
    timeline->hide();
  }

  void hostileSnapshotFramesAreShownEscaped() {
    // A frame filename of a real snapshot replaced in place (same length; pickle strings are memoised, so
    // every frame that names the file shows it).
    std::ifstream in(OOMSCOPE_TEST_DATA "/torch_snapshot_cs336_small_peak.pickle", std::ios::binary);
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    const std::string from = "trace_peak_memory.py";
    const std::string to("t\x1b]0;x\x07\r\xe2\x80\xae_peak_.py", 20);
    const std::size_t at = bytes.find(from);
    QVERIFY(at != std::string::npos && from.size() == to.size());
    bytes.replace(at, from.size(), to);
    QTemporaryDir dir;
    const QString path = QDir(dir.path()).filePath(QStringLiteral("hostile.pickle"));
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
    NullProgress none;
    SnapshotWindow w;
    w.setDocument(loadSnapshotDocument(path, none));
    QVERIFY(w.topModel()->rowCount() > 0);
    QString frames;
    for (int r = 0; r < w.topModel()->rowCount(); ++r) frames += w.topModel()->framesText(r) + QChar(u'|');
    QVERIFY2(clean(frames, true), qPrintable(frames));
    QVERIFY2(frames.contains(QLatin1String("t\\x1b]0;x\\x07\\x0d\\u{202e}_peak_.py:")), qPrintable(frames));
    QVERIFY(clean(modelText(*w.topModel()) + modelText(*w.topModel(), Qt::ToolTipRole), true));
  }

  void hostileAgentIsShownEscaped() {
    live::AgentOptions o;
    o.interval_ms = 50;
    o.hello.rank = 0;
    o.hello.backend = "mps\x1b[2J";
    o.hello.device = "dev\xe2\x80\xae";  // invalid UTF-8 becomes U+FFFD in the protocol's JSON
    o.hello.host = "host\x07";
    o.log = [](const std::string&) {};
    live::AgentServer agent(o);
    agent.add_source(std::make_unique<SteadySource>());
    agent.start();
    LivePage page;
    page.attach({agent.endpoint()}, {}, {live::parse_alert_rule("event:oom")});
    QTRY_COMPARE_WITH_TIMEOUT(page.rankModel()->rowCount(), 1, 10000);
    live::Event oom;
    oom.kind = "oom";
    oom.message = "out of memory\x1b]0;pwned\x07\r\xe2\x80\xae";
    agent.post_event(oom);
    QTRY_VERIFY_WITH_TIMEOUT(page.alertList()->count() > 0, 10000);
    const auto drawn = [&] {
      page.refreshNow();  // the charts are cut from the store on refresh
      return !page.charts().empty() && page.charts().front()->data().samples > 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(drawn(), 10000);
    const LiveChartData& d = page.charts().front()->data();
    QVERIFY2(clean(d.title) && d.title.contains(QLatin1String("mps\\x1b[2J dev\\u{202e}")),
             qPrintable(d.title));
    for (const auto& mark : d.events)
      QVERIFY2(clean(mark.kind) && clean(mark.message), qPrintable(mark.message));
    QString alerts;
    for (int i = 0; i < page.alertList()->count(); ++i)
      alerts += page.alertList()->item(i)->text() + QChar(u'|');
    QVERIFY2(clean(alerts), qPrintable(alerts));
    QVERIFY2(alerts.contains(QLatin1String("pwned\\x07\\x0d\\u{202e}")), qPrintable(alerts));
    QVERIFY(clean(modelText(*page.rankModel()) + modelText(*page.rankModel(), Qt::ToolTipRole), true));
    page.detach();
  }
};

QTEST_MAIN(TestSafeNames)
#include "tst_safe_names.moc"
