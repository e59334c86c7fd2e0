// The Live page (see live_page.h).

#include "ui/live/live_page.h"

#include <QApplication>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/util/safe_text.h"
#include "ui/live/attach_dialog.h"
#include "ui/live/direct_attach.h"
#include "ui/live/live_chart.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/job_tracker.h"
#include "ui/session/page_file_opener.h"
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
  m_banner = new QLabel(this);
  m_banner->setObjectName(QStringLiteral("forecastBanner"));
  m_banner->setTextFormat(Qt::PlainText);  // agents' names and figures: never markup
  m_banner->setWordWrap(true);
  m_banner->setToolTip(
      tr("Derived from the samples: the forecast model is said in each rank's forecast (docs/live.md, "
         "\"The OOM forecast\")."));
  m_banner->hide();
  layout->addWidget(m_banner);

  auto* split = new QSplitter(Qt::Horizontal, this);
  m_scroll = new QScrollArea(split);
  m_scroll->setWidgetResizable(true);
  m_grid = new QWidget;
  m_gridLayout = new QGridLayout(m_grid);
  m_gridLayout->setSpacing(6);
  m_scroll->setWidget(m_grid);
  auto* side = new QSplitter(Qt::Vertical, split);
  m_ranks = new RankTableModel(this);
  m_table = new QTableView(side);
  m_table->setObjectName(QStringLiteral("rankTable"));
  m_sorted = new QSortFilterProxyModel(this);
  m_sorted->setSourceModel(m_ranks);
  m_sorted->setSortRole(Qt::UserRole);
  m_sorted->setDynamicSortFilter(true);
  m_table->setModel(m_sorted);
  m_table->setSortingEnabled(true);
  // The soonest forecast OOM on top, then the other ranks by headroom.
  m_table->sortByColumn(RankTableModel::Forecast, Qt::AscendingOrder);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &QWidget::customContextMenuRequested, this, &LivePage::showRankMenu);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  auto* alertBox = new QWidget(side);
  auto* alertLayout = new QVBoxLayout(alertBox);
  alertLayout->setContentsMargins(0, 4, 0, 0);
  auto* alertTitle = new QLabel(tr("<b>Alerts</b>"), alertBox);
  alertLayout->addWidget(alertTitle);
  m_alerts = new QListWidget(alertBox);
  m_alerts->setObjectName(QStringLiteral("alertList"));
  m_alerts->setWordWrap(true);
  m_alerts->setToolTip(tr("Double-click an OOM line that names a snapshot to open it at the OOM"));
  connect(m_alerts, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const QString path = item->data(Qt::UserRole).toString();
    if (!path.isEmpty()) emit openSnapshotRequested(path);
  });
  alertLayout->addWidget(m_alerts);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({3000, 2000});
  side->setSizes({1000, 1000});
  layout->addWidget(split, 1);

  createNavigatorSource();
  m_opener = new PageFileOpener(tr("Live recordings (*.oomlive)"), &LivePage::opensFile, this);
  connect(m_opener, &PageFileOpener::openRequested, this, &LivePage::openRecording);
  m_recordingJob = new JobTracker(this);
  connect(m_recordingJob, &JobTracker::failed, this, &LivePage::recordingFailed);
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
    const QModelIndex source = m_sorted->mapToSource(index);
    if (!source.isValid()) return;
    const int rank = m_ranks->row(source.row()).index;
    if (rank < int(m_charts.size())) m_scroll->ensureWidgetVisible(m_charts[std::size_t(rank)]);
  });
  m_timer = new QTimer(this);
  m_timer->setInterval(250);
  connect(m_timer, &QTimer::timeout, this, [this] { refresh(false); });
  m_timer->start();
}

LivePage::~LivePage() {
  detach();
  if (m_demo) {
    m_demo->kill();
    m_demo->waitForFinished(2000);
  }
}

QString LivePage::statusText() const { return m_status->text(); }

void LivePage::setDemoTrainer(const QString& program, const QStringList& args) {
  m_demoProgram = program;
  m_demoArgs = args;
}

void LivePage::setWindowSeconds(int seconds) {
  const int i = m_window->findData(seconds);
  if (i >= 0) m_window->setCurrentIndex(i);
  m_windowSeconds = seconds;
  refresh(true);
}

