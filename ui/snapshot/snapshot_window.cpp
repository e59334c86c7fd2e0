#include "ui/snapshot/snapshot_window.h"

#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <sstream>

#include "core/snapshot/snapshot_diff.h"
#include "core/util/error.h"
#include "ui/models/report_format.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/allocator_state_widget.h"
#include "ui/snapshot/category_rules_control.h"
#include "ui/snapshot/memory_timeline_widget.h"
#include "ui/snapshot/overlay_page.h"
#include "ui/snapshot/series_widget.h"
#include "ui/snapshot/snapshot_models.h"
#include "ui/snapshot/whatif_chart.h"
#include "ui/snapshot/whatif_panel.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {

QList<QPointer<SnapshotWindow>>& registry() {
  static QList<QPointer<SnapshotWindow>> windows;
  return windows;
}

QPlainTextEdit* monoText() {
  auto* t = new QPlainTextEdit;
  t->setReadOnly(true);
  t->setLineWrapMode(QPlainTextEdit::NoWrap);
  t->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return t;
}

SortedTableView* tableFor(QAbstractItemModel* model) {
  auto* view = new SortedTableView(model);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->useCompactRows();
  return view;
}

}  // namespace

SnapshotWindow::SnapshotWindow(QWidget* parent) : QMainWindow(parent) {
  registry().append(this);
  setAttribute(Qt::WA_DeleteOnClose);
  resize(1280, 820);
  m_tabs = new QTabWidget;
  setCentralWidget(m_tabs);
  m_status = new QLabel;
  m_status->setTextFormat(Qt::PlainText);  // the path and the error: never markup
  m_progress = new QProgressBar;
  m_progress->setRange(0, 100);
  m_progress->setMaximumWidth(200);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->hide();
  connect(m_cancel, &QPushButton::clicked, this, &SnapshotWindow::cancel);
  m_load = new JobTracker(this);
  connect(m_load, &JobTracker::progress, m_progress, [bar = m_progress](double fraction, const QString&) {
    bar->setValue(static_cast<int>(fraction * 100));
  });
  connect(m_load, &JobTracker::failed, this, [this](const JobError& e) { loadEnded(e.text()); });
  connect(m_load, &JobTracker::cancelled, this, [this] { loadEnded(tr("Loading was cancelled.")); });
  m_categories = new CategoryRulesControl(this);
  connect(m_categories, &CategoryRulesControl::applied, this,
          [this](std::shared_ptr<const SnapshotDocument> doc) {
            showCategories(std::move(doc));
            emit categoriesApplied();
          });
  connect(m_categories, &CategoryRulesControl::failed, this, [this](const QString& message) {
    m_status->setText(message);
    emit categoryRulesFailed(message);
  });
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  m_timelinePage = buildTimelinePage();
  m_statePage = buildStatePage();
  m_topPage = buildTopPage();
  m_report = monoText();
  m_diffPage = buildDiffPage();
  m_overlayPage = new OverlayPage;
  m_series = new SeriesWidget;
  m_seriesPage = m_series;
  m_whatIf = new WhatIfPanel;
  // The What if chart shows the timeline's entry range, and zooming or panning either moves both (the
  // timeline's setRange emits rangeChanged, the chart's does not, so the two do not loop).
  connect(m_timeline, &MemoryTimelineWidget::rangeChanged, m_whatIf->chart(), &WhatIfChart::setRange);
  connect(m_whatIf->chart(), &WhatIfChart::rangeChanged, m_timeline, &MemoryTimelineWidget::setRange);
}

void SnapshotWindow::applyCategoryRules(const QString& path) { m_categories->apply(path); }

QString SnapshotWindow::sessionCategoryRules() { return CategoryRulesControl::sessionRules(); }

void SnapshotWindow::showCategories(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  m_report->setPlainText(safeMultiline(m_doc->reportText));
  m_topModel->setDocument(m_doc);
  m_topView->resizeColumnsToContents();
  if (m_topModel->rowCount() > 0) m_topView->setCurrentIndex(m_topView->model()->index(0, 0));
  m_overlayPage->setBaseline(m_doc);
  for (SnapshotWindow* w : openWindows()) w->refreshDiffChoices();
  m_status->setText(tr("Categorised again: %1").arg(safeText(m_doc->path)));
}

