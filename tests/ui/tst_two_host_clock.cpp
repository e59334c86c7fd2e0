// A run captured on two hosts (tests/data/two_host, made by tests/data/tools/make_two_host_run.py from the
// real gemm capture): worker-0 keeps since-epoch line timestamps, worker-1 is normalised to a profile start
// 6 ms earlier. On one wall clock worker-1 waited for memory first (S + 6 ms) and worker-0 3 ms later,
// although by each host's own clock worker-0's wait comes first (9 ms < 12 ms). The Hosts table must say
// which host ran out first and when; the host selector must be on every page and switch what each shows.
// The expected times are the script's construction (S = the gemm capture's profile start), not oomscope's.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>

#include "tests/ui/screenshots.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/host_table_model.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/shell/main_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

const QString kRun = QStringLiteral(OOMSCOPE_TEST_DATA "/two_host");

}  // namespace

class TestTwoHostClock : public QObject {
  Q_OBJECT

 public:
  TestTwoHostClock() {
    qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_two_host_clock"));
  }

 private slots:
  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setMessagePresenter([](QMessageBox::Icon, const QString&, const QString&) {});
    m_window->resize(1500, 860);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    new QAbstractItemModelTester(m_window->hostsPage()->model(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest, m_window.get());
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->openFile(kRun);  // the run folder: its two captures together
    QVERIFY(finished.wait(30000));
    QVERIFY(finished.first().at(0).toBool());
  }
  void cleanup() { m_window.reset(); }

  void theComparisonPlacesBothHostsOnOneClock() {
    const LoadedRun& run = m_window->session().run();
    QCOMPARE(int(run.hosts.size()), 2);
    QVERIFY(run.comparison);
    const auto& c = *run.comparison;
    QVERIFY(c.one_clock);
    QCOMPARE(c.basis, analysis::FirstOutBasis::EarliestTrouble);
    QCOMPARE(QString::fromStdString(c.hosts[*c.first_out].host), QStringLiteral("worker-1"));
    // S = 1771595650217823548 ns: worker-1 waits at S + 6 ms, worker-0 at S + 9 ms.
    constexpr qint64 S = 1771595650217823548;
    for (const auto& h : c.hosts) {
      QVERIFY2(h.first_trouble_wall_ns, h.host.c_str());
      QCOMPARE(*h.first_trouble_wall_ns, S + (h.host == "worker-1" ? 6'000'000 : 9'000'000));
    }
    QCOMPARE(QString::fromStdString(c.explanation),
             QStringLiteral("worker-1 ran out first: its AllocatorRetry wait at 2026-02-20 13:54:10.223 UTC, "
                            "3.0 ms before worker-0's AllocatorRetry wait (hosts placed on one clock by the "
                            "wall-clock start each capture records; as exact as the hosts' clocks agree)."));

    const auto& rows = m_window->hostsPage()->model()->rows();
    QCOMPARE(int(rows.size()), 2);
    for (const HostRow& row : rows) {
      const bool first = row.host == QStringLiteral("worker-1");
      QCOMPARE(row.ranOutFirst, first);
      QCOMPARE(row.retries, qint64(1));
      QCOMPARE(row.firstTrouble, first ? QStringLiteral("AllocatorRetry wait at 2026-02-20 13:54:10.223 UTC "
                                                        "(+0.000 s)")
                                       : QStringLiteral("AllocatorRetry wait at 2026-02-20 13:54:10.226 UTC "
                                                        "(+0.003 s)"));
    }
    QVERIFY2(m_window->hostsPage()->headline().startsWith(QLatin1String("worker-1 ran out first")),
             qPrintable(m_window->hostsPage()->headline()));
    m_window->tabs()->setCurrentWidget(m_window->hostsPage());

    // 460 MiB of 144 GiB: a share that is not zero never reads "0 %".
    for (const HostRow& row : rows) QCOMPARE(row.peakPercent, QStringLiteral("0.3 %"));
    // The verdict can be read whole: its column wraps it and each row is as tall as its wrapped text.
    QTableView* view = m_window->hostsPage()->table()->view();
    const QAbstractItemModel* shown = view->model();
    QTRY_VERIFY(view->columnWidth(HostTableModel::Verdict) > 0);
    for (int r = 0; r < shown->rowCount(); ++r) {
      const QModelIndex verdict = shown->index(r, HostTableModel::Verdict);
      const QString text = verdict.data().toString();
      QVERIFY2(text.contains(QLatin1String("the plan of jit_dot")), qPrintable(text));
      QFont font = view->font();
      if (const QVariant f = verdict.data(Qt::FontRole); f.isValid()) font = f.value<QFont>();
      const int textWidth = view->columnWidth(HostTableModel::Verdict) - 8;  // the cell's margins
      const QRect needed =
          QFontMetrics(font).boundingRect(QRect(0, 0, textWidth, 100000), Qt::TextWordWrap, text);
      QVERIFY2(needed.width() <= textWidth, qPrintable(text));
      QTRY_VERIFY2(view->rowHeight(r) >= needed.height(),
                   qPrintable(QStringLiteral("row %1 is %2 px high, its verdict needs %3 px")
                                  .arg(r)
                                  .arg(view->rowHeight(r))
                                  .arg(needed.height())));
      QCOMPARE(verdict.data(Qt::ToolTipRole).toString(), text);
    }
    // The table is as tall as its rows: none is cut off at the bottom.
    QTRY_COMPARE(view->verticalScrollBar()->maximum(), 0);
    shoot(*m_window, QStringLiteral("hosts-one-clock.png"));
  }

  void theHostSelectorIsOnEveryPageAndSwitchesThem() {
    QComboBox* selector = m_window->hostSelector();
    QCOMPARE(selector->count(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
    QTabWidget* tabs = m_window->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QVERIFY2(selector->isVisible(), qPrintable(tabs->tabText(i)));
    }
    // Switch the host from a page: the page then shows the other host's capture.
    tabs->setCurrentWidget(m_window->allocatorsPage());
    const int other = 1 - m_window->session().currentHost();
    const QString otherPath = m_window->session().run().hosts[std::size_t(other)].path;
    QSignalSpy analysed(m_window->analysis(), &AnalysisPages::resultChanged);
    selector->setCurrentIndex(selector->findData(other));
    QCOMPARE(m_window->session().currentHost(), other);
    QCOMPARE(m_window->currentCapture().path, otherPath);
    QCOMPARE(tabs->currentWidget(), m_window->allocatorsPage());
    QTRY_VERIFY_WITH_TIMEOUT(
        m_window->analysis()->result() &&
            m_window->analysis()->result()->request.capture == m_window->currentCapture().capture,
        20000);
    const auto* model =
        static_cast<const AllocatorTableModel*>(m_window->allocatorsPage()->proxy()->sourceModel());
    QCOMPARE(int(model->rows().size()), int(m_window->currentCapture().capture->allocators().size()));
    const auto& hostnames = m_window->analysis()->result()->report->hostnames;
    QCOMPARE(QString::fromStdString(hostnames.front()),
             other == 0 ? QStringLiteral("worker-0") : QStringLiteral("worker-1"));
  }

 private:
  QTemporaryDir m_config;
  std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestTwoHostClock)
#include "tst_two_host_clock.moc"
