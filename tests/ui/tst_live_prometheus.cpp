// The Live page fed by a real Prometheus (tests/live/prom_fixture.py: two Python agents, a stand-in
// exporter for three GPU ranks with a DCGM series, `prometheus` scraping them every second): the rank
// table lists every rank with its figures, sorts by headroom with the rank closest to OOM on top, takes
// DCGM's framebuffer figure as a rank's device-used line, and the drill-down attaches directly to a real
// agent's stats socket or says why it cannot; the attach dialog's Prometheus tab makes the request the page
// attaches with. Screenshots of the page and the dialog. Skips without Debian's prometheus.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "core/live/prom/prom_api.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/live/attach_dialog.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

QString cell(QAbstractItemModel* m, int row, int column) {
  return m->data(m->index(row, column), Qt::DisplayRole).toString();
}

// True when `up` ranks are connected and `known` of them have a headroom.
bool allUpWithHeadroom(const RankTableModel* model, int up, int known) {
  int u = 0, k = 0;
  for (int i = 0; i < model->rowCount(); ++i) {
    u += model->row(i).connected ? 1 : 0;
    k += model->row(i).headroomKnown ? 1 : 0;
  }
  return u == up && k == known;
}

}  // namespace

class TestLivePrometheus : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    m_fixture.setProgram(QStringLiteral("python3"));
    m_fixture.setArguments(
        {QStringLiteral(OOMSCOPE_TEST_DATA "/../live/prom_fixture.py"), QStringLiteral("2")});
    m_fixture.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_fixture.start();
    QVERIFY(m_fixture.waitForStarted(10000));
    QTRY_VERIFY_WITH_TIMEOUT(m_fixture.canReadLine() || m_fixture.state() == QProcess::NotRunning, 150000);
    const QJsonObject scene = QJsonDocument::fromJson(m_fixture.readLine()).object();
    if (scene.contains(QStringLiteral("skip")))
      QSKIP(qPrintable(scene.value(QStringLiteral("skip")).toString()));
    QVERIFY2(scene.contains(QStringLiteral("url")), "the fixture did not start (see its stderr)");
    m_url = scene.value(QStringLiteral("url")).toString();
    for (const QJsonValue& a : scene.value(QStringLiteral("agents")).toArray())
      m_stats << a.toObject().value(QStringLiteral("stats")).toString();
  }

  void cleanupTestCase() {
    if (m_fixture.state() != QProcess::NotRunning) {
      m_fixture.write("quit\n");
      m_fixture.closeWriteChannel();
      if (!m_fixture.waitForFinished(30000)) m_fixture.kill();
    }
  }

  void rankTableSortedByHeadroom() {
    LivePage page;
    page.resize(1500, 900);
    page.show();
    page.attachPrometheus(m_url.toStdString(), "job=\"uitest\"");
    RankTableModel* model = page.rankModel();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 5, 30000);
    // Every rank up, and the three GPU ranks with a headroom.
    QTRY_VERIFY_WITH_TIMEOUT(allUpWithHeadroom(model, 5, 3), 20000);
    QAbstractItemModel* sorted = page.rankTable()->model();
    QCOMPARE(cell(sorted, 0, RankTableModel::Rank), QStringLiteral("11"));  // 78 of 80 GiB used
    QCOMPARE(cell(sorted, 1, RankTableModel::Rank), QStringLiteral("12"));  // DCGM: 70,000 MiB used
    QCOMPARE(cell(sorted, 2, RankTableModel::Rank), QStringLiteral("10"));  // 50 GiB used
    QCOMPARE(cell(sorted, 0, RankTableModel::Headroom), QStringLiteral("2.00 GiB (3%)"));
    QCOMPARE(cell(sorted, 1, RankTableModel::Top), QStringLiteral("68.4 GiB"));
    QCOMPARE(cell(sorted, 2, RankTableModel::Allocated), QStringLiteral("30.0 GiB"));
    QCOMPARE(cell(sorted, 0, RankTableModel::Step), QLocale().toString(511));
    QStringList last{cell(sorted, 3, RankTableModel::Rank), cell(sorted, 4, RankTableModel::Rank)};
    last.sort();
    QCOMPARE(last, (QStringList{QStringLiteral("0"), QStringLiteral("1")}));  // no device figures: last
    QVERIFY(cell(sorted, 3, RankTableModel::Rss) != QStringLiteral("\u2014"));
    QCOMPARE(cell(sorted, 3, RankTableModel::Headroom), QStringLiteral("\u2014"));
    QCOMPARE(page.charts().size(), std::size_t(5));
    QTRY_VERIFY_WITH_TIMEOUT(page.statusText().contains(QStringLiteral("5 of 5 rank(s) up")), 10000);

    page.rankTable()->sortByColumn(RankTableModel::Rank, Qt::AscendingOrder);
    QCOMPARE(cell(sorted, 0, RankTableModel::Rank), QStringLiteral("0"));
    page.rankTable()->sortByColumn(RankTableModel::Headroom, Qt::AscendingOrder);
    QCOMPARE(cell(sorted, 0, RankTableModel::Rank), QStringLiteral("11"));
    QTRY_VERIFY_WITH_TIMEOUT(page.charts()[0]->data().samples > 2, 10000);
    page.refreshNow();
    shoot(page, QStringLiteral("live_prometheus.png"));
  }

  void drillDown() {
    LivePage page;
    page.resize(1200, 700);
    page.show();
    page.attachPrometheus(m_url.toStdString(), "job=\"uitest\"");
    QTRY_COMPARE_WITH_TIMEOUT(int(page.prometheusRanks().size()), 5, 30000);
    auto index_of = [&](int rank) {
      const auto ranks = page.prometheusRanks();
      for (std::size_t i = 0; i < ranks.size(); ++i)
        if (ranks[i].rank == rank) return int(i);
      return -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!page.prometheusRanks()[std::size_t(index_of(0))].stats_endpoint.empty(), 10000);
    QCOMPARE(QString::fromStdString(page.prometheusRanks()[std::size_t(index_of(0))].stats_endpoint),
             m_stats[0]);

    QSignalSpy attached(&page, &LivePage::directAttached);
    QSignalSpy failed(&page, &LivePage::directAttachFailed);
    QVERIFY(!page.attachDirectly(index_of(11)));  // publishes no agent_info
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("no stats_endpoint")),
             qPrintable(failed.last().at(0).toString()));
    QVERIFY(page.attachDirectly(index_of(10)));  // names 127.0.0.1:1, where nobody listens
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 10000);
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("127.0.0.1:1")),
             qPrintable(failed.last().at(0).toString()));

    QVERIFY(page.attachDirectly(index_of(0)));  // a real agent
    QTRY_COMPARE_WITH_TIMEOUT(attached.count(), 1, 10000);
    auto* direct = attached.last().at(0).value<LivePage*>();
    QVERIFY(direct);
    QTRY_VERIFY_WITH_TIMEOUT(direct->rankModel()->rowCount() == 1 && direct->rankModel()->row(0).connected &&
                                 direct->rankModel()->row(0).samples >= 10,
                             15000);  // 2 Hz agent here; the direct session gets every sample
    QCOMPARE(direct->rankModel()->row(0).step, qint64(1000));
    direct->refreshNow();
    shoot(*direct, QStringLiteral("live_prometheus_direct.png"));
  }

  // The dialog's Prometheus tab turns a server and a selector into the request the page attaches with (no
  // endpoints), remembers them for next time, and refuses a server that is not a Prometheus URL in place.
  void attachDialog() {
    AttachDialog dialog(false);
    dialog.setPrometheus(m_url, QStringLiteral("job=\"uitest\""));
    dialog.show();
    shoot(dialog, QStringLiteral("live_prometheus_dialog.png"));
    QPushButton* attach = nullptr;
    for (auto* b : dialog.findChildren<QPushButton*>())
      if (b->text() == QStringLiteral("Attach")) attach = b;
    QVERIFY(attach);
    auto* server = dialog.findChild<QLineEdit*>(QStringLiteral("prometheusServer"));
    auto* error = dialog.findChild<QLabel*>(QStringLiteral("attachError"));
    QVERIFY(server && error);

    server->setText(QStringLiteral("ftp://127.0.0.1:9090"));
    attach->click();
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY2(!error->text().isEmpty(), "a bad server was accepted without a word");

    server->setText(m_url);
    attach->click();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const AttachRequest& r = dialog.request();
    QCOMPARE(QString::fromStdString(r.prometheus),
             QString::fromStdString(live::parse_prometheus_source(m_url.toStdString(), false)));
    QCOMPARE(QString::fromStdString(r.selector),
             QString::fromStdString(live::normalise_selector("job=\"uitest\"")));
    QVERIFY(r.endpoints.empty());
    QVERIFY(!r.startDemo);
    QVERIFY(!r.rules.empty());  // the default alert rules

    AttachDialog again(false);
    QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("prometheusServer"))->text(), m_url);
    QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("prometheusSelector"))->text(),
             QStringLiteral("job=\"uitest\""));
    QCOMPARE(again.findChild<QTabWidget*>(QStringLiteral("sourceTabs"))->currentIndex(), 1);
  }

 private:
  TempConfigHome m_config{QStringLiteral("tst_live_prometheus")};  // the attach dialog keeps its last choices
  QProcess m_fixture;
  QString m_url;
  QStringList m_stats;
};

QTEST_MAIN(TestLivePrometheus)
#include "tst_live_prometheus.moc"
