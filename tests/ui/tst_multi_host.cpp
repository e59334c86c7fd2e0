// Multi-host runs and the navigator, offscreen over the real reader: a hand-built two-host run where one host
// waits for memory first, a run folder in XProf's layout, real captures opened together, the host selector
// and the navigator in sync with the pages both ways, QAbstractItemModelTester on the new models, and
// screenshots of the navigator, the host selector and the Hosts page.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QMimeData>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeView>
#include <QtTest>

#include "core/analysis/report/report.h"
#include "core/capture/reader.h"
#include "tests/ui/temp_config_home.h"
#include "tests/ui/two_host_run.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/host_table_model.h"
#include "ui/models/navigator_model.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;
using oomscope::testing::HandBuiltHost;
using oomscope::testing::writeHandBuiltHost;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kGood = kData + QStringLiteral("/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kConv = kData + QStringLiteral("/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");
const QString kBert = kData + QStringLiteral("/tf2_gpu_v100x8_bert_multiworker.xplane.pb");

QStringList tabTitles(const QTabWidget* tabs) {
  QStringList titles;
  for (int i = 0; i < tabs->count(); ++i) titles << tabs->tabText(i);
  return titles;
}

}  // namespace

class TestMultiHost : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setMessagePresenter([this](QMessageBox::Icon, const QString& title, const QString& text) {
      m_messages << title + QLatin1Char('\n') + text;
    });
    m_window->resize(1400, 820);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    new QAbstractItemModelTester(m_window->navigator(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest, m_window.get());
    new QAbstractItemModelTester(m_window->hostsPage()->model(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest, m_window.get());
    m_messages.clear();
  }

  void cleanup() { m_window.reset(); }

  void handBuiltPairSaysWhichHostRanOutFirst() {
    // XProf's layout: plugins/profile/<run>/<host>.xplane.pb. host-b waits for memory 3 ms into its capture,
    // host-a only at 6 ms, although host-a's clock starts 1 ms earlier: host-b ran out first.
    QTemporaryDir dir;
    const QString run = dir.filePath(QStringLiteral("plugins/profile/2026_11_30_12_00_00"));
    HandBuiltHost a{"host-a", 5'000'000'000, 1 << 30, 64 << 20, 6'000'000'000};
    HandBuiltHost b{"host-b", 5'001'000'000, 1 << 30, 96 << 20, 3'000'000'000};
    QVERIFY(writeHandBuiltHost(run + QStringLiteral("/host-a.xplane.pb"), a));
    QVERIFY(writeHandBuiltHost(run + QStringLiteral("/host-b.xplane.pb"), b));
    QVERIFY(load({dir.path()}));  // the top folder: the captures are found below it

    const LoadedRun& loaded = m_window->session().run();
    QCOMPARE(int(loaded.hosts.size()), 2);
    QVERIFY(loaded.comparison);
    QVERIFY2(loaded.comparison->first_out == std::optional<std::size_t>(1),
             loaded.comparison->explanation.c_str());
    QCOMPARE(loaded.comparison->first_out, std::optional<std::size_t>(1));
    QCOMPARE(loaded.comparison->basis, oomscope::analysis::FirstOutBasis::EarliestTrouble);
    // The run opens on the host that ran out first, with the comparison in front.
    QCOMPARE(m_window->session().currentHost(), 1);
    QVERIFY(m_window->currentCapture().path.endsWith(QLatin1String("host-b.xplane.pb")));
    QCOMPARE(m_window->tabs()->currentWidget(), m_window->hostsPage());
    QCOMPARE(tabTitles(m_window->tabs()).first(), QStringLiteral("Hosts"));
    QVERIFY2(m_window->hostsPage()->headline().startsWith(QLatin1String("host-b ran out first")),
             qPrintable(m_window->hostsPage()->headline()));

    const auto& rows = m_window->hostsPage()->model()->rows();
    QCOMPARE(int(rows.size()), 2);
    QCOMPARE(rows[0].host, QStringLiteral("host-a"));
    QCOMPARE(rows[0].peak, std::optional<qint64>(8LL * (64 << 20)));
    QCOMPARE(rows[1].peak, std::optional<qint64>(8LL * (96 << 20)));
    QCOMPARE(rows[0].capacity, std::optional<qint64>(1 << 30));
    QCOMPARE(rows[1].peakPercent, QStringLiteral("75 %"));
    QCOMPARE(rows[0].retries, qint64(1));
    QVERIFY(!rows[0].ranOutFirst);
    QVERIFY(rows[1].ranOutFirst);
    QVERIFY2(rows[1].firstTrouble.startsWith(QLatin1String("AllocatorRetry wait at +0.000 s")),
             qPrintable(rows[1].firstTrouble));
    // host-a: its wait at 6 ms of a clock 1 ms ahead = 2 ms after host-b's.
    QVERIFY2(rows[0].firstTrouble.contains(QLatin1String("+0.002 s")), qPrintable(rows[0].firstTrouble));
    QVERIFY(!rows[0].verdict.isEmpty());

    // The host selector shows both hosts, on host-b.
    QComboBox* selector = m_window->hostSelector();
    QVERIFY(selector->isVisible());
    QCOMPARE(selector->count(), 2);
    QCOMPARE(selector->currentText(), QStringLiteral("host-b (host-b.xplane.pb)"));
    save(QStringLiteral("hosts-page.png"));

    // Switching host in the selector re-fills every page for that host.
    QSignalSpy changed(m_window.get(), &MainWindow::captureChanged);
    selector->setCurrentIndex(0);
    QCOMPARE(changed.count(), 1);
    QVERIFY(m_window->currentCapture().path.endsWith(QLatin1String("host-a.xplane.pb")));
    QVERIFY(m_window->statusText().startsWith(QLatin1String("host 1 of 2")));
    QCOMPARE(m_window->navigator()->hostOf(m_window->navigatorView()->currentIndex()), 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_window->analysis()->result() &&
            m_window->analysis()->result()->request.capture == m_window->currentCapture().capture,
        20000);

    // And the navigator switches back: choosing host-b's allocator shows host-b's Allocators page.
    const QModelIndex allocator = m_window->navigator()->allocatorIndex(1, QStringLiteral("GPU_0_bfc"));
    QVERIFY(allocator.isValid());
    m_window->navigatorView()->setCurrentIndex(allocator);
    QCOMPARE(m_window->session().currentHost(), 1);
    QCOMPARE(selector->currentIndex(), 1);
    QCOMPARE(m_window->tabs()->currentWidget(), m_window->allocatorsPage());
    QCOMPARE(m_window->allocatorsPage()->view()->selectionModel()->selectedRows().size(), 1);

    // Double-clicking a host on the Hosts page shows it.
    m_window->tabs()->setCurrentWidget(m_window->hostsPage());
    QTableView* view = m_window->hostsPage()->table()->view();
    int rowA = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r)
      if (view->model()->index(r, HostTableModel::Host).data().toString() == QStringLiteral("host-a"))
        rowA = r;
    emit view->doubleClicked(view->model()->index(rowA, 0));
    QCOMPARE(m_window->session().currentHost(), 0);

    // Reload reads the whole run again.
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->reload();
    QVERIFY(finished.wait(20000));
    QCOMPARE(int(m_window->session().run().hosts.size()), 2);
  }

  void nothingRanOutThenTheClosestHostIsNamedAsSuch() {
    QTemporaryDir dir;
    HandBuiltHost a{"host-a", 5'000'000'000, 1 << 30, 64 << 20, std::nullopt};
    HandBuiltHost b{"host-b", 5'000'000'000, 1 << 30, 32 << 20, std::nullopt};
    QVERIFY(writeHandBuiltHost(dir.filePath(QStringLiteral("a.xplane.pb")), a));
    QVERIFY(writeHandBuiltHost(dir.filePath(QStringLiteral("b.xplane.pb")), b));
    QVERIFY(load({dir.filePath(QStringLiteral("a.xplane.pb")), dir.filePath(QStringLiteral("b.xplane.pb"))}));
    const auto& comparison = *m_window->session().run().comparison;
    QCOMPARE(comparison.basis, oomscope::analysis::FirstOutBasis::HighestPeakRatio);
    QCOMPARE(comparison.first_out, std::optional<std::size_t>(0));
    QVERIFY2(m_window->hostsPage()->headline().contains(QLatin1String("host-a came closest to running out")),
             qPrintable(m_window->hostsPage()->headline()));
    QVERIFY(m_window->hostsPage()->model()->rows()[1].firstTrouble.isEmpty());
    // The hand-built hosts record no profile start: whether they are one run cannot be told, and is said.
    QVERIFY2(m_window->hostsPage()->runsNote().contains(QLatin1String("cannot be told")),
             qPrintable(m_window->hostsPage()->runsNote()));
  }

  void realCapturesOpenTogether() {
    // Two real single-host captures as one run (each file holds one host): every figure on the Hosts page is
    // the one the core report gives for that file.
    QVERIFY(load({kConv, kBert}));
    const LoadedRun& run = m_window->session().run();
    QCOMPARE(int(run.hosts.size()), 2);
    const auto& rows = m_window->hostsPage()->model()->rows();
    for (int i = 0; i < 2; ++i) {
      auto capture = oomscope::capture::read_capture(run.hosts[std::size_t(i)].path.toStdString());
      const auto report = oomscope::analysis::build_host_report(*capture, {});
      QCOMPARE(rows[std::size_t(i)].executions, report.runtime.executions_total);
      QCOMPARE(rows[std::size_t(i)].host, QString::fromStdString(report.hostnames.front()));
      qint64 peak = 0;
      for (const auto& a : report.runtime.allocators) peak = std::max(peak, qint64(a.peak_bytes_in_use));
      QVERIFY(rows[std::size_t(i)].peak.has_value());
      QVERIFY(*rows[std::size_t(i)].peak <= peak);
    }
    QCOMPARE(m_window->navigator()->hostCount(), 2);
    QCOMPARE(m_window->hostSelector()->count(), 2);
    // A ROCm conv3d job and a TF2 BERT job: the BERT capture has no XLA plans (no modules to compare) and
    // records no profile start, so the page says that whether they are one run cannot be told.
    QCOMPARE(
        m_window->hostsPage()->runsNote(),
        QStringLiteral("Whether these 2 captures were taken together (hosts of one run) cannot be told: ") +
            kBert + QStringLiteral(" records no profile start time."));
    // Both verdicts wrap in full: the table grows with its rows instead of scrolling.
    QTRY_COMPARE(m_window->hostsPage()->table()->view()->verticalScrollBar()->maximum(), 0);
    save(QStringLiteral("hosts-real.png"));
  }

  void theHostsPageSaysWhenTheCapturesAreNotOneRun() {
    // tests/data/two_host: two hosts of one run (same modules, profiles 6 ms apart): nothing to say.
    QVERIFY(load({kData + QStringLiteral("/two_host")}));
    QCOMPARE(int(m_window->session().run().hosts.size()), 2);
    QCOMPARE(m_window->hostsPage()->runsNote(), QString());
    // tests/data/two_runs: one workload run twice, 162.9 days apart.
    QVERIFY(load({kData + QStringLiteral("/two_runs")}));
    QVERIFY2(m_window->hostsPage()->runsNote().startsWith(QLatin1String(
                 "These 2 captures are not of one run captured together: their profiles started "
                 "162.9 days apart [read]")),
             qPrintable(m_window->hostsPage()->runsNote()));
    m_window->tabs()->setCurrentWidget(m_window->hostsPage());
    // The verdicts keep room beside a long hostname and wrap in full (the table grows with its rows).
    QVERIFY(m_window->hostsPage()->table()->view()->columnWidth(HostTableModel::Verdict) >
            m_window->hostsPage()->table()->view()->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 20);
    QTRY_COMPARE(m_window->hostsPage()->table()->view()->verticalScrollBar()->maximum(), 0);
    save(QStringLiteral("hosts-two-runs.png"));
  }

  void droppingSeveralFilesOpensThemAsOneRun() {
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(kConv), QUrl::fromLocalFile(kGood)});
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &drop);
    QVERIFY(finished.wait(30000));
    QVERIFY(finished.first().at(0).toBool());
    QCOMPARE(int(m_window->session().run().hosts.size()), 2);
    QCOMPARE(m_window->hostsPage()->model()->rowCount(), 2);
    delete mime;
  }

  void aFileThatCannotBeReadIsListedAndTheOthersOpen() {
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("broken.xplane.pb"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\xff\xff\xff\xff not a capture");
    f.close();
    QVERIFY(load({kConv, kGood, bad}));
    const LoadedRun& run = m_window->session().run();
    QCOMPARE(int(run.hosts.size()), 2);
    QCOMPARE(run.failures.size(), 1);
    QVERIFY(run.failures.first().contains(bad));
  }

  void cancellingARunKeepsWhatWasOpen() {
    QVERIFY(load({kGood}));
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->session().openRun({kConv, kBert});
    m_window->session().cancel();
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(m_window->currentCapture().path, kGood);
    QVERIFY(!m_window->session().run().isMultiHost());
  }

  void navigatorFollowsThePagesAndDrivesThem() {
    QVERIFY(load({kGood}));
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
    NavigatorModel* nav = m_window->navigator();
    QTreeView* tree = m_window->navigatorView();
    QVERIFY(m_window->navigatorDock()->isVisible());
    QVERIFY(!m_window->hostSelector()->isVisible());  // one host: no selector
    QCOMPARE(nav->hostCount(), 1);

    // The default module is selected and marked, with why.
    const auto result = m_window->analysis()->result();
    const auto& report = *result->report;
    QVERIFY(report.module_index);
    const quint64 defaultId = report.modules[*report.module_index].program_id;
    QTRY_COMPARE(tree->currentIndex(), nav->moduleIndex(0, defaultId));
    QVERIFY(tree->currentIndex().data(NavigatorModel::DefaultRole).toBool());
    QVERIFY(tree->currentIndex().data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(tree->currentIndex()
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(QLatin1String("Analysed by default")));
    // Sorted by planned peak.
    const QModelIndex group = tree->currentIndex().parent();
    QCOMPARE(nav->rowCount(group), int(report.modules.size()));
    std::int64_t previous = std::numeric_limits<std::int64_t>::max();
    for (int r = 0; r < nav->rowCount(group); ++r) {
      const quint64 id = nav->index(r, 0, group).data(NavigatorModel::ProgramIdRole).toULongLong();
      for (const auto& m : report.modules) {
        if (m.program_id != id) continue;
        QVERIFY(m.peak_bytes <= previous);
        previous = m.peak_bytes;
      }
    }
    save(QStringLiteral("navigator.png"));

    // Choosing another module in the navigator analyses it.
    quint64 other = 0;
    for (const auto& m : report.modules)
      if (m.program_id != defaultId && m.status != oomscope::analysis::PlanStatus::NoBufferAssignment)
        other = m.program_id;
    QVERIFY(other != 0);
    QSignalSpy moduleChanged(m_window->analysis(), &AnalysisPages::moduleChanged);
    tree->setCurrentIndex(nav->moduleIndex(0, other));
    QTRY_VERIFY_WITH_TIMEOUT(
        !moduleChanged.isEmpty() && moduleChanged.last().at(1).toString() == QString::number(other), 20000);
    QCOMPARE(tree->currentIndex(), nav->moduleIndex(0, other));

    // A module chosen elsewhere (the Diagnosis page's selector ends here too) is selected in the navigator.
    moduleChanged.clear();
    m_window->analysis()->setModule(QString::number(defaultId));
    QTRY_VERIFY_WITH_TIMEOUT(!moduleChanged.isEmpty(), 20000);
    QTRY_COMPARE(tree->currentIndex(), nav->moduleIndex(0, defaultId));
  }

 private:
  bool load(const QStringList& paths) {
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->openFiles(paths);
    if (!finished.wait(30000)) return false;
    return finished.first().at(0).toBool();
  }

  void save(const QString& name) {
    QCoreApplication::processEvents();
    const QString dir = QStringLiteral(OOMSCOPE_SCREENSHOT_DIR);
    QDir().mkpath(dir);
    QVERIFY(m_window->grab().save(dir + QLatin1Char('/') + name));
  }

  TempConfigHome m_config{QStringLiteral("tst_multi_host")};
  std::unique_ptr<MainWindow> m_window;
  QStringList m_messages;
};

QTEST_MAIN(TestMultiHost)
#include "tst_multi_host.moc"