void LivePage::resetSession(std::vector<live::AlertRule> rules) {
  m_recordingJob->cancel();  // a recording still opening fills the old session: its outcome is not shown
  detach();
  m_session = std::make_shared<live::LiveSession>();
  if (rules.empty()) rules = live::default_alert_rules();
  for (auto& r : rules) m_session->add_rule(std::move(r));
  m_alerts->clear();
  m_banner->hide();
  m_seenAlerts = 0;
  m_seenEvents.clear();
  m_seenVersion = ~0ull;
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
  if (m_prom) m_prom->stop();
  m_prom.reset();
  if (m_session) m_session->stop_recording();
}

void LivePage::chooseAttach() {
  AttachDialog dialog(!m_demoProgram.isEmpty(), this);
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
  if (m_demoProgram.isEmpty()) return false;
  const QString sock = QStringLiteral("/tmp/oomscope-demo-%1.sock").arg(QCoreApplication::applicationPid());
  if (m_demo) {
    m_demo->kill();
    m_demo->waitForFinished(2000);
    delete m_demo;
  }
  m_demo = new QProcess(this);
  m_demo->setProcessChannelMode(QProcess::MergedChannels);
  m_demo->setStandardOutputFile(QProcess::nullDevice());
  m_demo->start(m_demoProgram,
                m_demoArgs + QStringList{QStringLiteral("--serve"), QStringLiteral("unix:") + sock});
  if (!m_demo->waitForStarted(5000)) {
    m_status->setText(tr("Cannot start the demo trainer %1: %2").arg(m_demoProgram, m_demo->errorString()));
    return false;
  }
  attach({live::parse_endpoint((QStringLiteral("unix:") + sock).toStdString())}, {}, std::move(rules));
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
  QStringList newAlerts;
  QVector<QPair<QString, QString>> snapshots;  // (line, path) of oom events that name a snapshot
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
    const auto& all = alerts.alerts();
    for (std::size_t i = m_seenAlerts; i < all.size(); ++i) newAlerts << safeText(all[i].message);
    m_seenAlerts = all.size();
    const auto& ranks = store.ranks();
    if (m_seenEvents.size() < ranks.size()) m_seenEvents.resize(ranks.size(), 0);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      for (std::size_t e = m_seenEvents[r]; e < ranks[r].events.size(); ++e) {
        const live::Event& ev = ranks[r].events[e];
        if (ev.kind != "oom" || ev.path.empty()) continue;
        const QString path = QString::fromStdString(ev.path);
        snapshots.append({tr("rank %1: OOM, snapshot written to %2 (double-click to open it at the OOM)")
                              .arg(r)
                              .arg(QString::fromStdString(single_line_safe(ev.path))),
                          path});
      }
      m_seenEvents[r] = ranks[r].events.size();
    }
    for (const auto& r : ranks) up += r.connected ? 1 : 0;
    return 0;
  });
  bool oom = false;
  const QString banner = ui::forecastBanner(rows, &oom);
  m_banner->setText(banner);
  m_banner->setVisible(!banner.isEmpty());
  m_banner->setStyleSheet(
      oom ? QStringLiteral("QLabel { background: #fde2e1; color: #8b1a1a; padding: 4px; }")
          : QStringLiteral("QLabel { background: #eef3ee; color: #2b4d2b; padding: 4px; }"));
  m_ranks->setRows(std::move(rows));
  updateNavigatorSource();
  for (const QString& a : newAlerts) {
    auto* item = new QListWidgetItem(a, m_alerts);
    item->setForeground(QColor(0xc6, 0x28, 0x28));
  }
  for (const auto& [line, path] : snapshots) {
    auto* item = new QListWidgetItem(line, m_alerts);
    item->setData(Qt::UserRole, path);
    item->setForeground(QColor(0x1f, 0x5f, 0xbf));
  }
  if (!newAlerts.isEmpty() || !snapshots.isEmpty()) m_alerts->scrollToBottom();
  if (!m_isRecording && m_client) {
    QString s = tr("%1 of %2 rank(s) live").arg(up).arg(m_client->endpoints().size());
    if (m_session->recording()) s += tr(" \u00b7 recording to %1").arg(safeText(m_session->recording_path()));
    m_status->setText(s);
  }
  if (m_prom) updatePrometheusStatus();
}

}  // namespace oomscope::ui
