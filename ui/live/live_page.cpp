// The Live page (see live_page.h).

#include "ui/live/live_page.h"

#include <QApplication>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/util/error.h"
#include "ui/live/attach_dialog.h"
#include "ui/live/demo_trainer.h"
#include "ui/live/direct_attach.h"
#include "ui/live/live_alert_list.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_forecast_banner.h"
#include "ui/live/live_prometheus.h"
#include "ui/live/live_rank_comparison.h"
#include "ui/live/live_rank_navigator.h"
#include "ui/live/live_rank_table.h"
#include "ui/live/live_recording_opener.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

LivePage::LivePage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("livePage"));
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  m_attach = new QPushButton(tr("Attach\u2026"), this);
  m_attach->setObjectName(QStringLiteral("attachButton"));
  m_attach->setToolTip(tr("Attach to running trainers: one agent endpoint per rank."));
  m_open = new QPushButton(tr("Open Recording\u2026"), this);
  m_record = new QPushButton(tr("Record\u2026"), this);
  m_record->setObjectName(QStringLiteral("recordButton"));
  m_record->setEnabled(false);
  m_window = new QComboBox(this);
  for (const auto& [label, secs] : std::vector<std::pair<QString, int>>{{tr("last minute"), 60},
                                                                        {tr("last 10 minutes"), 600},
                                                                        {tr("last hour"), 3600},
                                                                        {tr("everything"), 0}})
    m_window->addItem(label, secs);
  m_window->setCurrentIndex(1);
  m_status = new QLabel(tr("Not attached. Attach to a trainer's agent, or open a recording."), this);
  m_status->setObjectName(QStringLiteral("liveStatus"));
  m_status->setTextFormat(Qt::PlainText);  // paths, endpoints and errors: never markup
  bar->addWidget(m_attach);
  bar->addWidget(m_open);
  bar->addWidget(m_record);
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(m_window);
  bar->addWidget(m_status, 1);
  layout->addLayout(bar);
  m_banner = new LiveForecastBanner(this);
  layout->addWidget(m_banner);

  auto* split = new QSplitter(Qt::Horizontal, this);
  m_scroll = new QScrollArea(split);
  m_scroll->setWidgetResizable(true);
  m_grid = new QWidget;
  m_gridLayout = new QGridLayout(m_grid);
  m_gridLayout->setSpacing(6);
  m_scroll->setWidget(m_grid);
  auto* side = new QSplitter(Qt::Vertical, split);
  m_table = new LiveRankTable(side);
  m_ranks = m_table->ranks();
  connect(m_table, &QWidget::customContextMenuRequested, this, &LivePage::showRankMenu);
  auto* alertBox = new QWidget(side);
  auto* alertLayout = new QVBoxLayout(alertBox);
  alertLayout->setContentsMargins(0, 4, 0, 0);
  auto* alertTitle = new QLabel(tr("<b>Alerts</b>"), alertBox);
  alertLayout->addWidget(alertTitle);
  m_alerts = new LiveAlertList(alertBox);
  connect(m_alerts, &LiveAlertList::openSnapshotRequested, this, &LivePage::openSnapshotRequested);
  alertLayout->addWidget(m_alerts);
  m_comparison = new LiveRankComparison(side);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({3000, 2000});
  side->setSizes({1000, 700, 1300});
  layout->addWidget(split, 1);

  m_navigator = new LiveRankNavigator(m_table, this);
  connect(m_navigator, &LiveRankNavigator::chartRequested, this, &LivePage::showChart);
  m_recordings = new LiveRecordingOpener(this);
  connect(m_recordings, &LiveRecordingOpener::openRequested, this, &LivePage::openRecording);
  connect(m_recordings, &LiveRecordingOpener::failed, this, &LivePage::recordingFailed);
  m_demo = new DemoTrainer(this);
  m_direct = new DirectAttach(this);
  connect(m_direct, &DirectAttach::connecting, m_status, &QLabel::setText);
  connect(m_direct, &DirectAttach::failed, this, &LivePage::rankFailed);
  connect(m_direct, &DirectAttach::attached, this, [this](LivePage* page, const QString& notice) {
    m_notice = notice;
    emit directAttached(page);
  });
  connect(m_attach, &QPushButton::clicked, this, &LivePage::chooseAttach);
  connect(m_open, &QPushButton::clicked, this, &LivePage::chooseRecording);
  connect(m_record, &QPushButton::clicked, this, &LivePage::toggleRecording);
  connect(m_window, &QComboBox::currentIndexChanged, this, [this](int i) {
    m_windowSeconds = m_window->itemData(i).toInt();
    refresh(true);
  });
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const int chart = m_table->chartOf(index);
    if (chart >= 0) showChart(chart);
  });
  m_timer = new QTimer(this);
  m_timer->setInterval(250);
  connect(m_timer, &QTimer::timeout, this, [this] { refresh(false); });
  m_timer->start();
}

LivePage::~LivePage() { detach(); }  // the demo trainer, a child, is killed after

QListWidget* LivePage::alertList() const { return m_alerts; }
QTableView* LivePage::rankTable() const { return m_table; }
QLabel* LivePage::forecastBanner() const { return m_banner; }

