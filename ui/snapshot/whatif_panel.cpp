#include "ui/snapshot/whatif_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/allocator/allocator_config.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "ui/models/report_format.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/whatif_chart.h"
#include "ui/snapshot/whatif_oom_model.h"
#include "ui/snapshot/whatif_scenario_model.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {

QString bytes(std::uint64_t v) { return bytesText(static_cast<qint64>(v)); }

}  // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent) {
  m_choiceJob = new JobTracker(this);
  m_standardJob = new JobTracker(this);
  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(150);
  connect(m_debounce, &QTimer::timeout, this, &WhatIfPanel::run);
  for (JobTracker* job : {m_choiceJob, m_standardJob}) {
    connect(job, &JobTracker::busyChanged, this, &WhatIfPanel::updateBusy);
    connect(job, &JobTracker::failed, this, [this](const JobError& e) { jobEnded(e.text()); });
  }
  connect(m_choiceJob, &JobTracker::progress, this,
          [this](double f, const QString&) { m_progress->setValue(static_cast<int>(f * 100)); });
  connect(m_choiceJob, &JobTracker::cancelled, this, [this] { jobEnded(tr("The replay was cancelled.")); });
  connect(m_standardJob, &JobTracker::progress, this,
          [this](double f, const QString&) { m_standardProgress->setValue(static_cast<int>(f * 100)); });
  connect(m_standardJob, &JobTracker::cancelled, this,
          [this] { m_searches->setText(tr("The standard scenarios were cancelled.")); });

  auto* layout = new QVBoxLayout(this);
  m_validation = new QLabel;
  m_validation->setWordWrap(true);
  m_validation->setTextFormat(Qt::PlainText);
  layout->addWidget(m_validation);
  layout->addWidget(buildControls());
  m_error = new QLabel;
  m_error->setTextFormat(Qt::PlainText);
  m_error->setStyleSheet(QStringLiteral("color: #c81e1e"));
  m_error->hide();
  layout->addWidget(m_error);
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  m_chart = new WhatIfChart;
  m_oomModel = new WhatIfOomModel(this);
  m_scenarioModel = new WhatIfScenarioModel(this);
  auto* scenarioView = new SortedTableView(m_scenarioModel);  // the recorded run first, as run
  scenarioView->useCompactRows();
  m_scenarioView = scenarioView;
  connect(m_scenarioView, &QTableView::doubleClicked, this, [this, scenarioView](const QModelIndex& i) {
    const allocator::Scenario* s = m_scenarioModel->scenario(scenarioView->sourceIndex(i).row());
    if (!s) return;
    WhatIfChoice c;
    if (s->kind != allocator::ScenarioKind::Recorded) c.settings.push_back(s->name);
    if (m_scenarioModel->result() && m_scenarioModel->result()->capacity &&
        !m_scenarioModel->result()->capacity_from_oom)
      c.capacity = m_scenarioModel->result()->capacity;
    setChoice(c);
  });
  auto* tables = new QSplitter(Qt::Horizontal);
  auto* oomView = new SortedTableView(m_oomModel);
  oomView->setSortingEnabled(false);  // the replay's OOMs in the order they happened
  oomView->useCompactRows();
  m_oomView = oomView;
  tables->addWidget(m_oomView);
  auto* scenarios = new QWidget;
  auto* sl = new QVBoxLayout(scenarios);
  sl->setContentsMargins(0, 0, 0, 0);
  auto* title =
      new QLabel(tr("Standard scenarios (as `oomscope-cli whatif` runs them; double-click one to "
                    "choose it) [derived]"));
  auto* titleRow = new QHBoxLayout;
  titleRow->addWidget(title, 1);
  m_standardProgress = new QProgressBar;
  m_standardProgress->setRange(0, 100);
  m_standardProgress->setMaximumWidth(140);
  m_standardProgress->setFormat(tr("replaying %p %"));
  m_standardProgress->hide();
  titleRow->addWidget(m_standardProgress);
  sl->addLayout(titleRow);
  sl->addWidget(m_scenarioView, 1);
  m_searches = new QLabel;
  m_searches->setWordWrap(true);
  m_searches->setTextFormat(Qt::PlainText);
  sl->addWidget(m_searches);
  tables->addWidget(scenarios);
  tables->setStretchFactor(0, 2);
  tables->setStretchFactor(1, 3);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_chart);
  split->addWidget(tables);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
}