SnapshotWindow::~SnapshotWindow() {
  registry().removeAll(this);
  for (SnapshotWindow* w : openWindows()) w->refreshDiffChoices();
}

QList<SnapshotWindow*> SnapshotWindow::openWindows() {
  QList<SnapshotWindow*> out;
  for (const auto& w : registry())
    if (w) out.append(w.data());
  return out;
}

SnapshotWindow* SnapshotWindow::openFile(const QString& path) {
  auto* window = new SnapshotWindow;
  window->show();
  window->load(path);
  return window;
}

void SnapshotWindow::load(const QString& path) {
  setWindowTitle(tr("%1 \u2014 oomscope").arg(QFileInfo(path).fileName()));
  m_status->setText(tr("Loading %1\u2026").arg(QFileInfo(path).fileName()));
  m_progress->setValue(0);
  m_progress->show();
  m_cancel->show();
  m_load->start<std::shared_ptr<const SnapshotDocument>>(
      path,
      [path](ProgressSink& progress, const std::stop_token& stop) {
        return loadSnapshotDocument(path, progress, stop);
      },
      [this](const std::shared_ptr<const SnapshotDocument>& doc) {
        m_progress->hide();
        m_cancel->hide();
        setDocument(doc);
        emit loaded();
        if (doc->snap && !sessionCategoryRules().isEmpty()) applyCategoryRules(sessionCategoryRules());
      });
}

void SnapshotWindow::loadEnded(const QString& message) {
  m_progress->hide();
  m_cancel->hide();
  m_status->setText(message);
  emit failed(message);
}

void SnapshotWindow::cancel() { m_load->cancel(); }

QWidget* SnapshotWindow::buildTimelinePage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  m_timelineHeader = new QLabel;
  m_timelineHeader->setWordWrap(true);
  m_timelineHeader->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_timeline = new MemoryTimelineWidget;
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Largest allocations drawn:")));
  m_drawn = new QSpinBox;
  m_drawn->setRange(0, 5000);
  m_drawn->setValue(m_timeline->maxDrawn());
  m_drawn->setToolTip(tr("The rest are summed into the grey band at the bottom"));
  connect(m_drawn, &QSpinBox::valueChanged, m_timeline, &MemoryTimelineWidget::setMaxDrawn);
  controls->addWidget(m_drawn);
  auto* reset = new QPushButton(tr("Show all"));
  connect(reset, &QPushButton::clicked, m_timeline, &MemoryTimelineWidget::resetZoom);
  controls->addWidget(reset);
  controls->addStretch(1);
  controls->addWidget(new QLabel(
      tr("Wheel: zoom \u00b7 drag: pan \u00b7 click: select an event \u00b7 hover: size and stack")));
  layout->addWidget(m_timelineHeader);
  layout->addWidget(m_timeline, 1);
  layout->addLayout(controls);
  connect(m_timeline, &MemoryTimelineWidget::eventSelected, this, [this](qint64 i) { selectEvent(i); });
  return page;
}

QWidget* SnapshotWindow::buildStatePage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  m_stateHeader = new QLabel;
  m_stateHeader->setWordWrap(true);
  m_stateHeader->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_state = new AllocatorStateWidget;
  auto* scroll = new QScrollArea;
  scroll->setWidget(m_state);
  scroll->setWidgetResizable(true);
  m_segmentModel = new SegmentStateModel(this);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scroll);
  auto* segments = tableFor(m_segmentModel);
  segments->sortByColumn(SegmentStateModel::Size, Qt::DescendingOrder);
  split->addWidget(segments);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* legend = new QLabel(tr(
      "Bars: segments, largest first. Colour: requested bytes of a live block \u00b7 orange: rounding slack "
      "\u00b7 red: freed, pending a stream event \u00b7 grey: free"));
  layout->addWidget(m_stateHeader);
  layout->addWidget(split, 1);
  layout->addWidget(legend);
  return page;
}