void LivePage::showChart(int index) {
  if (index >= 0 && index < int(m_charts.size())) m_scroll->ensureWidgetVisible(m_charts[std::size_t(index)]);
}

QString LivePage::statusText() const { return m_status->text(); }

void LivePage::setDemoTrainer(const QString& program, const QStringList& args) {
  m_demo->setProgram(program, args);
}

void LivePage::setWindowSeconds(int seconds) {
  const int i = m_window->findData(seconds);
  if (i >= 0) m_window->setCurrentIndex(i);
  m_windowSeconds = seconds;
  refresh(true);
}

void LivePage::resetSession(std::vector<live::AlertRule> rules) {
  m_recordings->cancel();  // a recording still opening fills the old session: its outcome is not shown
  detach();
  m_session = std::make_shared<live::LiveSession>();
  if (rules.empty()) rules = live::default_alert_rules();
  for (auto& r : rules) m_session->add_rule(std::move(r));
  m_alerts->newSession();
  m_banner->hide();
  m_seenVersion = ~0ull;
  m_comparison->showSession(m_session);
}

void LivePage::attach(const std::vector<live::Endpoint>& endpoints, const std::string& token,
                      std::vector<live::AlertRule> rules) {
  resetSession(std::move(rules));
  m_isRecording = false;
  live::ClientOptions options;
  options.token = token;
  m_client = std::make_unique<live::LiveClient>(endpoints, *m_session, options);
  m_client->start();
  m_record->setEnabled(true);
  m_record->setText(tr("Record\u2026"));
  if (m_windowSeconds == 0) setWindowSeconds(600);
  rebuildCharts(int(endpoints.size()));
  m_status->setText(tr("Attaching to %n rank(s)\u2026", nullptr, int(endpoints.size())));
  refresh(true);
}

void LivePage::detach() {
  if (m_client) m_client->stop();
  m_client.reset();
  m_prom.reset();  // stops it
  if (m_session) m_session->stop_recording();
}