WhatIfPanel::~WhatIfPanel() = default;

QWidget* WhatIfPanel::buildControls() {
  auto* row = new QWidget;
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  h->addWidget(new QLabel(tr("Capacity:")));
  m_capacity = new QLineEdit;
  m_capacity->setPlaceholderText(tr("as recorded"));
  m_capacity->setToolTip(tr("The most the allocator may reserve: bytes, or with a unit (24GiB, 80GB)"));
  m_capacity->setMaximumWidth(110);
  connect(m_capacity, &QLineEdit::editingFinished, this, &WhatIfPanel::scheduleRun);
  h->addWidget(m_capacity);
  h->addWidget(new QLabel(QStringLiteral("expandable_segments:")));
  m_expandable = new QComboBox;
  m_expandable->addItem(tr("as recorded"), QString());
  m_expandable->addItem(QStringLiteral("True"), QStringLiteral("True"));
  m_expandable->addItem(QStringLiteral("False"), QStringLiteral("False"));
  connect(m_expandable, &QComboBox::currentIndexChanged, this, &WhatIfPanel::scheduleRun);
  h->addWidget(m_expandable);
  h->addWidget(new QLabel(QStringLiteral("max_split_size_mb:")));
  // As recorded, none (every block may be split: PyTorch's default), or a limit in MiB.
  m_maxSplitMode = new QComboBox;
  m_maxSplitMode->addItem(tr("as recorded"));
  m_maxSplitMode->addItem(tr("none (unlimited)"));
  m_maxSplitMode->addItem(tr("MiB:"));
  connect(m_maxSplitMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
    m_maxSplit->setEnabled(mode == 2);
    scheduleRun();
  });
  h->addWidget(m_maxSplitMode);
  m_maxSplit = new QSpinBox;
  m_maxSplit->setRange(21, 1 << 20);
  m_maxSplit->setValue(512);
  m_maxSplit->setEnabled(false);
  m_maxSplit->setToolTip(tr("above 20 MiB; blocks at or above it are never split"));
  connect(m_maxSplit, &QSpinBox::valueChanged, this, &WhatIfPanel::scheduleRun);
  h->addWidget(m_maxSplit);
  h->addWidget(new QLabel(QStringLiteral("roundup_power2_divisions:")));
  m_divisions = new QSpinBox;
  m_divisions->setRange(0, 64);
  m_divisions->setSpecialValueText(tr("as recorded"));
  connect(m_divisions, &QSpinBox::valueChanged, this, &WhatIfPanel::scheduleRun);
  h->addWidget(m_divisions);
  h->addWidget(new QLabel(QStringLiteral("garbage_collection_threshold:")));
  m_gc = new QDoubleSpinBox;
  m_gc->setRange(0.0, 0.99);
  m_gc->setSingleStep(0.05);
  m_gc->setSpecialValueText(tr("as recorded"));
  m_gc->setToolTip(tr("acts only with a capacity (PyTorch: under set_per_process_memory_fraction)"));
  connect(m_gc, &QDoubleSpinBox::valueChanged, this, &WhatIfPanel::scheduleRun);
  h->addWidget(m_gc);
  auto* reset = new QPushButton(tr("As recorded"));
  connect(reset, &QPushButton::clicked, this, [this] { setChoice({}); });
  h->addWidget(reset);
  h->addStretch(1);
  m_progress = new QProgressBar;
  m_progress->setRange(0, 100);
  m_progress->setMaximumWidth(140);
  m_progress->hide();
  h->addWidget(m_progress);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->hide();
  connect(m_cancel, &QPushButton::clicked, this, &WhatIfPanel::cancel);
  h->addWidget(m_cancel);
  return row;
}

void WhatIfPanel::setSnapshot(std::shared_ptr<const snapshot::Snapshot> snap, std::int64_t device) {
  m_snap = std::move(snap);
  m_device = device;
  m_view.reset();
  m_chart->setView(nullptr);
  m_oomModel->setOom(std::nullopt, nullptr);
  m_scenarioModel->setResult(nullptr);
  m_searches->setText(tr("Replaying the standard scenarios\u2026"));
  m_standardProgress->setValue(0);
  auto s = m_snap;
  m_standardJob->start<std::shared_ptr<const allocator::WhatIfResult>>(
      QString::fromStdString(m_snap->path),
      [s, device](ProgressSink& progress, const std::stop_token& stop) {
        return std::make_shared<const allocator::WhatIfResult>(
            buildStandardScenarios(*s, device, progress, stop));
      },
      [this](const std::shared_ptr<const allocator::WhatIfResult>& r) { showStandard(r); });
  setChoice({});
}