QWidget* SnapshotWindow::buildTopPage() {
  m_topModel = new TopAllocationsModel(this);
  auto* topView = tableFor(m_topModel);
  m_topView = topView;
  m_frames = monoText();
  auto* table = new QWidget;
  auto* layout = new QVBoxLayout(table);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_categories->label());
  layout->addWidget(m_topView, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table);
  split->addWidget(m_frames);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  connect(m_topView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, topView](const QModelIndex& current) {
            m_frames->setPlainText(m_topModel->framesText(topView->sourceIndex(current).row()));
          });
  return split;
}

QWidget* SnapshotWindow::buildDiffPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Compare with (B):")));
  m_diffChoice = new QComboBox;
  m_diffChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  row->addWidget(m_diffChoice, 1);
  layout->addLayout(row);
  m_diffModel = new DiffModel(this);
  auto* view = tableFor(m_diffModel);
  view->setSortingEnabled(false);
  m_diffText = monoText();
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(view);
  split->addWidget(m_diffText);
  layout->addWidget(split, 1);
  connect(m_diffChoice, &QComboBox::activated, this, [this](int i) {
    const QList<SnapshotWindow*> windows = openWindows();
    SnapshotWindow* chosen = nullptr;
    for (SnapshotWindow* w : windows)
      if (reinterpret_cast<quintptr>(w) == m_diffChoice->itemData(i).value<quintptr>()) chosen = w;
    compareWith(chosen);
  });
  return page;
}

void SnapshotWindow::refreshDiffChoices() {
  if (!m_doc || !m_doc->snap) return;
  m_diffChoice->clear();
  for (SnapshotWindow* w : openWindows())
    if (w != this && w->document() && w->document()->snap)
      m_diffChoice->addItem(w->document()->path,
                            QVariant::fromValue<quintptr>(reinterpret_cast<quintptr>(w)));
  const bool any = m_diffChoice->count() > 0;
  const int at = m_tabs->indexOf(m_diffPage);
  if (any && at < 0) m_tabs->addTab(m_diffPage, tr("Diff"));
  if (!any && at >= 0) m_tabs->removeTab(at);
  SnapshotWindow* first = nullptr;
  for (SnapshotWindow* w : openWindows())
    if (any && reinterpret_cast<quintptr>(w) == m_diffChoice->itemData(0).value<quintptr>()) first = w;
  compareWith(first);
}

void SnapshotWindow::compareWith(SnapshotWindow* other) {
  if (!other || !other->document() || !other->document()->snap || !m_doc || !m_doc->snap) {
    m_diffModel->setDiff(nullptr);
    m_diffText->clear();
    return;
  }
  const auto& b = *other->document();
  auto diff = std::make_shared<const snapshot::SnapshotDiff>(
      snapshot::diff_snapshots(*m_doc->snap, *m_doc->report, *b.snap, *b.report, 25, m_doc->rules.get()));
  m_diffModel->setDiff(diff);
  std::ostringstream text;
  snapshot::write_diff_text(text, *diff);
  m_diffText->setPlainText(safeMultiline(text.str()));
}