void LivePage::chooseAttach() {
  AttachDialog dialog(m_demo->available(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  const AttachRequest& r = dialog.request();
  if (r.startDemo)
    startDemoTrainer(r.rules);
  else if (!r.prometheus.empty())
    attachPrometheus(r.prometheus, r.selector, r.rules);
  else
    attach(r.endpoints, r.token, r.rules);
}

bool LivePage::startDemoTrainer(std::vector<live::AlertRule> rules) {
  if (!m_demo->available()) return false;
  QString error;
  const QString endpoint = m_demo->start(&error);
  if (endpoint.isEmpty()) {
    m_status->setText(error);
    return false;
  }
  attach({live::parse_endpoint(endpoint.toStdString())}, {}, std::move(rules));
  return true;
}

void LivePage::rebuildCharts(int count) {
  if (int(m_charts.size()) == count) return;
  for (LiveChart* c : m_charts) delete c;
  m_charts.clear();
  const int columns = count > 1 ? 2 : 1;
  for (int i = 0; i < count; ++i) {
    auto* chart = new LiveChart(m_grid);
    chart->setObjectName(QStringLiteral("liveChart%1").arg(i));
    m_gridLayout->addWidget(chart, i / columns, i % columns);
    m_charts.push_back(chart);
  }
}

void LivePage::refreshNow() { refresh(true); }

void LivePage::refreshVisible() {
  m_seenVersion = ~0ull;
  refresh(false);
}

void LivePage::refresh(bool force) {
  if (!m_session) return;
  const std::uint64_t version = m_session->version();
  if (!force && version == m_seenVersion) {
    if (m_prom) updatePrometheusStatus();  // errors arrive without data
    return;
  }
  m_seenVersion = version;
  const int n =
      m_session->read([](const live::Store& s, const live::AlertEngine&) { return int(s.ranks().size()); });
  if (n > int(m_charts.size())) rebuildCharts(n);
  QVector<LiveRankRow> rows;
  int up = 0;
  m_session->read_all([&](const auto& store, const auto& alerts, const auto& forecasts) {
    rows = liveRankRows(store, &forecasts);
    if (m_isRecording)
      for (auto& r : rows) {
        r.connected = false;
        r.status = tr("recorded");
      }
    const std::int64_t last = store.last_t();
    const std::int64_t first = store.first_t();
    const std::int64_t t1 = last + 1;
    const std::int64_t t0 =
        m_windowSeconds > 0 ? std::max(first, t1 - std::int64_t(m_windowSeconds) * 1'000'000'000) : first;
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
      LiveChart* chart = m_charts[i];
      if (!force && chart->visibleRegion().isEmpty()) continue;  // off screen: drawn when scrolled to
      LiveChartData data =
          cut_chart_data(store, int(i), t0, std::max(t1, t0 + 1), std::max(50, chart->width() - 120));
      if (m_isRecording) {
        data.connected = true;  // drawn as data, not as a dead connection
        data.status = tr("recorded");
      }
      if (const live::Forecast* f = forecasts.latest(int(i))) add_forecast(data, *f);
      chart->setData(std::move(data));
    }
    m_alerts->collect(store, alerts);
    for (const auto& r : store.ranks()) up += r.connected ? 1 : 0;
    return 0;
  });
  m_banner->showRows(rows);
  m_ranks->setRows(std::move(rows));
  m_navigator->update();
  m_alerts->showCollected();
  if (!m_isRecording && m_client) {
    QString s = tr("%1 of %2 rank(s) live").arg(up).arg(m_client->endpoints().size());
    if (m_session->recording()) s += tr(" \u00b7 recording to %1").arg(safeText(m_session->recording_path()));
    m_status->setText(s);
  }
  if (m_prom) updatePrometheusStatus();
}

void LivePage::attachPrometheus(const std::string& server, const std::string& selector,
                                std::vector<live::AlertRule> rules) {
  resetSession(std::move(rules));
  m_isRecording = false;
  if (m_windowSeconds == 0) setWindowSeconds(600);
  try {
    m_prom = std::make_unique<LivePrometheus>(server, selector, std::max(600, m_windowSeconds), *m_session);
  } catch (const Error& e) {
    rankFailed(safeText(e.what()));
    return;
  }
  m_notice.clear();
  m_prom->start();
  m_record->setEnabled(true);
  m_record->setText(tr("Record\u2026"));
  rebuildCharts(0);
  m_status->setText(m_prom->startText(server));
  refresh(true);
}

std::vector<live::PromRankInfo> LivePage::prometheusRanks() const {
  return m_prom ? m_prom->ranks() : std::vector<live::PromRankInfo>{};
}

void LivePage::rankFailed(const QString& reason) {
  m_notice = reason;
  m_status->setText(reason);
  emit directAttachFailed(reason);
}

bool LivePage::attachDirectly(int index) {
  if (!m_prom) {
    rankFailed(tr("Attach directly works from a Prometheus view; this session is already direct."));
    return false;
  }
  const auto ranks = m_prom->ranks();
  if (index < 0 || index >= int(ranks.size())) return false;
  return m_direct->start(ranks[std::size_t(index)], index);
}

void LivePage::showRankMenu(const QPoint& at) {
  const int index = m_table->chartOf(m_table->indexAt(at));
  if (index < 0) return;
  QMenu menu(this);
  QAction* chart = menu.addAction(tr("Show Chart"));
  QAction* direct = menu.addAction(tr("Attach Directly (10 Hz, events)"));
  direct->setEnabled(m_prom != nullptr);
  if (!m_prom) direct->setToolTip(tr("Only from a Prometheus view"));
  QAction* chosen = menu.exec(m_table->viewport()->mapToGlobal(at));
  if (chosen == chart)
    showChart(index);
  else if (chosen == direct)
    attachDirectly(index);
}

void LivePage::updatePrometheusStatus() {
  const LivePrometheus::Status st = m_prom->status(*m_session, m_notice);
  if (st.text != m_status->text() && st.worthShowing) m_status->setText(st.text);
  m_status->setToolTip(st.toolTip);
}

void LivePage::openRecording(const QString& path) {
  resetSession({});
  m_isRecording = true;
  m_comparison->showRecording(path);  // core compares the file itself, as `report RECORDING` does
  m_record->setEnabled(false);
  m_status->setText(tr("Opening %1\u2026").arg(path));
  auto session = m_session;
  m_recordings->open(path, session, [this, session, path](const QString& note) {
    if (m_session != session) return;
    setWindowSeconds(0);
    const int ranks =
        session->read([](const live::Store& s, const live::AlertEngine&) { return int(s.ranks().size()); });
    rebuildCharts(ranks);
    refresh(true);
    m_status->setText(
        tr("Recording %1%2").arg(path, note.isEmpty() ? QString() : QStringLiteral(" \u2014 ") + note));
    emit recordingOpened(path, note);
    m_recordings->reportOpened(path);
  });
}

void LivePage::recordingFailed(const JobError& failure) {
  const QString error = failure.text();
  m_status->setText(error);
  emit failed(error);
  m_recordings->reportFailed(failure);
}

bool LivePage::opensFile(const QString& path) { return LiveRecordingOpener::opensFile(path); }

bool LivePage::startRecording(const QString& path, QString* error) {
  if (!m_session || m_isRecording) return false;
  try {
    m_session->start_recording(path.toStdString());
  } catch (const Error& e) {
    if (error) *error = safeMultiline(e.what());
    m_status->setText(safeMultiline(e.what()));
    return false;
  }
  m_record->setText(tr("Stop Recording"));
  return true;
}

void LivePage::stopRecording() {
  if (m_session) m_session->stop_recording();
  m_record->setText(tr("Record\u2026"));
}

bool LivePage::isRecording() const { return m_session && m_session->recording(); }

void LivePage::chooseRecording() {
  const QString path = LiveRecordingOpener::chooseToOpen(this);
  if (!path.isEmpty()) openRecording(path);
}

void LivePage::toggleRecording() {
  if (isRecording()) {
    stopRecording();
    return;
  }
  const QString path = LiveRecordingOpener::chooseToRecord(this);
  if (!path.isEmpty()) startRecording(path);
}

}  // namespace oomscope::ui