void WhatIfPanel::setChoice(const WhatIfChoice& c) {
  m_settingControls = true;
  m_capacity->setText(c.capacity ? QString::number(*c.capacity) : QString());
  m_expandable->setCurrentIndex(0);
  m_maxSplitMode->setCurrentIndex(0);
  m_divisions->setValue(0);
  m_gc->setValue(0.0);
  for (const std::string& kv : c.settings) {
    const auto colon = kv.find(':');
    const std::string key = kv.substr(0, colon);
    const QString value =
        QString::fromStdString(colon == std::string::npos ? std::string() : kv.substr(colon + 1));
    if (key == "expandable_segments")
      m_expandable->setCurrentIndex(value.compare(QStringLiteral("true"), Qt::CaseInsensitive) == 0 ? 1 : 2);
    else if (key == "max_split_size_mb" && value.compare(QStringLiteral("none"), Qt::CaseInsensitive) == 0)
      m_maxSplitMode->setCurrentIndex(1);
    else if (key == "max_split_size_mb") {
      m_maxSplitMode->setCurrentIndex(2);
      m_maxSplit->setValue(value.toInt());
    } else if (key == "roundup_power2_divisions")
      m_divisions->setValue(value.toInt());
    else if (key == "garbage_collection_threshold")
      m_gc->setValue(value.toDouble());
  }
  m_settingControls = false;
  m_debounce->stop();
  run();
}

std::optional<WhatIfChoice> WhatIfPanel::choice() {
  WhatIfChoice c;
  const QString cap = m_capacity->text().trimmed();
  if (!cap.isEmpty()) {
    const ParsedBytes parsed = parse_byte_size(cap.toStdString());
    if (!parsed || parsed.bytes < 1) {
      m_error->setText(tr("Capacity: %1")
                           .arg(parsed ? tr("'%1' is no memory; give at least one byte").arg(cap)
                                       : safeText(parsed.error)));
      m_error->show();
      return std::nullopt;
    }
    c.capacity = static_cast<std::uint64_t>(parsed.bytes);
  }
  if (m_expandable->currentIndex() > 0)
    c.settings.push_back("expandable_segments:" + m_expandable->currentData().toString().toStdString());
  if (m_maxSplitMode->currentIndex() == 1) c.settings.emplace_back("max_split_size_mb:none");
  if (m_maxSplitMode->currentIndex() == 2)
    c.settings.push_back("max_split_size_mb:" + std::to_string(m_maxSplit->value()));
  if (m_divisions->value() > 0)
    c.settings.push_back("roundup_power2_divisions:" + std::to_string(m_divisions->value()));
  if (m_gc->value() > 0)
    c.settings.push_back("garbage_collection_threshold:" + QString::number(m_gc->value()).toStdString());
  allocator::AllocatorConfig check;
  for (const std::string& kv : c.settings) {
    try {
      allocator::apply_setting(check, kv);
    } catch (const Error& e) {
      m_error->setText(safeText(e.message()));
      m_error->show();
      return std::nullopt;
    }
  }
  m_error->hide();
  m_error->clear();
  return c;
}

QString WhatIfPanel::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

void WhatIfPanel::scheduleRun() {
  if (!m_settingControls) m_debounce->start();
}

void WhatIfPanel::run() {
  if (!m_snap) return;
  const std::optional<WhatIfChoice> c = choice();
  if (!c) {
    m_choiceJob->cancel();
    return;
  }
  if (m_view && m_view->choice == *c && !m_choiceJob->busy()) return;
  m_summary->setText(tr("Replaying under %1\u2026").arg(c->describe()));
  m_progress->setValue(0);
  auto s = m_snap;
  const std::int64_t device = m_device;
  m_choiceJob->start<std::shared_ptr<const WhatIfView>>(
      QString::fromStdString(m_snap->path),
      [s, device, choice = *c](ProgressSink& progress, const std::stop_token& stop) {
        return std::make_shared<const WhatIfView>(buildWhatIfView(*s, device, choice, progress, stop));
      },
      [this](const std::shared_ptr<const WhatIfView>& v) { showView(v); });
}

