// Two recordings on one axis, in a window of its own (live_recording_overlay.h).

#include "ui/live/live_recording_overlay.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <set>

#include "ui/live/recording_gap_model.h"
#include "ui/live/recording_overlay_chart.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {

QLabel* sentenceLabel(QWidget* parent, const char* name) {
  auto* label = new QLabel(parent);
  label->setObjectName(QString::fromLatin1(name));
  label->setTextFormat(Qt::PlainText);  // paths and sentences from the files
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace

LiveRecordingOverlay::LiveRecordingOverlay(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("liveRecordingOverlay"));
  setWindowTitle(tr("Two Recordings on One Axis"));
  resize(980, 760);
  auto* layout = new QVBoxLayout(this);
  m_title = sentenceLabel(this, "overlayTitle");
  m_error = sentenceLabel(this, "overlayError");
  m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
  m_error->hide();
  layout->addWidget(m_title);
  layout->addWidget(m_error);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Rank:"), this));
  m_rank = new QComboBox(this);
  m_rank->setObjectName(QStringLiteral("overlayRank"));
  bar->addWidget(m_rank);
  bar->addWidget(new QLabel(tr("Shift B by:"), this));
  m_shift = new QDoubleSpinBox(this);
  m_shift->setObjectName(QStringLiteral("overlayShift"));
  m_shift->setRange(-1e7, 1e7);
  m_shift->setToolTip(
      tr("Moves run B along the axis: in steps when both runs carry steps, else in seconds."));
  bar->addWidget(m_shift);
  m_axis = sentenceLabel(this, "overlayAxis");
  bar->addWidget(m_axis, 1);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Vertical, this);
  m_chart = new RecordingOverlayChart(split);
  auto* below = new QWidget(split);
  auto* belowLayout = new QVBoxLayout(below);
  belowLayout->setContentsMargins(0, 0, 0, 0);
  belowLayout->addWidget(new QLabel(tr("<b>The gap, as far as the recordings tell</b>"), below));
  m_explanation = sentenceLabel(below, "overlayExplanation");
  belowLayout->addWidget(m_explanation);
  m_gap = new RecordingGapModel(this);
  m_table = new SortedTableView(m_gap, below);
  m_table->setObjectName(QStringLiteral("overlayGapTable"));
  m_table->sortByColumn(RecordingGapModel::Rank, Qt::AscendingOrder);
  belowLayout->addWidget(m_table, 1);
  m_sites = sentenceLabel(below, "overlaySites");
  belowLayout->addWidget(m_sites);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);

  m_job = new JobTracker(this);
  connect(m_job, &JobTracker::failed, this, &LiveRecordingOverlay::showFailure);
  connect(m_rank, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_filling) recompute();
  });
  connect(m_shift, &QDoubleSpinBox::valueChanged, this, [this] {
    if (!m_filling) recompute();
  });
}

QString LiveRecordingOverlay::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }
QString LiveRecordingOverlay::explanationText() const { return m_explanation->text(); }
QString LiveRecordingOverlay::sitesText() const { return m_sites->text(); }

void LiveRecordingOverlay::open(const QString& pathA, const QString& pathB) {
  m_pathA = pathA;
  m_pathB = pathB;
  m_runs.reset();
  m_error->hide();
  m_title->setText(tr("A: %1\nB: %2").arg(safeText(pathA), safeText(pathB)));
  m_axis->setText(tr("Reading both recordings\u2026"));
  m_job->start<std::shared_ptr<const Runs>>(
      pathB,
      [a = pathA.toStdString(), b = pathB.toStdString()](ProgressSink&, const std::stop_token& stop) {
        auto runs = std::make_shared<Runs>();
        runs->b = live::read_overlay_run(b, stop);  // B first: the file just chosen is the likelier to fail
        runs->a = live::read_overlay_run(a, stop);
        return std::shared_ptr<const Runs>(std::move(runs));
      },
      [this](const std::shared_ptr<const Runs>& runs) { runsRead(runs); });
}

void LiveRecordingOverlay::runsRead(const std::shared_ptr<const Runs>& runs) {
  m_runs = runs;
  std::set<int> ranks;
  for (const live::RecordingComparison* c : {&runs->a.ranks, &runs->b.ranks})
    for (const live::RecordingRankFigures& f : c->ranks) ranks.insert(f.rank);
  m_filling = true;
  m_rank->clear();
  for (int r : ranks) m_rank->addItem(tr("rank %1").arg(r), r);
  m_rank->setCurrentIndex(std::max(0, m_rank->findData(runs->a.ranks.verdict.rank)));
  m_shift->setValue(0);
  m_filling = false;
  recompute();
}

void LiveRecordingOverlay::setRank(int rank) {
  const int i = m_rank->findData(rank);
  if (i >= 0) m_rank->setCurrentIndex(i);
}

void LiveRecordingOverlay::setShift(double shift) { m_shift->setValue(shift); }

void LiveRecordingOverlay::recompute() {
  if (!m_runs || m_rank->currentIndex() < 0) return;
  live::OverlayOptions opts;
  opts.rank = m_rank->currentData().toInt();
  opts.shift_b = m_shift->value();
  opts.buckets = std::max(100, m_chart->width() - 100);
  m_job->start<std::shared_ptr<const live::RecordingOverlay>>(
      m_pathB,
      [runs = m_runs, opts](ProgressSink&, const std::stop_token& stop) {
        return std::make_shared<const live::RecordingOverlay>(
            live::overlay_recordings(runs->a, runs->b, opts, stop));
      },
      [this](const std::shared_ptr<const live::RecordingOverlay>& o) { shown(o); });
}

void LiveRecordingOverlay::shown(const std::shared_ptr<const live::RecordingOverlay>& overlay) {
  m_error->hide();
  m_chart->setOverlay(overlay, tr("A: %1").arg(safeText(QFileInfo(m_pathA).fileName())),
                      tr("B: %1").arg(safeText(QFileInfo(m_pathB).fileName())));
  m_axis->setText(safeText(overlay->axis_note));
  m_filling = true;
  m_shift->setSuffix(overlay->axis == live::OverlayAxis::Step ? tr(" steps") : tr(" s"));
  m_shift->setDecimals(overlay->axis == live::OverlayAxis::Step ? 0 : 3);
  m_filling = false;
  QStringList lines;
  for (const std::string& s : overlay->sentences) lines << safeText(s);
  m_explanation->setText(lines.join(QLatin1Char('\n')));
  m_gap->setRows(overlay->gap);
  m_table->resizeColumnsToContents();
  m_sites->setText(safeText(overlay->sites_note));
  emit overlayShown();
}

void LiveRecordingOverlay::showFailure(const JobError& failure) {
  m_error->setText(failure.text());
  m_error->show();
  m_axis->setText(m_runs ? m_axis->text() : tr("Nothing to draw."));
  emit failed(failure.text());
}

}  // namespace oomscope::ui
