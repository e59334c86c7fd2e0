// The Live page's ranks compared as one job (live_rank_comparison.h).

#include "ui/live/live_rank_comparison.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "core/live/client/recording_ranks.h"
#include "core/live/client/session.h"
#include "ui/live/live_recording_overlay.h"
#include "ui/live/rank_comparison_model.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {
const QString kLiveSubject = QStringLiteral("live session");
}

LiveRankComparison::LiveRankComparison(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("liveRankComparison"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("<b>Ranks compared as one job</b>"), this), 1);
  m_compare = new QPushButton(tr("Compare with Recording\u2026"), this);
  m_compare->setObjectName(QStringLiteral("compareRecordingButton"));
  m_compare->setToolTip(tr("Lay a second recording over this one: both runs on one axis, the gap below."));
  m_compare->setEnabled(false);
  bar->addWidget(m_compare);
  layout->addLayout(bar);
  for (QLabel** label : {&m_verdict, &m_imbalance, &m_note}) {
    *label = new QLabel(this);
    (*label)->setTextFormat(Qt::PlainText);  // sentences with paths and hosts from the file
    (*label)->setWordWrap(true);
    (*label)->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(*label);
  }
  m_verdict->setObjectName(QStringLiteral("comparisonVerdict"));
  m_verdict->setText(tr("No ranks yet."));
  m_imbalance->hide();
  m_note->hide();
  m_model = new RankComparisonModel(this);
  m_table = new SortedTableView(m_model, this);
  m_table->setObjectName(QStringLiteral("comparisonTable"));
  m_table->sortByColumn(RankComparisonModel::Rank, Qt::AscendingOrder);
  layout->addWidget(m_table, 1);
  m_job = new JobTracker(this);
  connect(m_job, &JobTracker::failed, this, &LiveRankComparison::showFailure);
  connect(m_compare, &QPushButton::clicked, this, &LiveRankComparison::chooseRecording);
  m_timer = new QTimer(this);
  m_timer->setInterval(2000);  // a modest rate: the comparison walks every sample of every rank
  connect(m_timer, &QTimer::timeout, this, &LiveRankComparison::poll);
}

QString LiveRankComparison::verdictText() const { return m_verdict->text(); }
QString LiveRankComparison::noteText() const { return m_note->isHidden() ? QString() : m_note->text(); }

void LiveRankComparison::showSession(std::shared_ptr<live::LiveSession> session) {
  m_job->cancel();
  m_session = std::move(session);
  m_recording.clear();
  m_seenVersion = ~0ull;
  m_compare->setEnabled(false);
  m_model->setComparison(nullptr);
  m_verdict->setText(tr("No ranks yet."));
  m_imbalance->hide();
  m_note->hide();
  m_timer->start();
  poll();
}

void LiveRankComparison::showRecording(const QString& path) {
  m_timer->stop();
  m_session.reset();
  m_recording = path;
  m_compare->setEnabled(true);
  m_verdict->setText(tr("Comparing the ranks of %1\u2026").arg(safeText(path)));
  m_job->start<std::shared_ptr<const live::RecordingComparison>>(
      path,
      [p = path.toStdString()](ProgressSink&, const std::stop_token& stop) {
        return std::make_shared<const live::RecordingComparison>(live::compare_recording_ranks(p, stop));
      },
      [this](const std::shared_ptr<const live::RecordingComparison>& c) { show(c); });
}

void LiveRankComparison::refreshNow() { poll(); }

void LiveRankComparison::poll() {
  if (!m_session || m_job->busy()) return;  // the next tick picks up what changed meanwhile
  const std::uint64_t version = m_session->version();
  if (version == m_seenVersion) return;
  m_seenVersion = version;
  const bool any =
      m_session->read([](const live::Store& s, const live::AlertEngine&) { return s.sample_count() > 0; });
  if (!any) return;  // "No ranks yet." stays until the first sample
  m_job->start<std::shared_ptr<const live::RecordingComparison>>(
      kLiveSubject,
      [session = m_session](ProgressSink&, const std::stop_token&) {
        return session->read([](const live::Store& s, const live::AlertEngine&) {
          return std::make_shared<const live::RecordingComparison>(
              live::compare_store_ranks(s, kLiveSubject.toStdString()));
        });
      },
      [this](const std::shared_ptr<const live::RecordingComparison>& c) { show(c); });
}

void LiveRankComparison::show(const std::shared_ptr<const live::RecordingComparison>& c) {
  m_model->setComparison(c);
  m_verdict->setText(comparisonVerdictText(*c));
  m_imbalance->setText(comparisonImbalanceText(*c));
  m_imbalance->show();
  bool driver = false;
  for (const live::RecordingRankFigures& f : c->ranks) driver = driver || f.peak_driver.has_value();
  m_table->setColumnHidden(RankComparisonModel::PeakDriver, !driver);  // as `report` prints it
  QStringList notes;
  if (!c->truncated_note.empty()) notes << safeText(c->truncated_note);
  if (!c->thinned_note.empty()) notes << safeText(c->thinned_note);
  if (m_session) notes << tr("While attached: the figures so far, compared again every two seconds.");
  m_note->setText(notes.join(QLatin1Char('\n')));
  m_note->setVisible(!notes.isEmpty());
  m_table->resizeColumnsToContents();
}

void LiveRankComparison::showFailure(const JobError& failure) {
  m_model->setComparison(nullptr);
  m_verdict->setText(failure.text());
  m_imbalance->hide();
  m_note->hide();
}

void LiveRankComparison::chooseRecording() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Compare with Recording"), {},
                                                    tr("Live recordings (*.oomlive);;All files (*)"));
  if (!path.isEmpty()) compareWith(path);
}

bool LiveRankComparison::compareWith(const QString& path) {
  if (m_recording.isEmpty()) return false;
  if (!m_overlay) {
    m_overlay = new LiveRecordingOverlay(this);
    m_overlay->setWindowFlag(Qt::Window);
  }
  m_overlay->open(m_recording, path);
  m_overlay->show();
  emit overlayOpened(m_overlay);
  return true;
}

}  // namespace oomscope::ui