void WhatIfPanel::cancel() {
  m_choiceJob->cancel();
  m_standardJob->cancel();
}

void WhatIfPanel::showView(std::shared_ptr<const WhatIfView> view) {
  m_view = std::move(view);
  const allocator::WhatIfResult& w = m_view->result;
  const allocator::Scenario& s = m_view->scenario();
  const allocator::ReplayResult& rec = w.recorded.result;
  const allocator::ReplayResult& r = s.result;
  const auto& v = rec.validation;
  if (w.validated())
    m_validation->setText(
        tr("The replay under the recorded settings reproduced the recording (%1 of %2 segment events, %3 of "
           "%4 "
           "block addresses, the final segments): the figures below are predictions [derived by replay].")
            .arg(v->segment_events_matched)
            .arg(v->segment_events_recorded)
            .arg(v->allocs_at_recorded_address)
            .arg(v->allocs));
  else
    m_validation->setText(
        tr("Not a prediction: the replay under the recorded settings %1.")
            .arg(!v || !v->checked ? tr("had nothing in the trace to be checked against")
                 : v->first_divergence
                     ? tr("did not reproduce the recording (%1)").arg(safeText(v->first_divergence->what))
                     : tr("did not reproduce the recording")));
  QString text = tr("%1: peak reserved %2 (recorded run %3), peak allocated %4 (recorded run %5)")
                     .arg(m_view->choice.describe(), bytes(r.peak_reserved), bytes(rec.peak_reserved),
                          bytes(r.peak_allocated), bytes(rec.peak_allocated));
  if (s.saved_vs_recorded)
    text += *s.saved_vs_recorded >= 0 ? tr("; %1 less reserved").arg(bytesText(*s.saved_vs_recorded))
                                      : tr("; %1 more reserved").arg(bytesText(-*s.saved_vs_recorded));
  text += r.first_oom ? tr("; the first allocation to fail: entry %1, %2 requested")
                            .arg(r.first_oom->trace_index)
                            .arg(bytes(r.first_oom->detail.requested))
                      : tr("; no allocation fails");
  if (r.capacity == allocator::kNoLimit) text += tr("; capacity unlimited");
  m_summary->setText(text + tr(" [derived by replay]"));
  m_chart->setView(m_view);
  const auto& trace = m_snap->device_traces[static_cast<std::size_t>(w.device)];
  m_oomModel->setOom(r.first_oom, m_snap, trace.empty() ? -1 : trace.front().time_us);
  if (!r.first_oom)
    m_oomModel->setNone(tr("none: no allocation fails under %1").arg(m_view->choice.describe()));
  m_oomView->resizeColumnToContents(0);
  emit viewChanged();
}

void WhatIfPanel::showStandard(const std::shared_ptr<const allocator::WhatIfResult>& result) {
  m_scenarioModel->setResult(result);
  m_scenarioView->resizeColumnsToContents();
  QStringList lines;
  for (const allocator::CapacitySearch& c : result->capacity_searches)
    lines << (c.capacity ? tr("Smallest capacity without an OOM under %1: %2")
                               .arg(QString::fromStdString(c.settings), bytes(*c.capacity))
                         : tr("Under %1 no capacity up to %2 ran without an OOM")
                               .arg(QString::fromStdString(c.settings), bytes(c.searched_up_to)));
  if (!result->validated())
    lines << tr("The recorded run was not reproduced: these figures are not predictions.");
  m_searches->setText(lines.join(QLatin1Char('\n')) + tr(" [derived by replay]"));
  emit standardChanged();
}

void WhatIfPanel::updateBusy() {
  const bool busy = m_choiceJob->busy() || m_standardJob->busy();
  m_progress->setVisible(m_choiceJob->busy());
  m_standardProgress->setVisible(m_standardJob->busy());
  m_cancel->setVisible(busy);
}

void WhatIfPanel::jobEnded(const QString& message) {
  m_summary->setText(message);
  updateBusy();
}

}  // namespace oomscope::ui