void SnapshotWindow::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  while (m_tabs->count()) m_tabs->removeTab(0);
  setWindowTitle(tr("%1 \u2014 oomscope").arg(QFileInfo(m_doc->path).fileName()));
  m_report->setPlainText(safeMultiline(m_doc->reportText));
  if (m_doc->snap) {
    const auto* d = m_doc->deviceAnalysis();
    m_timeline->setDocument(m_doc);
    m_topModel->setDocument(m_doc);
    m_categories->setDocument(m_doc);
    m_topView->resizeColumnsToContents();
    m_topView->sortByColumn(TopAllocationsModel::Size, Qt::DescendingOrder);
    if (m_topModel->rowCount() > 0) m_topView->setCurrentIndex(m_topView->model()->index(0, 0));
    QString header =
        tr("<b>%1</b> \u2014 device %2: %3 trace entries, active-memory peak <b>%4</b>")
            .arg(QFileInfo(m_doc->path).fileName().toHtmlEscaped())
            .arg(m_doc->device)
            .arg(d ? QLocale().toString(static_cast<qulonglong>(d->trace_entries)) : QStringLiteral("0"))
            .arg(bytesText(d ? d->timeline.peak_bytes : 0));
    if (d && d->timeline.peak_index >= 0)
      header += tr(" at entry %1").arg(d->timeline.peak_index);
    else
      header += tr(" from the start");
    header += tr("; reserved %1").arg(bytesText(m_doc->report->reserved));
    if (d && d->oom)
      header +=
          tr("; <span style='color:#c81e1e'>OOM at entry %1: %2 requested, %3 free on the device</span>")
              .arg(d->oom->index)
              .arg(bytesText(d->oom->requested), bytesText(d->oom->device_free));
    if (d && d->timeline.ghosts)
      header += tr("; %1 live blocks (%2) allocated before the trace")
                    .arg(d->timeline.ghosts)
                    .arg(bytesText(d->timeline.ghost_bytes));
    m_timelineHeader->setText(header);
    m_tabs->addTab(m_timelinePage, tr("Timeline"));
    m_tabs->addTab(m_statePage, tr("Allocator State"));
    m_tabs->addTab(m_topPage, tr("Top Allocations"));
    m_tabs->addTab(m_report, tr("Diagnosis"));
    if (d && d->trace_entries > 0) {
      m_whatIf->setSnapshot(m_doc->snap, m_doc->device);
      m_tabs->addTab(m_whatIf, tr("What if"));
    } else {
      m_whatIf->cancel();
    }
    m_overlayPage->setBaseline(m_doc);
    m_tabs->addTab(m_overlayPage, tr("Overlay"));
    selectEvent(d && d->oom ? d->oom->index : d ? d->timeline.peak_index : -1);
    for (SnapshotWindow* w : openWindows()) w->refreshDiffChoices();
  } else {
    m_series->setDocument(m_doc);
    if (!m_doc->series.empty()) m_tabs->addTab(m_seriesPage, tr("Memory over time"));
    m_tabs->addTab(m_report, tr("Report"));
    if (m_doc->kineto || m_doc->pprof) {  // two traces on one axis; two profiles side by side
      m_overlayPage->setBaseline(m_doc);
      m_tabs->addTab(m_overlayPage, tr("Overlay"));
    }
  }
  m_status->setText(
      tr("%1 \u2014 %2").arg(safeText(m_doc->path), QString::fromUtf8(snapshot::to_string(m_doc->kind))));
}

void SnapshotWindow::selectEvent(std::int64_t index) {
  if (!m_doc || !m_doc->snap) return;
  m_timeline->setSelectedIndex(index);
  m_selected = m_timeline->selectedIndex();
  auto state = std::make_shared<const snapshot::AllocatorState>(
      snapshot::allocator_state_at(*m_doc->snap, m_doc->device, m_selected));
  m_state->setState(m_doc->snap, state);
  m_segmentModel->setState(state);
  const auto* d = m_doc->deviceAnalysis();
  QString where =
      state->index < 0 ? tr("before the first trace entry") : tr("after trace entry %1").arg(state->index);
  if (d && d->oom && d->oom->index == state->index)
    where += tr(" (the OOM)");
  else if (d && state->index == d->timeline.peak_index)
    where += tr(" (the peak)");
  if (d && (d->trace_entries == 0 || state->index == static_cast<std::int64_t>(d->trace_entries) - 1))
    where += tr(", the snapshot itself");
  m_stateHeader->setText(
      tr("Allocator state %1: <b>%2 allocated / %3 reserved</b> in %4 segments; %5 free in the cache, "
         "largest free block %6, fragmentation %7 %; rounding waste %8")
          .arg(where, bytesText(state->allocated), bytesText(state->reserved))
          .arg(state->segments.size())
          .arg(bytesText(state->free_bytes), bytesText(state->largest_free))
          .arg(100.0 * state->fragmentation(), 0, 'f', 1)
          .arg(bytesText(state->rounding_waste)));
}

}  // namespace oomscope::ui
